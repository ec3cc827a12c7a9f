/* Frames from a host's pose sampler (spring-chain.md §9): a frame is cut into sub-frames that
 * end at the internal steps, each stepped with the sampled poses at its ends, so every internal
 * step sees the pose the host gives for its time (an internal step at a sub-frame's end takes
 * the target exactly). */
#include "chain_parts.h"

static tl_chain_sample sample_at(tl_chain_sampler sampler, void* user, float t) {
    tl_chain_sample s;
    memset(&s, 0, sizeof s);
    s.attachment = tl_default_chain_input().start;
    s.hips[3] = 1;
    sampler(user, t, &s);
    return s;
}

static void set_target(tl_chain_input* in, const tl_chain_sample* s) {
    in->target = s->attachment;
    in->has_hips = s->has_hips;
    memcpy(in->hips_target, s->hips, sizeof s->hips);
    memcpy(in->force, s->force, sizeof s->force);
    in->colliders = s->colliders, in->collider_count = s->collider_count;
    in->collider_growth = s->collider_growth;
}

/* The next sub-frame starts where this one ended. */
static void advance(tl_chain_input* in) {
    in->start = in->target;
    memcpy(in->hips_start, in->hips_target, sizeof in->hips_start);
}

void tl_chain_step_sampled(tl_chain* c, tl_chain_sampler sampler, void* user, float dt, bool cut) {
    assert(c && sampler && dt >= 0);
    tl_chain_input in = tl_default_chain_input();
    if (cut || !c->placed || !(dt > 0)) { /* (else the frame starts where the last ended) */
        tl_chain_sample first = sample_at(sampler, user, 0);
        set_target(&in, &first);
        advance(&in);
    } else {
        in.start = c->last_target;
        memcpy(in.hips_start, c->last_hips_target, sizeof in.hips_start);
    }
    if ((!c->placed || c->unseated) && dt > 0) {
        /* A chain placed at rest is kept out of the colliders of its placement's time, in a
         * frame of no time there: the first sub-frame's colliders are those of its end, a step
         * or the whole frame later by the frame rate. */
        tl_chain_sample first = sample_at(sampler, user, 0);
        tl_chain_input still = in;
        set_target(&still, &first);
        still.target = in.start, still.has_hips = in.has_hips;
        memcpy(still.hips_target, in.hips_start, sizeof still.hips_target);
        if (first.collider_count > 0) tl_chain_step(c, &still, 0);
    }
    if (!(dt > 0)) {
        tl_chain_step(c, &in, 0);
    } else {
        double elapsed = 0;
        /* a hitch: its head as one long frame, as tl_chain_step would */
        double window = (double)c->max_substeps * c->step;
        if ((double)dt - c->accumulator > window + 1e-9) {
            elapsed = (double)dt - window;
            tl_chain_sample s = sample_at(sampler, user, (float)elapsed);
            set_target(&in, &s);
            tl_chain_step(c, &in, (float)elapsed);
            advance(&in);
        }
        while (elapsed < (double)dt) {
            double sub = fmin((double)c->step - c->accumulator, (double)dt - elapsed);
            if (sub < 1e-9 * c->step) sub = (double)dt - elapsed; /* (rounding at a boundary) */
            elapsed += sub;
            bool last = elapsed >= (double)dt - 1e-9 * c->step;
            tl_chain_sample s = sample_at(sampler, user, last ? dt : (float)elapsed);
            set_target(&in, &s);
            tl_chain_step(c, &in, (float)sub);
            advance(&in);
            if (last) break;
        }
    }
    memcpy(c->last_hips_target, in.hips_start, sizeof c->last_hips_target);
}
