/* lib/dispatch/measure.c - what a member measures of a chunk it completed:
 * compute and scheduling time, the trace record, its calibration report
 * (the last report ends the team's calibration).  The rules are
 * lib/exec/'s; this file adds the clocks and the team's counters. */
#include "config.h"

#include <math.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"
#include "platform/platform.h"
#include "policy/fmath.h"

uint64_t lf__unclaimed(const struct lf__slot *s)
{
    if (s->loc)
        return lf__loc_unclaimed(s);
    if (s->split) {
        uint64_t r = 0;
        for (int b = 0; b < s->view.nworkers; b++) {
            uint64_t at = lf__load_relaxed(&s->own[b].next);
            r += at < s->own[b].hi ? s->own[b].hi - at : 0;
        }
        return r;
    }
    uint64_t used = lf__load_relaxed(&s->next);
    return used < s->n ? s->n - used : 0;
}

/* The team's calibration is in: run calibrated() once (whoever gets here
 * first) and open the first round. */
static void end_calibration(struct lf__slot *s)
{
    uint64_t zero = 0;
    if (!lf__cas_acq_rel(&s->calib_claimed, &zero, 1))
        return;
    lf__exec_calib_end(&s->ex, lf__unclaimed(s));
    /* Release: the policy state written above is visible to every member
     * that sees the RUN phase (they load it with acquire). */
    lf__store_release(&s->phase, LF__PHASE_RUN);
}

void lf__chunk_complete(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t now)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t busy = lf__ticks_to_ns(now - th->t_start);
    uint64_t total = lf__ticks_to_ns(now - th->t_prev_end);
    if (th->stage_later && th->stage_later < busy) /* later pieces' copies */
        busy -= th->stage_later;
    if (lf__located(s))
        lf__stage_chunk_done(l, s, tid, busy);
    /* Of a lease, the front it ran; thieves took the rest. */
    uint64_t ran = s->lease_mode ? th->run_n : th->chunk_n;
    if (s->trace)
        lf__trace_add(l, s, tid, th->chunk_lo, ran, th->t_start, now,
                      s->lease_mode ? th->chunk_pieces : 1, s->lease_mode ? th->chunk_from : -1);
    if (s->ex.acc) {
        /* A lease's pieces are booked one by one (the last one here), so
         * that the profile sees inside a chunk. */
        if (s->lease_mode)
            lf__exec_profile_book(&s->ex, tid, th->piece_lo, th->piece_n,
                                  (double)lf__ticks_to_ns(now - th->piece_t0));
        else
            lf__exec_profile_book(&s->ex, tid, th->chunk_lo, ran, (double)busy);
        lf__exec_profile_chunk(&s->ex, tid, th->chunk_lo, ran);
    }
    if (lf__exec_chunk_done(&s->ex, tid, ran, busy, total, th->chunk_calib, th->calibrating,
                            &th->cal_size)) {
        /* Its calibration is in, over all its calibration chunks: the
         * share of the wall time it had a CPU, and what scheduling cost. */
        uint64_t cpu = lf__thread_cpu_ns() - th->cal_cpu0;
        uint64_t wall = lf__ticks_to_ns(now - th->cal_t0);
        lf__exec_calib_report(&s->ex, tid, wall ? lf__fmin(1.0, (double)cpu / (double)wall) : 1.0,
                              (double)(total - busy), lf__perf_bm_self());
        th->calibrating = 0;
        /* acq_rel: our calibration values are visible to the member that
         * sees the count complete and runs calibrated(). */
        if (lf__fetch_add_acq_rel(&s->calib_reports, 1) + 1 == (uint64_t)l->P)
            end_calibration(s);
    }
    th->t_prev_end = now;
}
