/* Tests of the cloth solver (include/tailor/cloth.h) on lattices built here, in a Y-up, metre
 * world (scale 1, a human of 1.8 m):
 *
 *   sheet: a cape-like open lattice hanging straight down from a bar at 1.4 m, 0.1 m apart
 *
 *        o--o--o--o--o   row 0 (pinned to the body)
 *        |  |  |  |  |
 *        o--o--o--o--o
 *        ...
 *        o--o--o--o--o   the hem (edge particles)
 *
 *   skirt: a closed cone from a 0.17 m waist ring at 1.0 m, flaring to 0.3 m at the hem, around
 *          two leg capsules that swing like a walk.
 *
 * Each case prints what it measured; `test_cloth NAME` runs one. */
#include "test.h"

#include <tailor/cloth.h>
#include <tailor/gltf.h>
#include <tailor/colliders.h>
#include <tailor/measure.h>
#include <tailor/play.h>
#include <tailor/rig.h>
#include <tailor/scene.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mat4.h"
#include "sim/cloth_internal.h"

#define PI 3.14159265358979

enum { MAXN = 64 * 64 };

typedef struct lattice {
    int rows, columns;
    bool closed;
    float rest[3 * MAXN];
} lattice;

static void make_sheet(lattice* l, int rows, int columns) {
    l->rows = rows, l->columns = columns, l->closed = false;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c) {
            float* p = l->rest + 3 * (r * columns + c);
            p[0] = 0.1f * (float)c - 0.05f * (float)(columns - 1), p[1] = 1.4f - 0.1f * (float)r;
            p[2] = -0.15f;
        }
}

static void make_skirt(lattice* l, int rows, int columns) {
    l->rows = rows, l->columns = columns, l->closed = true;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c) {
            float t = (float)r / (float)(rows - 1), a = 2 * (float)PI * (float)c / (float)columns;
            float radius = 0.17f + 0.13f * t;
            float* p = l->rest + 3 * (r * columns + c);
            p[0] = radius * sinf(a), p[1] = 1.0f - 0.5f * t, p[2] = radius * cosf(a);
        }
}

static tl_cloth_def def_of(const lattice* l) {
    tl_cloth_def d = tl_default_cloth_def();
    d.rows = l->rows, d.columns = l->columns, d.closed = l->closed;
    d.rest_positions = l->rest;
    return d;
}

/* The body: a frame (rest-world -> world) moving as a clip, targets = the rest carried rigidly
 * by it (a body without skinning stretch), legs swinging with the walk. */
typedef enum motion { STILL, WALK, RUN, JUMP, SWAY_STOP } motion;

static tl_chain_pose body_frame(motion mo, double t) {
    tl_chain_pose p = {{0, 0, 0}, {0, 0, 0, 1}, 1};
    double speed = mo == WALK ? 1.4 : (mo == RUN ? 4.0 : 0.0);
    double f = mo == RUN ? 1.5 : 1.0;
    p.position[2] = (float)(speed * t);
    p.position[1] = (float)(0.04 * sin(4 * PI * f * t));
    if (mo == JUMP) { /* hops of 0.44 m, 1 m forward each, leaning into them */
        double ph = fmod(t, 1.2);
        p.position[1] = ph < 0.6 ? (float)(0.5 * 9.81 * ph * (0.6 - ph)) : 0;
        p.position[2] = (float)(floor(t / 1.2) + (ph < 0.6 ? ph / 0.6 : 1.0));
        double pitch = ph < 0.6 ? 0.3 * sin(PI * ph / 0.6) : 0;
        p.rotation[0] = (float)sin(pitch / 2), p.rotation[3] = (float)cos(pitch / 2);
        return p;
    }
    if (mo == SWAY_STOP && t < 1.0) p.position[0] = (float)(0.3 * sin(2 * PI * t) * (1 - t));
    double yaw = (mo == WALK || mo == RUN) ? 0.2 * sin(2 * PI * f * t) : 0;
    p.rotation[1] = (float)sin(yaw / 2), p.rotation[3] = (float)cos(yaw / 2);
    return p;
}

static v3 pose_apply(const tl_chain_pose* f, v3 x) {
    return v3_madd(v3_load(f->position), qt_rotate(qt_load(f->rotation), x), f->scale);
}

static void body_targets(const lattice* l, const tl_chain_pose* f, float* out) {
    for (int i = 0; i < l->rows * l->columns; ++i)
        v3_store(out + 3 * i, pose_apply(f, v3_load(l->rest + 3 * i)));
}

/* Two leg capsules from the hips (x = +-0.09, y = 0.95) to the ankles, swinging +-35 degrees
 * in opposite phase at the walk's step rate. */
static void body_legs(motion mo, double t, const tl_chain_pose* f, tl_collider legs[2]) {
    double f0 = mo == RUN ? 1.5 : 1.0, swing = (mo == STILL || mo == SWAY_STOP) ? 0 : 35 * PI / 180;
    for (int k = 0; k < 2; ++k) {
        double a = swing * sin(2 * PI * f0 * t + k * PI);
        v3 hip = v3_make(k ? 0.09f : -0.09f, 0.95f, 0);
        v3 ankle = v3_add(hip, v3_make(0, (float)(-0.85 * cos(a)), (float)(0.85 * sin(a))));
        legs[k].shape = TL_COLLIDER_CAPSULE;
        v3_store(legs[k].a, pose_apply(f, hip));
        v3_store(legs[k].b, pose_apply(f, ankle));
        legs[k].radius = 0.075f;
    }
}

/* The worst relative tether error (solver coordinates) over rows >= 1. */
static double tether_error(const tl_cloth* c) {
    const tl_cloth_model* m = tl_cloth_get_model(c);
    const float* x = tl_cloth_local_positions(c);
    const float* L = tl_cloth_model_tethers(m);
    int C = tl_cloth_model_columns(m), n = tl_cloth_particle_count(c);
    double worst = 0;
    for (int i = C; i < n; ++i) {
        double d = 0;
        for (int k = 0; k < 3; ++k) {
            double e = (double)x[3 * i + k] - x[3 * (i - C) + k];
            d += e * e;
        }
        double rel = fabs(sqrt(d) - L[i]) / L[i];
        if (rel > worst) worst = rel;
    }
    return worst;
}

/* The worst excess over the safe distance, relative to it (world; targets = the body's). */
static double excess_of(const tl_cloth* c, const float* x, const float* targets) {
    const float* d = tl_cloth_max_distances(c);
    int C = tl_cloth_model_columns(tl_cloth_get_model(c)), n = tl_cloth_particle_count(c);
    double worst = 0;
    for (int i = C; i < n; ++i) {
        v3 e = v3_sub(v3_load(x + 3 * i), v3_load(targets + 3 * i));
        double ex = (v3_length(e) - d[i]) / d[i];
        if (ex > worst) worst = ex;
    }
    return worst;
}

static double max_distance_excess(const tl_cloth* c, const float* targets) {
    return excess_of(c, tl_cloth_positions(c), targets);
}

/* The same in rest-world coordinates (the solver's own, as tether_error): a body run 10 m from
 * the origin leaves world floats 1e-6 m apart, 2e-5 of a 5 cm safe distance. */
static double max_distance_excess_rest(const tl_cloth* c, const float* rest_targets) {
    static float local[3 * MAXN];
    float o[3];
    tl_cloth_model_origin(tl_cloth_get_model(c), o);
    for (int i = 0; i < 3 * tl_cloth_particle_count(c); ++i)
        local[i] = rest_targets[i] - o[i % 3];
    return excess_of(c, tl_cloth_local_positions(c), local);
}

/* The deepest particle inside a collider, world units. */
static double penetration(const tl_cloth* c, const tl_collider* k, int count) {
    const float* x = tl_cloth_positions(c);
    double worst = 0;
    for (int i = 0; i < tl_cloth_particle_count(c); ++i)
        for (int j = 0; j < count; ++j) {
            v3 p = v3_load(x + 3 * i), a = v3_load(k[j].a), ab = v3_sub(v3_load(k[j].b), a);
            float t = v3_dot(v3_sub(p, a), ab) / v3_dot(ab, ab);
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            double depth = k[j].radius - v3_length(v3_sub(p, v3_madd(a, ab, t)));
            if (depth > worst) worst = depth;
        }
    return worst;
}

static void test_defaults(void) {
    tl_cloth_settings s = tl_default_cloth_settings();
    ENSURE(s.iterations == 12 && s.world_motion >= 0.1f && s.world_motion <= 0.3f);
    ENSURE(s.edge_damping < s.damping && s.edge_max_distance > 1);
    ENSURE(s.max_distance_bottom > s.max_distance_top);
    tl_cloth_def d = tl_default_cloth_def();
    ENSURE(d.up[1] == 1 && d.scale == 1 && d.fixed_step > 0 && d.max_substeps >= 1);
}

/* No two constraints of a group touch one particle; every lattice pair is in exactly one
 * group; row-0 pairs (both pinned) are in none. */
static void test_groups_independent(void) {
    static lattice l;
    static int a[4 * MAXN], b[4 * MAXN], seen[MAXN];
    static float rest[4 * MAXN];
    for (int shape = 0; shape < 4; ++shape) {
        int rows = 3 + shape * 2, cols = 5 + shape * 3;
        if (shape % 2)
            make_skirt(&l, rows, cols);
        else
            make_sheet(&l, rows, cols);
        tl_cloth_def d = def_of(&l);
        tl_cloth_model* m;
        tl_error err;
        ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
        int groups = tl_cloth_model_group_count(m), total = 0, stretch = 0;
        for (int g = 0; g < groups; ++g) {
            tl_cloth_group_view v = tl_cloth_model_group(m, g);
            tl_cloth_model_group_pairs(m, g, a, b, rest);
            memset(seen, 0, sizeof seen);
            for (int k = 0; k < v.count; ++k) {
                ENSURE_MSG(seen[a[k]] == 0 && seen[b[k]] == 0, "group %d touches a particle twice",
                           g);
                seen[a[k]] = seen[b[k]] = 1;
                ENSURE(a[k] >= cols || b[k] >= cols);
                ENSURE(rest[k] > 0);
            }
            total += v.count;
            if (v.stretch) stretch += v.count;
        }
        /* stretch: vertical C plus horizontal (R-1)(C-1), or C closed */
        int R = rows, C = cols;
        int want_stretch = (R - 1) * C + (R - 1) * (l.closed ? C : C - 1);
        int want_shear =
            2 * (R - 1) * (l.closed ? C : C - 1) + (R - 2) * C + (R - 1) * (l.closed ? C : C - 2);
        fprintf(stderr, "  %s %dx%d: %d groups, %d stretch pairs, %d shear/bend pairs\n",
                l.closed ? "skirt" : "sheet", R, C, groups, stretch, total - stretch);
        ENSURE(stretch == want_stretch && total - stretch == want_shear);
        ENSURE(groups <= 16); /* a row's runs need at most 2-4 colours per kind */
        tl_cloth_model_destroy(m);
    }
}

