/* lib/sim/plan.h - lf-plan's arithmetic: optimal chunk sizes of a
 * multi-round divisible-load schedule for a given activation sequence, by
 * linear programming, and the heuristics that choose a sequence.
 *
 * Reference: Y. Yang, H. Casanova, M. Drozdowski, M. Lawenda, A. Legrand,
 * "On the complexity of multi-round divisible load scheduling", INRIA
 * research report RR-6096, 2007 (seed 004); equation numbers are its own.
 * UMR's plan is Y. Yang & H. Casanova, "Multi-Round Algorithms for
 * Scheduling Divisible Loads", IEEE TPDS, 2005 (seed 003), computed by
 * lib/policy/rounds.c.
 *
 * Model (seed 004 §2): one master sends chunks over one port, in the order
 * of the activation sequence sigma; sending alpha units to worker i takes
 * S_i + alpha C_i; computing them takes alpha A_i (plus a per-chunk compute
 * latency L_i, seed 003's alpha_i, which seed 004 does not have: L = 0 is
 * seed 004 exactly).  A worker computes its chunks in the order it got
 * them.  From an lf-sim platform: S_i = stage_lat, C_i = bytes_per_iter /
 * bandwidth (0 when unlimited), A_i = 1 / speed, L_i = latency.
 *
 * Solving needs GLPK: this file is only built where configure found it.
 */
#ifndef LF_SIM_PLAN_H
#define LF_SIM_PLAN_H

#include <stddef.h>

#include "sim/sim.h"

struct lf__plan_worker {
    double S; /* communication start-up, seconds */
    double C; /* communication time per unit of load, seconds */
    double A; /* computation time per unit of load, seconds */
    double L; /* computation start-up per chunk, seconds */
};

/* A schedule: the activation sequence (worker indices from 0), the load of
 * each activation, and its makespan or, for a deadline, its load. */
struct lf__lp_plan {
    int n;         /* activations */
    int *seq;      /* n worker indices */
    double *alpha; /* n loads */
    double T;      /* makespan, seconds */
    double W;      /* total load */
};

/* Workers of seed 004's model from an lf-sim platform (p entries into w).
 * Returns 0, or -EINVAL when a worker has a speed profile or the platform
 * has NUMA domains (the model has neither), with the reason in err. */
int lf__plan_workers(const struct lf__sim_platform *pf, struct lf__plan_worker *w, char *err,
                     size_t errlen);

/* Allocate pl for n activations (seq and alpha zeroed); 0 or -ENOMEM. */
int lf__plan_alloc(struct lf__lp_plan *pl, int n);
void lf__plan_free(struct lf__lp_plan *pl);

/* Solve the LP of seed 004 for pl->seq (pl->n activations): with W > 0,
 * DLS{FixedActivation}-OptT (eq. 2), the loads minimising the makespan of
 * W units; with W == 0, DLS{FixedActivation}-OptW (eq. 3), the largest load
 * done by deadline T.  Constraint (2b), activation k: the k-th
 * communication ends at sum_{j<=k} (S + alpha_j C), and its worker still
 * computes its chunks k, k+1, ... after that.  Fills pl->alpha, pl->T and
 * pl->W.  Returns 0; -ERANGE when T is too short for the sequence's
 * start-ups alone (OptW); -EIO when GLPK fails (message in err). */
int lf__plan_lp(const struct lf__plan_worker *w, int p, struct lf__lp_plan *pl, double W, double T,
                char *err, size_t errlen);

/* The makespan of pl as executed: sends in sequence order over one port,
 * each worker computing its chunks in the order received. */
double lf__plan_makespan(const struct lf__plan_worker *w, const struct lf__lp_plan *pl);

/* COMMUNICATION-FIRST (seed 004 §6.1): workers sorted by C (then index),
 * gamma_k = k rounds of all of them, each solved by the LP with the
 * activations that get no load removed; stops when a round more no longer
 * shortens the makespan or would exceed max_act activations.  The best
 * schedule goes into pl (allocated here). */
int lf__plan_comm_first(const struct lf__plan_worker *w, int p, double W, int max_act,
                        struct lf__lp_plan *pl, char *err, size_t errlen);

/* PERIODIC (seed 004 §6.4, after Beaumont et al.): the throughput LP
 * (maximise rho = sum beta_i, beta_i A_i <= 1, sum beta_i C_i <= 1), then k
 * periods in which worker i gets beta_i W / (rho k), k the integer next to
 * max(sqrt(a/b), (a' - a)/b) with the shorter makespan (at most max_act
 * activations).  pl->T is the executed makespan.  *k_out: the periods. */
int lf__plan_periodic(const struct lf__plan_worker *w, int p, double W, int max_act,
                      struct lf__lp_plan *pl, int *k_out, char *err, size_t errlen);

/* UMR's plan (seed 003 §5.2, every worker, rounds.c's M and round sizes):
 * round j gives worker i (t_j - L_i) / A_i with t_j = (round_j + sum L/A) /
 * sum 1/A, in worker order.  pl->T is the executed makespan; *M_out the
 * rounds. */
int lf__plan_umr(const struct lf__plan_worker *w, int p, double W, struct lf__lp_plan *pl,
                 int *M_out, char *err, size_t errlen);

/* The best of every activation sequence of 1 to len activations (p^1 +
 * ... + p^len LPs; the caller bounds it), OptT for W > 0 or OptW by T. */
int lf__plan_search(const struct lf__plan_worker *w, int p, int len, double W, double T,
                    struct lf__lp_plan *pl, char *err, size_t errlen);

/* A fraction num/den within 1e-12 (relative) of x with den <= 1e5, found
 * by continued fractions; 0 when there is none. */
int lf__plan_fraction(double x, long long *num, long long *den);

#endif
