/* lib/sim/plan.c - lf-plan's arithmetic (plan.h): the LP of seed 004 for a
 * fixed activation sequence, solved by GLPK, and the heuristics that
 * choose a sequence (COMMUNICATION-FIRST, PERIODIC, UMR's rounds, an
 * exhaustive search for small cases).
 *
 * Reference: Y. Yang, H. Casanova, M. Drozdowski, M. Lawenda, A. Legrand,
 * "On the complexity of multi-round divisible load scheduling", INRIA
 * RR-6096, 2007 (seed 004).
 */
#include <errno.h>
#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/rounds.h"
#include "sim/plan.h"

/* Below this many activations the simplex's answer is refined by GLPK's
 * exact (rational) simplex, so that small cases such as seed 004's
 * Fig. 1 come out exact; beyond, the floating-point answer stands. */
#define PLAN_EXACT_MAX 64

/* A load this small against the total counts as none (COMMUNICATION-FIRST
 * drops such activations, seed 004 §6.1). */
#define PLAN_ZERO 1e-9

int lf__plan_workers(const struct lf__sim_platform *pf, struct lf__plan_worker *w, char *err,
                     size_t errlen)
{
    if (pf->ndom > 0) {
        snprintf(err, errlen,
                 "the platform has NUMA domains; seed 004's model has one master and no "
                 "domains (drop the 'domains' line)");
        return -EINVAL;
    }
    for (int i = 0; i < pf->nworkers; i++) {
        const struct lf__sim_worker *x = &pf->w[i];
        if (x->nseg > 0) {
            snprintf(err, errlen,
                     "worker %d has a speed profile; the LP of seed 004 assumes constant "
                     "speeds (drop profile=)",
                     i);
            return -EINVAL;
        }
        w[i] = (struct lf__plan_worker){
            .S = x->stage_lat,
            .C = x->bandwidth > 0 ? pf->bytes_per_iter / x->bandwidth : 0.0,
            .A = 1.0 / x->speed,
            .L = x->latency,
        };
    }
    return 0;
}

int lf__plan_alloc(struct lf__lp_plan *pl, int n)
{
    *pl = (struct lf__lp_plan){.n = n};
    pl->seq = calloc((size_t)(n > 0 ? n : 1), sizeof *pl->seq);
    pl->alpha = calloc((size_t)(n > 0 ? n : 1), sizeof *pl->alpha);
    if (!pl->seq || !pl->alpha) {
        lf__plan_free(pl);
        return -ENOMEM;
    }
    return 0;
}

void lf__plan_free(struct lf__lp_plan *pl)
{
    free(pl->seq);
    free(pl->alpha);
    pl->seq = NULL;
    pl->alpha = NULL;
    pl->n = 0;
}