static void test_edges(void) {
    static lattice l;
    make_sheet(&l, 5, 6);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    const uint8_t* e = tl_cloth_model_edges(m);
    for (int i = 0; i < 30; ++i) {
        int r = i / 6, c = i % 6;
        ENSURE(e[i] == (r > 0 && (r == 4 || c == 0 || c == 5)));
    }
    tl_cloth_model_destroy(m);
    make_skirt(&l, 5, 6);
    d = def_of(&l);
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    e = tl_cloth_model_edges(m);
    for (int i = 0; i < 30; ++i)
        ENSURE(e[i] == (i / 6 == 4));
    tl_cloth_model_destroy(m);
}

static void test_invalid_def(void) {
    static lattice l;
    make_sheet(&l, 4, 4);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m = (tl_cloth_model*)&l;
    tl_error err;
    l.rest[3 * 9 + 1] = NAN;
    ENSURE(tl_cloth_model_create(&d, NULL, &m, &err) == TL_ERROR_INVALID && m == NULL);
    ENSURE(strstr(err.message, "particle 9 (row 2, column 1)") != NULL);
    make_sheet(&l, 4, 4);
    memcpy(l.rest + 3 * 6, l.rest + 3 * 2, 3 * sizeof(float));
    ENSURE(tl_cloth_model_create(&d, NULL, &m, &err) == TL_ERROR_INVALID);
    ENSURE(strstr(err.message, "zero-length") != NULL);
    d.rows = 1;
    ENSURE(tl_cloth_model_create(&d, NULL, &m, &err) == TL_ERROR_LIMIT);
    d.rows = 4, d.columns = 2, d.closed = true;
    ENSURE(tl_cloth_model_create(&d, NULL, &m, &err) == TL_ERROR_INVALID);
}

typedef struct run_result {
    double tether, excess, depth, hem_speed_peak, hem_speed_end, hem_swing;
    uint64_t contacts; /* particle-steps touching a collider */
    tl_cloth_stats stats;
} run_result;

/* Runs a lattice on a motion for `seconds` at `fps`, checking after every frame. */
static run_result run_motion(const lattice* l, motion mo, double seconds, double fps,
                             const tl_cloth_settings* s, bool legs) {
    static float targets[3 * MAXN];
    run_result res = {0};
    tl_cloth_def d = def_of(l);
    if (s) d.settings = *s;
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    if (tl_cloth_model_create(&d, NULL, &m, &err) != TL_OK ||
        tl_cloth_create(m, NULL, &c, &err) != TL_OK) {
        res.tether = 1e9;
        return res;
    }
    int n = l->rows * l->columns, frames = (int)(seconds * fps + 0.5);
    tl_cloth_input in = tl_default_cloth_input();
    tl_collider k[2];
    float prev_hem[3 * 64];
    for (int f = 0; f <= frames; ++f) {
        double t = f / fps;
        in.frame = body_frame(mo, t);
        body_targets(l, &in.frame, targets);
        in.targets = targets;
        if (legs) {
            body_legs(mo, t, &in.frame, k);
            in.colliders = k, in.collider_count = 2;
        }
        tl_cloth_step(c, &in, f ? (float)(1.0 / fps) : 0.0f);
        res.contacts += tl_cloth_get_stats(c).contacts;
        /* the targets are the rest carried rigidly by the frame: in rest-world, the rest */
        double te = tether_error(c), ex = max_distance_excess_rest(c, l->rest);
        double dep = legs ? penetration(c, k, 2) : 0;
        res.tether = te > res.tether ? te : res.tether;
        res.excess = ex > res.excess ? ex : res.excess;
        res.depth = dep > res.depth ? dep : res.depth;
        /* the hem's speed in the body frame (what the eye sees move against the body) */
        const float* x = tl_cloth_positions(c);
        double speed = 0, swing = 0;
        for (int j = 0; j < l->columns; ++j) {
            int i = n - l->columns + j;
            v3 rel = v3_sub(v3_load(x + 3 * i), v3_load(targets + 3 * i));
            if (f) speed += v3_length(v3_sub(rel, v3_load(prev_hem + 3 * j))) * fps / l->columns;
            swing += v3_length(rel) / l->columns;
            v3_store(prev_hem + 3 * j, rel);
        }
        if (speed > res.hem_speed_peak) res.hem_speed_peak = speed;
        if (swing > res.hem_swing) res.hem_swing = swing;
        res.hem_speed_end = speed;
    }
    res.stats = tl_cloth_get_stats(c);
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
    return res;
}

/* A sheet swung sideways for 1 s, then still: it moves, then comes to rest within 2 s. */
static void test_hanging_sheet_comes_to_rest(void) {
    static lattice l;
    make_sheet(&l, 8, 9);
    run_result moving = run_motion(&l, SWAY_STOP, 1.0, 60, NULL, false);
    run_result r = run_motion(&l, SWAY_STOP, 3.0, 60, NULL, false);
    fprintf(stderr,
            "  hem speed against the body: peak %.3f m/s in the sway, %.5f m/s 2 s after it "
            "stopped; swing %.3f m\n",
            moving.hem_speed_peak, r.hem_speed_end, r.hem_swing);
    ENSURE(moving.hem_speed_peak > 0.1 && r.hem_swing > 0.02);
    ENSURE(r.hem_speed_end < 0.01 * moving.hem_speed_peak);
}

/* A narrow cape as scripts/garments.py makes one and `tailor rig` lattices it (9 x 3, 0.65 m
 * from the shoulders, 0.36 m wide widening 40%, curved around the back), stepped as the player
 * steps it (1/120 s, the damping kept per second), through the stress harness's hip shake
 * (measure.md "Stress": 0.25 m sideways and +-45 degrees of yaw at 1.5 Hz for 4 s), then the
 * body holds still: every particle must be under 1 cm/s against the body within 2 s. Without the
 * tether pass's reaction on the particle above (docs/cloth.md "Coming to rest after a shake") it
 * moved until 2.37 s after the shake, peaking at 3.65 m/s in it (1.74 m/s with it). */
static void test_shaken_cape_comes_to_rest(void) {
    static lattice l;
    l.rows = 9, l.columns = 3, l.closed = false;
    const double span = 0.36, length = 0.65;
    for (int r = 0; r < l.rows; ++r)
        for (int k = 0; k < l.columns; ++k) {
            double t = (double)r / (l.rows - 1),
                   a = (2.0 * k / (l.columns - 1) - 1) * 70 * PI / 180;
            double half = 0.5 * span * (1 + 0.4 * t), back = 0.45 * span;
            float* p = l.rest + 3 * (r * l.columns + k);
            p[0] = (float)(half * sin(a)), p[1] = (float)(1.4 - length * t);
            p[2] = (float)(-back * (0.6 + 0.4 * cos(a)) - 0.1 * span * t);
        }
    tl_cloth_def d = def_of(&l);
    d.fixed_step = 1.0f / 120.0f, d.max_substeps *= 2; /* as play_cloths_create */
    d.settings.damping = 1.0f - sqrtf(1.0f - d.settings.damping);
    d.settings.edge_damping = 1.0f - sqrtf(1.0f - d.settings.edge_damping);
    d.settings.contact_damping = 1.0f - sqrtf(1.0f - d.settings.contact_damping);
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    static float targets[3 * MAXN], last[3 * MAXN];
    const double fps = 60, shake = 4, hold = 4;
    int n = l.rows * l.columns, frames = (int)((shake + hold) * fps);
    double peak = 0, moving_until = 0, end_speed = 0;
    tl_cloth_input in = tl_default_cloth_input();
    for (int f = 0; f <= frames; ++f) {
        double t = f / fps, s = t < shake ? sin(3 * PI * t) : 0, yaw = 0.25 * PI * s;
        in.frame = (tl_chain_pose){
            {(float)(0.25 * s), 0, 0}, {0, (float)sin(yaw / 2), 0, (float)cos(yaw / 2)}, 1};
        body_targets(&l, &in.frame, targets);
        in.targets = targets;
        tl_cloth_step(c, &in, f ? (float)(1.0 / fps) : 0.0f);
        const float* x = tl_cloth_local_positions(c); /* in the body's frame */
        double speed = 0;
        for (int i = l.columns; f && i < n; ++i)
            speed = fmax(speed, v3_length(v3_sub(v3_load(x + 3 * i), v3_load(last + 3 * i))) * fps);
        memcpy(last, x, sizeof(float) * 3 * (size_t)n);
        if (t <= shake)
            peak = fmax(peak, speed);
        else if (speed >= 0.01)
            moving_until = t - shake;
        end_speed = speed;
    }
    fprintf(stderr,
            "  shaken cape: peak %.2f m/s in the shake; moving (>= 1 cm/s) until %.2f s after it, "
            "%.2g m/s at the end of the %.0f s hold\n",
            peak, moving_until, end_speed, hold);
    ENSURE(peak > 0.5);
    ENSURE_MSG(moving_until <= 2.0, "still moving %.2f s after the shake", moving_until);
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

/* Walk, run and jump (and a 30 fps walk): the tethers at rest length after every frame, no
 * max-distance violation. */
static void test_tether_and_max_distance(void) {
    static lattice l;
    const motion mos[] = {WALK, RUN, JUMP};
    const char* names[] = {"walk", "run", "jump"};
    for (int shape = 0; shape < 2; ++shape) {
        if (shape)
            make_skirt(&l, 7, 16);
        else
            make_sheet(&l, 8, 9);
        for (int k = 0; k < 3; ++k)
            for (int fr = 0; fr < 2; ++fr) {
                double fps = fr ? 30 : 60;
                run_result r = run_motion(&l, mos[k], 3.0, fps, NULL, false);
                fprintf(stderr,
                        "  %s %s %2.0f fps: tether error %.2e, max distance excess %.2e, hem "
                        "swing %.3f m, %u clamps\n",
                        shape ? "skirt" : "sheet", names[k], fps, r.tether, r.excess, r.hem_swing,
                        r.stats.max_distance_clamps);
                ENSURE(r.tether <= 1e-6);
                ENSURE(r.excess <= 1e-5);
                ENSURE(r.hem_swing > 0.005);
            }
    }
}

/* A skirt around two swinging legs: particles stay outside the capsules. */
static void test_collider_penetration(void) {
    static lattice l;
    make_skirt(&l, 7, 16);
    const motion mos[] = {WALK, RUN, JUMP};
    const char* names[] = {"walk", "run", "jump"};
    for (int k = 0; k < 3; ++k) {
        run_result with = run_motion(&l, mos[k], 3.0, 60, NULL, true);
        fprintf(stderr,
                "  skirt %s: deepest particle %.2e m inside a leg, tether error %.2e, max "
                "distance excess %.2e, %llu particle-frames in contact\n",
                names[k], with.depth, with.tether, with.excess, (unsigned long long)with.contacts);
        ENSURE(with.contacts > 50);
        ENSURE(with.depth <= 1e-4);
        ENSURE(with.tether <= 1e-6);
    }
}

/* The deepest point of a hanging sheet's links from column c0 to c1 - 1 (each to its right
 * neighbour), rows below the pinned one, inside a vertical post (15 points along each link);
 * 0 when none is inside. */
static double link_depth(const float* x, const lattice* l, int c0, int c1,
                         const tl_collider* post) {
    double deepest = 0;
    for (int r = 1; r < l->rows; ++r)
        for (int c = c0; c < c1; ++c)
            for (int s = 1; s < 16; ++s) {
                v3 a = v3_load(x + 3 * (r * l->columns + c)),
                   b = v3_load(x + 3 * (r * l->columns + c + 1));
                v3 p = v3_madd(a, v3_sub(b, a), (float)s / 16);
                deepest = fmax(deepest, post->radius - hypot(p.x - post->a[0], p.z - post->a[2]));
            }
    return deepest;
}

/* The links between particles out of a collider (issue #13: the skin lies on them): a post
 * bulging between two columns of a hanging sheet (its axis 6 cm in front of the sheet, between
 * them), every particle outside it and the link between them 6 mm into it. Before
 * cloth_push_segments the sheet hung there at rest, the link inside. */
static void test_links_out_of_colliders(void) {
    static lattice l;
    make_sheet(&l, 4, 3); /* columns at x = -0.1, 0, 0.1; z = -0.15 */
    tl_cloth_def def = def_of(&l);
    tl_cloth_model* model;
    tl_cloth* cloth;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&def, NULL, &model, &err), err);
    ENSURE_OK(tl_cloth_create(model, NULL, &cloth, &err), err);
    tl_collider post = {.shape = TL_COLLIDER_CAPSULE,
                        .a = {0.05f, 1.35f, -0.09f},
                        .b = {0.05f, 1.0f, -0.09f},
                        .radius = 0.066f};
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = l.rest;
    in.colliders = &post, in.collider_count = 1;
    double deepest = 0, particle = 0;
    for (int f = 0; f <= 120; ++f) {
        tl_cloth_step(cloth, &in, f ? 1.0f / 60.0f : 0.0f);
        if (f < 60) continue; /* its last second */
        const float* x = tl_cloth_positions(cloth);
        particle = fmax(particle, penetration(cloth, &post, 1));
        deepest = fmax(deepest, link_depth(x, &l, 0, l.columns - 1, &post));
    }
    double tether = tether_error(cloth);
    fprintf(stderr, "  deepest link point %.2e m inside the post (particles %.2e), tether %.2e\n",
            deepest, particle, tether);
    ENSURE(particle <= 1e-6);
    ENSURE(deepest <= 1e-4); /* it was 0.006 m */
    ENSURE(tether <= 1e-6);
    tl_cloth_destroy(cloth);
    tl_cloth_model_destroy(model);
}

