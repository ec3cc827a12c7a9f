/* Sleep (deactivation, as rigid-body engines put resting bodies to sleep; docs/sim.md
 * "Session 19 (sleep19)"): a chain whose input stays exactly the same and whose output has come
 * to rest stops simulating until the input changes.
 *
 * Only an exactly still input counts: the frame's start, target and the previous frame's target
 * the same bits, the hips too, the same force, the same colliders and growth (hashed: the chain
 * cannot keep the host's pointer), no settings or particles changed by the host, dt > 0 (a
 * zero-length frame neither counts nor resets). Over such frames the render output (what a
 * viewer sees; the same bits in a batch as alone) is judged over a window of sleep_seconds:
 * - free motion as Box2D judges a body: every tip slower than sleep_speed for the whole window
 *   (a swing faster than the bar anywhere in the window does not sleep);
 * - motion against a contact (a collider or the floor touched in every frame of the window) by
 *   where it goes: the window's two halves' mean tips must lie closer than sleep_speed times
 *   the time between them, and no tip may have strayed farther over the window than
 *   sleep_speed times its length (a swing sliding along a collider has the same mean on both
 *   sides of a turning point: its reach keeps it awake). A tip buzzing in a crease moves fast
 *   with no net motion and no reach, so no speed test fires; its mean pose is still, and the
 *   chain sleeps in the pose it was moving about.
 * Asleep, the frame runs nothing: the outputs stay, the velocities are zero (set when it falls
 * asleep), and any change of the input wakes it and steps it as usual. */
#include "chain_parts.h"

enum { SLEEP_RESET, SLEEP_SKIP, SLEEP_COUNT }; /* what the last frame adds to the window */

/* FNV-1a over 32-bit words (the inputs are floats and ints, whole words). */
static uint64_t hash_words(uint64_t h, const void* data, size_t bytes) {
    const unsigned char* p = data;
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        h = (h ^ w) * 0x100000001b3ULL;
    }
    return h;
}

static uint64_t colliders_hash(const tl_chain* c, const tl_chain_input* in) {
    const int count = in->colliders && in->collider_count > 0 ? in->collider_count : 0;
    uint64_t h = hash_words(0xcbf29ce484222325ULL, &count, sizeof count);
    if (count == 0) return h;
    h = hash_words(h, in->colliders, (size_t)count * sizeof *in->colliders);
    const bool growth = in->collider_growth != NULL;
    h = (h ^ (growth ? 1u : 2u)) * 0x100000001b3ULL;
    if (growth)
        h = hash_words(h, in->collider_growth, (size_t)count * (size_t)c->n * sizeof(float));
    return h;
}

/* The window starts again (from the current output). */
static void window_reset(tl_chain* c) {
    c->sleep_quiet = 0;
    c->sleep_half[0] = c->sleep_half[1] = 0;
    c->sleep_touch[0] = c->sleep_touch[1] = true;
    c->sleep_reach[0] = c->sleep_reach[1] = 0;
    memset(c->sleep_sums, 0, 6 * (size_t)c->n * sizeof(float));
    memcpy(c->sleep_tips, c->out_tips, 3 * (size_t)c->n * sizeof(float));
    memcpy(c->sleep_from + 3 * c->n, c->out_tips, 3 * (size_t)c->n * sizeof(float));
}

void chain_sleep_reset(tl_chain* c) {
    c->stats.asleep = false;
    c->sleep_known = false;
    c->sleep_last = SLEEP_RESET;
    window_reset(c);
}

static void fall_asleep(tl_chain* c) {
    chain_state_sync(c); /* (the state may be in a batch's lane: write it back first) */
    memset(c->velocities, 0, 3 * (size_t)c->n * sizeof(float));
    c->stamp++; /* lanes holding the state gather it again */
    c->stats.asleep = true;
    c->stats.sleeps++;
    window_reset(c);
}

/* Whether the two halves' mean tips lie within sleep_speed of each other over the time between
 * their middles, and every tip stayed within sleep_speed times the window of where the window
 * began (bounded by the earlier half's reach, or the later half's start from it and its reach). */
static bool means_still(const tl_chain* c) {
    const float *a = c->sleep_sums, *b = c->sleep_sums + 3 * c->n;
    const float *from0 = c->sleep_from, *from1 = c->sleep_from + 3 * c->n;
    const double ta = c->sleep_half[0], tb = c->sleep_half[1];
    const double bar = c->sleep_speed * 0.5 * (ta + tb), most = c->sleep_speed * (ta + tb);
    if (!(c->sleep_reach[0] < most)) return false;
    for (int i = 0; i < 3 * c->n; i += 3) {
        double d2 = 0, s2 = 0;
        for (int k = 0; k < 3; ++k) {
            double d = (double)b[i + k] / tb - (double)a[i + k] / ta;
            double e = (double)from1[i + k] - (double)from0[i + k];
            d2 += d * d, s2 += e * e;
        }
        if (!(d2 < bar * bar) || !(sqrt(s2) + c->sleep_reach[1] < most)) return false;
    }
    return true;
}

