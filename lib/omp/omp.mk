# lib/omp: the binding to OpenMP teams behind the LF_FOR macros.
LF_CORE_SOURCES += \
	lib/omp/team.c
