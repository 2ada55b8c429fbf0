# Core of the library: policy contract and registry, dispatcher, OpenMP binding.
libloopfarm_la_SOURCES += \
	lib/atomics.h \
	lib/policy/policy.h \
	lib/policy/params.c \
	lib/policy/registry.c \
	lib/policy/locality.h \
	lib/policy/locality.c \
	lib/platform/clock.h \
	lib/platform/clock.c \
	lib/dispatch/dispatch.h \
	lib/dispatch/loop.c \
	lib/dispatch/locality.c \
	lib/dispatch/trace.c \
	lib/omp/team.c \
	lib/omp/schedule.c