/* A thin post moved into a hanging sheet between two of its columns (issue #13: a thigh swung
 * into a cape's hem between two particles). Every particle stays clear of it, and the link
 * between them meets it with its ends more than a right angle apart round its axis: no side of
 * its own to leave by. Before the link was pushed to the side it came from, the post cut
 * through it: 0.029 m deep (its axis 1 cm behind the sheet when it stops). */
static void test_links_across_collider(void) {
    static lattice l;
    make_sheet(&l, 4, 3); /* columns at x = -0.1, 0, 0.1; z = -0.15 */
    tl_cloth_def def = def_of(&l);
    tl_cloth_model* model;
    tl_cloth* cloth;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&def, NULL, &model, &err), err);
    ENSURE_OK(tl_cloth_create(model, NULL, &cloth, &err), err);
    tl_collider post = {.shape = TL_COLLIDER_CAPSULE, .radius = 0.03f};
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = l.rest;
    in.colliders = &post, in.collider_count = 1;
    double deepest = 0, particle = 0;
    for (int f = 0; f <= 120; ++f) {
        float z = -0.25f + 0.11f * fminf((float)f / 30.0f, 1.0f); /* to z = -0.14 in 0.5 s */
        post.a[0] = post.b[0] = 0.05f, post.a[1] = 1.35f, post.b[1] = 1.0f;
        post.a[2] = post.b[2] = z;
        tl_cloth_step(cloth, &in, f ? 1.0f / 60.0f : 0.0f);
        const float* x = tl_cloth_positions(cloth);
        particle = fmax(particle, penetration(cloth, &post, 1));
        deepest = fmax(deepest, link_depth(x, &l, 1, 2, &post)); /* column 1 to 2 */
    }
    double tether = tether_error(cloth);
    fprintf(stderr, "  deepest link point %.2e m inside the post (particles %.2e), tether %.2e\n",
            deepest, particle, tether);
    ENSURE(particle <= 1e-6);
    ENSURE(deepest <= 1e-4); /* it was 0.029 m */
    ENSURE(tether <= 1e-6);
    tl_cloth_destroy(cloth);
    tl_cloth_model_destroy(model);
}

/* A sheet started (its first frame, no time) with a thin post standing between two of its
 * columns, 1 cm behind it: the start puts the particles on their targets and out of the
 * colliders, and now the links out as every step does. Placed by the particles alone, the link
 * between columns 1 and 2 started 0.020 m inside the post until the first step. */
static void test_links_out_at_start(void) {
    static lattice l;
    make_sheet(&l, 4, 3); /* columns at x = -0.1, 0, 0.1; z = -0.15 */
    tl_cloth_def def = def_of(&l);
    tl_cloth_model* model;
    tl_cloth* cloth;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&def, NULL, &model, &err), err);
    ENSURE_OK(tl_cloth_create(model, NULL, &cloth, &err), err);
    tl_collider post = {.shape = TL_COLLIDER_CAPSULE,
                        .a = {0.05f, 1.35f, -0.14f},
                        .b = {0.05f, 1.0f, -0.14f},
                        .radius = 0.03f};
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = l.rest;
    in.colliders = &post, in.collider_count = 1;
    tl_cloth_step(cloth, &in, 0.0f);
    const float* x = tl_cloth_positions(cloth);
    double deepest = link_depth(x, &l, 1, 2, &post);
    double particle = penetration(cloth, &post, 1), tether = tether_error(cloth);
    fprintf(stderr, "  at the start: deepest link point %.2e m (particles %.2e), tether %.2e\n",
            deepest, particle, tether);
    ENSURE(particle <= 1e-6);
    ENSURE(deepest <= 1e-4); /* it was 0.020 m */
    ENSURE(tether <= 1e-6);
    tl_cloth_destroy(cloth);
    tl_cloth_model_destroy(model);
}

/* Steps def's cloth for a second against a still ball, from its rest targets: *depth, how deep
 * the middle of the cell with the four corner particles ends in the ball; *particle, the
 * deepest particle. */
static void cell_in_ball(const tl_cloth_def* def, const float* targets, tl_collider ball,
                         const int corner[4], double* depth, double* particle) {
    tl_cloth_model* model;
    tl_cloth* cloth;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(def, NULL, &model, &err), err);
    ENSURE_OK(tl_cloth_create(model, NULL, &cloth, &err), err);
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = targets;
    in.colliders = &ball, in.collider_count = 1;
    for (int f = 0; f <= 60; ++f)
        tl_cloth_step(cloth, &in, f ? 1.0f / 60.0f : 0.0f);
    const float* x = tl_cloth_positions(cloth);
    v3 p = v3_make(0, 0, 0);
    for (int k = 0; k < 4; ++k)
        p = v3_madd(p, v3_load(x + 3 * corner[k]), 0.25f);
    *depth = ball.radius - v3_length(v3_sub(p, v3_load(ball.a)));
    *particle = -1;
    for (int i = 0; i < tl_cloth_particle_count(cloth); ++i)
        *particle =
            fmax(*particle, ball.radius - v3_length(v3_sub(v3_load(x + 3 * i), v3_load(ball.a))));
    ENSURE(tether_error(cloth) <= 1e-6);
    tl_cloth_destroy(cloth);
    tl_cloth_model_destroy(model);
}

/* The centre of cell (row 1, column 0) of a hanging sheet after a second with a ball poking
 * into it from in front, 2 cm off the sheet: its four particles and four links stay clear of
 * the ball, the cell's middle is 0.015 m inside. With the point as a skin point the cell is
 * pushed off it; `points` 0: not. *depth: how deep the middle is inside the ball; *particle: the
 * deepest particle. */
static void cell_middle_depth(int points, double* depth, double* particle) {
    static lattice l;
    make_sheet(&l, 4, 3); /* columns at x = -0.1, 0, 0.1; rows 0.1 apart from y = 1.4 */
    tl_cloth_skin_point middle = {.cell = 3, .u = 0.5f, .v = 0.5f};
    tl_cloth_def def = def_of(&l);
    def.skin_points = &middle, def.skin_point_count = points;
    tl_collider ball = {
        .shape = TL_COLLIDER_SPHERE, .a = {-0.05f, 1.25f, -0.13f}, .radius = 0.035f};
    const int corner[4] = {3, 4, 6, 7};
    cell_in_ball(&def, l.rest, ball, corner, depth, particle);
}

/* Skin points (tl_cloth_def.skin_points): the skin lies on the cells, where no link is (issue
 * #13: a thigh ellipsoid 3.5 cm thick came into one of CesiumMan's cape's 10 x 8 cm cells). */