int lf__plan_lp(const struct lf__plan_worker *w, int p, struct lf__lp_plan *pl, double W, double T,
                char *err, size_t errlen)
{
    int n = pl->n, optT = W > 0, rc = 0;
    (void)p;
    /* Row k: sum_{j<=k} alpha_j C_sigma(j) + sum_{j>=k, sigma(j)=sigma(k)}
     * alpha_j A_sigma(k) (- T) <= -(sum_{j<=k} S_sigma(j) + L_sigma(k) times
     * the chunks sigma(k) still computes) (+ T): at most k + n entries. */
    size_t cap = (size_t)n * (size_t)(n + 3) + 2;
    int *ia = malloc(cap * sizeof *ia), *ja = malloc(cap * sizeof *ja);
    double *ar = malloc(cap * sizeof *ar);
    glp_prob *lp = glp_create_prob();
    if (!ia || !ja || !ar) {
        snprintf(err, errlen, "out of memory for an LP of %d activations", n);
        rc = -ENOMEM;
        goto out;
    }
    glp_set_obj_dir(lp, optT ? GLP_MIN : GLP_MAX);
    glp_add_cols(lp, n + optT);
    for (int j = 1; j <= n; j++) {
        glp_set_col_bnds(lp, j, GLP_LO, 0.0, 0.0); /* (2c) */
        glp_set_obj_coef(lp, j, optT ? 0.0 : 1.0);
    }
    if (optT) {
        glp_set_col_bnds(lp, n + 1, GLP_LO, 0.0, 0.0);
        glp_set_obj_coef(lp, n + 1, 1.0);
    }
    glp_add_rows(lp, n + optT);
    size_t ne = 0;
    double sends = 0.0;
    for (int k = 0; k < n; k++) {
        const struct lf__plan_worker *x = &w[pl->seq[k]];
        sends += w[pl->seq[k]].S;
        double lat = 0.0;
        for (int j = 0; j < n; j++) {
            double a = j <= k ? w[pl->seq[j]].C : 0.0;
            if (j >= k && pl->seq[j] == pl->seq[k]) {
                a += x->A;
                lat += x->L;
            }
            if (a != 0.0) {
                ne++;
                ia[ne] = k + 1, ja[ne] = j + 1, ar[ne] = a;
            }
        }
        if (optT) {
            ne++;
            ia[ne] = k + 1, ja[ne] = n + 1, ar[ne] = -1.0;
            glp_set_row_bnds(lp, k + 1, GLP_UP, 0.0, -(sends + lat));
        } else {
            if (T < sends + lat) {
                snprintf(err, errlen,
                         "deadline %.9g is shorter than the start-ups of the first %d "
                         "activations (%.9g)",
                         T, k + 1, sends + lat);
                rc = -ERANGE;
                goto out;
            }
            glp_set_row_bnds(lp, k + 1, GLP_UP, 0.0, T - (sends + lat));
        }
    }
    if (optT) { /* (2a) */
        for (int j = 0; j < n; j++) {
            ne++;
            ia[ne] = n + 1, ja[ne] = j + 1, ar[ne] = 1.0;
        }
        glp_set_row_bnds(lp, n + 1, GLP_FX, W, W);
    }
    glp_load_matrix(lp, (int)ne, ia, ja, ar);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    int g = glp_simplex(lp, &parm);
    if (g == 0 && n <= PLAN_EXACT_MAX)
        g = glp_exact(lp, &parm);
    if (g != 0 || glp_get_status(lp) != GLP_OPT) {
        snprintf(err, errlen, "GLPK found no optimum for %d activations (code %d, status %d)", n, g,
                 glp_get_status(lp));
        rc = -EIO;
        goto out;
    }
    pl->W = 0.0;
    for (int j = 0; j < n; j++) {
        double a = glp_get_col_prim(lp, j + 1);
        pl->alpha[j] = a > 0.0 ? a : 0.0;
        pl->W += pl->alpha[j];
    }
    pl->T = optT ? glp_get_col_prim(lp, n + 1) : T;
out:
    glp_delete_prob(lp);
    free(ia);
    free(ja);
    free(ar);
    return rc;
}

double lf__plan_makespan(const struct lf__plan_worker *w, const struct lf__lp_plan *pl)
{
    double port = 0.0, end = 0.0;
    int p = 0;
    for (int k = 0; k < pl->n; k++)
        p = pl->seq[k] + 1 > p ? pl->seq[k] + 1 : p;
    double *free_at = calloc((size_t)(p ? p : 1), sizeof *free_at);
    if (!free_at)
        return NAN;
    for (int k = 0; k < pl->n; k++) {
        const struct lf__plan_worker *x = &w[pl->seq[k]];
        port += x->S + pl->alpha[k] * x->C;
        double start = port > free_at[pl->seq[k]] ? port : free_at[pl->seq[k]];
        free_at[pl->seq[k]] = start + x->L + pl->alpha[k] * x->A;
        if (free_at[pl->seq[k]] > end)
            end = free_at[pl->seq[k]];
    }
    free(free_at);
    return end;
}

/* Worker indices sorted by C, then by index (insertion sort: p is small
 * where an LP per round is affordable). */
