/* Tests of the spring-chain solver (include/tailor/sim.h) on synthetic chains built here:
 * a human-sized hips frame (Y-up, metres, facing +Z; the hips joint 1 m above the floor)
 * with a tail of 4 or 8 links, 0.8 m long, hanging from just behind and below the hips:
 *
 *          hips (attachment, origin of its frame)
 *            \
 *             o  tail root (0, -0.05, -0.12)
 *             |  link 0
 *             o
 *             |  ...            every bone has its own twisted bind orientation, so
 *             o                 parent frames never coincide with the hips frame
 *             |  link N-1
 *             o  Tail_End
 *    ------------------------- floor y = 0
 *
 * Each case prints what it measured; `test_sim NAME` runs one. */
#include "test.h"

#include <tailor/sim.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/chain_parts.h"
#include "sim/sim_math.h"
#include "sim/spring_chain_internal.h"

#define PI 3.14159265358979
#define DEG (PI / 180.0)

/* ---- synthetic chains ---- */

typedef struct rig {
    int n;
    float t[3 * TL_CHAIN_MAX_BONES]; /* local rest translations */
    float q[4 * TL_CHAIN_MAX_BONES]; /* local rest rotations */
    float tip[3];                    /* Tail_End in the last bone */
    float length[TL_CHAIN_MAX_BONES];
    float total;
    v3 joints[TL_CHAIN_MAX_BONES + 1]; /* bind positions in the attachment frame */
    qt orient[TL_CHAIN_MAX_BONES];     /* bind orientations in the attachment frame */
} rig;

/* Bones from joint positions and arbitrary bind orientations (both in the attachment frame). */
static void rig_from_joints(rig* r, int n) {
    r->n = n;
    r->total = 0;
    qt parent = qt_identity();
    v3 parent_pos = v3_make(0, 0, 0);
    for (int i = 0; i <= n; ++i) {
        v3 local_t = qt_unrotate(parent, v3_sub(r->joints[i], parent_pos));
        if (i < n) {
            v3_store(r->t + 3 * i, local_t);
            qt_store(r->q + 4 * i, qt_normalize(qt_mul(qt_conj(parent), r->orient[i])));
            parent = r->orient[i];
            parent_pos = r->joints[i];
        } else {
            v3_store(r->tip, local_t);
        }
        if (i > 0) {
            r->length[i - 1] = v3_length(v3_sub(r->joints[i], r->joints[i - 1]));
            r->total += r->length[i - 1];
        }
    }
}

/* A straight tail of n equal links along dir (attachment frame), bones twisted so that every
 * parent frame differs. */
static void rig_straight(rig* r, int n, v3 dir, float total) {
    v3 root = v3_make(0, -0.05f, -0.12f);
    dir = v3_normalize_or(dir, v3_make(0, -1, 0));
    v3 axis = v3_normalize_or(v3_make(0.3f, 0.5f, 0.8f), dir);
    for (int i = 0; i <= n; ++i)
        r->joints[i] = v3_madd(root, dir, total * (float)i / (float)n);
    for (int i = 0; i < n; ++i)
        r->orient[i] = qt_axis_angle(axis, (float)(40.0 * DEG) * (float)(i + 1));
    rig_from_joints(r, n);
}

static tl_chain_def def_for(const rig* r) {
    tl_chain_def def = tl_default_chain_def();
    def.bone_count = r->n;
    def.rest_translations = r->t;
    def.rest_rotations = r->q;
    def.tip_translation = r->tip;
    return def;
}

static tl_chain* create(const tl_chain_def* def) {
    tl_chain* chain = NULL;
    tl_error err = {0};
    if (tl_chain_create(def, NULL, &chain, &err) != TL_OK) {
        fprintf(stderr, "  create failed: %s\n", err.message);
        return NULL;
    }
    return chain;
}

/* One batch for every test that steps chains side by side (freed at exit). */
static tl_chain_batch* shared_batch;
static void batch_free(void) {
    tl_chain_batch_destroy(shared_batch);
}
static tl_chain_batch* test_batch(void) {
    if (!shared_batch) {
        tl_error err;
        if (tl_chain_batch_create(TL_CHAIN_MAX_BONES, 32, NULL, &shared_batch, &err) != TL_OK)
            abort();
        atexit(batch_free);
    }
    return shared_batch;
}

/* ---- clips of the attachment (hips) joint ---- */

typedef tl_chain_pose clip_fn(double t);

static tl_chain_pose pose_make(double x, double y, double z, double yaw) {
    tl_chain_pose p = {{(float)x, (float)y, (float)z}, {0, 0, 0, 1}, 1};
    qt_store(p.rotation, qt_axis_angle(v3_make(0, 1, 0), (float)yaw));
    return p;
}

static tl_chain_pose clip_still(double t) {
    (void)t;
    return pose_make(0, 1, 0, 0);
}

/* measure.md "Hip shake": x = 0.25 sin(3 pi t) m and +-45 deg yaw at the same rate for 4 s,
 * then still. */
static tl_chain_pose clip_shake(double t) {
    if (t >= 4.0) t = 4.0; /* sin(12 pi) = 0: continuous */
    return pose_make(0.25 * sin(3 * PI * t), 1, 0, 0.25 * PI * sin(3 * PI * t));
}

/* A walk: forward 1.2 m/s, a 1 Hz sway, a 2 Hz bob, 10 deg of yaw. */
static tl_chain_pose clip_walk(double t) {
    return pose_make(0.05 * sin(2 * PI * t), 1 + 0.03 * sin(4 * PI * t), 1.2 * t,
                     10 * DEG * sin(2 * PI * t));
}

static tl_chain_input frame_input(clip_fn* clip, double t0, double t1) {
    tl_chain_input in = tl_default_chain_input();
    in.start = clip(t0);
    in.target = clip(t1);
    return in;
}

/* ---- measurements ---- */

static double angle_between(v3 a, v3 b) {
    double d = v3_dot(v3_normalize_or(a, a), v3_normalize_or(b, b));
    return acos(d > 1 ? 1 : d < -1 ? -1 : d);
}

static v3 tip_at(const float* tips, int i) {
    return v3_load(tips + 3 * i);
}

/* World link directions from the render-time tips; the root's head from the pose. */
static void link_directions(const rig* r, const tl_chain_pose* pose, const float* tips, v3* out) {
    v3 head = v3_add(v3_load(pose->position), qt_rotate(qt_load(pose->rotation), r->joints[0]));
    for (int i = 0; i < r->n; ++i) {
        out[i] = v3_normalize_or(v3_sub(tip_at(tips, i), head), v3_make(0, -1, 0));
        head = tip_at(tips, i);
    }
}

/* Each bone's local rotation read back from tips as the solver does: the swing carrying the
 * bind direction to the link, in the current parent frame, times the neutral rotation. */
static void locals_from_tips(const rig* r, const tl_chain_pose* pose, const float* tips, qt* out) {
    qt G = qt_load(pose->rotation);
    v3 head = v3_add(v3_load(pose->position), qt_rotate(G, r->joints[0]));
    for (int i = 0; i < r->n; ++i) {
        qt neutral = qt_load(r->q + 4 * i);
        v3 own = i + 1 < r->n ? v3_load(r->t + 3 * (i + 1)) : v3_load(r->tip);
        v3 bind = qt_rotate(neutral, v3_normalize_or(own, own));
        v3 d = qt_unrotate(G, v3_normalize_or(v3_sub(tip_at(tips, i), head), bind));
        out[i] = qt_mul(qt_swing(bind, d), neutral);
        G = qt_mul(G, out[i]);
        head = tip_at(tips, i);
    }
}

static bool all_finite(const float* v, int count) {
    for (int i = 0; i < count; ++i)
        if (!isfinite(v[i])) return false;
    return true;
}

/* Zero crossings (linear interpolation) of a sampled signal; returns the period from the first
 * to the third crossing, or -1. */
static double period_from_crossings(const double* x, int count, double dt) {
    double crossings[3];
    int found = 0;
    for (int k = 1; k < count && found < 3; ++k) {
        if ((x[k - 1] < 0) != (x[k] < 0) && x[k - 1] != x[k])
            crossings[found++] = dt * ((k - 1) + x[k - 1] / (x[k - 1] - x[k]));
    }
    return found == 3 ? crossings[2] - crossings[0] : -1;
}

/* ---- cases ---- */

static void test_defaults(void) {
    tl_chain_def d = tl_default_chain_def();
    ENSURE_NEAR(d.settings.root_frequency, 1.2, 1e-6);
    ENSURE_NEAR(d.settings.tip_frequency, 0.45, 1e-6);
    ENSURE_NEAR(d.settings.damping_ratio, 0.65, 1e-6);
    ENSURE_NEAR(d.settings.gravity, 1.0, 1e-6);
    ENSURE_NEAR(d.settings.carry_deg, 50, 1e-6);
    ENSURE_NEAR(d.settings.bend_limit_deg, 30, 1e-6);
    ENSURE_NEAR(d.settings.coupling_rate, 12, 1e-6);
    ENSURE_NEAR(d.settings.rest_curve, 0, 1e-6);
    ENSURE_NEAR(d.settings.ground_clearance, 0.025, 1e-6);
    ENSURE_NEAR(d.settings.slip_damping, 8, 1e-6);
    ENSURE_NEAR(d.fixed_step, 1.0 / 120, 1e-9);
    ENSURE(d.up[1] == 1 && d.scale == 1 && d.floor_enabled && d.hips_plane_enabled);
}

/* Bug 1 (spring-chain.md §2): a spring written as a fraction per frame. One link hanging
 * straight down (no gravity, carry, floor or plane, so the angular motion is the linear
 * damped oscillator theta'' = -w^2 sin(theta) - 2 zeta w theta'); the hips turn 0.1 rad about
 * their lateral axis at once and the link swings back. Expected damped frequency
 * f sqrt(1 - zeta^2) = 0.684 Hz (period 1.462 s). Error budget: semi-implicit Euler at
 * h = 1/120 s has the characteristic roots z^2 - (2 - hc - h^2 w^2) z + (1 - hc) = 0
 * (c = 2 zeta w), whose argument gives a damped frequency 0.38% high; sin(theta) ~ theta
 * at 0.1 rad lowers it 0.06%; crossings interpolated between frames add well under 0.1%.
 * 1% covers that, and the bad reference (3.3 Hz at 60 fps, 1.7 Hz at 30) is off by far. */
#define FRACTION_PER_FRAME 0.12

static void oscillate(bool bad, double fps, double* period_out) {
    rig r;
    rig_straight(&r, 1, v3_make(0, -1, 0), 0.3f);
    memset(r.t, 0, sizeof(float) * 3); /* bone at the attachment's origin: turning moves no head */
    tl_chain_def def = def_for(&r);
    def.settings.gravity = 0;
    def.settings.carry_deg = 0;
    def.floor_enabled = false;
    def.hips_plane_enabled = false;
    tl_chain* chain = create(&def);
    *period_out = -1;
    if (!chain) return;
    const double dt = 1.0 / fps, kick = 0.1;
    tl_chain_pose before = pose_make(0, 1, 0, 0), after = before;
    qt_store(after.rotation, qt_axis_angle(v3_make(1, 0, 0), (float)kick));
    v3 rest = qt_rotate(qt_load(after.rotation), v3_make(0, -1, 0));
    v3 tangent = v3_normalize_or(v3_cross(v3_make(1, 0, 0), rest), rest); /* the swing's sense */
    enum { SAMPLES = 4000 };
    static double x[SAMPLES];
    int count = (int)(4.0 * fps);
    tl_chain_input in = tl_default_chain_input();
    in.start = in.target = before;
    tl_chain_step(chain, &in, (float)dt); /* at rest */
    v3 p = v3_load(tl_chain_tip_positions(chain)), v = v3_make(0, 0, 0);
    const v3 head = v3_load(before.position);
    const double zeta = 0.65;
    for (int k = 0; k < count && k < SAMPLES; ++k) {
        v3 dir;
        if (!bad) {
            in.start = k == 0 ? before : after;
            in.target = after;
            tl_chain_step(chain, &in, (float)dt);
            dir = v3_sub(v3_load(tl_chain_tip_positions(chain)), head);
        } else {
            /* the article's first version: each frame pulls the particle a fixed fraction of
             * the way to its target (a spring of w = sqrt(0.12)/dt), then the rope */
            v3 target = v3_madd(head, rest, 0.3f);
            double w = sqrt(FRACTION_PER_FRAME) / dt;
            v3 acc = v3_sub(v3_scale(v3_sub(target, p), (float)(w * w)),
                            v3_scale(v, (float)(2 * zeta * w)));
            v = v3_madd(v, acc, (float)dt);
            p = v3_madd(p, v, (float)dt);
            v3 n = v3_normalize_or(v3_sub(p, head), rest);
            p = v3_madd(head, n, 0.3f);
            v = v3_madd(v, n, -v3_dot(v, n));
            dir = v3_sub(p, head);
        }
        /* sin of the signed angle from the new rest direction (acos loses small angles) */
        x[k] = v3_dot(v3_normalize_or(dir, rest), tangent);
    }
    *period_out = period_from_crossings(x, count < SAMPLES ? count : SAMPLES, dt);
    tl_chain_destroy(chain);
}

static void test_bug1_spring_in_physical_units(void) {
    /* the damped period of the root link's spring (one link: the root's frequency) */
    const tl_chain_settings d = tl_default_chain_settings();
    const double expected =
        1.0 / (d.root_frequency * sqrt(1 - (double)d.damping_ratio * d.damping_ratio));
    double fps_list[] = {30, 60, 144};
    for (int k = 0; k < 3; ++k) {
        double good, bad;
        oscillate(false, fps_list[k], &good);
        oscillate(true, fps_list[k], &bad);
        fprintf(stderr,
                "  %3.0f fps: damped period %.4f s (expected %.4f), fraction-per-frame %.4f s\n",
                fps_list[k], good, expected, bad);
        ENSURE_MSG(good > 0 && fabs(good - expected) <= 0.01 * expected,
                   "solver period %.4f s, expected %.4f s", good, expected);
        ENSURE_MSG(!(bad > 0 && fabs(bad - expected) <= 0.01 * expected),
                   "the fraction-per-frame reference passed the frequency check (%.4f s)", bad);
    }
}

/* The hip shake (measure.md), run by the solver or with the article's bug 2 switched on.
 * A link's single-frame turn is the angle its world direction turns in one 60 fps frame;
 * the spike is the largest turn of any link, against the larger of its neighbours' turns in
 * that frame. The turn of each joint's local rotation (relative to its parent) is reported
 * too. */
typedef struct turn_record {
    double deg, neighbour_deg, time;
    int link;
} turn_record;

typedef struct shake_report {
    turn_record world, local;
    double length_error;     /* largest | |p_i - h_i| - l_i | / l_i over the particles */
    double beyond_limit_deg; /* largest bend beyond the joint's limit in frames without contact */
    double settle_time;      /* after the shake ends, until every tip moves < 1 cm/s */
    bool finite;
} shake_report;

static void record_turns(turn_record* rec, const double* turn, int n, double t) {
    for (int i = 0; i < n; ++i) {
        if (turn[i] <= rec->deg) continue;
        rec->deg = turn[i];
        rec->neighbour_deg = fmax(i > 0 ? turn[i - 1] : 0, i + 1 < n ? turn[i + 1] : 0);
        rec->link = i;
        rec->time = t;
    }
}