static void test_skin_points_out(void) {
    double without, with, p0, p1;
    cell_middle_depth(0, &without, &p0);
    cell_middle_depth(1, &with, &p1);
    fprintf(stderr,
            "  the cell's middle in the ball: %.2e m without the skin point, %.2e with (deepest "
            "particle %.2e, %.2e)\n",
            without, with, p0, p1);
    ENSURE(without > 0.01); /* the ball does come into the cell between its particles */
    static lattice l; /* a point off the lattice, or with no slack, is the caller's data: refused */
    make_sheet(&l, 4, 3);
    tl_cloth_skin_point bad[3] = {{.cell = 2}, {.cell = 9}, {.cell = 0, .u = 0.5f, .slack = -1}};
    for (int k = 0; k < 3; ++k) {
        tl_cloth_def def = def_of(&l);
        def.skin_points = &bad[k], def.skin_point_count = 1;
        tl_cloth_model* model = NULL;
        tl_error err;
        ENSURE(tl_cloth_model_create(&def, NULL, &model, &err) == TL_ERROR_INVALID && !model);
    }
    ENSURE(p0 < 0 && p1 < 0);
    ENSURE(with <= 1e-4);
}

/* The same on a closed ring (a skirt): a leg-like ball inside the ring, in the cell across its
 * seam (the last column's, whose right neighbour is column 0), every particle and link outside
 * it. *depth: how deep the cell's middle ends in the ball; *particle: the deepest particle. */
static void ring_cell_depth(int points, double* depth, double* particle) {
    static lattice l;
    make_skirt(&l, 4, 8); /* rows 1 and 2 at radii 0.213 / 0.257 m, columns 45 degrees apart */
    tl_cloth_skin_point middle = {.cell = 15, .u = 0.5f, .v = 0.5f}; /* row 1, columns 7 -> 0 */
    tl_cloth_def def = def_of(&l);
    def.settings.gravity = 0; /* the ring stays where it was made: the ball is placed against it */
    def.skin_points = &middle, def.skin_point_count = points;
    float a = -0.125f * (float)PI; /* the seam cell's middle angle */
    tl_collider ball = {.shape = TL_COLLIDER_SPHERE,
                        .a = {0.19f * sinf(a), 0.75f, 0.19f * cosf(a)},
                        .radius = 0.05f};
    const int corner[4] = {15, 8, 23, 16};
    cell_in_ball(&def, l.rest, ball, corner, depth, particle);
}

/* Skin points on a closed ring too (session 14): until then a skirt pushed none, and the
 * generated skirts' skin went 0.024 / 0.035 H into the thighs between particle columns. */
static void test_skin_points_ring(void) {
    double without, with, p0, p1;
    ring_cell_depth(0, &without, &p0);
    ring_cell_depth(1, &with, &p1);
    fprintf(stderr,
            "  the ring's seam cell's middle in the ball: %.2e m without the skin point, %.2e with "
            "(deepest particle %.2e, %.2e)\n",
            without, with, p0, p1);
    ENSURE(without > 0.01); /* the ball does come into the cell between its particles */
    ENSURE(p0 < 0 && p1 < 0);
    ENSURE(with <= 1e-4);
}

/* The deepest any particle of a sheet the wind presses onto ellipsoid `e` goes inside it (as a
 * share of its radius), with it as a collider or without (`collide` false); *touched: the
 * particle-steps in contact. */
