/* lib/exec/select.h - choosing, per call site and by measurement, among a few candidate ways of
 * running an execution (arms): auto's execution plans (lib/exec/plan.c) and libloopfarm-kmp's
 * even and weighted static splits (lib/kmp/static.c).
 *
 * An arm is exploited (the chosen one) or on trial.  A site runs its settling arm for its
 * first LF__SEL_SETTLE executions; then every other allowed arm is tried, one at a time.  A
 * trial is paired: the challenger and the chosen arm run in turn, challenger first, until each
 * has LF__SEL_TRIAL executions of the trial, and the challenger is judged on its median against
 * the chosen arm's median over those same turns, so a load that comes and goes falls on both
 * alike.  A challenger that beats the chosen arm by more than LF__SEL_HYST becomes the chosen
 * one; one that loses is tried again after a gap that doubles each time it loses (from
 * LF__SEL_GAP_MIN) and is at least LF__SEL_TRIAL (r - 1) / LF__SEL_SHARE executions, r its
 * time over the chosen arm's (to LF__SEL_GAP_MAX).  So in steady state a site's time is within
 * about 1 + LF__SEL_HYST of its best arm's plus LF__SEL_SHARE for each other arm (doc/auto.md).
 * When the chosen arm's own median rises above both another's latest trial median and its own
 * median in that trial by the same margin, that one's rerun is brought forward (a paired trial
 * decides, not the stale samples), once per trial and to no less than a quarter of its gap
 * after it: such reruns cost at most 4 LF__SEL_SHARE per arm, whatever the load does.
 *
 * Pure: no clock, no atomics; the caller measures, normalises (time per iteration, so that
 * trip counts that change still compare) and serialises a selection's use. */
#ifndef LF_EXEC_SELECT_H
#define LF_EXEC_SELECT_H

/* Arms a selection holds at most. */
#define LF__SEL_ARMS 4

/* Samples of wall time an arm keeps (its latest ones). */
#define LF__SEL_WIN 5
/* Executions a challenger runs in a trial (first, and each rerun), each followed by one of the
 * chosen arm: it is judged on their median, so one noisy execution neither makes nor breaks it. */
#define LF__SEL_TRIAL 3
/* Executions a site runs its settling arm before it tries any other: a site that runs only a
 * few times stays on the arm that is safest by the suite's evidence (doc/auto.md). */
#define LF__SEL_SETTLE 8
/* A challenger replaces the chosen arm when its median is below the chosen one's by more than
 * this fraction (hysteresis: one noisy execution does not flip the choice). */
#define LF__SEL_HYST 0.02
/* Exploration budget per losing arm: it is tried again after a gap of at least
 * LF__SEL_TRIAL (r - 1) / LF__SEL_SHARE executions, r its time over the chosen arm's, so that
 * its trials cost at most this share of the site's time. */
#define LF__SEL_SHARE   0.005
#define LF__SEL_GAP_MIN 4
#define LF__SEL_GAP_MAX 4096

/* One candidate of a call site: its latest normalised times (ns of wall time per iteration),
 * how often it ran, and when it is due again. */
struct lf__arm {
    double ns[LF__SEL_WIN];
    unsigned have, at; /* samples held (<= LF__SEL_WIN); the next one's place */
    unsigned fresh;    /* samples of the trial in progress (0: none is) */
    unsigned long runs;
    unsigned long due; /* the site's booked execution count at which it is rerun */
    unsigned long gap;
    double ref; /* the chosen arm's median over this arm's latest trial */
    int pulled; /* its rerun was brought forward since that trial */
};

/* A call site's selection between its arms.  A zeroed one is a fresh site whose chosen arm
 * is arm 0. */
struct lf__select {
    struct lf__arm arm[LF__SEL_ARMS];
    int chosen;      /* the arm exploited now */
    int trial;       /* 1 + the arm on trial; 0: none is */
    unsigned paired; /* the chosen arm's executions in the trial */
    double pair_ns[LF__SEL_TRIAL];
    int chosen_ran;      /* the chosen arm was allowed at the latest lf__select_next */
    unsigned long execs; /* executions booked */
    unsigned long switches;
};

/* The arm the next execution runs, among the arms in mask (bit k: arm k may run; settle's bit
 * is always taken as set): settle for the site's first LF__SEL_SETTLE booked executions; then,
 * in a trial, the challenger or the chosen arm, whichever has had fewer of the trial's turns
 * (the challenger on a tie; it alone when the chosen arm is not in mask); else it starts a
 * trial of an arm never run, lowest first, or else of the one longest overdue for a rerun,
 * whose samples, measured long ago, are dropped; else the chosen one when mask allows it,
 * settle otherwise. */
int lf__select_next(struct lf__select *sel, unsigned mask, int settle);

/* Book one execution of arm k whose normalised time was x (ns per iteration, >= 0) and update
 * the choice (see above). */
void lf__select_book(struct lf__select *sel, int k, double x);

/* The median of an arm's samples (0 when it has none). */
double lf__select_median(const struct lf__arm *a);

#endif