static void run_shake(int n, bool bad, shake_report* rep) {
    rig r;
    rig_straight(&r, n, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* chain = create(&def);
    memset(rep, 0, sizeof *rep);
    rep->finite = false;
    if (!chain) return;
    rep->finite = true;
    tl_chain_debug_velocity_feedback(chain, bad);
    tl_chain_pose p0 = clip_shake(0);
    tl_chain_reset(chain, &p0);
    qt rest_local[TL_CHAIN_MAX_BONES];
    v3 own[TL_CHAIN_MAX_BONES];
    for (int i = 0; i < n; ++i) {
        rest_local[i] = qt_load(tl_chain_local_rotations(chain) + 4 * i);
        own[i] = qt_unrotate(r.orient[i], v3_sub(r.joints[i + 1], r.joints[i]));
        own[i] = v3_normalize_or(own[i], own[i]);
    }
    const float* limits = tl_chain_bend_limits(chain);
    const double dt = 1.0 / 60;
    qt prev_local[TL_CHAIN_MAX_BONES], local[TL_CHAIN_MAX_BONES];
    v3 prev_dir[TL_CHAIN_MAX_BONES], dir[TL_CHAIN_MAX_BONES];
    float prev_tips[3 * TL_CHAIN_MAX_BONES], tips[3 * TL_CHAIN_MAX_BONES];
    double still_since = -1;
    for (int k = 1; k <= 8 * 60; ++k) {
        double t = k * dt;
        tl_chain_input in = frame_input(clip_shake, t - dt, t);
        tl_chain_step(chain, &in, (float)dt);
        memcpy(tips, tl_chain_tip_positions(chain), sizeof(float) * 3 * (size_t)n);
        const float* q = tl_chain_local_rotations(chain);
        const float* particles = tl_chain_particle_positions(chain);
        if (!all_finite(tips, 3 * n) || !all_finite(q, 4 * n) || !all_finite(particles, 3 * n) ||
            !all_finite(tl_chain_particle_velocities(chain), 3 * n))
            rep->finite = false;
        for (int i = 1; i < n; ++i) { /* link 0's head is the root, exact by construction */
            v3 d = v3_sub(v3_load(particles + 3 * i), v3_load(particles + 3 * (i - 1)));
            rep->length_error =
                fmax(rep->length_error, fabs(v3_length(d) - r.length[i]) / r.length[i]);
        }
        for (int i = 0; i < n && tl_chain_get_stats(chain).contacts == 0; ++i) {
            double bend = angle_between(qt_rotate(qt_load(q + 4 * i), own[i]),
                                        qt_rotate(rest_local[i], own[i]));
            rep->beyond_limit_deg = fmax(rep->beyond_limit_deg, (bend - limits[i]) / DEG);
        }
        link_directions(&r, &in.target, tips, dir);
        locals_from_tips(&r, &in.target, tips, local);
        if (k > 1) {
            double world_turn[TL_CHAIN_MAX_BONES], local_turn[TL_CHAIN_MAX_BONES], fastest = 0;
            for (int i = 0; i < n; ++i) {
                world_turn[i] = angle_between(dir[i], prev_dir[i]) / DEG;
                local_turn[i] = qt_angle(qt_mul(local[i], qt_conj(prev_local[i]))) / DEG;
                fastest =
                    fmax(fastest, v3_length(v3_sub(tip_at(tips, i), tip_at(prev_tips, i))) / dt);
            }
            record_turns(&rep->world, world_turn, n, t);
            record_turns(&rep->local, local_turn, n, t);
            if (t <= 4.0 || fastest >= 0.01)
                still_since = -1;
            else if (still_since < 0)
                still_since = t;
        }
        memcpy(prev_dir, dir, sizeof dir);
        memcpy(prev_local, local, sizeof local);
        memcpy(prev_tips, tips, sizeof tips);
    }
    rep->settle_time = still_since < 0 ? -1 : still_since - 4.0;
    tl_chain_destroy(chain);
}

/* A spike is a link turning on its own: more than twice as far as either neighbour in one
 * frame, or a third of the article's 95 degrees. */
static bool spiky(const turn_record* t) {
    return t->deg > 2 * t->neighbour_deg || t->deg > 95.0 / 3;
}

/* Bug 2 and measure.md "Hip shake": no spike, no non-finite value, links within 1e-4 of
 * their length, no bend beyond the limit, at rest within 4 s; the same solver with the
 * corrections fed back as velocity must show a spike. */
static void test_bug2_hip_shake(void) {
    for (int n = 4; n <= 8; n += 4) {
        shake_report good, bad;
        run_shake(n, false, &good);
        run_shake(n, true, &bad);
        const shake_report* reps[2] = {&good, &bad};
        for (int k = 0; k < 2; ++k)
            fprintf(stderr,
                    "  %d links%s: largest turn %.1f deg (link %d at %.2f s), neighbours %.1f deg; "
                    "local rotations %.1f deg (joint %d at %.2f s), neighbours %.1f deg\n",
                    n, k ? ", corrections fed back as velocity" : "", reps[k]->world.deg,
                    reps[k]->world.link, reps[k]->world.time, reps[k]->world.neighbour_deg,
                    reps[k]->local.deg, reps[k]->local.link, reps[k]->local.time,
                    reps[k]->local.neighbour_deg);
        fprintf(stderr,
                "  %d links: length error %.2g; beyond limit %.4f deg; at rest %.2f s after the "
                "shake\n",
                n, good.length_error, good.beyond_limit_deg, good.settle_time);
        ENSURE(good.finite);
        ENSURE(good.length_error <= 1e-4);
        ENSURE_MSG(good.beyond_limit_deg <= 1e-3, "bend beyond the limit by %.4f deg",
                   good.beyond_limit_deg);
        ENSURE_MSG(!spiky(&good.world), "a spike: %.1f deg against neighbours' %.1f",
                   good.world.deg, good.world.neighbour_deg);
        ENSURE_MSG(good.settle_time >= 0 && good.settle_time < 4.0, "did not settle (%.2f)",
                   good.settle_time);
        ENSURE_MSG(spiky(&bad.world), "the bad variant shows no spike: %.1f deg against %.1f",
                   bad.world.deg, bad.world.neighbour_deg);
    }
}

/* Bug 3: the carry is the whole tail's rise. Tails hanging straight down, 4 and 8 links,
 * no gravity (so only the carry acts), settled under still hips: the last link points 50
 * degrees up from straight down for both. A per-joint carry (50 degrees in every joint's own
 * frame) composes N times. */
static double rise_deg(v3 dir) {
    return angle_between(dir, v3_make(0, -1, 0)) / DEG;
}

static void test_bug3_carry_shared(void) {
    for (int n = 4; n <= 8; n += 4) {
        rig r;
        rig_straight(&r, n, v3_make(0, -1, 0), 0.8f);
        tl_chain_def def = def_for(&r);
        def.settings.gravity = 0;
        tl_chain* chain = create(&def);
        ENSURE(chain);
        double fps = 60;
        for (int k = 1; k <= 6 * 60; ++k) {
            tl_chain_input in = frame_input(clip_still, (k - 1) / fps, k / fps);
            tl_chain_step(chain, &in, (float)(1 / fps));
        }
        v3 dir[TL_CHAIN_MAX_BONES];
        tl_chain_pose pose = clip_still(0);
        link_directions(&r, &pose, tl_chain_tip_positions(chain), dir);
        double rise = rise_deg(dir[n - 1]);
        double rest_rise = rise_deg(v3_load(tl_chain_rest_directions(chain) + 3 * (n - 1)));
        /* the per-joint carry: every joint adds 50 degrees about the lateral axis */
        qt per_joint = qt_identity();
        for (int i = 0; i < n; ++i)
            per_joint = qt_mul(per_joint, qt_axis_angle(v3_make(1, 0, 0), (float)(50 * DEG)));
        double per_joint_rise = rise_deg(qt_rotate(per_joint, v3_make(0, -1, 0)));
        fprintf(stderr,
                "  %d links: rise %.2f deg settled, %.2f deg rest arc; per-joint carry %.0f deg "
                "(%d x 50 = %d)\n",
                n, rise, rest_rise, per_joint_rise, n, 50 * n);
        ENSURE_NEAR(rest_rise, 50, 0.01);
        ENSURE_NEAR(rise, 50, 1.5);
        ENSURE(fabs(per_joint_rise - 50) > 1.5);
        /* the rise is shared: link i rises 50 (i+1)/N */
        for (int i = 0; i < n; ++i)
            ENSURE_NEAR(rise_deg(v3_load(tl_chain_rest_directions(chain) + 3 * i)),
                        50.0 * (i + 1) / n, 0.01);
        tl_chain_destroy(chain);
    }
    /* A tail already pointing back (a quadruped's, 100 degrees from hanging) gets no carry. */
    rig r;
    rig_straight(&r, 4, v3_make(0, -(float)cos(100 * DEG), -(float)sin(100 * DEG)), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* chain = create(&def);
    ENSURE(chain);
    for (int i = 0; i < 4; ++i)
        ENSURE_NEAR(rise_deg(v3_load(tl_chain_rest_directions(chain) + 3 * i)), 100, 0.01);
    tl_chain_destroy(chain);
}

/* §6: the centred rest arc removes only the sideways component; rest_curve 1 keeps it. */
static void test_rest_arc_centred(void) {
    rig r;
    /* a tail curling to the character's left and hanging down-back */
    v3 root = v3_make(0, -0.05f, -0.12f);
    r.joints[0] = root;
    for (int i = 1; i <= 4; ++i) {
        double side = 0.25 * i * 0.35, down = -0.6 * cos(0.15 * i), back = -0.1 * i;
        v3 d = v3_normalize_or(v3_make((float)side, (float)down, (float)back), root);
        r.joints[i] = v3_madd(r.joints[i - 1], d, 0.2f);
    }
    for (int i = 0; i < 4; ++i)
        r.orient[i] = qt_axis_angle(v3_make(0, 0, 1), (float)(0.3 * i));
    rig_from_joints(&r, 4);
    tl_chain_def def = def_for(&r);
    def.settings.carry_deg = 0;
    tl_chain* centred = create(&def);
    def.settings.rest_curve = 1;
    tl_chain* authored = create(&def);
    ENSURE(centred && authored);
    for (int i = 0; i < 4; ++i) {
        v3 a = v3_normalize_or(v3_sub(r.joints[i + 1], r.joints[i]), root);
        v3 c = v3_load(tl_chain_rest_directions(centred) + 3 * i);
        v3 k = v3_load(tl_chain_rest_directions(authored) + 3 * i);
        v3 s = v3_normalize_or(v3_make(0, a.y, a.z), a);
        ENSURE_NEAR(c.x, 0, 1e-5);                 /* no sideways curl */
        ENSURE_NEAR(angle_between(c, s), 0, 1e-3); /* the up-down curve kept */
        ENSURE_NEAR(angle_between(k, a), 0, 1e-3); /* beta = 1: the authored curve */
    }
    tl_chain_destroy(centred);
    tl_chain_destroy(authored);
}

/* §5: without a Tail_End, the last link continues the incoming tangent in the last bone's own
 * frame, even when that bone's bind orientation is turned 90 degrees. */
static void test_tip_without_tail_end(void) {
    rig r;
    rig_straight(&r, 4, v3_make(0, -0.6f, -0.8f), 0.8f);
    r.orient[3] = qt_mul(r.orient[2], qt_axis_angle(v3_make(0, 0, 1), (float)(90 * DEG)));
    rig_from_joints(&r, 4);
    tl_chain_def def = def_for(&r);
    def.tip_translation = NULL;
    def.settings.carry_deg = 0;
    def.settings.rest_curve = 1;
    tl_chain* chain = create(&def);
    ENSURE(chain);
    tl_chain_pose pose = clip_still(0);
    tl_chain_reset(chain, &pose);
    const float* tips = tl_chain_tip_positions(chain);
    v3 incoming = v3_sub(r.joints[3], r.joints[2]);
    v3 expected = v3_add(v3_add(v3_load(pose.position), r.joints[3]), incoming);
    ENSURE_NEAR(v3_length(v3_sub(tip_at(tips, 3), expected)), 0, 1e-5);
    /* copying the parent-frame vector would have put the tip elsewhere */
    v3 wrong = v3_add(v3_add(v3_load(pose.position), r.joints[3]),
                      qt_rotate(r.orient[3], qt_unrotate(r.orient[2], incoming)));
    ENSURE(v3_length(v3_sub(wrong, expected)) > 0.1f);
    tl_chain_destroy(chain);
}

/* §5: neutral locals from inverse bind matrices, against locals composed here. */
static void affine(float m[16], qt q, v3 t, float s) {
    v3 x = v3_scale(qt_rotate(q, v3_make(1, 0, 0)), s),
       y = v3_scale(qt_rotate(q, v3_make(0, 1, 0)), s),
       z = v3_scale(qt_rotate(q, v3_make(0, 0, 1)), s);
    float out[16] = {x.x, x.y, x.z, 0, y.x, y.y, y.z, 0, z.x, z.y, z.z, 0, t.x, t.y, t.z, 1};
    memcpy(m, out, sizeof out);
}

static void test_neutral_from_binds(void) {
    /* parent world W_p = (q_p, t_p, s); child world W = W_p * (q_l, t_l); IBMs are the
     * inverses, built in closed form: (s R, t)^-1 = (R^T / s, -R^T t / s) */
    qt qp = qt_axis_angle(v3_normalize_or(v3_make(1, 2, 3), v3_make(1, 0, 0)), 0.7f);
    qt ql = qt_axis_angle(v3_normalize_or(v3_make(-2, 1, 0.5f), v3_make(1, 0, 0)), 1.1f);
    v3 tp = v3_make(0.3f, 92, -4), tl = v3_make(0, 12.5f, 3);
    float s = 100;
    qt qw = qt_mul(qp, ql);
    v3 tw = v3_add(tp, v3_scale(qt_rotate(qp, tl), s));
    float ibm_p[16], ibm[16];
    affine(ibm_p, qt_conj(qp), v3_scale(qt_unrotate(qp, tp), -1 / s), 1 / s);
    affine(ibm, qt_conj(qw), v3_scale(qt_unrotate(qw, tw), -1 / s), 1 / s);
    float t[3], q[4];
    tl_chain_local_from_binds(ibm_p, ibm, t, q);
    ENSURE_NEAR(v3_length(v3_sub(v3_load(t), tl)), 0, 1e-3);
    ENSURE_NEAR(fabs(qt_dot(qt_load(q), ql)), 1, 1e-5);
}

/* Units hold: the same scene in Z-up centimetres (world = 100 * Rx(+90 deg) * metres,
 * scale 100) gives the same motion. Float rounding differs between the two runs; the
 * damped system does not amplify it, so 1e-4 of the chain length is a wide bound. */
static void test_units_zup_centimetres(void) {
    rig m, c;
    rig_straight(&m, 8, v3_make(0, -1, 0), 0.8f);
    c = m;
    for (int i = 0; i < 3 * m.n; ++i)
        c.t[i] *= 100;
    for (int i = 0; i < 3; ++i)
        c.tip[i] *= 100;
    tl_chain_def dm = def_for(&m), dc = def_for(&c);
    dc.up[0] = 0, dc.up[1] = 0, dc.up[2] = 1;
    dc.scale = 100;
    tl_chain* a = create(&dm);
    tl_chain* b = create(&dc);
    ENSURE(a && b);
    qt to_zup = qt_axis_angle(v3_make(1, 0, 0), (float)(90 * DEG));
    double worst = 0, fps = 60;
    int contacts = 0;
    for (int k = 1; k <= 4 * 60; ++k) {
        double t0 = (k - 1) / fps, t1 = k / fps;
        tl_chain_input in = frame_input(clip_shake, t0, t1);
        in.start.position[1] -= 0.45f,
            in.target.position[1] -= 0.45f; /* low: the tail hits the floor */
        tl_chain_step(a, &in, (float)(1 / fps));
        tl_chain_pose* poses[2] = {&in.start, &in.target};
        for (int j = 0; j < 2; ++j) {
            v3_store(poses[j]->position,
                     v3_scale(qt_rotate(to_zup, v3_load(poses[j]->position)), 100));
            qt_store(poses[j]->rotation, qt_mul(to_zup, qt_load(poses[j]->rotation)));
        }
        tl_chain_step(b, &in, (float)(1 / fps));
        contacts += tl_chain_get_stats(a).contacts > 0;
        for (int i = 0; i < 8; ++i) {
            v3 pm = v3_scale(qt_rotate(to_zup, tip_at(tl_chain_tip_positions(a), i)), 100);
            double d = v3_length(v3_sub(pm, tip_at(tl_chain_tip_positions(b), i))) / 100;
            if (d > worst) worst = d;
        }
    }
    fprintf(stderr,
            "  Y-up metres vs Z-up centimetres: largest tip difference %.3g of the chain (%d "
            "frames in contact)\n",
            worst / 0.8, contacts);
    ENSURE(contacts > 0);
    ENSURE(worst <= 1e-4 * 0.8);
    tl_chain_destroy(a);
    tl_chain_destroy(b);
}

/* measure.md "Frame-rate independence": the walk and the shake rendered at 30, 60 and 144
 * fps; tips compared at the common times (multiples of 1/6 s). */
static double frame_rate_difference(clip_fn* clip, double seconds) {
    enum { RATES = 3 };
    const int fps[RATES] = {30, 60, 144};
    int samples = (int)(seconds * 6);
    float* tips = calloc((size_t)RATES * (size_t)(samples + 1) * 24, sizeof(float));
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    for (int k = 0; k < RATES; ++k) {
        tl_chain* chain = create(&def);
        if (!chain) return 1e9;
        int per_sample = fps[k] / 6;
        for (int f = 1; f <= samples * per_sample; ++f) {
            tl_chain_input in = frame_input(clip, (f - 1) / (double)fps[k], f / (double)fps[k]);
            tl_chain_step(chain, &in, 1.0f / (float)fps[k]);
            if (f % per_sample == 0)
                memcpy(tips + ((size_t)k * (size_t)(samples + 1) + (size_t)(f / per_sample)) * 24,
                       tl_chain_tip_positions(chain), 24 * sizeof(float));
        }
        tl_chain_destroy(chain);
    }
    double worst = 0;
    for (int sidx = 1; sidx <= samples; ++sidx)
        for (int k = 1; k < RATES; ++k)
            for (int i = 0; i < 8; ++i) {
                const float* a = tips + ((size_t)sidx) * 24 + 3 * (size_t)i;
                const float* b =
                    tips + ((size_t)k * (size_t)(samples + 1) + (size_t)sidx) * 24 + 3 * (size_t)i;
                double d = v3_length(v3_sub(v3_load(a), v3_load(b)));
                if (d > worst) worst = d;
            }
    free(tips);
    return worst / r.total;
}

static void test_frame_rate_independence(void) {
    double walk = frame_rate_difference(clip_walk, 4);
    double shake = frame_rate_difference(clip_shake, 8);
    fprintf(stderr, "  tips at 30/60/144 fps: walk %.3f%%, hip shake %.3f%% of the chain length\n",
            100 * walk, 100 * shake);
    ENSURE(walk <= 0.01);
    /* each internal step takes the attachment on the parabola through the previous frame's
     * start as well (a straight line between frame poses cut the walk's curves: 0.14%) */
    ENSURE(walk <= 0.0005);
}

/* measure.md "Hitches and teleports": after a single 0.5 s frame, and after a 100 m jump of
 * the root, the peak speed of the particles relative to the hips' rigid motion (the tail's
 * own motion, v - (v_root + w x (p - root))) is no higher than before. */
static double relative_speed(const tl_chain* chain, clip_fn* clip, double t) {
    const double h = 1e-4;
    tl_chain_pose a = clip(t - h), b = clip(t);
    v3 root = v3_load(b.position);
    v3 root_velocity = v3_scale(v3_sub(v3_load(b.position), v3_load(a.position)), (float)(1 / h));
    qt turn = qt_mul(qt_load(b.rotation), qt_conj(qt_load(a.rotation)));
    v3 w = v3_scale(v3_make(turn.x, turn.y, turn.z), (float)(2 / h) * (turn.w < 0 ? -1.0f : 1.0f));
    double fastest = 0;
    const float* p = tl_chain_particle_positions(chain);
    const float* v = tl_chain_particle_velocities(chain);
    for (int i = 0; i < tl_chain_bone_count(chain); ++i) {
        v3 carried = v3_add(root_velocity, v3_cross(w, v3_sub(v3_load(p + 3 * i), root)));
        fastest = fmax(fastest, v3_length(v3_sub(v3_load(v + 3 * i), carried)));
    }
    return fastest;
}

static tl_chain_pose clip_walk_teleported(double t) {
    tl_chain_pose p = clip_walk(t);
    if (t >= 3.0) p.position[0] += 100;
    return p;
}

static tl_chain_pose clip_walk_then_stop(double t) {
    return clip_walk(t < 3.25 ? t : 3.25);
}

/* Walks 60 fps frames to 6 s with one frame of hitch seconds at 3 s; returns the peak
 * relative speeds over (1 s, 3 s) and after 3 s, and the tips relative to the root at 6 s. */
static void hitch_case(clip_fn* clip, double hitch, int max_substeps, double* before, double* after,
                       tl_chain_stats* stats, float* tips_from_root) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    def.max_substeps = max_substeps;
    tl_chain* chain = create(&def);
    *before = *after = -1;
    if (!chain) return;
    const double dt = 1 / 60.0;
    double t = 0;
    *before = *after = 0;
    tl_chain_input in;
    while (t < 6.0 - 1e-9) {
        double step = fabs(t - 3.0) < 1e-6 ? hitch : dt;
        in = frame_input(clip, t, t + step);
        tl_chain_step(chain, &in, (float)step);
        t += step;
        double speed = relative_speed(chain, clip, t);
        if (t > 1.0 && t < 3.0 - 1e-9) *before = fmax(*before, speed);
        if (t > 3.0 + 1e-9) *after = fmax(*after, speed);
    }
    for (int i = 0; i < 8; ++i)
        v3_store(tips_from_root + 3 * i,
                 v3_sub(tip_at(tl_chain_tip_positions(chain), i), v3_load(in.target.position)));
    *stats = tl_chain_get_stats(chain);
    tl_chain_destroy(chain);
}

static void test_hitch_and_teleport(void) {
    double before, after, ref_before, ref_after;
    tl_chain_stats st, ref;
    float tips[24], ref_tips[24];
    /* the hips stop during the hitch: whatever the tail has after it came from before it */
    hitch_case(clip_walk_then_stop, 0.5, 8, &before, &after, &st, tips);
    fprintf(stderr,
            "  0.5 s hitch, hips stopping in it: peak speed relative to the hips %.3f m/s before, "
            "%.3f after (%u clamped)\n",
            before, after, st.clamped_frames);
    ENSURE(st.clamped_frames == 1 && st.nonfinite_states == 0);
    ENSURE(after <= before);
    /* walking on through the hitch, against simulating all 60 sub-steps (no clamp) */
    hitch_case(clip_walk, 0.5, 8, &before, &after, &st, tips);
    hitch_case(clip_walk, 0.5, 1000, &ref_before, &ref_after, &ref, ref_tips);
    fprintf(stderr,
            "  0.5 s hitch, walking on: %.3f m/s before, %.3f after; with all 60 sub-steps run "
            "%.3f after\n",
            before, after, ref_after);
    ENSURE(st.clamped_frames == 1 && ref.clamped_frames == 0 && st.nonfinite_states == 0);
    /* 100 m teleport inside one frame: the chain is carried, then walks on as before */
    hitch_case(clip_walk_teleported, 1 / 60.0, 8, &before, &after, &st, tips);
    hitch_case(clip_walk, 1 / 60.0, 8, &ref_before, &ref_after, &ref, ref_tips);
    double drift = 0;
    for (int i = 0; i < 8; ++i)
        drift = fmax(drift, v3_length(v3_sub(v3_load(tips + 3 * i), v3_load(ref_tips + 3 * i))));
    fprintf(stderr,
            "  100 m teleport: %.3f m/s before, %.3f after (without it %.3f); 3 s later the tips "
            "are %.2g m from the run without it\n",
            before, after, ref_after, drift);
    ENSURE(st.teleports == 1 && st.nonfinite_states == 0 && ref.teleports == 0);
    ENSURE(after <= ref_after + 0.01 * ref_after && drift < 1e-3);
}

/* A teleport is a translation: the jump's frame still moves the hips as the clip does (the
 * previous frame's velocity and the frame's own turn), so the tail is where it would have been
 * without the jump from the first frame on, not only once a transient has died down. */
static void test_teleport_keeps_frame_motion(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* jumped = create(&def);
    tl_chain* plain = create(&def);
    ENSURE(jumped && plain);
    const double dt = 1 / 60.0;
    double worst = 0;
    for (int f = 1; f <= 4 * 60; ++f) {
        double t0 = (f - 1) * dt, t1 = f * dt;
        tl_chain_input a = frame_input(clip_walk_teleported, t0, t1);
        tl_chain_input b = frame_input(clip_walk, t0, t1);
        tl_chain_step(jumped, &a, (float)dt);
        tl_chain_step(plain, &b, (float)dt);
        if (t1 < 3.0 - 1e-9) continue;
        for (int i = 0; i < 8; ++i) {
            v3 p = v3_sub(tip_at(tl_chain_tip_positions(jumped), i), v3_load(a.target.position));
            v3 q = v3_sub(tip_at(tl_chain_tip_positions(plain), i), v3_load(b.target.position));
            worst = fmax(worst, v3_length(v3_sub(p, q)));
        }
    }
    fprintf(stderr, "  100 m teleport while walking: tips at most %.2g m from the run without it\n",
            worst);
    ENSURE(tl_chain_get_stats(jumped).teleports == 1);
    ENSURE(worst < 1e-3 * r.total);
    tl_chain_destroy(jumped);
    tl_chain_destroy(plain);
}

/* A cut (a frame whose start is not the previous frame's target: a loop's wrap, a teleport
 * the game knows of) carries the chain rigidly: a walk whose poses are turned 5 degrees about
 * the vertical through the origin (2.4 m behind) and moved 0.1 m from one frame on (a jump of
 * 0.3 m, under the teleport distance) gives, from that frame on, the tips of the plain walk
 * moved the same way. */
static tl_chain_pose moved_pose(tl_chain_pose p) {
    qt turn = qt_axis_angle(v3_make(0, 1, 0), (float)(5 * DEG));
    v3_store(p.position, v3_add(qt_rotate(turn, v3_load(p.position)), v3_make(0.1f, 0, -0.05f)));
    qt_store(p.rotation, qt_mul(turn, qt_load(p.rotation)));
    return p;
}
static void test_cut_carries_rigidly(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* cut = create(&def);
    tl_chain* plain = create(&def);
    ENSURE(cut && plain);
    const double dt = 1 / 60.0;
    const int cut_frame = 120;
    double worst = 0;
    qt turn = qt_axis_angle(v3_make(0, 1, 0), (float)(5 * DEG));
    for (int f = 1; f <= 240; ++f) {
        tl_chain_input a = frame_input(clip_walk, (f - 1) * dt, f * dt), b = a;
        if (f >= cut_frame) b.start = moved_pose(b.start), b.target = moved_pose(b.target);
        tl_chain_step(cut, &b, (float)dt);
        tl_chain_step(plain, &a, (float)dt);
        if (f < cut_frame) continue;
        for (int i = 0; i < 8; ++i) {
            v3 expected = v3_add(qt_rotate(turn, tip_at(tl_chain_tip_positions(plain), i)),
                                 v3_make(0.1f, 0, -0.05f));
            worst =
                fmax(worst, v3_length(v3_sub(tip_at(tl_chain_tip_positions(cut), i), expected)));
        }
    }
    tl_chain_stats stats = tl_chain_get_stats(cut);
    fprintf(stderr, "  cut at frame %d: tips within %.2g of the chain of the moved plain walk\n",
            cut_frame, worst / r.total);
    ENSURE_MSG(stats.cuts == 1 && tl_chain_get_stats(plain).cuts == 0, "cuts %u, plain %u",
               stats.cuts, tl_chain_get_stats(plain).cuts);
    ENSURE(worst < 1e-4 * r.total);
    tl_chain_destroy(cut);
    tl_chain_destroy(plain);
}

/* A frame whose start is the previous frame's target exactly as given (here a rotation not of
 * unit length) skips the start's checks and normalisation and takes the hips' start from the
 * last frame (chain_frame_begin; they matter once hips are given apart): the same bits
 * as a twin given that rotation doubled, which takes the ordinary test against last_target
 * (doubling is exact, so is its normalisation: the same unit rotation), alone and in a batch;
 * after tl_chain_reset to another pose, the same start is a cut again. */
static tl_chain_pose clip_walk_long(double t) {
    tl_chain_pose p = clip_walk(t);
    for (int k = 0; k < 4; ++k)
        p.rotation[k] *= 1.5f; /* (valid: a non-zero rotation is normalised) */
    return p;
}

static void test_start_as_given(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    enum { PAIRS = 3 };
    tl_chain* given[PAIRS];
    tl_chain* normalised[PAIRS];
    for (int k = 0; k < PAIRS; ++k)
        given[k] = create(&def), normalised[k] = create(&def);
    const double dt = 1 / 60.0;
    bool same = true;
    for (int f = 1; f <= 150; ++f) {
        tl_chain_input a[PAIRS], b[PAIRS];
        for (int k = 0; k < PAIRS; ++k) {
            a[k] = frame_input(clip_walk_long, (f - 1) * dt + 0.3 * k, f * dt + 0.3 * k);
            if (f > 120) { /* hips given apart, their curve from the last frame's start: turned
                              about (the tail now ahead, the plane behind them pushing it) */
                a[k].has_hips = true;
                qt about = {0, 1, 0, 0};
                qt_store(a[k].hips_start, qt_mul(qt_load(a[k].start.rotation), about));
                qt_store(a[k].hips_target, qt_mul(qt_load(a[k].target.rotation), about));
            }
            b[k] = a[k];
            for (int j = 0; j < 4; ++j) /* other bits, the same unit rotation exactly */
                b[k].start.rotation[j] *= 2;
        }
        tl_chain_step(given[0], &a[0], (float)dt); /* alone, and two in a batch */
        tl_chain_step(normalised[0], &b[0], (float)dt);
        tl_chain_batch_step(test_batch(), given + 1, a + 1, PAIRS - 1, (float)dt);
        tl_chain_batch_step(test_batch(), normalised + 1, b + 1, PAIRS - 1, (float)dt);
        for (int k = 0; k < PAIRS; ++k)
            same &= memcmp(tl_chain_tip_positions(given[k]), tl_chain_tip_positions(normalised[k]),
                           sizeof(float) * 3 * 8) == 0;
    }
    uint32_t cuts = 0;
    for (int k = 0; k < PAIRS; ++k)
        cuts += tl_chain_get_stats(given[k]).cuts + tl_chain_get_stats(normalised[k]).cuts;
    /* placed elsewhere: the start given as the last target's is a cut now */
    tl_chain_input last = frame_input(clip_walk_long, 149 * dt, 150 * dt);
    tl_chain_pose away = clip_walk_long(0);
    tl_chain_reset(given[0], &away);
    tl_chain_input next = frame_input(clip_walk_long, 150 * dt, 151 * dt);
    next.start = last.target;
    tl_chain_step(given[0], &next, (float)dt);
    uint32_t after_reset = tl_chain_get_stats(given[0]).cuts;
    fprintf(stderr, "  start as given: tips bit-identical %d, cuts %u; after a reset %u\n", same,
            cuts, after_reset);
    ENSURE(same && cuts == 0 && after_reset == 1);
    for (int k = 0; k < PAIRS; ++k)
        tl_chain_destroy(given[k]), tl_chain_destroy(normalised[k]);
}

/* §7: a tail hanging into the floor lies on it: every tip at or above F = 0.025 m, links
 * exactly their length; with the hips below the floor (u > 1) nothing stretches. */
static tl_chain_pose clip_low(double t) {
    return pose_make(0.1 * sin(2 * PI * t), 0.35, 0, 0);
}
static tl_chain_pose clip_buried(double t) {
    return pose_make(0, -0.3 + 0.0 * t, 0, 0);
}

static void ground_case(clip_fn* clip, double* lowest, double* length_error, uint32_t* contacts) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    def.settings.carry_deg = 0;
    tl_chain* chain = create(&def);
    *lowest = 1e9, *length_error = 1e9;
    if (!chain) return;
    const double dt = 1 / 60.0;
    for (int k = 1; k <= 5 * 60; ++k) {
        tl_chain_input in = frame_input(clip, (k - 1) * dt, k * dt);
        tl_chain_step(chain, &in, (float)dt);
    }
    /* settle, then measure the state and the output */
    tl_chain_pose still = clip(5.0);
    tl_chain_input in = tl_default_chain_input();
    in.start = in.target = still;
    for (int k = 0; k < 4 * 60; ++k)
        tl_chain_step(chain, &in, (float)dt);
    const float* p = tl_chain_particle_positions(chain);
    const float* tips = tl_chain_tip_positions(chain);
    *lowest = 1e9, *length_error = 0;
    v3 head = v3_add(v3_load(still.position), r.joints[0]);
    for (int i = 0; i < 8; ++i) {
        *lowest = fmin(*lowest, fmin(p[3 * i + 1], tips[3 * i + 1]));
        double e = fabs(v3_length(v3_sub(v3_load(p + 3 * i), head)) - r.length[i]) / r.length[i];
        *length_error = fmax(*length_error, e);
        head = v3_load(p + 3 * i);
    }
    *contacts = tl_chain_get_stats(chain).contacts;
    tl_chain_destroy(chain);
}

