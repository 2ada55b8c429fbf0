/* lib/exec/select.h - choosing, per call site and by measurement, among a few candidate ways of
 * running an execution (arms): auto's execution plans (lib/exec/plan.c), by trials; and
 * libloopfarm-kmp's even and weighted static splits (lib/kmp/static.c), by a paired judgement
 * of one measured and one modelled time per execution (struct lf__pair, at the end).
 *
 * An arm is exploited (the chosen one) or on trial.  A site runs its settling arm for its
 * first few executions (the caller says how many: LF__SEL_SETTLE for auto's plans); then every
 * other allowed arm is tried for a trial's length of executions in a row (LF__SEL_TRIAL at
 * first, cut short once it loses by far: LF__SEL_CUT) and judged against the chosen arm's
 * latest samples; a challenger that beats the chosen arm by more than LF__SEL_HYST becomes the
 * chosen one; one that loses is tried again after a gap that doubles each time it loses (from
 * LF__SEL_GAP_MIN) and is at least len (r - 1) / LF__SEL_SHARE executions, len the trial's
 * length and r its time over the chosen arm's (to LF__SEL_GAP_MAX).  So in steady state a
 * site's time is within about (1 + LF__SEL_HYST) of its best arm's plus LF__SEL_SHARE for each
 * other arm (doc/auto.md).
 * When the chosen arm's own samples rise above another's latest trial by the same margin, that
 * one is due for a trial at once: a choice is only ever made by a trial against the chosen
 * arm's latest samples, never by samples of another time.
 *
 * Load that comes and goes in phases of a few executions makes such short comparisons fall in
 * different phases, and the choice flips back and forth.  A switch back to the arm chosen
 * before within LF__SEL_FLIP trial lengths is a flip, and doubles the trial's length (to
 * LF__SEL_KEEP); trials longer than LF__SEL_TRIAL are judged on their mean against the mean of
 * as many of the chosen arm's latest samples, which span the phases and so weigh them as the
 * site's time does.  LF__SEL_CALM trial lengths without a switch halve it again.
 *
 * A median of a few samples also hides a mode: a plan fast in most executions and far slower
 * in the rest (a guided schedule whose first, largest chunk goes to a slow thread whenever that
 * thread arrives first) wins on its median and costs its mean.  So samples that disagree, a
 * short trial's or the chosen arm's latest LF__SEL_WIN (each over the chosen arm's reference of
 * its range, below), whose mean and median differ by more than LF__SEL_HYST of the median,
 * double the trial length as a flip does: the trial runs on to the new length and every arm is
 * judged on means.  An arm that lost a trial shorter than the new length is due again within
 * LF__SEL_GAP_MIN executions, since that verdict came from a comparison the site's times do not
 * support.
 *
 * A time per iteration still depends on the trip count where an execution has a fixed cost
 * (a fork, a barrier, a thread that arrives a time slice late) or its iterations differ: a
 * frontier's executions of a few and of thousands of iterations are unlike.  So each sample of
 * a trial is judged against the chosen arm's samples whose trip count lies in the same
 * power-of-two range (2^k to 2^(k+1) - 1), and against all of its latest only where it has
 * none such.  At a site whose trip count stays in one range this is the plain comparison
 * above.
 *
 * Pure: no clock, no atomics; the caller measures, normalises (time per iteration) and
 * serialises a selection's use. */
#ifndef LF_EXEC_SELECT_H
#define LF_EXEC_SELECT_H

/* Arms a selection holds at most. */
#define LF__SEL_ARMS 5

/* Samples of wall time the chosen arm is judged on while trials are short (its latest ones,
 * by their median). */
#define LF__SEL_WIN 5
/* Executions in a row an arm other than the chosen one runs when it is tried (first, and each
 * rerun), while the site's samples agree and its choice does not flip: it is judged on their
 * median. */
#define LF__SEL_TRIAL 3
/* Samples an arm keeps: the longest trial (LF__SEL_TRIAL doubled at most four times). */
#define LF__SEL_KEEP 48
/* A switch back to the arm chosen before, within this many trial lengths of the switch away
 * from it, is a flip: it doubles the trial's length. */
#define LF__SEL_FLIP 8
/* A site whose trials are longer than LF__SEL_TRIAL halves them after this many trial lengths
 * without a switch, so that a load that stopped coming and going (or samples that stopped
 * disagreeing) is followed quickly again. */
#define LF__SEL_CALM 32
/* Executions an auto site runs its settling arm before it tries any other: a site that runs
 * only a few times stays on the arm that is safest by the suite's evidence (doc/auto.md). */
#define LF__SEL_SETTLE 8
/* A challenger replaces the chosen arm when its median is below the chosen one's by more than
 * this fraction (hysteresis: one noisy execution does not flip the choice). */
#define LF__SEL_HYST 0.02
/* Exploration budget per losing arm: it is tried again after a gap of at least
 * len (r - 1) / LF__SEL_SHARE executions, len the trial's length and r its time over the chosen
 * arm's, so that its trials cost at most this share of the site's time. */
#define LF__SEL_SHARE   0.005
#define LF__SEL_GAP_MIN 4
#define LF__SEL_GAP_MAX 4096
/* A quick arm (in struct lf__select's quick set, the caller's choice: an arm whose loss can be
 * large) ends its trial as soon as the mean of its samples' ratios over the chosen arm's
 * references exceeds 1 + LF__SEL_QUICK: up to the execution that ends it, its excess over the
 * chosen arm is at most LF__SEL_QUICK per execution, so a trial of L executions costs at most
 * LF__SEL_QUICK (L - 1) plus one execution's excess.  That verdict stands whatever length the
 * site's trials take later, and the gap to its rerun is figured on the executions it ran. */
