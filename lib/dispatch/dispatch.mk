# lib/dispatch: the real-time executor for threads (lock-free claims,
# measurement, staging, traces) and the public schedule objects.
LF_CORE_SOURCES += \
	lib/atomics.h \
	lib/dispatch/dispatch.h \
	lib/dispatch/loop.c \
	lib/dispatch/claim.c \
	lib/dispatch/light.c \
	lib/dispatch/lease.c \
	lib/dispatch/measure.c \
	lib/dispatch/locality.c \
	lib/dispatch/staging.c \
	lib/dispatch/schedule.c \
	lib/dispatch/trace.c