static void test_ground_contact(void) {
    double lowest, err;
    uint32_t contacts;
    ground_case(clip_low, &lowest, &err, &contacts);
    fprintf(stderr,
            "  low hips: lowest tip %.6f m (F = 0.025), length error %.2g, %u tips touching\n",
            lowest, err, contacts);
    ENSURE(contacts >= 2);
    ENSURE(lowest >= 0.025 - 1e-5);
    ENSURE(err <= 1e-5);
    ground_case(clip_buried, &lowest, &err, &contacts);
    fprintf(stderr, "  hips 0.3 m under the floor: length error %.2g, %u tips touching\n", err,
            contacts);
    ENSURE(err <= 1e-5);
    ENSURE(contacts >= 1);
}

/* The plane behind the hips: a tail pushed forward between the legs (the hips sprint
 * backwards) never crosses the plane through its root below the root. */
static tl_chain_pose clip_backwards(double t) {
    return pose_make(0, 1, -3.0 * t, 0);
}

static void test_plane_behind_hips(void) {
    rig r;
    rig_straight(&r, 4, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    def.settings.carry_deg = 0;
    tl_chain* chain = create(&def);
    ENSURE(chain);
    double worst = 0;
    const double dt = 1 / 60.0;
    for (int k = 1; k <= 120; ++k) {
        tl_chain_input in = frame_input(clip_backwards, (k - 1) * dt, k * dt);
        tl_chain_step(chain, &in, (float)dt);
        const float* p = tl_chain_particle_positions(chain);
        v3 root = v3_add(v3_load(in.target.position), r.joints[0]);
        for (int i = 0; i < 4; ++i) {
            v3 d = v3_sub(v3_load(p + 3 * i), root);
            if (d.y < 0) worst = fmax(worst, d.z); /* forward is +z */
        }
    }
    /* without the plane the same motion swings the tail forward */
    def.hips_plane_enabled = false;
    tl_chain* free_chain = create(&def);
    ENSURE(free_chain);
    double free_worst = 0;
    for (int k = 1; k <= 120; ++k) {
        tl_chain_input in = frame_input(clip_backwards, (k - 1) * dt, k * dt);
        tl_chain_step(free_chain, &in, (float)dt);
        v3 root = v3_add(v3_load(in.target.position), r.joints[0]);
        for (int i = 0; i < 4; ++i) {
            v3 d = v3_sub(v3_load(tl_chain_particle_positions(free_chain) + 3 * i), root);
            if (d.y < 0) free_worst = fmax(free_worst, d.z);
        }
    }
    fprintf(stderr, "  furthest forward below the root: %.2g m with the plane, %.3f m without\n",
            worst, free_worst);
    ENSURE(worst <= 1e-5);
    ENSURE(free_worst > 0.05);
    tl_chain_destroy(chain);
    tl_chain_destroy(free_chain);
}

/* §4: thick tails get a smaller limit min(30 deg, 0.15 l / r). */
static void test_bend_limit_radii(void) {
    rig r;
    rig_straight(&r, 4, v3_make(0, -1, 0), 0.8f);
    float radii[4] = {0.05f, 0.5f, 0.0f, 0.25f}; /* l = 0.2 */
    tl_chain_def def = def_for(&r);
    def.joint_radii = radii;
    tl_chain* chain = create(&def);
    ENSURE(chain);
    const float* lim = tl_chain_bend_limits(chain);
    ENSURE_NEAR(lim[0], 30 * DEG, 1e-6); /* 0.15 * 0.2 / 0.05 = 0.6 rad > 30 deg */
    ENSURE_NEAR(lim[1], 0.15 * 0.2 / 0.5, 1e-6);
    ENSURE_NEAR(lim[2], 30 * DEG, 1e-6); /* unknown */
    ENSURE_NEAR(lim[3], 0.15 * 0.2 / 0.25, 1e-6);
    tl_chain_destroy(chain);
}

/* Untrusted geometry: a zero-length link is an error naming the bone. */
static void test_invalid_geometry(void) {
    rig r;
    rig_straight(&r, 4, v3_make(0, -1, 0), 0.8f);
    memset(r.t + 6, 0, 3 * sizeof(float)); /* bone 2 sits on bone 1 */
    tl_chain_def def = def_for(&r);
    tl_chain* chain = (tl_chain*)&r;
    tl_error err = {0};
    ENSURE(tl_chain_create(&def, NULL, &chain, &err) == TL_ERROR_INVALID);
    ENSURE(chain == NULL && strstr(err.message, "bone 1"));
    r.t[0] = NAN;
    ENSURE(tl_chain_create(&def, NULL, &chain, &err) == TL_ERROR_INVALID);
}

/* Non-finite input resets the chain, is counted, and never leaks out. */
static void test_nonfinite_input(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* chain = create(&def);
    ENSURE(chain);
    const double dt = 1 / 60.0;
    for (int k = 1; k <= 200; ++k) {
        tl_chain_input in = frame_input(clip_shake, (k - 1) * dt, k * dt);
        if (k == 50) in.target.position[0] = NAN;
        if (k == 80) in.start.rotation[2] = INFINITY;
        if (k == 90) memset(in.target.rotation, 0, sizeof in.target.rotation);
        tl_chain_step(chain, &in, k == 120 ? NAN : (float)dt);
        ENSURE(all_finite(tl_chain_tip_positions(chain), 24));
        ENSURE(all_finite(tl_chain_local_rotations(chain), 32));
        ENSURE(all_finite(tl_chain_particle_positions(chain), 24));
        ENSURE(all_finite(tl_chain_particle_velocities(chain), 24));
    }
    tl_chain_stats st = tl_chain_get_stats(chain);
    ENSURE(st.nonfinite_inputs == 4 && st.nonfinite_states == 0);
    tl_chain_destroy(chain);
}

/* No allocation after create, through every path: contact, limit, plane, teleport, hitch,
 * reset, clear, non-finite input, zero dt, several chains at once. */
typedef struct counting {
    size_t allocs, frees;
} counting;
static void* count_alloc(size_t size, void* user) {
    ((counting*)user)->allocs++;
    return malloc(size);
}
static void count_free(void* p, void* user) {
    ((counting*)user)->frees++;
    free(p);
}

static void test_no_allocation_in_step(void) {
    counting counts = {0, 0};
    tl_allocator a = {count_alloc, count_free, &counts};
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* chains[3];
    for (int i = 0; i < 3; ++i) {
        tl_error err;
        ENSURE_OK(tl_chain_create(&def, &a, &chains[i], &err), err);
    }
    tl_chain_batch* batch;
    tl_error err;
    ENSURE_OK(tl_chain_batch_create(8, 3, &a, &batch, &err), err);
    ENSURE(counts.allocs == 4 && counts.frees == 0);
    const double dt = 1 / 60.0;
    uint32_t touched = 0;
    for (int k = 1; k <= 600; ++k) {
        double t0 = (k - 1) * dt, t1 = k * dt;
        tl_chain_input in[3] = {frame_input(clip_shake, t0, t1), frame_input(clip_low, t0, t1),
                                frame_input(clip_buried, t0, t1)};
        float step = (float)dt;
        if (k == 100) in[0].target.position[0] += 100; /* teleport in a frame */
        if (k == 200) step = 0.5f;                     /* hitch */
        if (k == 300) in[1].start.position[2] = NAN;   /* non-finite */
        if (k == 400) step = 0;
        if (k == 450) tl_chain_reset(chains[2], &in[2].start);
        if (k == 500) tl_chain_clear(chains[1]);
        tl_chain_batch_step(batch, chains, in, 3, step);
        touched += tl_chain_get_stats(chains[1]).contacts;
    }
    tl_chain_stats s0 = tl_chain_get_stats(chains[0]), s1 = tl_chain_get_stats(chains[1]);
    fprintf(stderr,
            "  after create: %zu allocations (3 chains, a batch); after 600 frames: %zu (teleports "
            "%u, clamped %u, "
            "non-finite %u, contact steps %u)\n",
            (size_t)4, counts.allocs, s0.teleports, s0.clamped_frames, s1.nonfinite_inputs,
            touched);
    ENSURE(counts.allocs == 4 && counts.frees == 0);
    tl_chain_batch_destroy(batch);
    ENSURE(s0.teleports >= 1 && s0.clamped_frames == 1 && s1.nonfinite_inputs == 1 && touched > 0);
    for (int i = 0; i < 3; ++i)
        tl_chain_destroy(chains[i]);
    ENSURE(counts.frees == 4);
}

/* The same inputs give the same bits: two chains stepped apart, one stepped among others. */
static uint64_t fnv(uint64_t h, const void* data, size_t size) {
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t run_hash(bool many) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain* chains[2] = {create(&def), create(&def)};
    if (!chains[0] || !chains[1]) return 0;
    const double dt = 1 / 60.0;
    uint64_t h = 1469598103934665603ull;
    for (int k = 1; k <= 480; ++k) {
        tl_chain_input in[2] = {frame_input(clip_shake, (k - 1) * dt, k * dt),
                                frame_input(clip_walk, (k - 1) * dt, k * dt)};
        if (many)
            tl_chain_batch_step(test_batch(), chains, in, 2, (float)dt);
        else
            tl_chain_step(chains[0], &in[0], (float)dt);
    }
    h = fnv(h, tl_chain_particle_positions(chains[0]), 24 * sizeof(float));
    h = fnv(h, tl_chain_particle_velocities(chains[0]), 24 * sizeof(float));
    h = fnv(h, tl_chain_local_rotations(chains[0]), 32 * sizeof(float));
    tl_chain_destroy(chains[0]);
    tl_chain_destroy(chains[1]);
    return h;
}

static void test_determinism(void) {
    uint64_t a = run_hash(false), b = run_hash(false), c = run_hash(true);
    fprintf(stderr, "  hash %016llx %016llx %016llx\n", (unsigned long long)a,
            (unsigned long long)b, (unsigned long long)c);
    ENSURE(a != 0 && a == b && a == c);
}

/* tl_chain_batch_step steps chains with the same bone count 8 or 16 at a time in SIMD lanes; a
 * chain stepped alone runs the same operations as scalar code. Every output must have the same bits
 * either way, whatever shares the batch: mixed bone counts, chains whose fixed steps differ
 * (so one lane runs fewer internal steps than its neighbours), a hitch, a teleport, a
 * non-finite input, contact, thick-tail limits, and a chain listed twice in one call. */
enum { BATCH = 11 };

static tl_chain* batch_chain(int index, rig* r) {
    static const int bones[BATCH] = {8, 8, 3, 8, 8, 5, 8, 1, 8, 8, 3};
    rig_straight(r, bones[index], v3_make(0, -1, 0.2f * (float)(index % 3)), 0.8f);
    tl_chain_def def = def_for(r);
    float radii[TL_CHAIN_MAX_BONES];
    for (int i = 0; i < r->n; ++i)
        radii[i] = 0.05f + 0.02f * (float)i;
    if (index % 2) def.joint_radii = radii;
    if (index == 3) def.fixed_step = 1.0f / 90;  /* fewer steps per frame than lanes 0-2 */
    if (index == 4) def.fixed_step = 1.0f / 300; /* more */
    if (index == 6) def.max_substeps = 2;
    if (index == 8) def.floor_height = 0.4f; /* in contact */
    if (index == 9) def.hips_plane_enabled = false;
    return create(&def);
}

static tl_chain_input batch_input(int index, int frame, double dt) {
    clip_fn* clips[3] = {clip_shake, clip_walk, clip_low};
    double offset = 0.1 * index;
    tl_chain_input in =
        frame_input(clips[index % 3], offset + (frame - 1) * dt, offset + frame * dt);
    if (index == 5 && frame == 40) in.target.position[2] += 50; /* teleport within the frame */
    if (index == 2 && frame == 70) in.start.rotation[0] = NAN;  /* non-finite */
    if (index == 10 && frame >= 90) {                           /* hips apart from the pelvis */
        in.has_hips = true;
        qt_store(in.hips_start, qt_axis_angle(v3_make(1, 0, 0), 0.01f * (float)frame));
        qt_store(in.hips_target, qt_axis_angle(v3_make(1, 0, 0), 0.01f * (float)(frame + 1)));
    }
    return in;
}

static bool same_chain(const tl_chain* a, const tl_chain* b) {
    int n = tl_chain_bone_count(a);
    tl_chain_stats sa = tl_chain_get_stats(a), sb = tl_chain_get_stats(b);
    return memcmp(tl_chain_local_rotations(a), tl_chain_local_rotations(b), 16 * (size_t)n) == 0 &&
           memcmp(tl_chain_tip_positions(a), tl_chain_tip_positions(b), 12 * (size_t)n) == 0 &&
           memcmp(tl_chain_particle_positions(a), tl_chain_particle_positions(b), 12 * (size_t)n) ==
               0 &&
           memcmp(tl_chain_particle_velocities(a), tl_chain_particle_velocities(b),
                  12 * (size_t)n) == 0 &&
           memcmp(tl_chain_link_lengths(a), tl_chain_link_lengths(b), 4 * (size_t)n) == 0 &&
           memcmp(&sa, &sb, sizeof sa) == 0;
}

static void test_batch_matches_alone(void) {
    rig r;
    tl_chain *batch[BATCH], *alone[BATCH];
    for (int k = 0; k < BATCH; ++k) {
        batch[k] = batch_chain(k, &r);
        alone[k] = batch_chain(k, &r);
        ENSURE(batch[k] && alone[k]);
    }
    /* the list given to step_many: every chain, chain 0 a second time at the end */
    tl_chain* list[BATCH + 1];
    tl_chain_input in[BATCH + 1];
    const double dt = 1 / 60.0;
    int first_mismatch = -1, moving = 0;
    for (int frame = 1; frame <= 240 && first_mismatch < 0; ++frame) {
        /* a hitch for every chain; 144 fps for a while: chains on 1/120 s steps then owe no
         * step in some frames while their 1/300 s neighbours step */
        float step = frame == 120 ? 0.4f : frame > 150 && frame < 200 ? 1.0f / 144 : (float)dt;
        for (int k = 0; k <= BATCH; ++k) {
            list[k] = batch[k % BATCH];
            in[k] = batch_input(k % BATCH, frame, dt);
        }
        in[BATCH].start = in[0].target; /* the second entry: chain 0 held still a frame more */
        tl_chain_batch_step(test_batch(), list, in, BATCH + 1, step);
        for (int k = 0; k <= BATCH; ++k)
            tl_chain_step(alone[k % BATCH], &in[k], step);
        for (int k = 0; k < BATCH; ++k)
            if (!same_chain(batch[k], alone[k]) && first_mismatch < 0) first_mismatch = frame;
        moving += tl_chain_particle_velocities(batch[1])[0] != 0;
    }
    tl_chain_stats s2 = tl_chain_get_stats(batch[2]), s5 = tl_chain_get_stats(batch[5]);
    tl_chain_stats s3 = tl_chain_get_stats(batch[3]), s1 = tl_chain_get_stats(batch[1]);
    tl_chain_stats s8 = tl_chain_get_stats(batch[8]);
    fprintf(stderr,
            "  %d chains (bone counts 1-8), 240 frames: first frame with different bits %d; steps "
            "%llu (1/90 s) vs %llu; teleports %u, non-finite %u, clamped %u, contacts %u\n",
            BATCH, first_mismatch, (unsigned long long)s3.steps, (unsigned long long)s1.steps,
            s5.teleports, s2.nonfinite_inputs, s1.clamped_frames, s8.contacts);
    ENSURE(first_mismatch < 0);
    ENSURE(moving > 100 && s3.steps != s1.steps && s5.teleports >= 1 && s2.nonfinite_inputs == 1);
    ENSURE(s1.clamped_frames == 1 && s8.contacts > 0);
    for (int k = 0; k < BATCH; ++k) {
        tl_chain_destroy(batch[k]);
        tl_chain_destroy(alone[k]);
    }
}

/* Batches wider than 8 (16 lanes where the CPU has AVX2) and lanes written back four at a
 * time: 37 eight-bone chains in one list (batches of 16 or 8, then the rest), one of them
 * twice, get the bits of each chain stepped alone. */
static void test_wide_batch_matches_alone(void) {
    /* (with 16 lanes: two full groups, stepped side by side, and one of half lanes; the 1/90 s
     * chain gives the first group more steps than the second, which then sits out a kernel;
     * chain 0 listed a second time while its full group waits for a second one) */
    enum { WIDE = 37, AGAIN_AT = 20 };
    rig r;
    tl_chain *batch[WIDE], *alone[WIDE];
    float radii[TL_CHAIN_MAX_BONES];
    for (int i = 0; i < TL_CHAIN_MAX_BONES; ++i)
        radii[i] = 0.05f + 0.02f * (float)i;
    for (int k = 0; k < WIDE; ++k) {
        rig_straight(&r, 8, v3_make(0, -1, 0.1f * (float)(k % 4)), 0.8f);
        tl_chain_def def = def_for(&r);
        if (k % 2) def.joint_radii = radii;
        if (k == 8) def.floor_height = 0.4f; /* in contact */
        if (k == 9) def.fixed_step = 1.0f / 90;
        batch[k] = create(&def);
        alone[k] = create(&def);
        ENSURE(batch[k] && alone[k]);
    }
    tl_chain_input in[WIDE + 1];
    const double dt = 1 / 60.0;
    int first_mismatch = -1;
    for (int frame = 1; frame <= 180 && first_mismatch < 0; ++frame) {
        float step = frame == 120 ? 0.4f : (float)dt;
        tl_chain *list[WIDE + 1], *twins[WIDE + 1];
        for (int k = 0; k <= WIDE; ++k) {
            int c = k < AGAIN_AT ? k : k == AGAIN_AT ? 0 : k - 1;
            list[k] = batch[c], twins[k] = alone[c];
            in[k] = batch_input(c % BATCH, frame, dt);
        }
        in[AGAIN_AT].start = in[0].target; /* chain 0 held still a frame more */
        tl_chain_batch_step(test_batch(), list, in, WIDE + 1, step);
        for (int k = 0; k <= WIDE; ++k)
            tl_chain_step(twins[k], &in[k], step);
        for (int k = 0; k < WIDE; ++k)
            if (!same_chain(batch[k], alone[k]) && first_mismatch < 0) first_mismatch = frame;
    }
    tl_chain_stats s8 = tl_chain_get_stats(batch[8]);
    fprintf(stderr, "  %d chains of 8 bones, 180 frames: first frame with different bits %d\n",
            WIDE, first_mismatch);
    ENSURE(first_mismatch < 0 && s8.contacts > 0);
    for (int k = 0; k < WIDE; ++k) {
        tl_chain_destroy(batch[k]);
        tl_chain_destroy(alone[k]);
    }
}

/* The render-time output and stats of two chains (what a host reads every frame, without the
 * state a batch may still hold in its lanes). */
static bool same_output(const tl_chain* a, const tl_chain* b) {
    size_t n = (size_t)tl_chain_bone_count(a);
    tl_chain_stats sa = tl_chain_get_stats(a), sb = tl_chain_get_stats(b);
    return memcmp(tl_chain_local_rotations(a), tl_chain_local_rotations(b), 16 * n) == 0 &&
           memcmp(tl_chain_tip_positions(a), tl_chain_tip_positions(b), 12 * n) == 0 &&
           memcmp(&sa, &sb, sizeof sa) == 0;
}

/* A batch keeps each lane's settings across frames (lane_group.settings): chains listed in the
 * same order keep their lanes, and a floor raised into one of them mid-run (tl_chain_set_floor)
 * reaches its lane; every chain gets the bits of a twin stepped alone. */
static void test_batch_settings_kept(void) {
    enum { SAME = 16, RAISED = 3 };
    rig r;
    tl_chain *batch[SAME], *alone[SAME];
    for (int k = 0; k < SAME; ++k) {
        rig_straight(&r, 8, v3_make(0, -1, 0.1f * (float)(k % 4)), 0.8f);
        tl_chain_def def = def_for(&r);
        batch[k] = create(&def);
        alone[k] = create(&def);
        ENSURE(batch[k] && alone[k]);
    }
    tl_chain_input in[SAME];
    const double dt = 1 / 60.0;
    int first_mismatch = -1;
    for (int frame = 1; frame <= 90 && first_mismatch < 0; ++frame) {
        if (frame == 30) {
            tl_chain_set_floor(batch[RAISED], 0.4f);
            tl_chain_set_floor(alone[RAISED], 0.4f);
        }
        for (int k = 0; k < SAME; ++k)
            in[k] = batch_input(k % BATCH, frame, dt);
        tl_chain_batch_step(test_batch(), batch, in, SAME, (float)dt);
        for (int k = 0; k < SAME; ++k)
            tl_chain_step(alone[k], &in[k], (float)dt);
        for (int k = 0; k < SAME; ++k)
            if (!same_output(batch[k], alone[k]) && first_mismatch < 0) first_mismatch = frame;
    }
    tl_chain_stats raised = tl_chain_get_stats(alone[RAISED]);
    fprintf(stderr,
            "  %d chains, floor raised at frame 30: first frame with different bits %d, "
            "contacts %u\n",
            SAME, first_mismatch, raised.contacts);
    ENSURE(first_mismatch < 0 && raised.contacts > 0);
    for (int k = 0; k < SAME; ++k) {
        tl_chain_destroy(batch[k]);
        tl_chain_destroy(alone[k]);
    }
}

/* A batch keeps each chain's state in its lane between frames and writes it back only when it
 * is read or the lane is wanted: 40 eight-bone chains whose state is not read for 150 frames
 * while their order changes (every lane changes chain), a second batch takes some of them, one
 * is stepped alone, reset, given new settings, cut, teleported or fed a NaN, steps differ
 * between lanes (1/90 s chains at 144 fps), a batch that holds states is destroyed, and a chain
 * whose state a lane holds is destroyed: each gets the bits of a twin stepped alone. */
static void test_batch_keeps_state(void) {
    enum { MANY = 40 };
    rig r;
    tl_chain *batch[MANY], *alone[MANY];
    tl_chain_input in[MANY];
    float radii[TL_CHAIN_MAX_BONES];
    for (int i = 0; i < TL_CHAIN_MAX_BONES; ++i)
        radii[i] = 0.05f + 0.02f * (float)i;
    for (int k = 0; k < MANY; ++k) {
        rig_straight(&r, 8, v3_make(0, -1, 0.1f * (float)(k % 4)), 0.8f);
        tl_chain_def def = def_for(&r);
        if (k % 2) def.joint_radii = radii;
        if (k % 5 == 3) def.fixed_step = 1.0f / 90;
        if (k == 8) def.floor_height = 0.4f; /* in contact */
        batch[k] = create(&def);
        alone[k] = create(&def);
        ENSURE(batch[k] && alone[k]);
    }
    tl_chain_batch *one, *other;
    tl_error err;
    ENSURE(tl_chain_batch_create(8, MANY, NULL, &one, &err) == TL_OK);
    ENSURE(tl_chain_batch_create(8, MANY, NULL, &other, &err) == TL_OK);
    const double dt = 1 / 60.0;
    int live = MANY, first_mismatch = -1;
    for (int frame = 1; frame <= 150; ++frame) {
        float step = frame == 60 ? 0.4f : frame > 100 && frame < 120 ? 1.0f / 144 : (float)dt;
        if (frame == 95) { /* a reset and new settings between frames */
            tl_chain_reset(batch[11], &in[0].target);
            tl_chain_reset(alone[11], &in[0].target);
            tl_chain_settings s = tl_chain_get_settings(batch[12]);
            s.coupling_rate *= 2;
            tl_chain_set_settings(batch[12], &s);
            tl_chain_set_settings(alone[12], &s);
        }
        if (frame == 97) { /* a host moves the particles a lane holds (the hair's sheet) */
            float offsets[3 * 8];
            for (int k = 0; k < 3 * 8; ++k)
                offsets[k] = 0.001f * (float)(k % 5);
            tl_chain_particles_move(batch[13], offsets);
            tl_chain_particles_move(alone[13], offsets);
        }
        if (frame == 140) { /* a chain whose state only a lane holds goes away */
            tl_chain_destroy(batch[MANY - 1]);
            tl_chain_destroy(alone[MANY - 1]);
            live = MANY - 1;
        }
        /* the chains for the other batch go in their own call first */
        tl_chain *first[MANY], *rest[MANY];
        tl_chain_input first_in[MANY], rest_in[MANY];
        int n_first = 0, n_rest = 0;
        for (int j = 0; j < live; ++j) {
            /* the same order, then reversed, then turned by one every frame, then held again
             * (while lanes of a group step different counts) */
            int k = frame <= 40   ? j
                    : frame <= 80 ? live - 1 - j
                                  : (j + (frame < 100 ? frame : 7)) % live;
            in[k] = batch_input(k % BATCH, frame, dt);
            if (k == 20 && frame == 85) in[k].start.position[0] += 0.3f; /* a cut */
            tl_chain_step(alone[k], &in[k], step);
            if (k == 7 && frame == 90) {
                tl_chain_step(batch[k], &in[k], step); /* alone, between batch frames */
                continue;
            }
            if ((frame >= 50 && frame <= 70 && k % 3 == 0) || (frame == 130 && k < 10))
                first[n_first] = batch[k], first_in[n_first++] = in[k];
            else
                rest[n_rest] = batch[k], rest_in[n_rest++] = in[k];
        }
        if (n_first > 0) tl_chain_batch_step(other, first, first_in, n_first, step);
        tl_chain_batch_step(one, rest, rest_in, n_rest, step);
        if (frame == 130) { /* a batch destroyed while its lanes hold states */
            tl_chain_batch_destroy(other);
            other = NULL;
            ENSURE(tl_chain_batch_create(8, MANY, NULL, &other, &err) == TL_OK);
        }
        for (int k = 0; k < live && first_mismatch < 0; ++k)
            if (!same_output(batch[k], alone[k])) first_mismatch = frame;
    }
    int state_mismatch = -1;
    for (int k = 0; k < live; ++k)
        if (!same_chain(batch[k], alone[k]) && state_mismatch < 0) state_mismatch = k;
    tl_chain_stats s2 = tl_chain_get_stats(batch[2]), s5 = tl_chain_get_stats(batch[5]);
    tl_chain_stats s20 = tl_chain_get_stats(batch[20]);
    fprintf(stderr,
            "  %d chains of 8 bones, 150 frames, state read only at the end: first frame with "
            "different output %d, first chain with a different state %d\n",
            MANY, first_mismatch, state_mismatch);
    ENSURE(first_mismatch < 0 && state_mismatch < 0);
    ENSURE(s2.nonfinite_inputs == 1 && s5.teleports >= 1 && s20.cuts >= 1);
    tl_chain_batch_destroy(one);
    tl_chain_batch_destroy(other);
    for (int k = 0; k < live; ++k) {
        tl_chain_destroy(batch[k]);
        tl_chain_destroy(alone[k]);
    }
}

/* ---- settings at run time, external force ---- */

static bool same_state(const tl_chain* a, const tl_chain* b) {
    size_t n = (size_t)tl_chain_bone_count(a);
    return memcmp(tl_chain_particle_positions(a), tl_chain_particle_positions(b), 12 * n) == 0 &&
           memcmp(tl_chain_particle_velocities(a), tl_chain_particle_velocities(b), 12 * n) == 0 &&
           memcmp(tl_chain_tip_positions(a), tl_chain_tip_positions(b), 12 * n) == 0;
}

static double tips_apart(const tl_chain* a, const tl_chain* b) {
    double worst = 0;
    for (int i = 0; i < tl_chain_bone_count(a); ++i)
        worst = fmax(worst, v3_length(v3_sub(tip_at(tl_chain_tip_positions(a), i),
                                             tip_at(tl_chain_tip_positions(b), i))));
    return worst;
}

/* Changing settings mid-run resets nothing: the state is the same bits right after the call,
 * the same settings again change no bit, and the new ones take effect (after 6 s of still hips
 * the chain hangs as one created with them). Stepped in a batch (its constants cached in the
 * lanes of another chain) it gets the bits it gets alone. */
static void test_settings_at_run_time(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0.3f), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain_settings changed = def.settings;
    changed.gravity = 3, changed.damping_ratio = 0.4f, changed.carry_deg = 30;
    changed.bend_limit_deg = 20, changed.coupling_rate = 6, changed.root_frequency = 1.2f;
    tl_chain *lead = create(&def), *same = create(&def), *plain = create(&def);
    tl_chain *in_batch = create(&def), *alone = create(&def);
    tl_chain_def fresh_def = def;
    fresh_def.settings = changed;
    tl_chain* fresh = create(&fresh_def);
    ENSURE(lead && same && plain && in_batch && alone && fresh);
    const double dt = 1 / 60.0;
    bool same_bits = true, batch_bits = true, kept = true;
    for (int k = 1; k <= 600; ++k) {
        bool walking = k <= 180;
        tl_chain_input in = walking ? frame_input(clip_walk, (k - 1) * dt, k * dt)
                                    : frame_input(clip_walk, 180 * dt, 180 * dt);
        if (k == 120) {
            float before[3 * TL_CHAIN_MAX_BONES];
            memcpy(before, tl_chain_particle_positions(in_batch), sizeof(float) * 3 * 8);
            tl_chain_set_settings(same, &def.settings);
            tl_chain_set_settings(in_batch, &changed);
            tl_chain_set_settings(alone, &changed);
            kept =
                memcmp(before, tl_chain_particle_positions(in_batch), sizeof(float) * 3 * 8) == 0;
        }
        tl_chain* batch[2] = {lead, in_batch};
        tl_chain_input inputs[2] = {in, in};
        tl_chain_batch_step(test_batch(), batch, inputs, 2, (float)dt);
        tl_chain_step(alone, &in, (float)dt);
        tl_chain_step(same, &in, (float)dt);
        tl_chain_step(plain, &in, (float)dt);
        if (k > 180) tl_chain_step(fresh, &in, (float)dt); /* at rest from frame 181 */
        same_bits = same_bits && same_state(same, plain);
        batch_bits = batch_bits && same_state(in_batch, alone);
    }
    tl_chain_stats stats = tl_chain_get_stats(alone);
    double apart = tips_apart(alone, fresh), moved = tips_apart(alone, plain);
    fprintf(stderr,
            "  same settings again: same bits %d; new settings: state kept %d, batch = alone %d, "
            "cuts %u; after 6 s still: %.2g m from a chain made with them, %.3g m from the old\n",
            same_bits, kept, batch_bits, stats.cuts, apart, moved);
    ENSURE(same_bits && kept && batch_bits && stats.cuts == 0 && stats.teleports == 0);
    ENSURE(tl_chain_get_settings(alone).gravity == 3);
    ENSURE(moved > 0.01 && apart < 1e-3 * r.total);
    tl_chain* all[6] = {lead, same, plain, in_batch, alone, fresh};
    for (int i = 0; i < 6; ++i)
        tl_chain_destroy(all[i]);
}