/* The last frame's output into the window; true when the chain falls asleep. */
static bool window_count(tl_chain* c, float dt) {
    const int n3 = 3 * c->n;
    const float* tips = c->out_tips;
    float moved2 = 0, reach2 = 0;
    float *sum = c->sleep_sums + n3, *from = c->sleep_from + n3;
    for (int i = 0; i < n3; i += 3) {
        float d2 = 0, r2 = 0;
        for (int k = 0; k < 3; ++k) {
            float d = tips[i + k] - c->sleep_tips[i + k], r = tips[i + k] - from[i + k];
            d2 += d * d, r2 += r * r;
            sum[i + k] += tips[i + k] * dt;
        }
        moved2 = d2 > moved2 ? d2 : moved2;
        reach2 = r2 > reach2 ? r2 : reach2;
    }
    c->sleep_reach[1] = fmaxf(c->sleep_reach[1], sqrtf(reach2));
    memcpy(c->sleep_tips, tips, (size_t)n3 * sizeof(float));
    const float bar = c->sleep_speed * dt;
    c->sleep_quiet = moved2 < bar * bar ? c->sleep_quiet + dt : 0;
    c->sleep_half[1] += dt;
    c->sleep_touch[1] = c->sleep_touch[1] && c->stats.contacts > 0;
    if (c->sleep_quiet >= c->sleep_seconds) return true;
    if (c->sleep_half[1] < 0.5 * c->sleep_seconds) return false;
    if (c->sleep_half[0] > 0 && c->sleep_touch[0] && c->sleep_touch[1] && means_still(c))
        return true;
    /* the current half becomes the earlier one */
    memcpy(c->sleep_sums, sum, (size_t)n3 * sizeof(float));
    memset(sum, 0, (size_t)n3 * sizeof(float));
    memcpy(c->sleep_from, from, (size_t)n3 * sizeof(float));
    memcpy(from, tips, (size_t)n3 * sizeof(float));
    c->sleep_reach[0] = c->sleep_reach[1], c->sleep_reach[1] = 0;
    c->sleep_half[0] = c->sleep_half[1], c->sleep_half[1] = 0;
    c->sleep_touch[0] = c->sleep_touch[1], c->sleep_touch[1] = true;
    return false;
}

/* Whether the input repeats the last frame's exactly (see the top); records it for the next. */
static bool input_still(tl_chain* c, const tl_chain_input* in, float dt) {
    const size_t pose = sizeof in->target;
    /* start and target the same pose: the same bits, or the start as the chain stored the last
     * target (normalised: the sampled step's frames start so) and the target that one given */
    const bool repeats = c->given_known && memcmp(&in->target, &c->last_given, pose) == 0;
    const bool posed = memcmp(&in->start, &in->target, pose) == 0 ||
                       (repeats && memcmp(&in->start, &c->last_target, pose) == 0);
    bool still =
        c->sleep_known && !c->sleep_dirty && c->placed && isfinite(dt) && repeats && posed &&
        memcmp(in->force, c->sleep_force, sizeof c->sleep_force) == 0 &&
        in->has_hips == c->sleep_has_hips &&
        (!in->has_hips || (memcmp(in->hips_start, in->hips_target, sizeof in->hips_start) == 0 &&
                           memcmp(in->hips_target, c->sleep_hips, sizeof c->sleep_hips) == 0));
    /* the colliders are hashed only when the pose is still (a moving body costs nothing) */
    uint64_t hash = posed ? colliders_hash(c, in) : 0;
    still = still && hash == c->sleep_hash;
    c->sleep_known = posed;
    c->sleep_hash = hash;
    memcpy(c->sleep_force, in->force, sizeof c->sleep_force);
    memcpy(c->sleep_hips, in->hips_target, sizeof c->sleep_hips);
    c->sleep_has_hips = in->has_hips;
    c->sleep_dirty = false;
    return still;
}

bool chain_sleep_frame(tl_chain* c, const tl_chain_input* in, float dt) {
    if (!(c->sleep_seconds > 0)) return false;
    /* the last frame's output counts now that it is known */
    bool rested = false;
    if (c->sleep_last == SLEEP_COUNT && !c->stats.asleep) rested = window_count(c, c->sleep_dt);
    if (!input_still(c, in, dt)) {
        c->stats.asleep = false; /* (wakes: its velocities are zero, it steps as usual) */
        c->sleep_last = SLEEP_RESET;
        return false;
    }
    /* a window starts from the output as the last frame left it (a moving body pays nothing) */
    if (c->sleep_last == SLEEP_RESET) window_reset(c);
    if (rested) fall_asleep(c); /* (only into a still frame: a moving one keeps its velocities) */
    if (c->stats.asleep) {      /* the frame runs nothing; its length is the last one's for the
                                   path of the next (chain_frame_begin) */
        c->last_dt = dt;
        c->history = dt > 0;
        return true;
    }
    c->sleep_last = dt > 0 ? SLEEP_COUNT : SLEEP_SKIP;
    c->sleep_dt = dt;
    return false;
}