static void ellipsoid_sheet_depth(tl_cloth_ellipsoid e, bool collide, double* depth,
                                  uint32_t* touched, double* tether) {
    static lattice l;
    static float targets[3 * MAXN];
    make_sheet(&l, 8, 9);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    tl_cloth_input in = tl_default_cloth_input();
    body_targets(&l, &in.frame, targets);
    in.targets = targets;
    if (collide) in.ellipsoids = &e, in.ellipsoid_count = 1;
    double worst = 0;
    *touched = 0;
    for (int f = 0; f < 180; ++f) {
        in.force[2] = f < 90 ? -12.0f : 0.0f; /* wind pushes the sheet onto the ellipsoid */
        tl_cloth_step(c, &in, 1.0f / 60.0f);
        *touched += tl_cloth_get_stats(c).contacts;
        const float* x = tl_cloth_positions(c);
        for (int i = 0; i < tl_cloth_particle_count(c); ++i) {
            v3 u = qt_unrotate(qt_load(e.rotation), v3_sub(v3_load(x + 3 * i), v3_load(e.centre)));
            u = v3_make(u.x / e.radii[0], u.y / e.radii[1], u.z / e.radii[2]);
            double r = v3_length(u);
            if (1 - r > worst) worst = 1 - r;
        }
    }
    *depth = worst;
    *tether = tether_error(c);
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

/* Ellipsoids in unit-sphere space: a sheet dropped onto one stays out of it. Since the links'
 * push runs inside the relaxation the sheet rests on its links and no particle reaches the
 * ellipsoid (0 particle-steps in contact; 1616 before), so the guard that the test presses the
 * sheet onto it is the same sheet without the collider, which goes deep inside. */
static void test_ellipsoid_collider(void) {
    tl_cloth_ellipsoid e = {{0.0f, 1.0f, -0.32f}, {0, 0, 0, 1}, {0.35f, 0.3f, 0.12f}};
    float q = (float)sin(0.3), w = (float)cos(0.3);
    e.rotation[2] = q, e.rotation[3] = w;
    uint32_t touched, free_touched;
    double worst, tether, free_depth, free_tether;
    ellipsoid_sheet_depth(e, true, &worst, &touched, &tether);
    ellipsoid_sheet_depth(e, false, &free_depth, &free_touched, &free_tether);
    fprintf(stderr,
            "  deepest inside the ellipsoid: %.2e of its radius, %u particle-steps in contact; "
            "without it as a collider %.2e\n",
            worst, touched, free_depth);
    ENSURE(free_depth > 0.1);
    ENSURE(worst <= 1e-3);
    ENSURE(tether <= 1e-6);
}

/* The share of world motion: 0 leaves the cloth still in the character frame under a sideways
 * acceleration; more share lags it more. */
static void test_world_motion_share(void) {
    static lattice l;
    static float targets[3 * MAXN];
    make_sheet(&l, 6, 5);
    double lag[3];
    const float shares[] = {0.0f, 0.2f, 1.0f};
    for (int k = 0; k < 3; ++k) {
        tl_cloth_def d = def_of(&l);
        d.settings.world_motion = d.settings.edge_world_motion = shares[k];
        tl_cloth_model* m;
        tl_cloth* c;
        tl_error err;
        ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
        ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
        tl_cloth_input in = tl_default_cloth_input();
        in.targets = targets;
        lag[k] = 0;
        for (int f = 0; f < 30; ++f) {
            double t = f / 60.0;
            in.frame.position[0] = (float)(2.0 * t * t); /* 4 m/s^2 sideways */
            body_targets(&l, &in.frame, targets);
            tl_cloth_step(c, &in, f ? 1.0f / 60.0f : 0.0f);
        }
        const float* x = tl_cloth_positions(c);
        int hem = 6 * 5 - 3;
        lag[k] = targets[3 * hem] - x[3 * hem];
        tl_cloth_destroy(c);
        tl_cloth_model_destroy(m);
    }
    fprintf(stderr,
            "  hem lag behind the body at 4 m/s^2: %.5f m (share 0), %.5f (0.2), %.5f (1)\n",
            lag[0], lag[1], lag[2]);
    ENSURE(fabs(lag[0]) < 1e-5);
    ENSURE(lag[1] > 0.002 && lag[2] > 2 * lag[1]);
}

/* Wind blows the hem downwind; stronger on edges. */
static void test_external_force(void) {
    static lattice l;
    static float targets[3 * MAXN];
    make_sheet(&l, 6, 5);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    tl_cloth_input in = tl_default_cloth_input();
    body_targets(&l, &in.frame, targets);
    in.targets = targets;
    in.force[2] = 5.0f;
    for (int f = 0; f < 240; ++f)
        tl_cloth_step(c, &in, 1.0f / 60.0f);
    const float* x = tl_cloth_positions(c);
    double hem = x[3 * 27 + 2] - targets[3 * 27 + 2];
    fprintf(stderr, "  hem blown %.3f m downwind by 5 m/s^2\n", hem);
    ENSURE(hem > 0.05);
    ENSURE(tether_error(c) <= 1e-6);
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

/* A cut carries every particle by its target's jump: the offsets from the targets are kept. */
static void test_cut_carries(void) {
    static lattice l;
    static float targets[3 * MAXN], before[3 * MAXN];
    make_skirt(&l, 5, 12);
    tl_cloth_def d = def_of(&l);
    d.settings.iterations = 0; /* the carry alone, no relaxation after it */
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = targets;
    for (int f = 0; f < 40; ++f) {
        in.frame = body_frame(WALK, f / 60.0);
        body_targets(&l, &in.frame, targets);
        tl_cloth_step(c, &in, f ? 1.0f / 60.0f : 0.0f);
    }
    int n = 60;
    const float* x = tl_cloth_positions(c);
    for (int i = 0; i < 3 * n; ++i)
        before[i] = x[i] - targets[i];
    /* 5 m away and turned: a respawn, flagged and not */
    for (int pass = 0; pass < 2; ++pass) {
        in.frame.position[0] += 5.0f;
        body_targets(&l, &in.frame, targets);
        in.cut = pass == 0;
        tl_cloth_step(c, &in, 0.0f);
        x = tl_cloth_positions(c);
        double worst = 0;
        for (int i = 0; i < 3 * n; ++i)
            worst = fmax(worst, fabs((x[i] - targets[i]) - before[i]));
        tl_cloth_stats s = tl_cloth_get_stats(c);
        fprintf(stderr, "  after a 5 m jump (%s): offsets from the targets moved %.2e m\n",
                pass ? "a teleport" : "a cut", worst);
        ENSURE(worst < 1e-5);
        ENSURE(s.cuts == (uint32_t)(pass + 1) && s.teleports == (uint32_t)pass);
    }
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

/* A 0.5 s frame (a hitch) on a walking skirt with swinging legs: the peak particle speed
 * relative to the body in the second after it is at most 1.5x the peak in the second before
 * (measure.md "Stress"), at four phases of the stride; no particle ends inside a leg. */
static void test_hitch_carries(void) {
    static lattice l;
    static float targets[3 * MAXN], last[3 * MAXN];
    make_skirt(&l, 7, 16);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    int n = l.rows * l.columns;
    double worst = 0, deepest = 0;
    for (int phase = 0; phase < 4; ++phase) {
        tl_cloth_clear(c);
        tl_cloth_input in = tl_default_cloth_input();
        tl_collider legs[2];
        double t = 0, before = 0, after = 0;
        int hitch = 120 + 15 * phase; /* 2 s of walk, then a quarter stride later per phase */
        for (int f = 0; f <= hitch + 60; ++f) {
            double dt = f == 0 ? 0 : (f == hitch ? 0.5 : 1.0 / 60.0);
            t += dt;
            in.frame = body_frame(WALK, t);
            body_targets(&l, &in.frame, targets);
            body_legs(WALK, t, &in.frame, legs);
            in.targets = targets, in.colliders = legs, in.collider_count = 2;
            tl_cloth_step(c, &in, (float)dt);
            const float* x = tl_cloth_local_positions(c); /* rest-world: the body's frame */
            double peak = 0;
            for (int i = l.columns; f > 0 && i < n; ++i)
                peak =
                    fmax(peak, v3_length(v3_sub(v3_load(x + 3 * i), v3_load(last + 3 * i))) / dt);
            memcpy(last, x, sizeof(float) * 3 * (size_t)n);
            if (f >= hitch - 60 && f < hitch) before = fmax(before, peak);
            if (f >= hitch) after = fmax(after, peak);
            if (f >= hitch) deepest = fmax(deepest, penetration(c, legs, 2));
        }
        fprintf(stderr, "  phase %d: peak speed before %.3f m/s, after %.3f m/s (%.3fx)\n", phase,
                before, after, after / before);
        ENSURE(before > 0.1);
        worst = fmax(worst, after / before);
    }
    fprintf(stderr, "  worst %.3fx, deepest after the hitch %.2e m\n", worst, deepest);
    ENSURE(tl_cloth_get_stats(c).clamped_frames >= 1);
    ENSURE_MSG(worst <= 1.5, "hitch %.3fx", worst);
    ENSURE(deepest <= 1e-4);
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

static void test_nonfinite_input(void) {
    static lattice l;
    static float targets[3 * MAXN];
    make_sheet(&l, 4, 4);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    tl_cloth_input in = tl_default_cloth_input();
    body_targets(&l, &in.frame, targets);
    in.targets = targets;
    tl_cloth_step(c, &in, 1.0f / 60.0f);
    targets[5] = NAN;
    tl_cloth_step(c, &in, 1.0f / 60.0f);
    targets[5] = l.rest[5];
    in.frame.rotation[3] = 0;
    tl_cloth_step(c, &in, 1.0f / 60.0f);
    in.frame.rotation[3] = 1;
    tl_cloth_step(c, &in, INFINITY);
    tl_cloth_step(c, &in, 1.0f / 60.0f);
    tl_cloth_stats s = tl_cloth_get_stats(c);
    const float* x = tl_cloth_positions(c);
    for (int i = 0; i < 48; ++i)
        ENSURE(isfinite(x[i]));
    ENSURE(s.nonfinite_inputs == 3 && s.nonfinite_states == 0);
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

/* No allocation after create, through every path: colliders, contact, cuts, teleports, a
 * hitch, non-finite input, settings changed at run time; two cloths share one model. */
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
    static lattice l;
    static float targets[3 * MAXN];
    make_skirt(&l, 7, 16);
    counting counts = {0, 0};
    tl_allocator a = {count_alloc, count_free, &counts};
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_cloth *c0, *c1;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, &a, &m, &err), err);
    size_t model_allocs = counts.allocs;
    ENSURE_OK(tl_cloth_create(m, &a, &c0, &err), err);
    ENSURE_OK(tl_cloth_create(m, &a, &c1, &err), err);
    size_t after_create = counts.allocs, frees_after_create = counts.frees;
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = targets;
    tl_collider legs[2];
    tl_cloth_ellipsoid e = {{0, 0.7f, 0}, {0, 0, 0, 1}, {0.12f, 0.3f, 0.12f}};
    for (int f = 0; f < 600; ++f) {
        double t = f / 60.0;
        in.frame = body_frame(f < 300 ? RUN : JUMP, t);
        if (f == 200) in.frame.position[0] += 3.0f; /* a teleport */
        body_targets(&l, &in.frame, targets);
        body_legs(RUN, t, &in.frame, legs);
        in.colliders = legs, in.collider_count = 2;
        in.ellipsoids = &e, in.ellipsoid_count = 1;
        in.cut = f == 400;
        float dt = f == 100 ? 0.5f : 1.0f / 60.0f; /* a hitch */
        if (f == 150) targets[7] = NAN;
        if (f == 350) {
            tl_cloth_settings s = tl_default_cloth_settings();
            s.iterations = 4, s.world_motion = 0.1f;
            tl_cloth_set_settings(c1, &s);
        }
        tl_cloth_step(c0, &in, dt);
        tl_cloth_step(c1, &in, dt);
    }
    tl_cloth_stats s = tl_cloth_get_stats(c0);
    fprintf(stderr,
            "  %zu allocation(s) for the model, %zu for two cloths; after 600 frames: %zu "
            "(cuts %u, teleports %u, clamped %u, non-finite %u)\n",
            model_allocs, after_create - model_allocs, counts.allocs, s.cuts, s.teleports,
            s.clamped_frames, s.nonfinite_inputs);
    ENSURE(counts.allocs == after_create && counts.frees == frees_after_create);
    ENSURE(s.teleports >= 1 && s.cuts >= 2 && s.clamped_frames >= 1 && s.nonfinite_inputs == 1);
    tl_cloth_destroy(c0);
    tl_cloth_destroy(c1);
    tl_cloth_model_destroy(m);
    ENSURE(counts.frees == counts.allocs);
}

/* The vector kernels and the scalar one relax the same lattice to the same shape (within the
 * hardware 1/sqrt estimate's error). */
static void test_kernels_agree(void) {
    static lattice l;
    static float x[4][3 * MAXN];
    make_skirt(&l, 20, 37);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    int n = 20 * 37;
    for (int level = 0; level < 4; ++level) {
        cloth_set_simd_level(level);
        float *px = x[level], *py = px + n, *pz = py + n;
        for (int i = 0; i < n; ++i) { /* a crumpled start */
            px[i] = l.rest[3 * i] + 0.02f * sinf(1.7f * (float)i);
            py[i] = l.rest[3 * i + 1] + 0.02f * cosf(2.3f * (float)i);
            pz[i] = l.rest[3 * i + 2] + 0.02f * sinf(0.9f * (float)i + 1);
        }
        cloth_relax(m, px, py, pz, 1.0f, 0.3f, 8);
    }
    int best = cloth_simd_level();
    cloth_set_simd_level(-1);
    double worst = 0;
    for (int level = 1; level <= best; ++level)
        for (int i = 0; i < 3 * n; ++i)
            worst = fmax(worst, fabs((double)x[level][i] - x[0][i]));
    fprintf(stderr, "  best level %d; largest difference from scalar %.2e m\n", best, worst);
    ENSURE(worst < 1e-5);
    tl_cloth_model_destroy(m);
}

/* The targets' map, the outputs, the final pass's tethers and the Verlet step give the same bits at
 * every kernel level: the targets of a turned, scaled frame 14 m away; a crumpled 20 x 37 skirt
 * (rows of 37: vectors and a scalar tail) whose references are pushed up to a tether's length away
 * and whose safe distances run from a fifth of a tether to two, so every branch of the tether
 * point is taken (free, on the cap's edge, on its axis); the Verlet step with a turning
 * world-motion map and every other particle in contact. */
static void test_pass_kernels_identical(void) {
    static lattice l;
    make_skirt(&l, 20, 37);
    tl_cloth_def d = def_of(&l);
    tl_cloth_model* m;
    tl_cloth* c;
    tl_error err;
    ENSURE_OK(tl_cloth_model_create(&d, NULL, &m, &err), err);
    ENSURE_OK(tl_cloth_create(m, NULL, &c, &err), err);
    int n = 20 * 37, C = 37;
    static float out[4][6 * MAXN];
    static uint32_t clamps[4];
    const float* tether = tl_cloth_model_tethers(m);
    float map[12] = {0.98f, 0.19f,  0.01f, -0.19f, 0.98f,   0.02f,
                     0.0f,  -0.02f, 1.0f,  0.01f,  -0.003f, 0.02f};
    static float targets[3 * MAXN], mapped[4][3 * MAXN], outputs[4][6 * MAXN];
    tl_chain_pose frame = {{12.5f, 0.3f, -7.25f}, {0.1f, 0.7f, -0.2f, 0.68f}, 1.1f};
    for (int i = 0; i < 3 * n; ++i) /* the rest, turned, scaled and 14 m away, and crumpled */
        targets[i] = l.rest[i] * 1.1f + frame.position[i % 3] + 0.01f * sinf(0.77f * (float)i);
    for (int level = 0; level < 4; ++level) {
        cloth_set_simd_level(level);
        tl_cloth_reset(c, &frame, targets); /* the targets mapped into the solver's frame */
        for (int i = 0; i < n; ++i) {
            float* q = mapped[level] + 3 * i;
            q[0] = c->t1x[i], q[1] = c->t1y[i], q[2] = c->t1z[i];
        }
        memcpy(outputs[level], c->out_world, sizeof(float) * 3 * (size_t)n);
        memcpy(outputs[level] + 3 * n, c->out_local, sizeof(float) * 3 * (size_t)n);
        for (int i = 0; i < n; ++i) {
            float L = i >= C ? tether[i] : 0.03f, s = (float)i;
            c->x[i] = l.rest[3 * i] + 0.5f * L * sinf(1.7f * s);
            c->y[i] = l.rest[3 * i + 1] + 0.5f * L * cosf(2.3f * s);
            c->z[i] = l.rest[3 * i + 2] + 0.5f * L * sinf(0.9f * s + 1);
            c->px[i] = c->x[i] + 0.01f * sinf(0.7f * s), c->py[i] = c->y[i] - 0.004f;
            c->pz[i] = c->z[i] + 0.01f * cosf(1.3f * s);
            c->t0x[i] = l.rest[3 * i] + L * sinf(0.3f * s), c->t0y[i] = l.rest[3 * i + 1];
            c->t0z[i] = l.rest[3 * i + 2] + L * cosf(0.5f * s);
            c->t1x[i] = c->t0x[i] + 0.2f * L, c->t1y[i] = c->t0y[i] - 0.3f * L;
            c->t1z[i] = c->t0z[i];
            c->max_distance[i] = L * (0.2f + 0.9f * (1.0f + sinf(0.37f * s)));
            c->contact[i] = (uint8_t)(i & 1);
        }
        cloth_integrate(c, map, v3_make(0, -0.0027f, 0), v3_make(0.001f, 0, 0.0005f), 0.7f, C, n);
        for (int row = C; row < n; row += C)
            clamps[level] += (uint32_t)cloth_tether_row(c, row, C, 0.4f);
        for (int i = 0; i < n; ++i) {
            float* o = out[level] + 6 * i;
            o[0] = c->x[i], o[1] = c->y[i], o[2] = c->z[i];
            o[3] = c->px[i], o[4] = c->py[i], o[5] = c->pz[i];
        }
    }
    int best = cloth_simd_level();
    cloth_set_simd_level(-1);
    double worst_tether = 0;
    for (int i = C; i < n; ++i) {
        const float* o = out[0] + 6 * i;
        const float* q = out[0] + 6 * (i - C);
        double len = sqrt(((double)o[0] - q[0]) * ((double)o[0] - q[0]) +
                          ((double)o[1] - q[1]) * ((double)o[1] - q[1]) +
                          ((double)o[2] - q[2]) * ((double)o[2] - q[2]));
        worst_tether = fmax(worst_tether, fabs(len / tether[i] - 1));
    }
    fprintf(stderr, "  best level %d; %u of %d beyond their safe distance; tethers within %.2g\n",
            best, clamps[0], n - C, worst_tether);
    /* (positions ~1 m from the origin here: a float step is ~2e-6 of a 3 cm tether) */
    ENSURE(clamps[0] > 0 && clamps[0] < (uint32_t)(n - C) && worst_tether < 1e-5);
    for (int level = 1; level < 4; ++level) {
        ENSURE(clamps[level] == clamps[0]);
        ENSURE(memcmp(out[level], out[0], sizeof(float) * 6 * (size_t)n) == 0);
        ENSURE(memcmp(mapped[level], mapped[0], sizeof(float) * 3 * (size_t)n) == 0);
        ENSURE(memcmp(outputs[level], outputs[0], sizeof(float) * 6 * (size_t)n) == 0);
    }
    tl_cloth_destroy(c);
    tl_cloth_model_destroy(m);
}

/* ---- the offline lattice on a real garment ---- */

/* A rigged garment's file holds the body colliders its skin meets: those the cloth player fits
 * from the rigged skin (tl_body_colliders_fit), as stored (floats written through JSON). */
static void colliders_stored(const tl_scene* scene, uint32_t skin) {
    tl_body_collider fitted[TL_BODY_COLLIDERS_MAX];
    uint32_t n;
    tl_error err;
    ENSURE_OK(tl_body_colliders_fit(scene, skin, fitted, TL_BODY_COLLIDERS_MAX, &n, &err), err);
    const tl_scene_skin* sk = &scene->skins[skin];
    const double tol = 1e-5 * (sk->height > 0 ? sk->height : 1.0);
    fprintf(stderr, "  body colliders stored: %u (fitted: %u)\n", sk->collider_count, n);
    ENSURE(n > 0 && sk->collider_count == n);
    for (uint32_t k = 0; k < n; ++k) {
        const tl_collider *c = &sk->colliders[k].local, *f = &fitted[k].local;
        ENSURE(sk->colliders[k].joint == fitted[k].joint && c->shape == f->shape);
        ENSURE_NEAR(c->radius, f->radius, tol);
        for (int q = 0; q < 3; ++q) {
            ENSURE_NEAR(c->a[q], f->a[q], tol);
            ENSURE_NEAR(c->b[q], f->b[q], tol);
            for (int e = 0; e < 3; ++e)
                ENSURE_NEAR(c->axes[e][q], f->axes[e][q], tol);
        }
    }
}

static const char* rigged_skirt_path; /* written by rig_skirt_lattice */
static const char* rigged_cape_path;  /* written by rig_knight_cape */

/* mh-suit-skirt.glb (a MakeHuman suit whose skirt is skinned to the thighs): the skirt becomes
 * one closed lattice hanging from the waist, its skin bound bilinearly to the lattice's bones
 * only, and the written file passes the Khronos validator and reads back as a cloth part. */
static void test_rig_skirt_lattice(void) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(tl_test_shared("cases/mh-suit-skirt.glb"), &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    tl_rig_def def = tl_default_rig_def();
    tl_rig_analysis* a;
    ENSURE_OK(tl_rig_analyze(scene, &def, &a, &err), err);
    const tl_rig_part* cloth = NULL;
    uint32_t cloth_parts = 0;
    for (uint32_t i = 0; i < a->part_count; ++i)
        if (a->parts[i].action == TL_RIG_ACTION_CLOTH) cloth = &a->parts[i], cloth_parts++;
    ENSURE_MSG(cloth_parts == 1, "%u cloth parts", cloth_parts);
    const tl_rig_cloth* cl = &cloth->cloth;
    const tl_scene_skin* sk = &scene->skins[cloth->skin];
    fprintf(stderr, "  %s: %u x %u lattice (%s), %u bones, %u vertices (%u grown), from %s\n",
            cloth->bone_prefix, cl->rows, cl->columns, cl->closed ? "closed" : "open",
            cl->bone_count, cloth->vertex_count, cloth->grown, cloth->attach_name);
    ENSURE(cl->closed && cl->rows >= 3 && cl->columns >= 6);
    ENSURE(cl->bone_count == (cl->rows - 1) * cl->bone_columns &&
           cl->bone_columns * 2 == cl->columns);
    /* the lattice hangs: every vertical link points down, row 0 at the waist (above the hem) */
    double waist = 0, hem = 0;
    for (uint32_t c = 0; c < cl->columns; ++c) {
        for (uint32_t r = 1; r < cl->rows; ++r) {
            v3 a0 = v3_load(cl->particles + 3 * ((r - 1) * cl->columns + c));
            v3 a1 = v3_load(cl->particles + 3 * (r * cl->columns + c));
            ENSURE_MSG(v3_dot(v3_sub(a1, a0), v3_load(sk->up)) < 0, "link (%u, %u) rises", r, c);
        }
        waist += v3_dot(v3_load(cl->particles + 3 * c), v3_load(sk->up)) / cl->columns;
        hem += v3_dot(v3_load(cl->particles + 3 * ((cl->rows - 1) * cl->columns + c)),
                      v3_load(sk->up)) /
               cl->columns;
    }
    fprintf(stderr, "  waist row at %.3f, hem row at %.3f (H %.3f)\n", waist, hem, sk->height);
    ENSURE(waist - hem > 0.15 * sk->height);
    /* every part vertex on the lattice's bones alone, weights summing to 1 */
    for (uint32_t k = 0; k < cloth->vertex_count; ++k) {
        double sum = 0;
        for (int q = 0; q < 4; ++q) {
            float w = cloth->new_weights[4 * k + q];
            uint32_t j = cloth->new_joints[4 * k + q];
            sum += w;
            ENSURE(w == 0 ||
                   (j >= cloth->first_new_joint && j < cloth->first_new_joint + cl->bone_count));
        }
        ENSURE_NEAR(sum, 1.0, 1e-5);
    }
    tl_scene_destroy(scene);
    ENSURE_OK(tl_rig_apply(doc, a, &err), err);
    tl_rig_analysis_destroy(a);
    const char* out = tl_test_scratch("mh-suit-skirt-cloth.glb");
    rigged_skirt_path = out;
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    ENSURE_OK(tl_gltf_save(doc, out, &save, &err), err);
    tl_gltf_destroy(doc);
    json_t* report = tl_test_validate(out);
    ENSURE_MSG(report != NULL, "the validator did not run");
    json_int_t errors = json_integer_value(json_object_get(report, "errors"));
    fprintf(stderr, "  validator: %lld errors, %lld warnings\n", (long long)errors,
            (long long)json_integer_value(json_object_get(report, "warnings")));
    json_decref(report);
    ENSURE(errors == 0);
    ENSURE_OK(tl_gltf_load(out, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    uint32_t read = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        if (scene->parts[i].kind == TL_PART_CLOTH)
            read++, colliders_stored(scene, scene->parts[i].skin);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(read == 1);
}

/* ---- a cape modelled apart: the KayKit knight's Knight_Cape, unskinned under the chest ---- */

static const char* knight_path(void) {
    return tl_test_shared("assets/kaykit-knight/Knight.glb");
}

/* Loads the knight, rebinds its unskinned torso meshes and returns the new scene; `def` gets
 * the garment nodes; `stored` (the cape's vertex count x 3) the cape's world positions as the
 * file stored them. */
static void knight_rebound(tl_gltf** doc, tl_rig_def* def, float** stored, uint32_t* count,
                           tl_scene** out) {
    tl_scene* scene;
    *out = NULL;
    tl_error err;
    ENSURE_OK(tl_gltf_load(knight_path(), doc, &err), err);
    ENSURE_OK(tl_scene_create(*doc, &scene, &err), err);
    tl_rig_analysis* a;
    ENSURE_OK(tl_rig_analyze(scene, def, &a, &err), err);
    ENSURE_MSG(a->unskinned_count == 1, "%u unskinned meshes", a->unskinned_count);
    uint32_t node = a->unskinned[0].node;
    ENSURE(!strcmp(a->unskinned[0].name, "Knight_Cape"));
    /* the cape as the file shows it: its node's world matrix on each POSITION */
    const tl_gltf_primitive* prim = &(*doc)->meshes[(*doc)->nodes[node].mesh].primitives[0];
    *count = (uint32_t)(*doc)->accessors[prim->position].count;
    float* p = malloc(3 * (size_t)*count * sizeof *p);
    *stored = malloc(3 * (size_t)*count * sizeof **stored);
    ENSURE_OK(tl_gltf_accessor_read_float(*doc, (uint32_t)prim->position, p, 3 * *count, &err),
              err);
    for (uint32_t i = 0; i < *count; ++i)
        tl_mat4_transform_point(*stored + 3 * i, scene->stored_world + 16 * (size_t)node,
                                p + 3 * i);
    free(p);
    uint32_t converted = 0;
    ENSURE_OK(tl_rig_skin_unskinned(*doc, scene, a, def, &converted, &err), err);
    ENSURE(converted == 1 && def->garment_node_count == 1 && def->garment_nodes[0] == node);
    tl_rig_analysis_destroy(a);
    tl_scene_destroy(scene);
    ENSURE_OK(tl_scene_create(*doc, &scene, &err), err);
    ENSURE((*doc)->nodes[node].skin != TL_NONE && (*doc)->nodes[node].parent == TL_NONE &&
           !tl_gltf_node_has_local_transform(&(*doc)->nodes[node]));
    *out = scene;
}

/* The cape becomes a skinned mesh of the skin whose bind pose puts it where the file did, then
 * an open lattice hanging from its own top edge; the written file adds no validator error or
 * warning to the knight's own and reads back with one cloth part. */
static void test_rig_knight_cape(void) {
    tl_gltf* doc;
    tl_error err;
    tl_rig_def def = tl_default_rig_def();
    float* stored;
    uint32_t n;
    tl_scene* scene;
    knight_rebound(&doc, &def, &stored, &n, &scene);
    ENSURE(scene != NULL);
    const tl_scene_skin* sk = NULL;
    const tl_scene_primitive* prim = NULL;
    for (uint32_t s = 0; s < scene->skin_count; ++s)
        for (uint32_t k = 0; k < scene->skins[s].primitive_count; ++k)
            if (scene->skins[s].primitives[k].node == def.garment_nodes[0])
                sk = &scene->skins[s], prim = &scene->skins[s].primitives[k];
    ENSURE(prim && prim->vertex_count == n);
    double worst = 0;
    for (uint32_t i = 0; i < n; ++i) {
        v3 d = v3_sub(v3_load(sk->rest_positions + 3 * ((size_t)prim->first_vertex + i)),
                      v3_load(stored + 3 * i));
        worst = fmax(worst, sqrt(v3_dot(d, d)));
    }
    free(stored);
    fprintf(stderr, "  cape rebound: %u vertices, at most %.2g H from the file's placement\n", n,
            worst / sk->height);
    ENSURE(worst < 1e-5 * sk->height);
    tl_rig_analysis* a;
    ENSURE_OK(tl_rig_analyze(scene, &def, &a, &err), err);
    const tl_rig_part* cape = NULL;
    for (uint32_t i = 0; i < a->part_count; ++i)
        if (a->parts[i].action == TL_RIG_ACTION_CLOTH) {
            ENSURE(cape == NULL);
            cape = &a->parts[i];
        }
    ENSURE(cape != NULL);
    const tl_rig_cloth* cl = &cape->cloth;
    fprintf(stderr, "  cape lattice %u x %u (%s), %u bones, %u vertices, from %s\n", cl->rows,
            cl->columns, cl->closed ? "closed" : "open", cl->bone_count, cape->vertex_count,
            cape->attach_name);
    ENSURE(!cl->closed && cl->rows >= 3 && cl->columns >= 3 && (cl->columns & 1));
    ENSURE(cl->bone_columns * 2 - 1 == cl->columns);
    for (uint32_t c = 0; c < cl->columns; ++c)
        for (uint32_t r = 1; r < cl->rows; ++r) {
            v3 a0 = v3_load(cl->particles + 3 * ((r - 1) * cl->columns + c));
            v3 a1 = v3_load(cl->particles + 3 * (r * cl->columns + c));
            ENSURE_MSG(v3_dot(v3_sub(a1, a0), v3_load(sk->up)) < 0, "link (%u, %u) rises", r, c);
        }
    for (uint32_t k = 0; k < cape->vertex_count; ++k) {
        double sum = 0;
        for (int q = 0; q < 4; ++q)
            sum += cape->new_weights[4 * k + q];
        ENSURE_NEAR(sum, 1.0, 1e-5);
        ENSURE(cape->vertices[k] >= prim->first_vertex &&
               cape->vertices[k] < prim->first_vertex + prim->vertex_count);
    }
    tl_scene_destroy(scene);
    ENSURE_OK(tl_rig_apply(doc, a, &err), err);
    tl_rig_analysis_destroy(a);
    const char* out = tl_test_scratch("knight-cape-cloth.glb");
    rigged_cape_path = out;
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    save.compact = true; /* as tailor rig writes */
    ENSURE_OK(tl_gltf_save(doc, out, &save, &err), err);
    tl_gltf_destroy(doc);
    json_t* before = tl_test_validate(knight_path());
    json_t* after = tl_test_validate(out);
    ENSURE_MSG(before && after, "the validator did not run");
    json_int_t e0 = json_integer_value(json_object_get(before, "errors")),
               w0 = json_integer_value(json_object_get(before, "warnings")),
               e1 = json_integer_value(json_object_get(after, "errors")),
               w1 = json_integer_value(json_object_get(after, "warnings")),
               u0 = json_integer_value(
                   json_object_get(json_object_get(before, "infos"), "UNUSED_OBJECT")),
               u1 = json_integer_value(
                   json_object_get(json_object_get(after, "infos"), "UNUSED_OBJECT"));
    fprintf(stderr,
            "  validator: knight %lld errors, %lld warnings, %lld unused; with the cape %lld, "
            "%lld, %lld\n",
            (long long)e0, (long long)w0, (long long)u0, (long long)e1, (long long)w1,
            (long long)u1);
    json_decref(before);
    json_decref(after);
    ENSURE(e1 == 0 && w1 <= w0);
    ENSURE_MSG(u1 <= u0, "the cape's replaced accessors are left behind");
    ENSURE_OK(tl_gltf_load(out, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    uint32_t read = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        if (scene->parts[i].kind == TL_PART_CLOTH)
            read++, colliders_stored(scene, scene->parts[i].skin);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(read == 1);
}

/* measure's cloth fields on the cape in the knight's walk, run and jump: the vertical and the
 * horizontal edges together are the region's edge samples, their largest stretch the region's
 * (both measured apart, by the stretch module and by the split), tethers at rest length, a
 * penetration measured against colliders that exist. */
static void test_measure_cape_fields(void) {
    tl_gltf* doc;
    tl_error err;
    tl_measure_rigs_def rdef = tl_default_measure_rigs_def();
    float* stored;
    uint32_t n;
    tl_scene* scene;
    knight_rebound(&doc, &rdef.rig, &stored, &n, &scene);
    ENSURE(scene != NULL);
    free(stored);
    tl_measure_rigs* rigs;
    ENSURE_OK(tl_measure_rigs_create(scene, &rdef, &rigs, &err), err);
    tl_measure_run_def def = tl_default_measure_run_def();
    def.skin = tl_measure_default_skin(scene);
    tl_measure_run* run;
    ENSURE_OK(tl_measure_run_create(rigs, &def, &run, &err), err);
    static const char* const clips[] = {"Walking_A", "Running_A", "Jump_Full_Long"};
    tl_measure_clip* m = malloc(sizeof *m);
    for (int c = 0; c < 3; ++c) {
        uint32_t clip;
        ENSURE_OK(tl_scene_find_clip(scene, clips[c], &clip, &err), err);
        ENSURE_OK(tl_measure_run_clip(run, clip, m, &err), err);
        uint32_t found = 0;
        for (uint32_t i = 0; i < run->region_count; ++i) {
            const tl_measure_cloth* lat = &m->cloth[i];
            if (!lat->particles) continue;
            found++;
            const tl_stretch_stats* all = &m->stats[TL_MEASURE_CHAIN][i];
            const tl_stretch_stats* body = &m->stats[TL_MEASURE_CHAIN][run->region_count];
            fprintf(stderr,
                    "  %s: cloth p99 %.4f max %.4f (body %.4f, %.4f); vertical p99 %.4f max "
                    "%.4f torn %.2f%%, horizontal p99 %.4f max %.4f; tether %.2g; %u colliders, "
                    "deepest %.4f H\n",
                    clips[c], all->p99, all->max, body->p99, body->max, lat->stretch_vertical.p99,
                    lat->stretch_vertical.max, lat->stretch_vertical.torn_pct,
                    lat->stretch_horizontal.p99, lat->stretch_horizontal.max,
                    lat->tether_violation_max, lat->colliders, lat->collider_penetration);
            ENSURE(lat->stretch_vertical.count > 0 && lat->stretch_horizontal.count > 0);
            ENSURE(lat->stretch_vertical.count + lat->stretch_horizontal.count == all->count);
            ENSURE_NEAR(fmax(lat->stretch_vertical.max, lat->stretch_horizontal.max), all->max,
                        1e-5);
            ENSURE(lat->tether_violation_max <= 1e-6);
            ENSURE(lat->colliders > 0 && lat->collider_penetration >= 0 &&
                   isfinite(lat->collider_penetration));
            /* the mesh as the rig skins it and as the file bound it (the cape on the torso),
               against the same colliders */
            fprintf(stderr, "    mesh deepest %.4f H (as bound %.4f H)\n", lat->mesh_penetration,
                    lat->mesh_penetration_input);
            ENSURE(isfinite(lat->mesh_penetration) && lat->mesh_penetration >= 0);
            /* issue #13's bar (0.002 H) on the skin, not only the particles: 0.0059 / 0.0079 /
               0.0072 H before the lattice's links were kept out (cloth_push_segments) */
            ENSURE(lat->mesh_penetration <= 0.002);
            ENSURE(isfinite(lat->mesh_penetration_input) && lat->mesh_penetration_input >= 0);
            /* new tears over the skin the lattice re-weighted: every edge of the cloth region
               is in it (the whole cape moved onto the lattice), each sample counted once */
            const tl_new_tears* t = &m->new_tears[i];
            fprintf(stderr, "    new tears %.3f%% (%llu of %llu; torn before %llu, after %llu)\n",
                    t->new_torn_pct, (unsigned long long)t->new_torn, (unsigned long long)t->count,
                    (unsigned long long)t->torn_before, (unsigned long long)t->torn_after);
            ENSURE(t->count >= all->count && t->count % def.samples == 0);
            ENSURE(t->new_torn <= t->torn_after && t->torn_after <= t->count);
            ENSURE(t->new_torn_pct <= 0.25f);
        }
        ENSURE(found == 1);
    }
    tl_measure_run_destroy(run);
    tl_measure_rigs_destroy(rigs);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    /* a file rigged before has no binding of its own to compare: not measured */
    if (!rigged_cape_path) {
        test_rig_knight_cape();
        ENSURE(rigged_cape_path);
    }
    ENSURE_OK(tl_gltf_load(rigged_cape_path, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    ENSURE_OK(tl_measure_rigs_create(scene, &rdef, &rigs, &err), err);
    def.skin = tl_measure_default_skin(scene);
    ENSURE_OK(tl_measure_run_create(rigs, &def, &run, &err), err);
    uint32_t clip, found = 0;
    ENSURE_OK(tl_scene_find_clip(scene, "Walking_A", &clip, &err), err);
    ENSURE_OK(tl_measure_run_clip(run, clip, m, &err), err);
    for (uint32_t i = 0; i < run->region_count; ++i)
        if (m->cloth[i].particles) {
            found++;
            ENSURE(m->cloth[i].mesh_penetration >= 0 && m->cloth[i].mesh_penetration_input < 0);
        }
    ENSURE(found == 1);
    free(m);
    tl_measure_run_destroy(run);
    tl_measure_rigs_destroy(rigs);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* ---- playback: the rigged skirt in its clips ---- */

typedef struct play_probe {
    tl_player* player;
    const tl_scene* scene;
    uint32_t clip;
    float H;
    const tl_pose* pose;
    double tether, excess, depth; /* worst over the sampled times */
    double hem_swing;             /* mean hem distance from its targets, largest */
    double hem_link;              /* the lattice's hem-row links over their rest, largest */
} play_probe;

static void probe_cloth(play_probe* p) {
    const tl_cloth* c = tl_player_cloth(p->player, 0);
    const float* t = tl_player_cloth_targets(p->player, 0);
    p->tether = fmax(p->tether, tether_error(c));
    p->excess = fmax(p->excess, max_distance_excess(c, t));
    const tl_collider* k;
    uint32_t nk = tl_player_cloth_colliders(p->player, 0, &k);

    const float* x = tl_cloth_positions(c);
    int n = tl_cloth_particle_count(c), C = tl_cloth_model_columns(tl_cloth_get_model(c));
    for (int i = C; i < n; ++i)
        for (uint32_t j = 0; j < nk; ++j) {
            double d = tl_collider_depth(&k[j], x + 3 * i) / p->H;
            p->depth = fmax(p->depth, d);
        }
    /* the lattice's own hem ring (which links the mesh stretch starts from) */
    const float* lx = tl_cloth_local_positions(c);
    const float* rest = tl_cloth_model_rest_positions(tl_cloth_get_model(c));
    bool closed = tl_cloth_model_closed(tl_cloth_get_model(c));
    for (int j = 0; j < (closed ? C : C - 1); ++j) {
        int a = n - C + j, b = n - C + (j + 1) % C;
        double l = v3_length(v3_sub(v3_load(lx + 3 * a), v3_load(lx + 3 * b)));
        double l0 = v3_length(v3_sub(v3_load(rest + 3 * a), v3_load(rest + 3 * b)));
        if (l0 > 1e-6) p->hem_link = fmax(p->hem_link, l / l0); /* (coincident rest ends: none) */
    }
    double swing = 0;
    for (int i = n - C; i < n; ++i)
        swing += v3_length(v3_sub(v3_load(x + 3 * i), v3_load(t + 3 * i))) / C;
    p->hem_swing = fmax(p->hem_swing, swing);
}

static void play_pose(void* user, tl_pose* pose, float time) {
    play_probe* p = user;
    tl_player_advance(p->player, pose, p->clip, time);
    p->pose = pose;
    probe_cloth(p);
}

/* The rigged skirt in Walk and Jump, with or without the body colliders (tl_player_def.colliders).
 * After every sample the tethers are at rest length and no particle is past its safe distance;
 * the hem swings and comes to rest within 2 s once the body holds still (its particles' mean
 * speed under 0.1% of H a second). Without colliders its edges stretch no more than the body's
 * (p99 and max) and tear on <= 0.1% of edge samples, with colliders too, where no particle is
 * deeper than 0.002 H in one at any sample. (With colliders the stretch was a known miss until
 * the skin took its column from the rest lattice's nearest point, rig/cloth.c lattice_column:
 * Walk p99 1.155 > the body's 1.112, max 2.249, torn 0.10%; now 1.090, 1.493, 0%.) */
/* One rigged file's cloth in its clips (play_skirt's criteria). */
static void play_cloth(const char* path, const char* const* clips, int clip_count, bool colliders) {
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    tl_player_def def = tl_default_player_def();
    def.colliders = colliders;
    tl_player* player;
    ENSURE_OK(tl_player_create(scene, NULL, 0, &def, &player, &err), err);
    ENSURE(tl_player_cloth_count(player) == 1);
    const tl_scene_part* part = &scene->parts[tl_player_cloth_part(player, 0)];
    const tl_scene_skin* sk = &scene->skins[part->skin];
    /* the cloth's skin: vertices whose dominant joint is a cloth bone */
    uint8_t* cloth_mask = calloc(sk->vertex_count, 1);
    uint8_t* body_mask = calloc(sk->vertex_count, 1);
    ENSURE(cloth_mask && body_mask);
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        float best = -1;
        uint32_t dom = 0;
        for (uint32_t k = 0; k < sk->influence_count; ++k) {
            float w = sk->influence_weights[(size_t)v * sk->influence_count + k];
            if (w > best) best = w, dom = sk->influence_joints[(size_t)v * sk->influence_count + k];
        }
        bool mine = dom == part->end_joint;
        for (uint32_t b = 0; b < part->bone_count; ++b)
            mine = mine || dom == part->bone_joints[b];
        cloth_mask[v] = mine, body_mask[v] = !mine;
    }
    const uint8_t* masks[2] = {cloth_mask, body_mask};
    tl_measure_def md = tl_default_measure_def();
    md.samples = 120;
    tl_stretch* st;
    ENSURE_OK(tl_stretch_create(scene, part->skin, masks, 2, &md, &st, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    for (int k = 0; k < clip_count; ++k) {
        uint32_t clip;
        ENSURE_OK(tl_scene_find_clip(scene, clips[k], &clip, &err), err);
        play_probe p = {player, scene, clip, sk->height, NULL, 0, 0, 0, 0, 0};
        tl_player_start(player, clip, 0);
        tl_stretch_stats s[2];
        tl_stretch_run(st, clip, play_pose, &p, s);
        /* then the body holds the clip's last pose: the hem settles */
        tl_player_advance(player, pose, clip, scene->clips[clip].duration);
        const tl_cloth* c = tl_player_cloth(player, 0);
        int n = tl_cloth_particle_count(c);
        float* before = malloc(3 * (size_t)n * sizeof *before);
        double speed_end = 0, speed_peak = 0;
        for (int f = 0; f < 120; ++f) {
            memcpy(before, tl_cloth_positions(c), 3 * (size_t)n * sizeof *before);
            tl_player_step_pose(player, pose, 1.0f / 60.0f);
            double speed = 0; /* the particles' mean speed */
            for (int i = 0; i < n; ++i)
                speed += v3_length(v3_sub(v3_load(tl_cloth_positions(c) + 3 * i),
                                          v3_load(before + 3 * i))) *
                         60.0 / n;
            if (f == 0) speed_peak = speed;
            speed_end = speed;
        }
        free(before);
        fprintf(stderr,
                "  %s, %s: cloth p99 %.3f max %.3f torn %.2f%% (%llu edge samples); body p99 "
                "%.3f max %.3f; tether %.1e, max distance excess %.1e, deepest particle %.5f H "
                "in a collider; hem swing %.3f m, hem links <= %.3f of rest; particles' mean speed "
                "%.4f m/s after the stop, "
                "%.5f m/s 2 s later (at rest: under %.5f)\n",
                clips[k], colliders ? "colliders" : "no colliders", s[0].p99, s[0].max,
                s[0].torn_pct, (unsigned long long)s[0].count, s[1].p99, s[1].max, p.tether,
                p.excess, p.depth, p.hem_swing, p.hem_link, speed_peak, speed_end,
                0.001 * sk->height);
        ENSURE(s[0].count > 0);
        ENSURE(p.tether <= 1e-6 && p.excess <= 1e-5);
        ENSURE(p.hem_swing > 0.001 * sk->height);
        ENSURE(speed_end < 0.001 * sk->height); /* at rest: under 0.1% of H a second */
        ENSURE(s[0].p99 <= s[1].p99 && s[0].max <= s[1].max && s[0].torn_pct <= 0.1f);
        if (colliders) ENSURE(p.depth <= 0.002);
    }
    tl_pose_destroy(pose);
    tl_stretch_destroy(st);
    free(cloth_mask);
    free(body_mask);
    tl_player_destroy(player);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

static void play_skirt(bool colliders) {
    if (!rigged_skirt_path) {
        test_rig_skirt_lattice();
        ENSURE(rigged_skirt_path);
    }
    static const char* const clips[] = {"Walk", "Jump"};
    play_cloth(rigged_skirt_path, clips, 2, colliders);
}

/* The knight's cape with the body colliders in the knight's walk, run and jump: its edges
 * stretch no more than the body's, tethers, safe distance, no particle inside a collider, it
 * swings and comes to rest within 2 s of the body stopping (before the contact push stopped
 * adding velocity and the relaxation went to 12 iterations, the run left 0.0035 m/s against
 * 0.0023, the lower rows jittering particle by particle). */
static void test_play_knight_cape(void) {
    if (!rigged_cape_path) {
        test_rig_knight_cape();
        ENSURE(rigged_cape_path);
    }
    static const char* const clips[] = {"Walking_A", "Running_A", "Jump_Full_Long"};
    play_cloth(rigged_cape_path, clips, 3, true);
}

static void test_play_skirt_clips(void) {
    play_skirt(false);
}

/* (strict, fails today: see play_skirt) */
static void test_play_skirt_colliders(void) {
    play_skirt(true);
}

static const tl_test_case cases[] = {
    {"defaults", test_defaults},
    {"groups_independent", test_groups_independent},
    {"edges", test_edges},
    {"invalid_def", test_invalid_def},
    {"hanging_sheet_comes_to_rest", test_hanging_sheet_comes_to_rest},
    {"shaken_cape_comes_to_rest", test_shaken_cape_comes_to_rest},
    {"tether_and_max_distance", test_tether_and_max_distance},
    {"collider_penetration", test_collider_penetration},
    {"ellipsoid_collider", test_ellipsoid_collider},
    {"world_motion_share", test_world_motion_share},
    {"external_force", test_external_force},
    {"cut_carries", test_cut_carries},
    {"hitch_carries", test_hitch_carries},
    {"nonfinite_input", test_nonfinite_input},
    {"no_allocation_in_step", test_no_allocation_in_step},
    {"kernels_agree", test_kernels_agree},
    {"pass_kernels_identical", test_pass_kernels_identical},
    {"rig_skirt_lattice", test_rig_skirt_lattice},
    {"play_skirt_clips", test_play_skirt_clips},
    {"play_skirt_colliders", test_play_skirt_colliders},
    {"rig_knight_cape", test_rig_knight_cape},
    {"measure_cape_fields", test_measure_cape_fields},
    {"links_out_of_colliders", test_links_out_of_colliders},
    {"links_across_collider", test_links_across_collider},
    {"links_out_at_start", test_links_out_at_start},
    {"skin_points_out", test_skin_points_out},
    {"skin_points_ring", test_skin_points_ring},
    {"play_knight_cape", test_play_knight_cape},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