#define LF__SEL_QUICK 0.1
/* While a site's trials are short (LF__SEL_TRIAL: its times hold still), every other arm's
 * trial ends once each of its first LF__SEL_CUT_AFTER ratios exceeds 1 + LF__SEL_CUT: an
 * arm several times slower than the chosen one (a self-scheduled plan on a loop whose chunks
 * contend) costs LF__SEL_CUT_AFTER executions' excess, not its whole trial's.  Every ratio, not
 * their mean, so that one execution a time slice late does not end the trial of an arm that
 * would win.  Not in lengthened trials: there the times move with a load, two executions in a
 * slow phase would end the trial that was to correct a choice made in a fast one, and a site
 * stays on the worse arm.  When trials lengthen, a cut arm is due again as every shorter
 * verdict is. */
#define LF__SEL_CUT       0.5
#define LF__SEL_CUT_AFTER 2
_Static_assert(LF__SEL_CUT_AFTER < LF__SEL_TRIAL, "a cut ends a short trial before its end");
/* Power-of-two ranges of trip counts (the last one holds every count from 2^63). */
#define LF__SEL_RANGES 64

/* One candidate of a call site: its latest normalised times (ns of wall time per iteration)
 * and the ranges of their trip counts, how often it ran, and when it is due again. */
struct lf__arm {
    float ns[LF__SEL_KEEP];            /* a ring; float: a time per iteration needs no more */
    unsigned char range[LF__SEL_KEEP]; /* each sample's range of trip counts (see above) */
    unsigned have, at;                 /* samples held (<= LF__SEL_KEEP); the next one's place */
    unsigned fresh;                    /* samples of the trial in progress (0: none is) */
    unsigned judged; /* the length of trials its latest verdict holds for (0: none) */
    unsigned long runs;
    unsigned long due; /* the site's booked execution count at which it is rerun */
    unsigned long gap;
};

/* A call site's selection between its arms.  A zeroed one is a fresh site whose chosen arm
 * is arm 0. */
struct lf__select {
    struct lf__arm arm[LF__SEL_ARMS];
    int chosen;          /* the arm exploited now */
    int before;          /* the arm chosen before it, plus one (0: none) */
    unsigned len;        /* executions a trial runs and arms are judged on (0: LF__SEL_TRIAL) */
    unsigned quick;      /* bit k: arm k is quick (LF__SEL_QUICK); set by the caller */
    unsigned long since; /* execs booked when the choice or len last changed */
    unsigned long execs; /* executions booked */
    unsigned long switches;
};

/* The arm the next execution runs, among the arms in mask (bit k: arm k may run; settle's bit
 * is always taken as set): settle for the site's first settle_execs booked executions; then
 * one in the middle of its trial; else one never run, lowest first; else the one longest
 * overdue for a rerun, whose samples, measured long ago, are dropped as its trial begins;
 * else the chosen one when mask allows it, settle otherwise. */
int lf__select_next(struct lf__select *sel, unsigned mask, int settle, unsigned settle_execs);

/* The executions a trial at this site runs now: LF__SEL_TRIAL, or more after flips. */
unsigned lf__select_trial(const struct lf__select *sel);

/* Book one execution of arm k over n iterations (n > 0) whose normalised time was x (ns per
 * iteration, >= 0) and update the choice (see above). */
void lf__select_book(struct lf__select *sel, int k, double x, double n);

/* The power-of-two range of trip count n (n >= 1: floor(log2 n), at most LF__SEL_RANGES - 1;
 * below 1: 0): samples in one range are comparable. */
int lf__select_range(double n);

/* The median of an arm's latest LF__SEL_WIN samples, or of all when it has fewer (0 when it
 * has none): what LF_VERBOSE reports. */
double lf__select_median(const struct lf__arm *a);

/* A paired judgement of two arms (arm 0, the control, and arm 1), for a site where every
 * execution yields a time for both: the one it ran, measured, and the other, modelled from
 * the same execution's measurements (libloopfarm-kmp's static splits: each member's rate over
 * its own range predicts its time over the range the other split would have given it).  Both
 * times of a pair fall under the same load, so a load that comes and goes cannot make one arm
 * win by the phase it ran in, and no execution is spent on trials.
 *
 * The site runs arm 0 until LF__PAIR_MIN pairs are booked; then it runs arm 1 while the
 * median of the latest LF__PAIR_WIN ratios (arm 1's time over arm 0's) lies below
 * 1 - LF__SEL_HYST, and goes back to arm 0 once it rises above 1 / (1 - LF__SEL_HYST).  A median
 * so that an execution a time slice late, which the model reads as a slow rate, decides nothing
 * unless most executions are so.  Where the model is right, a site's time in steady state is
 * within about (1 + LF__SEL_HYST) of its better arm's, at no exploration cost; where it errs, no
 * measurement of the arm not run corrects it (doc/kmp-shim.md says when it errs). */
#define LF__PAIR_WIN 7
#define LF__PAIR_MIN 3

struct lf__pair {
    float q[LF__PAIR_WIN]; /* a ring of ratios, arm 1's time over arm 0's */
    unsigned have, at;     /* ratios held (<= LF__PAIR_WIN); the next one's place */
    int chosen;            /* the arm the next execution runs */
    unsigned long pairs, switches;
};

/* Book one execution's pair: t0 and t1, the times arms 0 and 1 took or would have taken
 * (> 0; a pair with either not positive and finite is ignored), and update the choice. */
void lf__pair_book(struct lf__pair *p, double t0, double t1);

/* The median of the ratios held (1 when none is): what LF_VERBOSE reports. */
double lf__pair_median(const struct lf__pair *p);

#endif