/* A wind force (an input that may change every frame) blows the tail along it; a non-finite
 * force is refused like any non-finite input. */
static void test_external_force(void) {
    rig r;
    rig_straight(&r, 6, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    tl_chain *calm = create(&def), *windy = create(&def), *gusty = create(&def);
    ENSURE(calm && windy && gusty);
    const double dt = 1 / 60.0;
    for (int k = 1; k <= 360; ++k) {
        tl_chain_input in = frame_input(clip_still, (k - 1) * dt, k * dt);
        tl_chain_step(calm, &in, (float)dt);
        in.force[0] = 2; /* m/s^2 along +x: the character's left */
        tl_chain_step(windy, &in, (float)dt);
        in.force[0] = (float)(2 + 2 * sin(5 * k * dt)); /* a gust, new every frame */
        tl_chain_step(gusty, &in, (float)dt);
    }
    const float *a = tl_chain_tip_positions(calm), *b = tl_chain_tip_positions(windy);
    double blown = b[3 * 5] - a[3 * 5];
    fprintf(stderr, "  2 m/s^2 of wind: the tip %.3f m along it\n", blown);
    ENSURE(blown > 0.05 && all_finite(tl_chain_tip_positions(gusty), 18));
    tl_chain_input bad = frame_input(clip_still, 0, dt);
    bad.force[1] = NAN;
    tl_chain_step(gusty, &bad, (float)dt);
    ENSURE(tl_chain_get_stats(gusty).nonfinite_inputs == 1);
    tl_chain_destroy(calm);
    tl_chain_destroy(windy);
    tl_chain_destroy(gusty);
}

/* ---- the pose sampler ---- */

typedef struct clip_sampler {
    clip_fn* clip;
    double frame_start;
    v3 offset; /* added to the attachment's position (a teleport) */
    int calls;
} clip_sampler;

static void sample_clip(void* user, float t, tl_chain_sample* out) {
    clip_sampler* s = user;
    out->attachment = s->clip(s->frame_start + t);
    v3_store(out->attachment.position, v3_add(v3_load(out->attachment.position), s->offset));
    s->calls++;
}

/* One chain played through the sampler at `fps` for `seconds`; tips every 1/3 s into `tips`
 * (relative to the attachment's position when `relative`). A 10 m jump at `cut_at` s, reported
 * as a cut, when cut_at > 0. */
static int play_sampled(const rig* r, clip_fn* clip, int fps, double seconds, double cut_at,
                        float* tips, int* calls, uint32_t* cuts) {
    tl_chain_def def = def_for(r);
    tl_chain* chain = create(&def);
    if (!chain) return 0;
    clip_sampler s = {clip, 0, {0, 0, 0}, 0};
    int frames = (int)lround(seconds * fps), count = 0;
    for (int f = 1; f <= frames; ++f) {
        s.frame_start = (f - 1) / (double)fps;
        bool cut = cut_at > 0 && f == (int)lround(cut_at * fps);
        if (cut) s.offset = v3_make(10, 0, -10);
        tl_chain_step_sampled(chain, sample_clip, &s, 1.0f / (float)fps, cut);
        if ((3 * f) % fps == 0) { /* every 1/3 s: a frame at every rate */
            tl_chain_pose at = clip(f / (double)fps);
            v3 origin = v3_add(v3_load(at.position), s.offset);
            for (int i = 0; i < r->n; ++i)
                v3_store(tips + 3 * (count * r->n + i),
                         v3_sub(tip_at(tl_chain_tip_positions(chain), i), origin));
            ++count;
        }
    }
    *calls = s.calls;
    *cuts = tl_chain_get_stats(chain).cuts;
    tl_chain_destroy(chain);
    return count;
}

/* Sampled at every internal step, the hip shake and the walk give the same tips at 15, 30, 60,
 * 120 and 144 fps to 0.1% of the chain (the two-pose call does not: test frame_rate_independence);
 * a cut is carried rigidly: the tips relative to the attachment as without the jump. */
static void test_sampler(void) {
    enum { RATES = 5, SAMPLES = 24 };
    const int fps[RATES] = {15, 30, 60, 120, 144};
    clip_fn* clips[2] = {clip_shake, clip_walk};
    const char* names[2] = {"hip shake", "walk"};
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    static float tips[RATES][SAMPLES * 8 * 3];
    for (int c = 0; c < 2; ++c) {
        int calls[RATES], count = 0;
        for (int k = 0; k < RATES; ++k) {
            uint32_t cuts;
            int n = play_sampled(&r, clips[c], fps[k], 8.0, 0, tips[k], &calls[k], &cuts);
            ENSURE(k == 0 || n == count);
            /* the frames start where the last ended: no cut (once each frame's start, the
               stored normalized target normalized again, differed in a last bit) */
            ENSURE_MSG(cuts == 0, "%s at %d fps: %u cuts", names[c], fps[k], cuts);
            count = n;
        }
        double worst = 0;
        for (int a = 0; a < RATES; ++a)
            for (int b = a + 1; b < RATES; ++b)
                for (int i = 0; i < count * r.n; ++i)
                    worst = fmax(worst, v3_length(v3_sub(tip_at(tips[a], i), tip_at(tips[b], i))));
        fprintf(stderr,
                "  %s sampled at 15-144 fps: tips within %.2g of the chain (%d samples; %d "
                "sampler calls at 15 fps, %d at 144)\n",
                names[c], worst / r.total, count, calls[0], calls[4]);
        ENSURE(count == SAMPLES && worst <= 1e-3 * r.total);
        ENSURE(calls[0] >= 8 * 120 && calls[4] >= 8 * 144);
    }
    static float with_cut[SAMPLES * 8 * 3], without[SAMPLES * 8 * 3];
    int calls;
    uint32_t cuts, no_cuts;
    int count = play_sampled(&r, clip_walk, 60, 8.0, 3.0, with_cut, &calls, &cuts);
    play_sampled(&r, clip_walk, 60, 8.0, 0, without, &calls, &no_cuts);
    ENSURE_MSG(cuts == 1 && no_cuts == 0, "cuts %u, without %u", cuts, no_cuts);
    double worst = 0;
    for (int i = 0; i < count * r.n; ++i)
        worst = fmax(worst, v3_length(v3_sub(tip_at(with_cut, i), tip_at(without, i))));
    fprintf(stderr,
            "  a reported cut of 14 m: tips relative to the attachment within %.2g of "
            "the chain of the run without it\n",
            worst / r.total);
    ENSURE(worst <= 1e-5 * r.total);
}

/* ---- colliders ---- */

static double segment_distance(v3 p, v3 a, v3 b) {
    v3 ab = v3_sub(b, a);
    double t = v3_dot(v3_sub(p, a), ab) / v3_dot(ab, ab);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return v3_length(v3_sub(p, v3_madd(a, ab, (float)t)));
}

/* *seen: where link `link`'s particle is, in the attachment's frame, after `frames` frames of the
 * walk at 60 fps without colliders. */
static void walk_particle_at(const tl_chain_def* def, int link, int frames, v3* seen) {
    const double dt = 1 / 60.0;
    tl_chain* probe = create(def);
    ENSURE(probe);
    for (int k = 1; k <= frames; ++k) {
        tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
        tl_chain_step(probe, &in, (float)dt);
        if (k == frames)
            *seen = qt_unrotate(qt_load(in.target.rotation),
                                v3_sub(tip_at(tl_chain_particle_positions(probe), link),
                                       v3_load(in.target.position)));
    }
    tl_chain_destroy(probe);
}

/* A walk with a thigh: a capsule (attached to the hips here, carried by the host every frame)
 * placed across the path the tail takes without colliders. Without it, particles end frames
 * inside; with it none does, and the chain still swings and keeps its lengths. */
static void test_thigh_collider(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    const double dt = 1 / 60.0;
    const int frames = 360;
    v3 seen = {0, 0, 0}; /* link 4's particle without colliders */
    walk_particle_at(&def, 4, 200, &seen);
    /* a 0.08 m thick vertical capsule 0.03 m beside it */
    const float radius = 0.08f;
    v3 a_local = v3_add(seen, v3_make(0.03f, 0.25f, 0)),
       b_local = v3_add(seen, v3_make(0.03f, -0.25f, 0));
    int inside_frames[2] = {0, 0};
    double deepest[2] = {0, 0}, length_error = 0, swing = 0;
    for (int with = 0; with < 2; ++with) {
        tl_chain* chain = create(&def);
        ENSURE(chain);
        v3 first_tip = {0, 0, 0};
        for (int k = 1; k <= frames; ++k) {
            tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
            qt R = qt_load(in.target.rotation);
            v3 o = v3_load(in.target.position);
            v3 a = v3_add(o, qt_rotate(R, a_local)), b = v3_add(o, qt_rotate(R, b_local));
            tl_collider thigh = {TL_COLLIDER_CAPSULE, {a.x, a.y, a.z}, {b.x, b.y, b.z}, radius};
            if (with) in.colliders = &thigh, in.collider_count = 1;
            tl_chain_step(chain, &in, (float)dt);
            const float* p = tl_chain_particle_positions(chain);
            bool inside = false;
            for (int i = 0; i < r.n; ++i) {
                double depth = radius - segment_distance(tip_at(p, i), a, b);
                deepest[with] = fmax(deepest[with], depth);
                inside |= depth > 1e-5 * r.total;
            }
            inside_frames[with] += inside;
            v3 head = v3_add(o, qt_rotate(R, r.joints[0]));
            for (int i = 0; i < r.n; ++i) {
                double l = v3_length(v3_sub(tip_at(p, i), i ? tip_at(p, i - 1) : head));
                if (with) length_error = fmax(length_error, fabs(l - r.length[i]) / r.length[i]);
            }
            v3 tip = qt_unrotate(R, v3_sub(tip_at(p, r.n - 1), o));
            if (k == 100) first_tip = tip;
            if (with && k > 100) swing = fmax(swing, v3_length(v3_sub(tip, first_tip)));
        }
        tl_chain_destroy(chain);
    }
    fprintf(stderr,
            "  walk past a thigh capsule: without colliders %d frames with a particle inside "
            "(deepest %.3f m), with it %d (deepest %.2g m); length error %.2g, tip moves %.3f m\n",
            inside_frames[0], deepest[0], inside_frames[1], deepest[1], length_error, swing);
    ENSURE(inside_frames[0] > 10 && deepest[0] > 0.01);
    ENSURE(inside_frames[1] == 0 && deepest[1] <= 1e-5 * r.total);
    ENSURE(length_error <= 1e-4 && swing > 0.02);
}

/* Friction is the slip decay once a step (spring-chain.md §7), however many passes or colliders
 * hold the tip: the walk of thigh_collider past its capsule given once, and given twice (the
 * second copy holds every tip the first put on its surface, by rounding about half the time).
 * Both runs keep together (before, each collider that moved the tip damped its slip again:
 * the twice-given capsule braked the tail harder and the runs parted by centimetres). */
static void test_friction_once_a_step(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    const double dt = 1 / 60.0;
    v3 seen = {0, 0, 0}; /* link 4's particle without colliders */
    walk_particle_at(&def, 4, 200, &seen);
    tl_chain* chain[2] = {create(&def), create(&def)};
    ENSURE(chain[0] && chain[1]);
    double apart = 0;
    uint32_t touching = 0;
    for (int k = 1; k <= 360; ++k) {
        tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
        qt R = qt_load(in.target.rotation);
        v3 o = v3_load(in.target.position);
        v3 a = v3_add(o, qt_rotate(R, v3_add(seen, v3_make(0.03f, 0.25f, 0))));
        v3 b = v3_add(o, qt_rotate(R, v3_add(seen, v3_make(0.03f, -0.25f, 0))));
        tl_collider c = {TL_COLLIDER_CAPSULE, {a.x, a.y, a.z}, {b.x, b.y, b.z}, 0.08f, {{0}}};
        tl_collider twice[2] = {c, c};
        for (int m = 0; m < 2; ++m) {
            tl_chain_input x = in;
            x.colliders = m ? twice : &c, x.collider_count = m + 1;
            tl_chain_step(chain[m], &x, (float)dt);
        }
        touching += tl_chain_get_stats(chain[0]).contacts;
        const float *p = tl_chain_particle_positions(chain[0]),
                    *q = tl_chain_particle_positions(chain[1]);
        for (int i = 0; i < r.n; ++i)
            apart = fmax(apart, v3_length(v3_sub(tip_at(p, i), tip_at(q, i))));
    }
    fprintf(stderr, "  a capsule given once and twice: %u link-steps touching, runs %.2g m apart\n",
            touching, apart);
    tl_chain_destroy(chain[0]), tl_chain_destroy(chain[1]);
    ENSURE(touching > 50);
    ENSURE(apart <= 1e-4 * r.total);
}

/* The contact visits only the colliders within the rope's reach of a link's head (from the
 * lane's cull slots): the walk of thigh_collider past its capsule with far spheres and capsules
 * beside it, 5 colliders (cull slots: the far ones passed over) against the same 5 and 4 more
 * far ones (9, more than the cull takes: every collider visited). The far ones never hold a
 * tip, so both give the same bits every frame, with contacts on the way. */
static void test_contact_candidates_exact(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    const double dt = 1 / 60.0;
    v3 seen = {0, 0, 0}; /* link 4's particle without colliders */
    walk_particle_at(&def, 4, 200, &seen);
    tl_chain* chain[2] = {create(&def), create(&def)};
    ENSURE(chain[0] && chain[1]);
    int touching = 0, differing = 0;
    for (int k = 1; k <= 360; ++k) {
        tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
        qt R = qt_load(in.target.rotation);
        v3 o = v3_load(in.target.position);
        tl_collider c[9];
        for (int m = 0; m < 9; ++m) { /* (m > 0: 2-4 m away, spheres and capsules) */
            v3 a = v3_add(seen, v3_make(0.03f, 0.25f, 0)),
               b = v3_add(seen, v3_make(0.03f, -0.25f, 0));
            if (m > 0) {
                v3 away = v3_make((m & 1) ? 2.0f + 0.2f * m : -2.0f - 0.2f * m, 0,
                                  (m & 2) ? 2.0f : -2.0f);
                a = v3_add(a, away), b = m & 4 ? v3_add(b, away) : a;
            }
            a = v3_add(o, qt_rotate(R, a)), b = v3_add(o, qt_rotate(R, b));
            c[m] = (tl_collider){a.x == b.x && a.y == b.y && a.z == b.z ? TL_COLLIDER_SPHERE
                                                                        : TL_COLLIDER_CAPSULE,
                                 {a.x, a.y, a.z},
                                 {b.x, b.y, b.z},
                                 m ? 0.3f : 0.08f,
                                 {{0}}};
        }
        for (int j = 0; j < 2; ++j) {
            in.colliders = c, in.collider_count = j ? 9 : 5;
            tl_chain_step(chain[j], &in, (float)dt);
        }
        touching += (int)tl_chain_get_stats(chain[0]).contacts;
        differing +=
            memcmp(tl_chain_particle_positions(chain[0]), tl_chain_particle_positions(chain[1]),
                   sizeof(float) * 3 * (size_t)r.n) != 0 ||
            memcmp(tl_chain_particle_velocities(chain[0]), tl_chain_particle_velocities(chain[1]),
                   sizeof(float) * 3 * (size_t)r.n) != 0 ||
            memcmp(tl_chain_tip_positions(chain[0]), tl_chain_tip_positions(chain[1]),
                   sizeof(float) * 3 * (size_t)r.n) != 0 ||
            memcmp(tl_chain_local_rotations(chain[0]), tl_chain_local_rotations(chain[1]),
                   sizeof(float) * 4 * (size_t)r.n) != 0;
    }
    tl_chain_destroy(chain[0]);
    tl_chain_destroy(chain[1]);
    fprintf(stderr,
            "  5 colliders (culled) against 9 (every one visited): %d link-frames touching, "
            "%d of 360 frames differ\n",
            touching, differing);
    ENSURE(touching > 0 && differing == 0);
}

/* A batch's cull set up four lanes at a time (chain_cull_setup) against no cull at all: 20
 * chains walking with staggered phases past the thigh of contact_candidates_exact (a full group
 * and a half), the lanes mixing five colliders and three (chains 0-7: the four-lane set-up for
 * the slots they all have, one lane at a time beyond), growth per link (8-11), a far ellipsoid
 * in chain 13 (that lane culls by none) and five again (the half group). Each gets the bits of a
 * twin stepped alone with its colliders and far spheres up to nine (more than the cull's slots:
 * every tip tested against every collider). */
static void test_batch_cull_exact(void) {
    enum { CHAINS = 20, LINKS = 8, ALL = 9 };
    rig r;
    rig_straight(&r, LINKS, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    const double dt = 1 / 60.0;
    v3 seen = {0, 0, 0}; /* link 4's particle without colliders */
    walk_particle_at(&def, 4, 200, &seen);
    tl_chain *batch[CHAINS], *alone[CHAINS];
    static tl_collider c[CHAINS][ALL];
    static float growth[ALL * LINKS];
    for (int k = 0; k < ALL * LINKS; ++k)
        growth[k] = k < 5 * LINKS ? 0.01f * (float)(k % 3) - 0.005f : 0;
    for (int k = 0; k < CHAINS; ++k) {
        batch[k] = create(&def), alone[k] = create(&def);
        ENSURE(batch[k] && alone[k]);
    }
    int touching = 0, touching_quads = 0, differing = 0;
    for (int frame = 1; frame <= 360; ++frame) {
        tl_chain_input in[CHAINS], twin[CHAINS];
        for (int k = 0; k < CHAINS; ++k) {
            const double shift = 0.02 * k;
            in[k] = frame_input(clip_walk, (frame - 1) * dt + shift, frame * dt + shift);
            qt R = qt_load(in[k].target.rotation);
            v3 o = v3_load(in[k].target.position);
            for (int m = 0; m < ALL; ++m) { /* (m > 0: 2-4 m away, spheres and capsules) */
                v3 a = v3_add(seen, v3_make(0.03f, 0.25f, 0)),
                   b = v3_add(seen, v3_make(0.03f, -0.25f, 0));
                if (m > 0) {
                    v3 away = v3_make((m & 1) ? 2.0f + 0.2f * m : -2.0f - 0.2f * m, 0,
                                      (m & 2) ? 2.0f : -2.0f);
                    a = v3_add(a, away), b = m & 4 && m < 5 ? v3_add(b, away) : a;
                }
                a = v3_add(o, qt_rotate(R, a)), b = v3_add(o, qt_rotate(R, b));
                tl_collider_shape shape =
                    m == 0 || (m & 4 && m < 5) ? TL_COLLIDER_CAPSULE : TL_COLLIDER_SPHERE;
                c[k][m] = (tl_collider){shape,
                                        {a.x, a.y, a.z},
                                        {b.x, b.y, b.z},
                                        m ? 0.3f : 0.08f,
                                        {{0.2f, 0, 0}, {0, 0.2f, 0}, {0, 0, 0.2f}}};
                if (k == 13 && m == 4) c[k][m].shape = TL_COLLIDER_ELLIPSOID;
            }
            in[k].colliders = c[k];
            in[k].collider_count = k < 8 && k % 2 ? 3 : 5;
            in[k].collider_growth = k >= 8 && k < 12 ? growth : NULL;
            twin[k] = in[k];
            twin[k].collider_count = ALL;
        }
        tl_chain_batch_step(test_batch(), batch, in, CHAINS, (float)dt);
        for (int k = 0; k < CHAINS; ++k) {
            tl_chain_step(alone[k], &twin[k], (float)dt);
            int contacts = (int)tl_chain_get_stats(batch[k]).contacts;
            touching += contacts, touching_quads += k < 8 ? contacts : 0;
            differing += !same_chain(batch[k], alone[k]);
        }
    }
    for (int k = 0; k < CHAINS; ++k) {
        tl_chain_destroy(batch[k]);
        tl_chain_destroy(alone[k]);
    }
    fprintf(stderr,
            "  %d chains, 360 frames: %d link-frames touching (%d in the four-lane set-up's "
            "lanes), %d chain-frames differ from no cull\n",
            CHAINS, touching, touching_quads, differing);
    ENSURE(touching_quads > 0 && differing == 0);
}

/* How far out of an ellipsoid a point is in its unit-sphere space: |q| (< 1 inside), exactly
 * in doubles. */
static double ellipsoid_rho(const tl_collider* c, v3 p) {
    double q2 = 0;
    for (int k = 0; k < 3; ++k) {
        double r2 = 0, t = 0;
        for (int i = 0; i < 3; ++i) {
            double d = (double)(i == 0 ? p.x : i == 1 ? p.y : p.z) - c->a[i];
            r2 += (double)c->axes[k][i] * c->axes[k][i], t += d * c->axes[k][i];
        }
        q2 += (t / r2) * (t / r2);
    }
    return sqrt(q2);
}

/* The walk of thigh_collider past a tilted flat ellipsoid (semi-axes 0.25, 0.09 and 0.05 m,
 * turned 30 degrees about two axes) put across the tail's path: without it particles end
 * frames deep inside, with it no particle ends a step inside (|q| >= 1 - 1e-5 in the exact
 * unit-sphere space), the links keep their lengths, the tail still swings, and the velocity
 * of a particle on the surface points out of it or along it. */
static void test_ellipsoid_collider(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    const double dt = 1 / 60.0;
    tl_chain* probe = create(&def);
    ENSURE(probe);
    v3 seen = {0, 0, 0};
    for (int k = 1; k <= 200; ++k) {
        tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
        tl_chain_step(probe, &in, (float)dt);
        if (k == 200)
            seen = qt_unrotate(
                qt_load(in.target.rotation),
                v3_sub(tip_at(tl_chain_particle_positions(probe), 4), v3_load(in.target.position)));
    }
    tl_chain_destroy(probe);
    qt turn =
        qt_mul(qt_axis_angle(v3_make(0, 0, 1), 0.52f), qt_axis_angle(v3_make(1, 0, 0), 0.52f));
    v3 axis_local[3] = {qt_rotate(turn, v3_make(0, 0.25f, 0)),
                        qt_rotate(turn, v3_make(0.09f, 0, 0)),
                        qt_rotate(turn, v3_make(0, 0, 0.05f))};
    v3 centre_local = v3_add(seen, v3_make(0.03f, 0, 0));
    int inside_frames[2] = {0, 0}, outward = 0, touching = 0;
    double lowest[2] = {1e9, 1e9}, length_error = 0, swing = 0;
    for (int with = 0; with < 2; ++with) {
        tl_chain* chain = create(&def);
        ENSURE(chain);
        v3 first_tip = {0, 0, 0};
        for (int k = 1; k <= 360; ++k) {
            tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
            qt R = qt_load(in.target.rotation);
            v3 o = v3_load(in.target.position);
            tl_collider body = {TL_COLLIDER_ELLIPSOID, {0, 0, 0}, {0, 0, 0}, 0, {{0}}};
            v3_store(body.a, v3_add(o, qt_rotate(R, centre_local)));
            for (int e = 0; e < 3; ++e)
                v3_store(body.axes[e], qt_rotate(R, axis_local[e]));
            if (with) in.colliders = &body, in.collider_count = 1;
            tl_chain_step(chain, &in, (float)dt);
            const float* p = tl_chain_particle_positions(chain);
            const float* v = tl_chain_particle_velocities(chain);
            bool inside = false;
            for (int i = 0; i < r.n; ++i) {
                double rho = ellipsoid_rho(&body, tip_at(p, i));
                lowest[with] = fmin(lowest[with], rho);
                inside |= rho < 1 - 1e-5;
                if (with && rho < 1 + 1e-4) { /* on the surface: not moving into it */
                    v3 d = v3_sub(tip_at(p, i), v3_load(body.a)), n = {0, 0, 0};
                    for (int e = 0; e < 3; ++e) {
                        v3 ax = v3_load(body.axes[e]);
                        float r2 = v3_dot(ax, ax);
                        n = v3_madd(n, ax, v3_dot(d, ax) / (r2 * r2));
                    }
                    ++touching;
                    outward += v3_dot(tip_at(v, i), n) >= -1e-4f * v3_length(n);
                }
            }
            inside_frames[with] += inside;
            v3 head = v3_add(o, qt_rotate(R, r.joints[0]));
            for (int i = 0; i < r.n; ++i) {
                double l = v3_length(v3_sub(tip_at(p, i), i ? tip_at(p, i - 1) : head));
                if (with) length_error = fmax(length_error, fabs(l - r.length[i]) / r.length[i]);
            }
            v3 tip = qt_unrotate(R, v3_sub(tip_at(p, r.n - 1), o));
            if (k == 100) first_tip = tip;
            if (with && k > 100) swing = fmax(swing, v3_length(v3_sub(tip, first_tip)));
        }
        tl_chain_destroy(chain);
    }
    fprintf(stderr,
            "  walk past a flat ellipsoid: without it %d frames with a particle inside (lowest "
            "|q| %.3f), with it %d (lowest |q| %.7f); on its surface %d times, %d not moving "
            "into it; length error %.2g, tip moves %.3f m\n",
            inside_frames[0], lowest[0], inside_frames[1], lowest[1], touching, outward,
            length_error, swing);
    ENSURE(inside_frames[0] > 10 && lowest[0] < 0.8);
    ENSURE(inside_frames[1] == 0 && lowest[1] >= 1 - 1e-5);
    ENSURE(touching > 10 && outward == touching);
    ENSURE(length_error <= 1e-4 && swing > 0.02);
}

static float unit_random(uint32_t* r) {
    *r = *r * 1664525u + 1013904223u;
    return (float)(*r >> 8) / (float)(1u << 24);
}

/* The contact's cheap inside test (chain_ellipsoid_q < 1, tried before the surface and normal
 * are worked out) answers as the full test chain_ellipsoid_inside does, on points around 400
 * random ellipsoids (turned, one in four with a zero axis), their centres and points on their
 * surfaces within a few roundings: the pushes, and so the bits, are the full test's. */
static void test_ellipsoid_cheap_test_matches_full(void) {
    uint32_t r = 3, checked = 0, inside = 0, differ = 0, edge = 0;
    for (int e = 0; e < 400; ++e) {
        qt turn = qt_axis_angle(
            v3_normalize_or(v3_make(unit_random(&r) - 0.5f, unit_random(&r) - 0.5f, 0.3f),
                            v3_make(0, 0, 1)),
            6.3f * unit_random(&r));
        tl_collider c = {TL_COLLIDER_ELLIPSOID, {0, 0, 0}, {0, 0, 0}, 0, {{0}}};
        v3 ax[3];
        for (int k = 0; k < 3; ++k) {
            float len = e % 4 == 0 && k == 2 ? 0 : 0.02f + 0.3f * unit_random(&r);
            v3 along = v3_make(k == 0, k == 1, k == 2);
            ax[k] = qt_rotate(turn, v3_scale(along, len));
            v3_store(c.axes[k], ax[k]);
        }
        v3 centre = v3_make(unit_random(&r) - 0.5f, unit_random(&r), unit_random(&r) - 0.5f);
        v3_store(c.a, centre);
        for (int i = 0; i < 300; ++i) {
            v3 p;
            if (i == 0) {
                p = centre;
            } else if (i < 150) { /* on the surface, scaled by a few roundings either way */
                v3 u = v3_normalize_or(
                    v3_make(unit_random(&r) - 0.5f, unit_random(&r) - 0.5f, unit_random(&r) - 0.5f),
                    v3_make(1, 0, 0));
                float s = 1 + (float)((int)(unit_random(&r) * 9) - 4) * 1.2e-7f;
                p = v3_madd(v3_madd(v3_madd(centre, ax[0], s * u.x), ax[1], s * u.y), ax[2],
                            s * u.z);
            } else {
                p = v3_add(centre,
                           v3_make(0.8f * (unit_random(&r) - 0.5f), 0.8f * (unit_random(&r) - 0.5f),
                                   0.8f * (unit_random(&r) - 0.5f)));
            }
            float q[3];
            v3 surface, normal;
            bool cheap = chain_ellipsoid_q(&c, p, q) < 1;
            bool full = chain_ellipsoid_inside(&c, p, &surface, &normal);
            differ += cheap != full, inside += full, ++checked;
            edge += i > 0 && i < 150 && full;
        }
    }
    printf("  %u points, %u inside (%u of them on a surface), %u differ\n", checked, inside, edge,
           differ);
    ENSURE(differ == 0 && inside > 10000 && edge > 10000);
}

/* A random collider of contact_memo_matches_plain: ellipsoids (turned, one in five skewed off
 * orthogonal, half of those nearly flat, one in seven with a zero axis), spheres, capsules and a
 * plane now and then, about the origin within 0.4 m. */
static tl_collider memo_collider(uint32_t* r) {
    v3 a = v3_make(0.8f * (unit_random(r) - 0.5f), 0.8f * (unit_random(r) - 0.5f),
                   0.8f * (unit_random(r) - 0.5f));
    tl_collider c = {TL_COLLIDER_ELLIPSOID, {a.x, a.y, a.z}, {0, 0, 0}, 0, {{0}}};
    float kind = unit_random(r);
    if (kind < 0.15f) {
        c.shape = TL_COLLIDER_SPHERE, c.radius = 0.02f + 0.15f * unit_random(r);
    } else if (kind < 0.3f) {
        c.shape = TL_COLLIDER_CAPSULE, c.radius = 0.02f + 0.1f * unit_random(r);
        v3_store(c.b, v3_add(a, v3_make(0.2f * (unit_random(r) - 0.5f), 0.3f, 0.1f)));
    } else if (kind < 0.33f) {
        c.shape = TL_COLLIDER_PLANE;
        v3_store(c.b, v3_normalize_or(v3_make(unit_random(r) - 0.5f, 1, 0), v3_make(0, 1, 0)));
        c.a[1] -= 0.5f;
    } else {
        qt turn = qt_axis_angle(
            v3_normalize_or(v3_make(unit_random(r) - 0.5f, unit_random(r) - 0.5f, 0.3f),
                            v3_make(0, 0, 1)),
            6.3f * unit_random(r));
        float skew = unit_random(r) < 0.2f ? (unit_random(r) < 0.5f ? 0.3f : 0.02f) : 0;
        bool flat = unit_random(r) < 1.0f / 7;
        for (int k = 0; k < 3; ++k) {
            float len = flat && k == 2 ? 0 : 0.02f + 0.2f * unit_random(r);
            v3 along = v3_make(k == 0, k == 1, k == 2);
            if (skew > 0 && k == 1) along = v3_normalize_or(v3_make(1, skew, 0), along);
            v3_store(c.axes[k], qt_rotate(turn, v3_scale(along, len)));
        }
    }
    return c;
}

/* A chain alone's contact pass through its frame's memo of grown ellipsoids and their far
 * bound (contact_memo: step_alone's) gives the bits of the pass without it: 300 frames of 4 to
 * 40 random colliders (contact_memo's collider), growth per link from -0.05 to 0.05 m (some 0,
 * some leaving no size), 6 links, 40 tips a frame spread from the colliders' middle to 0.6 m
 * beyond them, each tip through chain_contact with the frame's memo and without (position,
 * velocity, touch and moved compared as bits). Frames of 30 and more colliders and 6 links hold
 * pairs past the memo's size; frames of up to 8 spheres and capsules take the cull's list. */
static void test_contact_memo_matches_plain(void) {
    enum { LINKS = 6, MOST = 40 };
    uint32_t r = 11;
    static tl_collider c[MOST];
    static float growth[MOST * LINKS];
    static lane_frame f;
    static contact_memo memo; /* (one for every frame: its keys tell a collider grown before) */
    memset(&memo, 0, sizeof memo);
    unsigned tips = 0, held = 0, differ = 0, far = 0;
    int count = 0;
    for (int frame = 0; frame < 300; ++frame) {
        bool balls = frame % 10 == 0; /* spheres and capsules only: the cull's slots */
        /* every third frame the last one's colliders again, one growth changed; the next
           new colliders with the growth kept */
        if (frame % 3 != 1) {
            count = balls ? 3 + frame % 6 : 4 + (int)(unit_random(&r) * (MOST - 4));
            for (int k = 0; k < count; ++k) {
                do
                    c[k] = memo_collider(&r);
                while (balls && c[k].shape != TL_COLLIDER_SPHERE &&
                       c[k].shape != TL_COLLIDER_CAPSULE);
                for (int i = 0; i < LINKS && frame % 3 == 0; ++i) {
                    float g = 0.1f * (unit_random(&r) - 0.5f);
                    growth[k * LINKS + i] = unit_random(&r) < 0.2f    ? 0
                                            : unit_random(&r) < 0.05f ? -0.3f
                                                                      : g;
                }
            }
        } else {
            growth[(int)(unit_random(&r) * (float)(count * LINKS))] += 0.01f;
        }
        memset(&f, 0, sizeof f);
        SET_V3(&f, up, 0, v3_make(0, 1, 0));
        f.slip[0] = 0.9f, f.floor_slip[0] = 0.9f;
        f.colliders[0] = c, f.collider_count[0] = count;
        f.growth[0] = frame % 7 == 3 ? NULL : growth, f.links = LINKS;
        chain_cull_setup(&f, 1);
        for (int t = 0; t < 40; ++t) {
            int link = (int)(unit_random(&r) * LINKS);
            float spread = 0.3f + 0.6f * unit_random(&r);
            v3 head = v3_make(spread * (unit_random(&r) - 0.5f), spread * (unit_random(&r) - 0.5f),
                              spread * (unit_random(&r) - 0.5f));
            v3 dir = v3_normalize_or(
                v3_make(unit_random(&r) - 0.5f, unit_random(&r) - 0.5f, unit_random(&r) - 0.5f),
                v3_make(0, -1, 0));
            float len = 0.02f + 0.15f * unit_random(&r);
            v3 p0 = v3_madd(head, dir, len), v0 = v3_make(0.1f, -0.2f, 0.05f), rest = dir;
            v3 p[2] = {p0, p0}, v[2] = {v0, v0};
            bool touch[2], moved[2];
            for (int j = 0; j < 2; ++j) {
                f.memo[0] = j ? &memo : NULL;
                moved[j] = chain_contact(&f, 0, link, head, len, rest, &p[j], &v[j], &touch[j]);
            }
            ++tips, held += moved[0];
            far += !moved[0] && count > 8;
            differ += memcmp(&p[0], &p[1], sizeof p[0]) != 0 ||
                      memcmp(&v[0], &v[1], sizeof v[0]) != 0 || touch[0] != touch[1] ||
                      moved[0] != moved[1];
        }
    }
    fprintf(stderr, "  %u tips, %u moved, %u untouched among more than 8 colliders, %u differ\n",
            tips, held, far, differ);
    ENSURE(differ == 0 && held > 1000 && far > 1000);
}

/* The frame's balls kept across frames (chain_contact_memo_balls with one memo) are those found
 * anew (a fresh memo each frame), as bits: 600 frames of 1 to 32 random colliders, half the
 * frames the last frame's again, a third of those with one float of one collider or of the
 * growth one bit off, some read with other links, the growth sometimes none or too large to
 * keep (a ball's centre compared where it has one). */
static void test_contact_balls_kept_match_fresh(void) {
    enum { MOST = CONTACT_BALLS, LINKS = 24 };
    uint32_t r = 31;
    static tl_collider c[MOST];
    static float growth[MOST * LINKS];
    static contact_memo kept, fresh;
    memset(&kept, 0, sizeof kept);
    unsigned frames = 0, again = 0, nudged = 0, relinked = 0, differ = 0;
    int count = 1, links = 6;
    for (int frame = 0; frame < 600; ++frame) {
        float u = unit_random(&r);
        if (frame == 0 || u < 0.5f) { /* new colliders */
            count = 1 + (int)(unit_random(&r) * (MOST - 1));
            links = unit_random(&r) < 0.2f ? LINKS : 1 + (int)(unit_random(&r) * 6);
            for (int k = 0; k < count; ++k) {
                c[k] = memo_collider(&r);
                for (int i = 0; i < links; ++i)
                    growth[k * links + i] = 0.1f * (unit_random(&r) - 0.5f);
            }
        } else if (u < 0.67f) { /* one float one bit off */
            uint32_t bits, k = (uint32_t)(unit_random(&r) * count) % (uint32_t)count;
            float* x = unit_random(&r) < 0.5f
                           ? &c[k].a[0] + (int)(unit_random(&r) * 16) % 16
                           : &growth[k * links + (int)(unit_random(&r) * links) % links];
            memcpy(&bits, x, sizeof bits), bits ^= 1u << (int)(unit_random(&r) * 23) % 23;
            memcpy(x, &bits, sizeof bits);
            ++nudged;
        } else if (u < 0.75f) { /* the same floats read with other links */
            links = links > 1 ? links - 1 : links + 1;
            ++relinked;
        } else
            ++again;
        const float* g = frame % 7 == 3 ? NULL : growth;
        memset(&fresh, 0, sizeof fresh);
        chain_contact_memo_balls(&kept, c, count, g, links);
        chain_contact_memo_balls(&fresh, c, count, g, links);
        bool same = kept.balls_of == c && kept.ball_count == count;
        for (int k = 0; k < count; ++k) /* (a centre is read only with a ball: radius >= 0) */
            same = same && memcmp(&kept.ball[k][3], &fresh.ball[k][3], sizeof(float)) == 0 &&
                   (!(fresh.ball[k][3] >= 0) ||
                    memcmp(kept.ball[k], fresh.ball[k], 3 * sizeof(float)) == 0);
        differ += !same;
        kept.balls_of = NULL, kept.ball_count = 0; /* (as step_alone after the frame) */
        ++frames;
    }
    fprintf(stderr, "  %u frames, %u the last again, %u one bit off, %u other links, %u differ\n",
            frames, again, nudged, relinked, differ);
    ENSURE(again > 100 && nudged > 50 && relinked > 20 && differ == 0);
}

/* A chain alone's contact pass with its frame's balls (chain_contact_memo_balls: step_alone's
 * cull of a lane without slots) gives the bits of the pass that visits every collider: 400
 * frames of 9 to 40 random colliders (memo_collider's; some radii negative, a frame in four
 * crowded into 0.25 m so that tips meet creases and run out of sweeps), growth per link from
 * -0.05 to 0.05 m, 6 links, 60 tips a frame (one in ten off its rope sphere), each through
 * chain_contact with the memo and the frame's balls and with the memo alone (position,
 * velocity, touch and moved as bits). Frames of more than 32 colliders have no balls. */
static void test_contact_balls_match_all(void) {
    enum { LINKS = 6, MOST = 40 };
    uint32_t r = 29;
    static tl_collider c[MOST];
    static float growth[MOST * LINKS];
    static lane_frame f;
    static contact_memo memo;
    memset(&memo, 0, sizeof memo);
    unsigned tips = 0, held = 0, differ = 0, culled = 0, visited = 0, crowded = 0;
    for (int frame = 0; frame < 400; ++frame) {
        int count = 9 + (int)(unit_random(&r) * (MOST - 9));
        float squeeze = frame % 4 == 0 ? 0.3f : 1.0f;
        for (int k = 0; k < count; ++k) {
            c[k] = memo_collider(&r);
            for (int i = 0; i < 3; ++i) { /* (a capsule's b moved with a) */
                float shift = c[k].a[i] * (squeeze - 1);
                c[k].a[i] += shift;
                if (c[k].shape == TL_COLLIDER_CAPSULE) c[k].b[i] += shift;
            }
            if (unit_random(&r) < 0.1f) c[k].radius = -c[k].radius;
            for (int i = 0; i < LINKS; ++i)
                growth[k * LINKS + i] =
                    unit_random(&r) < 0.2f ? 0 : 0.1f * (unit_random(&r) - 0.5f);
        }
        memset(&f, 0, sizeof f);
        SET_V3(&f, up, 0, v3_make(0, 1, 0));
        f.slip[0] = 0.9f, f.floor_slip[0] = 0.9f;
        f.colliders[0] = c, f.collider_count[0] = count;
        f.growth[0] = frame % 9 == 4 ? NULL : growth, f.links = LINKS;
        chain_cull_setup(&f, 1);
        ENSURE(f.cull_all[0]);
        for (int t = 0; t < 60; ++t) {
            int link = (int)(unit_random(&r) * LINKS);
            float spread = (0.3f + 0.6f * unit_random(&r)) * squeeze;
            v3 head = v3_make(spread * (unit_random(&r) - 0.5f), spread * (unit_random(&r) - 0.5f),
                              spread * (unit_random(&r) - 0.5f));
            v3 dir = v3_normalize_or(
                v3_make(unit_random(&r) - 0.5f, unit_random(&r) - 0.5f, unit_random(&r) - 0.5f),
                v3_make(0, -1, 0));
            float len = 0.02f + 0.15f * unit_random(&r);
            float off = t % 10 == 0 ? 1.5f : 1.0f; /* (the tip off its sphere: no cull) */
            v3 p0 = v3_madd(head, dir, len * off), v0 = v3_make(0.1f, -0.2f, 0.05f), rest = dir;
            v3 p[2] = {p0, p0}, v[2] = {v0, v0};
            bool touch[2], moved[2];
            uint32_t near = 0;
            for (int j = 0; j < 2; ++j) {
                f.memo[0] = &memo;
                if (j) chain_contact_memo_balls(&memo, c, count, f.growth[0], LINKS);
                if (j && chain_contact_memo_near(&memo, c, count, head, len, p0, &near))
                    culled += count - __builtin_popcount(near), visited += count;
                moved[j] = chain_contact(&f, 0, link, head, len, rest, &p[j], &v[j], &touch[j]);
                memo.balls_of = NULL, memo.ball_count = 0;
            }
            ++tips, held += moved[0], crowded += moved[0] && squeeze < 1;
            differ += memcmp(&p[0], &p[1], sizeof p[0]) != 0 ||
                      memcmp(&v[0], &v[1], sizeof v[0]) != 0 || touch[0] != touch[1] ||
                      moved[0] != moved[1];
        }
    }
    fprintf(stderr,
            "  %u tips, %u moved (%u among crowded colliders), %u of %u visits culled, %u "
            "differ\n",
            tips, held, crowded, culled, visited, differ);
    ENSURE(held > 3000 && crowded > 1000 && culled > visited / 3);
    ENSURE(differ == 0);
}

/* A straight chain of n links, 0.5 m in all, hanging down with no floor and no hips plane: only
 * the test's colliders touch it. */
static tl_chain_def hanging_free(rig* r, int n) {
    rig_straight(r, n, v3_make(0, -1, 0), 0.5f);
    tl_chain_def def = def_for(r);
    def.floor_enabled = false;
    def.hips_plane_enabled = false;
    return def;
}

/* A one-link chain of hanging_free stepped once, and two spheres of 0.1 m whose centres lie dx
 * on either side of its tip and dz behind it: a crease. NULL if the chain was not made. */
static tl_chain* crease_chain(const tl_chain_def* def, float dx, float dz, tl_collider s[2]) {
    tl_chain* chain = create(def);
    if (!chain) return NULL;
    tl_chain_input in = tl_default_chain_input();
    tl_chain_step(chain, &in, 1 / 60.0f);
    v3 tip = tip_at(tl_chain_particle_positions(chain), 0);
    for (int k = 0; k < 2; ++k) {
        s[k] = (tl_collider){TL_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.1f, {{0}}};
        v3_store(s[k].a, v3_add(tip, v3_make(k ? -dx : dx, 0, dz)));
    }
    return chain;
}

/* A particle put at the very centre of an ellipsoid, and one just inside its surface: one
 * step puts each outside it (|q| >= 1 - 1e-6), on its rope. */
static void test_ellipsoid_exact(void) {
    rig r;
    tl_chain_def def = hanging_free(&r, 1);
    double worst = 1e9, length_error = 0;
    for (int c = 0; c < 2; ++c) {
        tl_chain* chain = create(&def);
        ENSURE(chain);
        tl_chain_input in = tl_default_chain_input();
        tl_chain_step(chain, &in, 1 / 60.0f); /* at rest: the particle hangs at its rest arc */
        v3 tip = tip_at(tl_chain_particle_positions(chain), 0);
        v3 head = r.joints[0];
        /* an ellipsoid (0.3, 0.12, 0.07) turned about x, centred on the tip, or with its
         * surface 1 mm beyond the tip along the first axis */
        qt turn = qt_axis_angle(v3_make(1, 0, 0), 0.4f);
        tl_collider e = {TL_COLLIDER_ELLIPSOID, {0, 0, 0}, {0, 0, 0}, 0, {{0}}};
        v3 ax[3] = {qt_rotate(turn, v3_make(0.3f, 0, 0)), qt_rotate(turn, v3_make(0, 0.12f, 0)),
                    qt_rotate(turn, v3_make(0, 0, 0.07f))};
        for (int k = 0; k < 3; ++k)
            v3_store(e.axes[k], ax[k]);
        v3 centre = c == 0 ? tip : v3_madd(tip, v3_normalize_or(ax[0], ax[0]), -0.299f);
        v3_store(e.a, centre);
        ENSURE(ellipsoid_rho(&e, tip) < 1);
        in.colliders = &e, in.collider_count = 1;
        tl_chain_step(chain, &in, 1 / 120.0f);
        v3 p = tip_at(tl_chain_particle_positions(chain), 0);
        worst = fmin(worst, ellipsoid_rho(&e, p));
        length_error = fmax(length_error, fabs(v3_length(v3_sub(p, head)) - r.length[0]));
        tl_chain_destroy(chain);
    }
    fprintf(stderr, "  particles started inside: |q| after one step >= %.7f, length error %.2g\n",
            worst, length_error);
    ENSURE(worst >= 1 - 1e-6);
    ENSURE(length_error <= 1e-5 * r.length[0]);
}

/* A tip in the crease of two overlapping spheres (radius 0.1 m, centres 0.085 m from it on
 * either side, both behind it): pushed out of the first, it is pushed into the second and
 * back, so the contact pass sweeps them again: after one step it is outside both (one sweep
 * left it 22 mm inside, three 1.4 mm). */
static void test_collider_crease(void) {
    rig r;
    tl_chain_def def = hanging_free(&r, 1);
    tl_collider s[2];
    tl_chain* chain = crease_chain(&def, 0.08f, 0.03f, s);
    ENSURE(chain);
    tl_chain_input in = tl_default_chain_input();
    in.colliders = s, in.collider_count = 2;
    tl_chain_step(chain, &in, 1 / 120.0f);
    v3 p = tip_at(tl_chain_particle_positions(chain), 0);
    float depth = -INFINITY;
    for (int k = 0; k < 2; ++k)
        depth = fmaxf(depth, s[k].radius - v3_length(v3_sub(p, v3_load(s[k].a))));
    float length = v3_length(v3_sub(p, r.joints[0]));
    fprintf(stderr, "  crease: deepest %.2g m after one step, length error %.2g\n", depth,
            fabsf(length - r.length[0]));
    tl_chain_destroy(chain);
    ENSURE(depth <= 1e-6f);
    ENSURE(fabsf(length - r.length[0]) <= 1e-5f * r.length[0]);
}

/* A tip in a narrow crease: two spheres (radius 0.1 m) whose centres are 0.099 m on either
 * side of it overlap by 2 mm, so on the rope sphere the way out between them is a wedge of
 * about 16 degrees, where pushes out of one into the other creep along it: eight sweeps leave
 * the tip millimetres inside. After one step the tip, its output too, is outside both, the
 * link's length kept and no velocity left into either. */
static void test_collider_narrow_crease(void) {
    rig r;
    tl_chain_def def = hanging_free(&r, 1);
    float depth = -INFINITY, length_error = 0, into = 0;
    for (int side = 0; side < 2; ++side) { /* (the crease's exit ahead of the tip and behind) */
        tl_collider s[2];
        tl_chain* chain = crease_chain(&def, 0.099f, side ? -0.01f : 0.01f, s);
        ENSURE(chain);
        tl_chain_input in = tl_default_chain_input();
        in.colliders = s, in.collider_count = 2;
        tl_chain_step(chain, &in, 1 / 120.0f);
        v3 p = tip_at(tl_chain_particle_positions(chain), 0);
        v3 q = tip_at(tl_chain_tip_positions(chain), 0);
        v3 v = tip_at(tl_chain_particle_velocities(chain), 0);
        for (int k = 0; k < 2; ++k) {
            v3 out = v3_sub(p, v3_load(s[k].a));
            depth = fmaxf(depth, s[k].radius - v3_length(out));
            depth = fmaxf(depth, s[k].radius - v3_length(v3_sub(q, v3_load(s[k].a))));
            into = fmaxf(into, -v3_dot(v, v3_scale(out, 1.0f / v3_length(out))));
        }
        length_error = fmaxf(length_error, fabsf(v3_length(v3_sub(p, r.joints[0])) - r.length[0]));
        tl_chain_destroy(chain);
    }
    fprintf(stderr,
            "  narrow crease: deepest %.2g m after one step, length error %.2g, "
            "velocity into a sphere %.2g m/s\n",
            depth, length_error, into);
    ENSURE(depth <= 1e-6f);
    ENSURE(length_error <= 1e-5f * r.length[0]);
    ENSURE(into <= 1e-4f);
}

/* tl_chain_state_lag: the time the state owes the next step. At 144 fps with 1/120 s steps the
 * first frame runs none (the state a frame old), and the sixth ends on a step (1/24 s). */
static void test_state_lag(void) {
    rig r;
    rig_straight(&r, 2, v3_make(0, -1, 0), 0.5f);
    tl_chain_def def = def_for(&r);
    tl_chain* chain = create(&def);
    ENSURE(chain);
    tl_chain_input in = tl_default_chain_input();
    tl_chain_step(chain, &in, 0);
    double worst = 0;
    for (int f = 1; f <= 12; ++f) {
        tl_chain_step(chain, &in, 1 / 144.0f);
        double expect = fmod(f / 144.0, 1 / 120.0);
        if (expect > 1 / 120.0 - 1e-9) expect = 0;
        worst = fmax(worst, fabs(tl_chain_state_lag(chain) - expect));
    }
    fprintf(stderr, "  state lag off by at most %.2g s over 12 frames at 144 fps\n", worst);
    ENSURE(worst <= 1e-7);
    tl_chain_destroy(chain);
}

/* Per-link growth (tl_chain_input.collider_growth): a sphere holding both tips of a hanging
 * two-link chain, link 0 free of it (-INFINITY), link 1 meeting it at its size: link 0's tip
 * stays where the spring put it (inside), link 1's ends outside, in the state and in the
 * render-time tips alike; without the growth both are pushed out. */
static void test_collider_growth_per_link(void) {
    rig r;
    tl_chain_def def = hanging_free(&r, 2);
    float depth[2][2][2]; /* [with growth][link][state, output] */
    for (int with = 0; with < 2; ++with) {
        tl_chain* chain = create(&def);
        ENSURE(chain);
        tl_chain_input in = tl_default_chain_input();
        tl_chain_step(chain, &in, 1 / 60.0f);
        v3 a = tip_at(tl_chain_particle_positions(chain), 0);
        v3 b = tip_at(tl_chain_particle_positions(chain), 1);
        tl_collider s = {TL_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.2f, {{0}}};
        v3_store(s.a, v3_add(v3_scale(v3_add(a, b), 0.5f), v3_make(0.05f, 0, 0)));
        const float growth[2] = {-INFINITY, 0};
        in.colliders = &s, in.collider_count = 1;
        in.collider_growth = with ? growth : NULL;
        tl_chain_step(chain, &in, 1 / 120.0f);
        for (int i = 0; i < 2; ++i) {
            v3 p = tip_at(tl_chain_particle_positions(chain), i);
            v3 q = tip_at(tl_chain_tip_positions(chain), i);
            depth[with][i][0] = s.radius - v3_length(v3_sub(p, v3_load(s.a)));
            depth[with][i][1] = s.radius - v3_length(v3_sub(q, v3_load(s.a)));
        }
        tl_chain_destroy(chain);
    }
    fprintf(stderr,
            "  without growth: tips %.2g / %.2g m deep (output %.2g / %.2g); with link 0 free: "
            "%.2g / %.2g (output %.2g / %.2g)\n",
            depth[0][0][0], depth[0][1][0], depth[0][0][1], depth[0][1][1], depth[1][0][0],
            depth[1][1][0], depth[1][0][1], depth[1][1][1]);
    for (int j = 0; j < 2; ++j) {
        ENSURE(depth[0][0][j] <= 1e-6f && depth[0][1][j] <= 1e-6f);
        ENSURE(depth[1][0][j] > 0.05f); /* free: left inside */
        ENSURE(depth[1][1][j] <= 1e-6f);
    }
}

/* A straight 5-link 0.5 m chain hanging down, no floor or hips plane, placed at rest (a frame
 * of no time): the chain of the first-frame tests. */
static tl_chain* placed_five(rig* r, tl_chain_def* def) {
    *def = hanging_free(r, 5);
    tl_chain* chain = create(def);
    tl_chain_input in = tl_default_chain_input();
    if (chain) tl_chain_step(chain, &in, 0);
    return chain;
}

/* A chain's first frame (and the first after tl_chain_clear) with a sphere through its rest
 * shape: a frame shorter than a step runs no contact pass, yet the host sees it, so the
 * placement itself keeps every particle and output tip outside (each link with its growth),
 * the lengths kept, the velocities still zero, the links before the sphere where they rest.
 * Before: the placed rest shape was left inside, 0.04-0.05 m deep. */
static void test_first_frame_outside_colliders(void) {
    rig r;
    tl_chain_def def;
    tl_chain* chain = placed_five(&r, &def);
    ENSURE(chain);
    tl_chain_input in = tl_default_chain_input();
    float rest[3 * 5];
    memcpy(rest, tl_chain_particle_positions(chain), sizeof rest);
    tl_chain_clear(chain);
    /* a sphere beside link 2, its tip 0.04 m inside it (0.05 grown), links 1 and 3 outside */
    tl_collider s = {TL_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.08f, {{0}}};
    v3_store(s.a, v3_add(tip_at(rest, 2), v3_make(0.04f, 0, 0)));
    const float growth[5] = {0, 0.01f, 0.01f, 0.01f, 0.01f};
    in.colliders = &s, in.collider_count = 1;
    float worst = -1, worst_tip = -1, stretch = 0, speed = 0, moved_before = 0;
    for (int run = 0; run < 4; ++run) { /* dt 0 and a frame shorter than a step; then cleared */
        in.collider_growth = run & 1 ? growth : NULL;
        tl_chain_step(chain, &in, run < 2 ? 0.0f : 1 / 240.0f);
        const float* p = tl_chain_particle_positions(chain);
        const float* t = tl_chain_tip_positions(chain);
        const float* v = tl_chain_particle_velocities(chain);
        for (int i = 0; i < 5; ++i) {
            float grow = run & 1 ? growth[i] : 0;
            worst = fmaxf(worst, s.radius + grow - v3_length(v3_sub(tip_at(p, i), v3_load(s.a))));
            worst_tip =
                fmaxf(worst_tip, s.radius + grow - v3_length(v3_sub(tip_at(t, i), v3_load(s.a))));
            if (i > 0) /* (link 0's head is the root: it turns about it) */
                stretch = fmaxf(
                    stretch,
                    fabsf(v3_length(v3_sub(tip_at(p, i), tip_at(p, i - 1))) / r.length[i] - 1));
            speed = fmaxf(speed, v3_length(tip_at(v, i)));
            if (i < 2)
                moved_before =
                    fmaxf(moved_before, v3_length(v3_sub(tip_at(p, i), tip_at(rest, i))));
        }
        tl_chain_clear(chain);
    }
    fprintf(stderr,
            "  first frames: deepest particle %.3g m, output tip %.3g m; stretch %.2g, speed "
            "%.2g, links before the sphere moved %.2g m\n",
            worst, worst_tip, stretch, speed, moved_before);
    ENSURE(worst <= 1e-6f && worst_tip <= 1e-6f);
    ENSURE(stretch <= 1e-5f && speed == 0 && moved_before == 0);
    tl_chain_destroy(chain);
}

/* A sphere moving through a chain's rest shape, for the sampler: still attachment. */
typedef struct moving_sphere {
    double frame_start;
    v3 centre, velocity; /* at time 0, m/s */
    tl_collider sphere;
} moving_sphere;

static void sample_moving_sphere(void* user, float t, tl_chain_sample* out) {
    moving_sphere* m = user;
    v3_store(m->sphere.a, v3_madd(m->centre, m->velocity, (float)(m->frame_start + t)));
    out->colliders = &m->sphere, out->collider_count = 1;
}

/* A chain started through the sampler (tl_chain_step_sampled) is kept out of the colliders of
 * its start, whatever the first frame's length: at 24 and at 144 fps the state after 1/24 s is
 * the same (the sampler's promise). Before, the placement met the colliders of the first
 * sub-frame's end, 1/144 s or a step (1/120 s) later: 3 mm apart with a sphere at 2 m/s. */
static void test_first_frame_sampled_colliders(void) {
    rig r;
    tl_chain_def def;
    tl_chain* probe = placed_five(&r, &def);
    ENSURE(probe);
    v3 tip2 = tip_at(tl_chain_particle_positions(probe), 2);
    tl_chain_destroy(probe);
    float state[2][3 * 5];
    const int fps[2] = {24, 144};
    for (int k = 0; k < 2; ++k) {
        tl_chain* chain = create(&def);
        ENSURE(chain);
        moving_sphere m = {0,
                           v3_add(tip2, v3_make(0.04f, 0, 0)),
                           v3_make(-2, 0, 0),
                           {TL_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.08f, {{0}}}};
        for (int f = 0; f < fps[k] / 24; ++f) {
            m.frame_start = f / (double)fps[k];
            tl_chain_step_sampled(chain, sample_moving_sphere, &m, 1.0f / (float)fps[k], false);
        }
        memcpy(state[k], tl_chain_particle_positions(chain), sizeof state[k]);
        tl_chain_destroy(chain);
    }
    float apart = 0;
    for (int i = 0; i < 5; ++i)
        apart = fmaxf(apart, v3_length(v3_sub(tip_at(state[0], i), tip_at(state[1], i))));
    fprintf(stderr, "  after 1/24 s at 24 and 144 fps: particles %.3g m apart\n", apart);
    ENSURE(apart <= 1e-5f);
}

/* The walk of thigh_collider past a body plane (a wall through a point 0.03 m beside the tail's
 * path, facing away from the body, as the floor and the hips plane are planes of the same pass)
 * and past a sphere of 0.08 m: without them particles end frames inside, with them none does
 * (exact depths), and the chain keeps its lengths. */
static void test_plane_and_sphere_colliders(void) {
    rig r;
    rig_straight(&r, 8, v3_make(0, -1, 0), 0.8f);
    tl_chain_def def = def_for(&r);
    const double dt = 1 / 60.0;
    tl_chain* probe = create(&def);
    ENSURE(probe);
    v3 seen = {0, 0, 0};
    for (int k = 1; k <= 200; ++k) {
        tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
        tl_chain_step(probe, &in, (float)dt);
        if (k == 200)
            seen = qt_unrotate(
                qt_load(in.target.rotation),
                v3_sub(tip_at(tl_chain_particle_positions(probe), 4), v3_load(in.target.position)));
    }
    tl_chain_destroy(probe);
    for (int shape = 0; shape < 2; ++shape) {
        bool plane = shape == 0;
        v3 at_local = v3_add(seen, v3_make(plane ? -0.03f : 0.03f, 0, 0));
        int inside_frames[2] = {0, 0};
        double deepest[2] = {-1, -1}, length_error = 0;
        for (int with = 0; with < 2; ++with) {
            tl_chain* chain = create(&def);
            ENSURE(chain);
            for (int k = 1; k <= 360; ++k) {
                tl_chain_input in = frame_input(clip_walk, (k - 1) * dt, k * dt);
                qt R = qt_load(in.target.rotation);
                v3 o = v3_load(in.target.position);
                v3 at = v3_add(o, qt_rotate(R, at_local)), n = qt_rotate(R, v3_make(-1, 0, 0));
                tl_collider body = {plane ? TL_COLLIDER_PLANE : TL_COLLIDER_SPHERE,
                                    {at.x, at.y, at.z},
                                    {n.x, n.y, n.z},
                                    0.08f,
                                    {{0}}};
                if (with) in.colliders = &body, in.collider_count = 1;
                tl_chain_step(chain, &in, (float)dt);
                const float* p = tl_chain_particle_positions(chain);
                bool inside = false;
                for (int i = 0; i < r.n; ++i) {
                    v3 d = v3_sub(tip_at(p, i), at);
                    double depth = plane ? -v3_dot(d, n) : 0.08 - v3_length(d);
                    deepest[with] = fmax(deepest[with], depth);
                    inside |= depth > 1e-5 * r.total;
                }
                inside_frames[with] += inside;
                v3 head = v3_add(o, qt_rotate(R, r.joints[0]));
                for (int i = 0; i < r.n; ++i) {
                    double l = v3_length(v3_sub(tip_at(p, i), i ? tip_at(p, i - 1) : head));
                    if (with)
                        length_error = fmax(length_error, fabs(l - r.length[i]) / r.length[i]);
                }
            }
            tl_chain_destroy(chain);
        }
        fprintf(stderr,
                "  walk past a body %s: without it %d frames with a particle inside (deepest "
                "%.3f m), with it %d (deepest %.2g m); length error %.2g\n",
                plane ? "plane" : "sphere", inside_frames[0], deepest[0], inside_frames[1],
                deepest[1], length_error);
        ENSURE(inside_frames[0] > 10 && deepest[0] > 0.01);
        ENSURE(inside_frames[1] == 0 && deepest[1] <= 1e-5 * r.total);
        ENSURE(length_error <= 1e-4);
    }
}

/* ---- golden hash: the solver's output bits on a fixed scene ---- */

/* Which setting golden_scene_hash changes (to show that the hash sees one). */
typedef enum golden_variant { GOLDEN_AS_IS, GOLDEN_DAMPING } golden_variant;

/* Eleven chains of 1-8 bones (batch_chain: radii, other fixed steps, a substep clamp, floor
 * contact, no hips plane), driven by the shake, the walk and the low clip with a teleport, a
 * non-finite frame and a hips frame apart (batch_input) at 60 fps with a hitch and a stretch at
 * 144 fps. Even frames step every chain in one tl_chain_batch_step call, odd frames step each
 * alone. Every frame's local rotations and tips of every chain go into one FNV-1a hash. */
static uint64_t golden_scene_hash(golden_variant variant) {
    rig r;
    tl_chain* chains[BATCH];
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < BATCH; ++k) {
        chains[k] = batch_chain(k, &r);
        if (!chains[k]) return 0;
    }
    if (variant == GOLDEN_DAMPING) { /* chain 1 again with zeta 0.66 instead of 0.65 */
        tl_chain_destroy(chains[1]);
        rig_straight(&r, 8, v3_make(0, -1, 0.2f), 0.8f);
        tl_chain_def def = def_for(&r);
        float radii[TL_CHAIN_MAX_BONES];
        for (int i = 0; i < r.n; ++i)
            radii[i] = 0.05f + 0.02f * (float)i;
        def.joint_radii = radii;
        def.settings.damping_ratio = 0.66f;
        chains[1] = create(&def);
        if (!chains[1]) return 0;
    }
    const double dt = 1 / 60.0;
    for (int frame = 1; frame <= 300; ++frame) {
        float step = frame == 120 ? 0.4f : frame > 150 && frame < 200 ? 1.0f / 144 : (float)dt;
        tl_chain_input in[BATCH];
        for (int k = 0; k < BATCH; ++k)
            in[k] = batch_input(k, frame, dt);
        if (frame % 2 == 0) {
            tl_chain_batch_step(test_batch(), chains, in, BATCH, step);
        } else {
            for (int k = 0; k < BATCH; ++k)
                tl_chain_step(chains[k], &in[k], step);
        }
        for (int k = 0; k < BATCH; ++k) {
            size_t n = (size_t)tl_chain_bone_count(chains[k]);
            h = fnv(h, tl_chain_local_rotations(chains[k]), 4 * n * sizeof(float));
            h = fnv(h, tl_chain_tip_positions(chains[k]), 3 * n * sizeof(float));
        }
    }
    for (int k = 0; k < BATCH; ++k)
        tl_chain_destroy(chains[k]);
    return h;
}

/* The bits pinned: a refactor that changes any output number fails here. The same constant in
 * the build with AVX2 kernels (taken at run time where the CPU has AVX2) and in the one without
 * (-DTL_LANES_AVX2=0, test_sim_sse2): the kernels do the same IEEE operations in the same
 * order. Update it only for a deliberate change of the solver's results, saying why. */
/* Changed in issue #11 (rest targets carried by the attachment, the muscle holding the rest arc
 * against gravity, the bending damped): 1b9d7535c805dab8 before; then (a contact's velocity
 * taken out of the surface across the link, so the rope's projection gives no part into it
 * back): 8d7654a255f18af0 before; then (session 21: the frame after a detected teleport taken
 * straight, not curved through the teleport frame's guessed own motion; the floor's slip
 * damping capped at what the links lack of critical damping, 0 at the defaults, for the
 * scene's floor contacts): 74e7aaaf0ac833c5 before; then (session 22, still22: on a still body
 * the coupling's held-back velocity kept past the velocity drops; the scene's four shake chains
 * hold still from 4 s on, still by the gate 0.83 s later): b336265e74456750 before; then
 * (crease22b: on a still body the held-back velocity is v's part against the coupling's move,
 * not along v; the same still frames): 7742a083e4701d6c before. */
#define GOLDEN_HASH 0xe22d565afe7aad2cull

/* tl_chain_particles_move: the particles move by exactly the offsets, the velocities stay, a
 * non-finite offset moves nothing, and the next step starts from the moved particles (its rope
 * puts each back at its link's length from its head). */
static void test_particles_move(void) {
    rig r;
    rig_straight(&r, 4, v3_make(0.2f, -1, -0.3f), 0.4f);
    tl_chain_def def = def_for(&r);
    tl_chain *moved = create(&def), *still = create(&def);
    ENSURE(moved && still);
    tl_chain_input in = tl_default_chain_input();
    tl_chain_step(moved, &in, 1.0f / 60), tl_chain_step(still, &in, 1.0f / 60);
    float before[12], v[12], offsets[12];
    memcpy(before, tl_chain_particle_positions(moved), sizeof before);
    memcpy(v, tl_chain_particle_velocities(moved), sizeof v);
    for (int k = 0; k < 12; ++k)
        offsets[k] = 0.01f * (float)((k % 5) - 2);
    tl_chain_particles_move(moved, offsets);
    for (int k = 0; k < 12; ++k) {
        ENSURE(tl_chain_particle_positions(moved)[k] == before[k] + offsets[k]);
        ENSURE(tl_chain_particle_velocities(moved)[k] == v[k]);
    }
    float bad[12] = {0};
    bad[4] = NAN;
    memcpy(before, tl_chain_particle_positions(moved), sizeof before);
    tl_chain_particles_move(moved, bad);
    ENSURE(!memcmp(before, tl_chain_particle_positions(moved), sizeof before));
    tl_chain_step(moved, &in, 1.0f / 60), tl_chain_step(still, &in, 1.0f / 60);
    const float *p = tl_chain_particle_positions(moved), *q = tl_chain_particle_positions(still);
    float apart = 0;
    for (int k = 0; k < 12; ++k)
        apart = fmaxf(apart, fabsf(p[k] - q[k]));
    ENSURE(apart > 1e-3f);
    v3 head = v3_make(0, 0, 0);
    for (int i = 0; i < 4; ++i) {
        v3 tip = v3_make(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        if (i > 0) ENSURE_NEAR(v3_length(v3_sub(tip, head)), tl_chain_link_lengths(moved)[i], 1e-5);
        head = tip;
    }
    tl_chain_destroy(moved), tl_chain_destroy(still);
}

static void test_golden_hash(void) {
    uint64_t h = golden_scene_hash(GOLDEN_AS_IS), again = golden_scene_hash(GOLDEN_AS_IS);
    uint64_t other = golden_scene_hash(GOLDEN_DAMPING);
    fprintf(stderr,
            "  golden hash %016llx (expected %016llx), with zeta 0.66 on one chain %016llx\n",
            (unsigned long long)h, (unsigned long long)GOLDEN_HASH, (unsigned long long)other);
    ENSURE(h == again);
    ENSURE(other != h); /* the hash sees a change of one setting of one chain */
    ENSURE(h == GOLDEN_HASH);
}

/* ---- sleep (tl_chain_def.sleep_seconds; docs/sim.md "Session 19 (sleep19)") ---- */

/* The largest tip speed of a chain's output between two frames, world units / s. */
static float output_speed(const tl_chain* c, const float* before, float dt) {
    float fast = 0;
    for (int i = 0; i < tl_chain_bone_count(c); ++i)
        fast = fmaxf(
            fast, v3_length(v3_sub(tip_at(tl_chain_tip_positions(c), i), tip_at(before, i))) / dt);
    return fast;
}

/* (2) A free chain (no contact) sleeps only once its motion is under the bar: an 8-link 0.8 m
 * hanging chain, lightly damped (zeta 0.05) and at the default 0.65, set swinging by a sideways
 * step of the attachment of 2 mm to 5 cm over 0.1 s, then held still 60 s, beside the same
 * chain with sleep off (sleep_seconds 1, the bar 1 cm/s). When it falls asleep, no tip of the
 * sleep-off run moved faster than the bar in the window before; the pose it sleeps in lies
 * within a swing at the bar (sleep_speed / (2 pi f_d), f_d the tip link's damped frequency) of
 * the sleep-off run's final pose; asleep, the output stays and the velocities are zero. */
static void test_sleep_free_swing(void) {
    enum { N = 8, WINDOW = 60, FRAMES = 3600 };
    rig r;
    rig_straight(&r, N, v3_make(0, -1, 0.2f), 0.8f);
    const float steps[] = {0.002f, 0.005f, 0.01f, 0.02f, 0.05f}, zetas[] = {0.05f, 0.65f};
    const float dt = 1 / 60.0f, bar = 0.01f;
    for (int z = 0; z < 2; ++z)
        for (int a = 0; a < 5; ++a) {
            tl_chain_def def = def_for(&r);
            def.floor_enabled = false, def.hips_plane_enabled = false;
            def.settings.damping_ratio = zetas[z];
            def.sleep_seconds = 1;
            tl_chain* on = create(&def);
            def.sleep_seconds = 0;
            tl_chain* off = create(&def);
            ENSURE(on && off);
            float before[3 * N], held[3 * N], ring[WINDOW] = {0}, fast_before = 0;
            int slept = -1, changed = 0;
            bool zero_velocity = true;
            tl_chain_input in = tl_default_chain_input();
            for (int f = 0; f < FRAMES; ++f) {
                in.start = in.target;
                in.target.position[0] = steps[a] * (float)(f < 6 ? f : 6) / 6;
                memcpy(before, tl_chain_tip_positions(off), sizeof before);
                tl_chain_step(on, &in, dt);
                if (tl_chain_get_stats(on).asleep) {
                    if (slept < 0) {
                        slept = f;
                        for (int k = 0; k < WINDOW; ++k)
                            fast_before = fmaxf(fast_before, ring[k]);
                        memcpy(held, tl_chain_tip_positions(on), sizeof held);
                    }
                    changed += memcmp(held, tl_chain_tip_positions(on), sizeof held) != 0;
                    for (int k = 0; k < 3 * N; ++k)
                        zero_velocity = zero_velocity && tl_chain_particle_velocities(on)[k] == 0;
                }
                tl_chain_step(off, &in, dt);
                ring[f % WINDOW] = f > 0 ? output_speed(off, before, dt) : 0;
            }
            float offset = 0;
            for (int i = 0; i < N; ++i)
                offset = fmaxf(offset, v3_length(v3_sub(tip_at(tl_chain_tip_positions(on), i),
                                                        tip_at(tl_chain_tip_positions(off), i))));
            const float fd = tl_chain_get_settings(on).tip_frequency *
                             sqrtf(1 - zetas[z] * zetas[z]),
                        swing = bar / (2 * (float)PI * fd);
            fprintf(
                stderr,
                "  zeta %.2f step %4.0f mm: asleep at %5.2f s, fastest tip in the window before "
                "%.4f m/s (bar %.2f), pose %.3f mm off the awake run's end (a swing at the "
                "bar %.2f mm)\n",
                (double)zetas[z], (double)steps[a] * 1000, slept / 60.0, (double)fast_before,
                (double)bar, (double)offset * 1000, (double)swing * 1000);
            ENSURE(slept > 0 && fast_before < bar && offset <= swing);
            ENSURE(changed == 0 && zero_velocity);
            tl_chain_destroy(on), tl_chain_destroy(off);
        }
}

/* A 6-link 0.6 m hanging chain, sleep off, `count` spheres of 0.2 m centred `aside` m either
 * side of link `link`'s tip (the first on +x), the attachment and the spheres swaying `sway` m
 * at 0.3 Hz (0: a still body): from 2 s to 5 s no tip moves faster than the rest bar
 * (sleep_speed), and the spheres were touched. */
static void hanging_on_spheres_settles(int link, float aside, int count, float sway) {
    enum { N = 6 };
    rig r;
    rig_straight(&r, N, v3_make(0, -1, 0.2f), 0.6f);
    tl_chain_def def = def_for(&r);
    def.floor_enabled = false, def.hips_plane_enabled = false, def.sleep_seconds = 0;
    tl_chain* chain = create(&def);
    ENSURE(chain);
    tl_chain_input in = tl_default_chain_input();
    const float dt = 1 / 60.0f;
    tl_chain_step(chain, &in, dt);
    const v3 tip = tip_at(tl_chain_particle_positions(chain), link),
             at = v3_load(in.target.position);
    tl_collider rest[2], s[2];
    for (int k = 0; k < count; ++k) {
        rest[k] = (tl_collider){TL_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.2f, {{0}}};
        v3_store(rest[k].a, v3_add(tip, v3_make(k ? -aside : aside, 0, 0)));
    }
    in.colliders = s, in.collider_count = (uint32_t)count;
    float before[3 * N], fast = 0;
    for (int f = 1; f <= 5 * 60; ++f) {
        float at_end[2]; /* the sway at the frame's start and end */
        for (int e = 0; e < 2; ++e)
            at_end[e] = (float)(sway * sin(2 * PI * 0.3 * (f - 1 + e) * dt));
        v3_store(in.start.position, v3_add(at, v3_make(at_end[0], 0, 0)));
        v3_store(in.target.position, v3_add(at, v3_make(at_end[1], 0, 0)));
        for (int k = 0; k < count; ++k) {
            s[k] = rest[k];
            v3_store(s[k].a, v3_add(v3_load(rest[k].a), v3_make(at_end[1], 0, 0)));
        }
        memcpy(before, tl_chain_tip_positions(chain), sizeof before);
        tl_chain_step(chain, &in, dt);
        if (f > 2 * 60) fast = fmaxf(fast, output_speed(chain, before, dt));
    }
    tl_chain_stats st = tl_chain_get_stats(chain);
    fprintf(stderr,
            "  %d sphere(s) %.2f m aside link %d: fastest tip from 2 s to 5 s %.4f m/s (bar %.2f), "
            "contacts %u\n",
            count, (double)aside, link, (double)fast, (double)def.sleep_speed, st.contacts);
    tl_chain_destroy(chain);
    ENSURE(st.contacts > 0);
    ENSURE(fast < def.sleep_speed);
}

/* A chain lying on a large sphere on a still body comes to rest (issue #11, the one-sphere
 * buzz: docs/sim.md, sphere22 and still22): a sphere 6 cm beside link 2's tip. Its free links
 * kept a velocity the neighbour coupling held back; the contact dropped it once every 7 frames
 * and the coupling threw the tip off the sphere, 0.148 m/s for ever. */
static void test_sphere_chain_settles(void) {
    hanging_on_spheres_settles(2, 0.06f, 1, 0);
}

/* A chain lying in the crease of two large spheres on a still body comes to rest (issue #11, the
 * crease scan: docs/sim.md, still22 and crease22b): spheres 8 cm (10 cm) either side of link 2's
 * tip. A link below slid along one sphere into the crease and was thrown back when the other's
 * contact dropped the velocity the coupling held back across it (counted along the velocity
 * only), 0.0172 (0.0114) m/s for ever. */
static void test_crease_chain_settles(void) {
    hanging_on_spheres_settles(2, 0.08f, 2, 0);
    hanging_on_spheres_settles(2, 0.1f, 2, 0);
}

/* A chain lying in the crease of two large spheres on a breathing body comes to rest (issue #11:
 * long01 Hair12's buzz went on through a breathing idle, docs/sim.md still22): spheres 4 cm
 * either side of link 1's tip, the attachment and the spheres swaying 1 mm at 0.3 Hz (0.0019 m/s
 * at most). The breath is a still body (main 0.15 m/s). */
static void test_crease_breath_settles(void) {
    hanging_on_spheres_settles(1, 0.04f, 2, 0.001f);
}

/* (3) A chain swinging along a collider it leans on does not sleep at a turning point: an 8-link
 * 0.8 m chain pressed onto a plane halfway along its rest lean (in contact every frame), undamped
 * (zeta 0) with no or little friction (slip_damping 0 and 0.5), set swinging along the plane by a
 * sideways step of 5, 20 or 40 cm, then held still 30 s beside the same chain with sleep off.
 * The two halves of a window about a turning point have about the same mean tips, so the mean
 * test alone froze such swings with the awake run going on up to 15.6 mm from the frozen pose;
 * the window's reach (sleep_speed times its length, 1 cm) keeps them awake until they swing
 * within it. When it falls asleep, the sleep-off run's tips over the next second stay within
 * the reach of the pose it sleeps in. */
static void test_sleep_contact_swing(void) {
    enum { N = 8, FRAMES = 1800 };
    rig r;
    rig_straight(&r, N, v3_make(0, -1, 0.2f), 0.8f);
    const float dt = 1 / 60.0f, reach = 0.01f * 1.0f, steps[] = {0.05f, 0.2f, 0.4f};
    const float slips[] = {0.0f, 0.5f};
    tl_chain_def def = def_for(&r);
    def.floor_enabled = false, def.hips_plane_enabled = false;
    def.settings.damping_ratio = 0;
    /* where the chain rests without the plane: the plane goes halfway along its lean */
    tl_chain* free_chain = create(&def);
    ENSURE(free_chain);
    tl_chain_input in = tl_default_chain_input();
    for (int f = 0; f < 600; ++f)
        tl_chain_step(free_chain, &in, dt);
    v3 tip = tip_at(tl_chain_tip_positions(free_chain), N - 1);
    tl_chain_destroy(free_chain);
    v3 lean = v3_make(tip.x, 0, tip.z);
    ENSURE(v3_length(lean) > 0.1f);
    v3 n = v3_scale(lean, -1 / v3_length(lean)), at = v3_scale(lean, 0.5f);
    tl_collider plane = {TL_COLLIDER_PLANE, {at.x, at.y, at.z}, {n.x, n.y, n.z}, 0, {{0}}};
    v3 side = v3_normalize_or(v3_cross(n, v3_make(0, 1, 0)), v3_make(1, 0, 0));
    float worst = 0;
    int slept_count = 0, contact_frames = 0;
    for (int q = 0; q < 2; ++q)
        for (int a = 0; a < 3; ++a) {
            def.settings.slip_damping = slips[q];
            def.sleep_seconds = 1;
            tl_chain* on = create(&def);
            def.sleep_seconds = 0;
            tl_chain* off = create(&def);
            ENSURE(on && off);
            float held[3 * N];
            int slept = -1;
            float apart = 0;
            in = tl_default_chain_input();
            in.colliders = &plane, in.collider_count = 1;
            for (int f = 0; f < FRAMES; ++f) {
                in.start = in.target;
                float k = steps[a] * (float)(f < 6 ? f : 6) / 6;
                for (int c = 0; c < 3; ++c)
                    in.target.position[c] = k * (&side.x)[c];
                tl_chain_step(on, &in, dt);
                tl_chain_step(off, &in, dt);
                contact_frames += f > 60 && tl_chain_get_stats(off).contacts > 0;
                if (slept < 0 && tl_chain_get_stats(on).asleep) {
                    slept = f;
                    memcpy(held, tl_chain_tip_positions(on), sizeof held);
                }
                if (slept >= 0 && f - slept <= 60)
                    for (int i = 0; i < N; ++i)
                        apart =
                            fmaxf(apart, v3_length(v3_sub(tip_at(held, i),
                                                          tip_at(tl_chain_tip_positions(off), i))));
            }
            fprintf(stderr,
                    "  slip %.1f step %3.0f mm: asleep at %5.2f s, the awake run's tips over the "
                    "next second up to %.2f mm from the sleeping pose (bar %.0f mm)\n",
                    (double)slips[q], (double)steps[a] * 1000, slept / 60.0, (double)apart * 1000,
                    (double)reach * 1000);
            slept_count += slept >= 0;
            worst = fmaxf(worst, apart);
            tl_chain_destroy(on), tl_chain_destroy(off);
        }
    ENSURE(contact_frames > 6 * (FRAMES - 61) * 9 / 10); /* it leans on the plane throughout */
    ENSURE(slept_count == 6); /* each comes to rest and sleeps in the 30 s */
    ENSURE(worst <= reach);
}

/* The deepest a chain's particles lie in a sphere or capsule, m (< 0: outside). */
static float collider_depth_of(const tl_chain* c, const tl_collider* col) {
    float deepest = -1e9f;
    for (int i = 0; i < tl_chain_bone_count(c); ++i) {
        v3 p = tip_at(tl_chain_particle_positions(c), i), a = v3_load(col->a);
        float d;
        if (col->shape == TL_COLLIDER_SPHERE) {
            d = col->radius - v3_length(v3_sub(p, a));
        } else {
            v3 ab = v3_sub(v3_load(col->b), a);
            float t = v3_dot(v3_sub(p, a), ab) / v3_dot(ab, ab);
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            d = col->radius - v3_length(v3_sub(p, v3_madd(a, ab, t)));
        }
        deepest = fmaxf(deepest, d);
    }
    return deepest;
}

/* (4), (5) A collider moving into a sleeping chain wakes it, and it is pushed out by the normal
 * path: an 8-link 0.8 m hanging chain, still 2 s (asleep after 1 s), then a sphere (r 0.1)
 * rising 0.4 m under its tip at 0.1, 0.3 and 1 m/s, or a capsule (r 0.08) swept 0.8 m through
 * link 3's tip at 0.5, 1 and 2 m/s, then held 4 s; beside it the same chain with sleep off, and
 * the sleeping chain's twin stepped in a batch with others. The chain is awake from the
 * collider's first move, no particle ends a frame deeper in the collider than with sleep off,
 * the fastest particle after waking is never faster than with sleep off (no fling), and the
 * batch's twin has the bits of the chain stepped alone every frame. */
static void test_sleep_collider_wakes(void) {
    enum { N = 8, LIST = 5 };
    rig r;
    rig_straight(&r, N, v3_make(0, -1, 0.2f), 0.8f);
    tl_chain_def def = def_for(&r);
    def.floor_enabled = false, def.hips_plane_enabled = false;
    const float speeds[2][3] = {{0.1f, 0.3f, 1}, {0.5f, 1, 2}}, dt = 1 / 60.0f;
    for (int kind = 0; kind < 2; ++kind)
        for (int s = 0; s < 3; ++s) {
            def.sleep_seconds = 1;
            tl_chain *on = create(&def), *list[LIST];
            for (int k = 0; k < LIST; ++k)
                list[k] = create(&def); /* list[2]: the twin; the others awake */
            def.sleep_seconds = 0;
            tl_chain* off = create(&def);
            tl_chain_input in = tl_default_chain_input(), inputs[LIST];
            tl_chain_step(on, &in, dt);
            tl_chain_step(off, &in, dt);
            tl_chain_step(list[2], &in, dt);
            const v3 tip = tip_at(tl_chain_particle_positions(on), kind ? 3 : N - 1);
            const v3 start =
                kind ? v3_make(tip.x - 0.4f, tip.y, tip.z) : v3_make(tip.x, tip.y - 0.3f, tip.z);
            const v3 move = kind ? v3_make(1, 0, 0) : v3_make(0, 1, 0);
            const float dist = kind ? 0.8f : 0.4f, v = speeds[kind][s];
            tl_collider col = {kind ? TL_COLLIDER_CAPSULE : TL_COLLIDER_SPHERE,
                               {0},
                               {0},
                               kind ? 0.08f : 0.1f,
                               {{0}}};
            in.colliders = &col, in.collider_count = 1;
            const int still = 120, moving = (int)ceilf(dist / v * 60), total = still + moving + 240;
            float before_on[3 * N], before_off[3 * N], fast_on = 0, fast_off = 0, deeper = 0;
            bool slept = false, woke = true, same = true;
            for (int f = 1; f <= total; ++f) {
                float at = f <= still            ? 0
                           : f >= still + moving ? dist
                                                 : v * (float)(f - still) / 60;
                v3 c = v3_madd(start, move, at);
                if (kind) {
                    v3_store(col.a, v3_add(c, v3_make(0, 0, -0.2f)));
                    v3_store(col.b, v3_add(c, v3_make(0, 0, 0.2f)));
                } else {
                    v3_store(col.a, c);
                }
                memcpy(before_on, tl_chain_particle_positions(on), sizeof before_on);
                memcpy(before_off, tl_chain_particle_positions(off), sizeof before_off);
                tl_chain_step(on, &in, dt);
                tl_chain_step(off, &in, dt);
                for (int k = 0; k < LIST; ++k) /* (the others move: walking chains beside) */
                    inputs[k] = k == 2 ? in : frame_input(clip_walk, (f - 1) / 60.0, f / 60.0);
                tl_chain_batch_step(test_batch(), list, inputs, LIST, dt);
                same = same && same_chain(list[2], on);
                if (f == still) slept = tl_chain_get_stats(on).asleep;
                if (f > still && f <= still + moving) woke = woke && !tl_chain_get_stats(on).asleep;
                if (f > still && f <= still + moving) {
                    deeper = fmaxf(deeper, collider_depth_of(on, &col) -
                                               fmaxf(collider_depth_of(off, &col), 0));
                    for (int i = 0; i < N; ++i) {
                        fast_on = fmaxf(fast_on,
                                        v3_length(v3_sub(tip_at(tl_chain_particle_positions(on), i),
                                                         tip_at(before_on, i))) /
                                            dt);
                        fast_off = fmaxf(
                            fast_off, v3_length(v3_sub(tip_at(tl_chain_particle_positions(off), i),
                                                       tip_at(before_off, i))) /
                                          dt);
                    }
                }
            }
            fprintf(stderr,
                    "  %s at %.1f m/s: asleep before %d, awake while it moves %d, deeper than "
                    "awake %.2g m, fastest particle %.4f m/s (sleep off %.4f), batch twin the "
                    "same bits %d, sleeps %u\n",
                    kind ? "capsule through link 3" : "sphere under the tip", (double)v, slept,
                    woke, (double)deeper, (double)fast_on, (double)fast_off, same,
                    tl_chain_get_stats(on).sleeps);
            ENSURE(slept && woke && deeper <= 1e-6f &&
                   same); /* (1 um: rounding at 1 m is 0.1 um) */
            /* no fling: no faster than the chain that never slept, up to the speed the sleep
             * itself discards (the two start the motion from different states, asleep at rest
             * and awake with velocities under sleep_speed, so they differ by rounding either
             * way; a fling is metres per second) */
            ENSURE(fast_on <= fast_off + def.sleep_speed * def.scale);
            tl_chain_destroy(on), tl_chain_destroy(off);
            for (int k = 0; k < LIST; ++k)
                tl_chain_destroy(list[k]);
        }
}

static void still_sample(void* user, float t, tl_chain_sample* out) {
    (void)t;
    out->attachment = *(const tl_chain_pose*)user;
}

/* Which frames count toward sleep: an 8-link 0.8 m chain set swinging by a 5 cm step of the
 * attachment (its rotation not of unit length), then held still, stepped (a) by 1/60 s frames, (b)
 * the same with a zero-length frame (start = target = the last target) after each, (c) by
 * tl_chain_step_sampled with a still sampler; and (d) walking (clip_walk) for 10 s with a
 * zero-length frame after each frame, as tailor measure's sample times give (restill18b). A
 * zero-length frame neither counts nor resets: (b) falls asleep after as many real frames as (a);
 * the sampled step falls asleep too (its sub-frames repeat the sample); the walk, whose zero-length
 * frames are "still", never sleeps. */
static void test_sleep_which_frames(void) {
    enum { N = 8 };
    rig r;
    rig_straight(&r, N, v3_make(0, -1, 0.2f), 0.8f);
    tl_chain_def def = def_for(&r);
    def.floor_enabled = false, def.hips_plane_enabled = false;
    def.sleep_seconds = 1;
    tl_chain *plain = create(&def), *zero = create(&def), *sampled = create(&def),
             *walk = create(&def);
    const float dt = 1 / 60.0f;
    int slept[3] = {-1, -1, -1}, walk_asleep = 0;
    tl_chain_input in = tl_default_chain_input();
    /* a rotation of norm 1.5, as a host may pass (the chain normalises it; the sampled step's
     * frames then start at the normalised pose, not the bits given) */
    in.target.rotation[1] = 0.9f, in.target.rotation[3] = 1.2f;
    for (int f = 0; f < 600; ++f) {
        in.start = in.target;
        in.target.position[0] = 0.05f * (float)(f < 6 ? f : 6) / 6;
        tl_chain_step(plain, &in, dt);
        tl_chain_step(zero, &in, dt);
        if (slept[1] < 0 && tl_chain_get_stats(zero).asleep) slept[1] = f; /* (its real frame) */
        tl_chain_input again = in;
        again.start = in.target;
        tl_chain_step(zero, &again, 0);
        if (f < 6)
            tl_chain_step(sampled, &in, dt); /* (the swing's start as the others') */
        else
            tl_chain_step_sampled(sampled, still_sample, &in.target, dt, false);
        if (slept[0] < 0 && tl_chain_get_stats(plain).asleep) slept[0] = f;
        if (slept[2] < 0 && tl_chain_get_stats(sampled).asleep) slept[2] = f;
    }
    for (int f = 1; f <= 600; ++f) {
        tl_chain_input w = frame_input(clip_walk, (f - 1) / 60.0, f / 60.0);
        tl_chain_step(walk, &w, dt);
        w.start = w.target;
        tl_chain_step(walk, &w, 0);
        walk_asleep += tl_chain_get_stats(walk).asleep;
    }
    fprintf(stderr,
            "  the first frame run asleep: %d (1/60 s frames), %d (each followed by a "
            "zero-length one), %d (sampled); walking with zero-length frames: %d frames "
            "asleep\n",
            slept[0], slept[1], slept[2], walk_asleep);
    ENSURE(slept[0] > 0 && slept[1] == slept[0] && slept[2] > 0 && walk_asleep == 0);
    tl_chain_destroy(plain), tl_chain_destroy(zero), tl_chain_destroy(sampled);
    tl_chain_destroy(walk);
}

static const tl_test_case cases[] = {
    {"defaults", test_defaults},
    {"bug1_spring_in_physical_units", test_bug1_spring_in_physical_units},
    {"cut_carries_rigidly", test_cut_carries_rigidly},
    {"start_as_given", test_start_as_given},
    {"bug2_hip_shake", test_bug2_hip_shake},
    {"bug3_carry_shared", test_bug3_carry_shared},
    {"rest_arc_centred", test_rest_arc_centred},
    {"tip_without_tail_end", test_tip_without_tail_end},
    {"neutral_from_binds", test_neutral_from_binds},
    {"units_zup_centimetres", test_units_zup_centimetres},
    {"frame_rate_independence", test_frame_rate_independence},
    {"hitch_and_teleport", test_hitch_and_teleport},
    {"teleport_keeps_frame_motion", test_teleport_keeps_frame_motion},
    {"ground_contact", test_ground_contact},
    {"plane_behind_hips", test_plane_behind_hips},
    {"bend_limit_radii", test_bend_limit_radii},
    {"invalid_geometry", test_invalid_geometry},
    {"nonfinite_input", test_nonfinite_input},
    {"no_allocation_in_step", test_no_allocation_in_step},
    {"determinism", test_determinism},
    {"batch_matches_alone", test_batch_matches_alone},
    {"wide_batch_matches_alone", test_wide_batch_matches_alone},
    {"batch_keeps_state", test_batch_keeps_state},
    {"batch_settings_kept", test_batch_settings_kept},
    {"golden_hash", test_golden_hash},
    {"particles_move", test_particles_move},
    {"settings_at_run_time", test_settings_at_run_time},
    {"external_force", test_external_force},
    {"sampler", test_sampler},
    {"thigh_collider", test_thigh_collider},
    {"ellipsoid_collider", test_ellipsoid_collider},
    {"ellipsoid_exact", test_ellipsoid_exact},
    {"ellipsoid_cheap_test_matches_full", test_ellipsoid_cheap_test_matches_full},
    {"contact_memo_matches_plain", test_contact_memo_matches_plain},
    {"contact_balls_match_all", test_contact_balls_match_all},
    {"contact_balls_kept_match_fresh", test_contact_balls_kept_match_fresh},
    {"collider_crease", test_collider_crease},
    {"friction_once_a_step", test_friction_once_a_step},
    {"contact_candidates_exact", test_contact_candidates_exact},
    {"batch_cull_exact", test_batch_cull_exact},
    {"collider_growth_per_link", test_collider_growth_per_link},
    {"first_frame_outside_colliders", test_first_frame_outside_colliders},
    {"collider_narrow_crease", test_collider_narrow_crease},
    {"state_lag", test_state_lag},
    {"first_frame_sampled_colliders", test_first_frame_sampled_colliders},
    {"plane_and_sphere_colliders", test_plane_and_sphere_colliders},
    {"sleep_free_swing", test_sleep_free_swing},
    {"sleep_collider_wakes", test_sleep_collider_wakes},
    {"sleep_which_frames", test_sleep_which_frames},
    {"sleep_contact_swing", test_sleep_contact_swing},
    {"sphere_chain_settles", test_sphere_chain_settles},
    {"crease_breath_settles", test_crease_breath_settles},
    {"crease_chain_settles", test_crease_chain_settles},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