static void by_comm(const struct lf__plan_worker *w, int p, int *ord)
{
    for (int i = 0; i < p; i++) {
        int j = i;
        for (; j > 0 && w[ord[j - 1]].C > w[i].C; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
}

/* Drop the activations that carry no load and solve again, until every one
 * carries some (seed 004 §6.1: "its latency is therefore not counted"). */
static int prune_solve(const struct lf__plan_worker *w, int p, struct lf__lp_plan *pl, double W,
                       char *err, size_t errlen)
{
    for (;;) {
        int rc = lf__plan_lp(w, p, pl, W, 0.0, err, errlen), m = 0;
        if (rc)
            return rc;
        for (int k = 0; k < pl->n; k++)
            if (pl->alpha[k] > PLAN_ZERO * W) {
                pl->seq[m] = pl->seq[k];
                pl->alpha[m++] = pl->alpha[k];
            }
        if (m == pl->n || m == 0)
            return 0;
        pl->n = m;
    }
}

int lf__plan_comm_first(const struct lf__plan_worker *w, int p, double W, int max_act,
                        struct lf__lp_plan *pl, char *err, size_t errlen)
{
    int *ord = malloc((size_t)p * sizeof *ord), rc = 0;
    struct lf__lp_plan cur = {0};
    *pl = (struct lf__lp_plan){0};
    if (!ord) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    by_comm(w, p, ord);
    for (int k = 1; k * p <= max_act || k == 1; k++) {
        if ((rc = lf__plan_alloc(&cur, k * p)) != 0) {
            snprintf(err, errlen, "out of memory for %d activations", k * p);
            break;
        }
        for (int j = 0; j < k * p; j++)
            cur.seq[j] = ord[j % p];
        if ((rc = prune_solve(w, p, &cur, W, err, errlen)) != 0)
            break;
        if (pl->seq && cur.T >= pl->T * (1.0 - 1e-12))
            break; /* T_{k+1} >= T_k: stop (§6.1) */
        lf__plan_free(pl);
        *pl = cur;
        cur = (struct lf__lp_plan){0};
    }
    lf__plan_free(&cur);
    free(ord);
    if (rc)
        lf__plan_free(pl);
    return rc;
}

/* Fill pl with k periods of the workers in ord whose beta is positive,
 * each getting beta_i W / (rho k); pl->T is the executed makespan. */
static int periodic_fill(const struct lf__plan_worker *w, const int *ord, const double *beta, int p,
                         int nsel, double rho, double W, int k, struct lf__lp_plan *pl)
{
    if (lf__plan_alloc(pl, k * nsel))
        return -ENOMEM;
    int m = 0;
    for (int r = 0; r < k; r++)
        for (int i = 0; i < p; i++)
            if (beta[ord[i]] > 0.0) {
                pl->seq[m] = ord[i];
                pl->alpha[m++] = beta[ord[i]] * W / (rho * k);
            }
    pl->W = W;
    pl->T = lf__plan_makespan(w, pl);
    return 0;
}

int lf__plan_periodic(const struct lf__plan_worker *w, int p, double W, int max_act,
                      struct lf__lp_plan *pl, int *k_out, char *err, size_t errlen)
{
    int *ord = malloc((size_t)p * sizeof *ord), rc = 0, nsel = 0;
    double *beta = calloc((size_t)p, sizeof *beta);
    *pl = (struct lf__lp_plan){0};
    if (!ord || !beta) {
        free(ord);
        free(beta);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    /* The throughput LP is a fractional knapsack: every unit of beta_i is
     * worth 1, costs C_i of the port's time, and beta_i <= 1/A_i; so the
     * optimum fills the port with the cheapest links first. */
    by_comm(w, p, ord);
    double port = 1.0, rho = 0.0;
    for (int i = 0; i < p && port > 0.0; i++) {
        const struct lf__plan_worker *x = &w[ord[i]];
        double b = 1.0 / x->A;
        if (x->C > 0.0 && b * x->C > port)
            b = port / x->C;
        beta[ord[i]] = b;
        port -= b * x->C;
        rho += b;
        nsel++;
    }
    /* T_p = max(a/k + b, a'/k) (seed 004 §6.4). */
    double a = 0.0, b = 0.0, a1 = 0.0;
    for (int i = 0; i < p; i++)
        if (beta[i] > 0.0) {
            a += W * beta[i] * w[i].C / rho;
            b += w[i].S;
            a1 = fmax(a1, W * beta[i] * w[i].A / rho);
        }
    /* (k + 1) T_p = a + b + a/k + b k is least at k = sqrt(a/b): the
     * report's "sqrt(b/a)" inverts the ratio (d/dk: b - a/k^2 = 0). */
    int kmax = max_act / nsel > 1 ? max_act / nsel : 1;
    double kc = b > 0.0 ? fmax(sqrt(a / b), (a1 - a) / b) : (double)kmax;
    double cand[2] = {floor(kc), ceil(kc)};
    for (int c = 0; c < 2 && !rc; c++) {
        int k = cand[c] < 1.0 ? 1 : cand[c] > kmax ? kmax : (int)cand[c];
        struct lf__lp_plan cur;
        if ((rc = periodic_fill(w, ord, beta, p, nsel, rho, W, k, &cur)) != 0) {
            snprintf(err, errlen, "out of memory for %d periods", k);
            break;
        }
        if (!pl->seq || cur.T < pl->T) {
            lf__plan_free(pl);
            *pl = cur;
            *k_out = k;
        } else {
            lf__plan_free(&cur);
        }
    }
    free(ord);
    free(beta);
    return rc;
}

int lf__plan_umr(const struct lf__plan_worker *w, int p, double W, struct lf__lp_plan *pl,
                 int *M_out, char *err, size_t errlen)
{
    struct lf__umr_sums s = {0};
    struct lf__umr_plan u;
    for (int i = 0; i < p; i++)
        lf__umr_sums_add(&s, w[i].A, w[i].L, w[i].S, w[i].C);
    lf__umr_plan_make(&u, &s, W);
    if (lf__plan_alloc(pl, u.M * p)) {
        snprintf(err, errlen, "out of memory for %d rounds", u.M);
        return -ENOMEM;
    }
    double sum = 0.0;
    for (int j = 0; j < u.M; j++) {
        double tj = (lf__umr_round(&u, j) + u.C) / u.A; /* §5.2: every worker computes t_j */
        for (int i = 0; i < p; i++) {
            double c = (tj - w[i].L) / w[i].A;
            pl->seq[j * p + i] = i;
            pl->alpha[j * p + i] = c > 0.0 ? c : 0.0;
            sum += pl->alpha[j * p + i];
        }
    }
    for (int k = 0; k < pl->n && sum > 0.0; k++)
        pl->alpha[k] *= W / sum; /* negative chunks cut: the rest carries W */
    pl->W = W;
    pl->T = lf__plan_makespan(w, pl);
    *M_out = u.M;
    return 0;
}

int lf__plan_search(const struct lf__plan_worker *w, int p, int len, double W, double T,
                    struct lf__lp_plan *pl, char *err, size_t errlen)
{
    struct lf__lp_plan cur;
    int rc = 0;
    *pl = (struct lf__lp_plan){0};
    for (int n = 1; n <= len && !rc; n++) {
        if (lf__plan_alloc(&cur, n)) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        for (;;) {
            rc = lf__plan_lp(w, p, &cur, W, T, err, errlen);
            if (rc == -ERANGE) {
                rc = 0; /* too many start-ups for the deadline: not a candidate */
            } else if (rc) {
                break;
            } else if (!pl->seq ||
                       (W > 0 ? cur.T < pl->T * (1.0 - 1e-12) : cur.W > pl->W * (1.0 + 1e-12))) {
                lf__plan_free(pl);
                if ((rc = lf__plan_alloc(pl, n)) != 0)
                    break;
                memcpy(pl->seq, cur.seq, (size_t)n * sizeof *cur.seq);
                memcpy(pl->alpha, cur.alpha, (size_t)n * sizeof *cur.alpha);
                pl->T = cur.T;
                pl->W = cur.W;
            }
            /* Next sequence of length n, counting in base p. */
            int k = n - 1;
            while (k >= 0 && cur.seq[k] == p - 1)
                cur.seq[k--] = 0;
            if (k < 0)
                break;
            cur.seq[k]++;
        }
        lf__plan_free(&cur);
    }
    if (!rc && !pl->seq) {
        snprintf(err, errlen, "no sequence of at most %d activations fits the deadline %.9g", len,
                 T);
        rc = -ERANGE;
    }
    return rc;
}

int lf__plan_fraction(double x, long long *num, long long *den)
{
    /* Convergents h/k of x's continued fraction. */
    double h0 = 1, h1 = 0, k0 = 0, k1 = 1, r = x;
    for (int it = 0; it < 40; it++) {
        double a = floor(r);
        double h = a * h0 + h1, k = a * k0 + k1;
        if (k > 1e5)
            return 0;
        if (fabs(x - h / k) <= 1e-12 * fmax(1.0, fabs(x))) {
            *num = (long long)h;
            *den = (long long)k;
            return 1;
        }
        h1 = h0, h0 = h, k1 = k0, k0 = k;
        if (r - a < 1e-15)
            return 0;
        r = 1.0 / (r - a);
    }
    return 0;
}
