# lib/exec: the executor protocol, pure: what every executor (dispatcher,
# simulator, test rigs) does around a policy.
LF_CORE_SOURCES += \
	lib/exec/exec.h \
	lib/exec/exec.c \
	lib/exec/plan.c \
	lib/exec/select.h \
	lib/exec/select.c \
	lib/exec/profile.c
