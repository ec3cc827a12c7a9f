/* The cloth rig's run-time pieces (issue #13): the cloth's pose sampler and cuts
 * (tl_cloth_step_sampled), the one-link pendulum with a look-at and the aim constraint
 * (pendulum.h), and the cloth stress runs (tl_measure_stress_cloth) on the rigged skirt and
 * the KayKit knight's cape. */
#include "test.h"

#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---- a hanging sheet driven by a moving frame ---- */

enum { ROWS = 6, COLS = 10, N = ROWS * COLS };

typedef struct sheet {
    float rest[3 * N];
    float targets[3 * N];
    tl_cloth_model* model;
} sheet;

/* A file and its scene; false (the test failed, nothing left allocated) when either fails. */
static bool load_scene(const char* path, tl_gltf** doc, tl_scene** scene) {
    tl_error err;
    *doc = NULL, *scene = NULL;
    if (tl_gltf_load(path, doc, &err) == TL_OK && tl_scene_create(*doc, scene, &err) == TL_OK)
        return true;
    tl_test_failf(__FILE__, __LINE__, "%s: %s", path, err.message);
    tl_gltf_destroy(*doc), *doc = NULL;
    return false;
}

static bool sheet_make(sheet* s, tl_error* err) {
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) {
            float* p = s->rest + 3 * (r * COLS + c);
            p[0] = 0.06f * (float)c - 0.27f, p[1] = 1.5f - 0.08f * (float)r, p[2] = -0.1f;
        }
    tl_cloth_def d = tl_default_cloth_def();
    d.rows = ROWS, d.columns = COLS, d.closed = false, d.rest_positions = s->rest;
    d.fixed_step = 1.0f / 120.0f;
    return tl_cloth_model_create(&d, NULL, &s->model, err) == TL_OK;
}

/* The body at time t: a walk forward with a sway and a yaw (a smooth function of t). */
static tl_chain_pose body_at(double t) {
    tl_chain_pose f;
    memset(&f, 0, sizeof f);
    double yaw = 0.6 * sin(2 * PI * 1.3 * t);
    f.position[0] = (float)(0.2 * sin(2 * PI * 1.7 * t));
    f.position[1] = (float)(0.05 * sin(2 * PI * 2.9 * t));
    f.position[2] = (float)(1.4 * t);
    f.rotation[1] = (float)sin(yaw / 2), f.rotation[3] = (float)cos(yaw / 2);
    f.scale = 1;
    return f;
}

static void targets_under(const sheet* s, const tl_chain_pose* f, float* out) {
    for (int i = 0; i < N; ++i) {
        const float* p = s->rest + 3 * i;
        float c = 2 * f->rotation[3] * f->rotation[3] - 1, sn = 2 * f->rotation[1] * f->rotation[3];
        out[3 * i + 0] = f->position[0] + c * p[0] + sn * p[2];
        out[3 * i + 1] = f->position[1] + p[1];
        out[3 * i + 2] = f->position[2] - sn * p[0] + c * p[2];
    }
}

typedef struct host {
    const sheet* s;
    double start; /* the frame's start time */
    float offset; /* added to x after a respawn */
    float buffer[3 * N];
    int calls;
} host;

static void host_sample(void* user, float t, tl_cloth_input* in) {
    host* h = user;
    in->frame = body_at(h->start + t);
    in->frame.position[0] += h->offset;
    targets_under(h->s, &in->frame, h->buffer);
    in->targets = h->buffer;
    h->calls++;
}

/* Plays 2 s at `fps` through the sampler; positions at t = 0.5, 1, 1.5, 2 s into out. */
static void play_sampled(const sheet* s, float fps, bool sampled, float out[4][3 * N],
                         tl_cloth_stats* stats) {
    tl_cloth* c;
    tl_error err;
    if (tl_cloth_create(s->model, NULL, &c, &err) != TL_OK) return;
    host h = {s, 0, 0, {0}, 0};
    tl_cloth_step_sampled(c, host_sample, &h, 0.0f, false);
    int frames = (int)lround(2.0 * fps), stored = 0;
    for (int f = 1; f <= frames; ++f) {
        h.start = (f - 1) / (double)fps;
        if (sampled) {
            tl_cloth_step_sampled(c, host_sample, &h, 1.0f / fps, false);
        } else {
            tl_cloth_input in = tl_default_cloth_input();
            host_sample(&h, 1.0f / fps, &in);
            tl_cloth_step(c, &in, 1.0f / fps);
        }
        double t = f / (double)fps;
        if (fabs(t * 2 - lround(t * 2)) < 1e-9)
            memcpy(out[stored++], tl_cloth_positions(c), sizeof(float) * 3 * N);
    }
    *stats = tl_cloth_get_stats(c);
    tl_cloth_destroy(c);
}

static float largest_distance(const float* a, const float* b) {
    float m = 0;
    for (int i = 0; i < N; ++i) {
        float dx = a[3 * i] - b[3 * i], dy = a[3 * i + 1] - b[3 * i + 1],
              dz = a[3 * i + 2] - b[3 * i + 2];
        m = fmaxf(m, sqrtf(dx * dx + dy * dy + dz * dz));
    }
    return m;
}

/* With the sampler every internal step sees the body at its own time: 24, 30, 60 and 144 fps
 * agree to float rounding; the two-pose step (the frame's ends only) does not. The column is
 * 0.4 m long. */
static void test_sampled_frame_rate(void) {
    sheet s;
    tl_error err;
    ENSURE_OK(sheet_make(&s, &err) ? TL_OK : TL_ERROR_INVALID, err);
    static const float rates[] = {24, 30, 60, 144};
    static float out[2][4][4][3 * N];
    tl_cloth_stats st;
    for (int k = 0; k < 4; ++k) {
        play_sampled(&s, rates[k], true, out[0][k], &st);
        ENSURE(st.steps == 240 && st.nonfinite_inputs == 0);
        play_sampled(&s, rates[k], false, out[1][k], &st);
    }
    float sampled = 0, two_pose = 0;
    for (int k = 1; k < 4; ++k)
        for (int t = 0; t < 4; ++t) {
            sampled = fmaxf(sampled, largest_distance(out[0][0][t], out[0][k][t]));
            two_pose = fmaxf(two_pose, largest_distance(out[1][0][t], out[1][k][t]));
        }
    fprintf(stderr, "  24-144 fps: sampled %.3g m, two poses %.3g m (column 0.4 m)\n", sampled,
            two_pose);
    ENSURE_MSG(sampled <= 0.4f * 1e-4f, "sampled rates differ by %.3g m", sampled);
    ENSURE_MSG(two_pose > 10 * sampled, "the comparison cannot see a difference");
    tl_cloth_model_destroy(s.model);
}

/* A reported cut 100 m away is carried exactly: the run stays what it was in the character
 * frame; the same jump unreported is detected and carried too. No allocation in any of it. */
typedef struct counting {
    size_t allocs;
} counting;
static void* count_alloc(size_t n, void* user) {
    ((counting*)user)->allocs++;
    return malloc(n);
}
static void count_free(void* p, void* user) {
    (void)user;
    free(p);
}

static void test_sampled_cut(void) {
    sheet s;
    tl_error err;
    ENSURE_OK(sheet_make(&s, &err) ? TL_OK : TL_ERROR_INVALID, err);
    counting counts = {0};
    tl_allocator a = {count_alloc, count_free, &counts};
    tl_cloth *control, *cut, *detect;
    ENSURE_OK(tl_cloth_create(s.model, &a, &control, &err), err);
    ENSURE_OK(tl_cloth_create(s.model, &a, &cut, &err), err);
    ENSURE_OK(tl_cloth_create(s.model, &a, &detect, &err), err);
    size_t created = counts.allocs;
    host h[3] = {{&s, 0, 0, {0}, 0}, {&s, 0, 0, {0}, 0}, {&s, 0, 0, {0}, 0}};
    tl_cloth* cloths[3] = {control, cut, detect};
    float worst_cut = 0, worst_detect = 0, later = 0, detect_later = 0;
    for (int f = 0; f <= 120; ++f) {
        for (int k = 0; k < 3; ++k) {
            h[k].start = (f - 1) / 60.0;
            bool jump = k > 0 && f == 60;
            if (jump) h[k].offset = 100.0f;
            tl_cloth_step_sampled(cloths[k], host_sample, &h[k], f ? 1.0f / 60.0f : 0.0f,
                                  jump && k == 1);
        }
        if (f < 60) continue;
        const float* l0 = tl_cloth_local_positions(control);
        float d = largest_distance(l0, tl_cloth_local_positions(cut));
        if (f == 60) worst_cut = d;
        later = fmaxf(later, d);
        float e = largest_distance(l0, tl_cloth_local_positions(detect));
        if (f == 60) worst_detect = e;
        detect_later = fmaxf(detect_later, e);
    }
    tl_cloth_stats sc = tl_cloth_get_stats(cut), sd = tl_cloth_get_stats(detect);
    fprintf(stderr,
            "  cut: %.3g m from the control at the cut, %.3g m over 1 s; detected: %.3g m at the "
            "jump, %.3g m over 1 s\n",
            worst_cut, later, worst_detect, detect_later);
    ENSURE(sc.cuts == 1 && sc.teleports == 0 && sd.teleports == 1);
    ENSURE_MSG(worst_cut <= 0.4f * 1e-5f, "the reported cut moved the sheet %.3g m", worst_cut);
    /* after it the runs part by the float spacing 100 m away (7.6e-6 m), amplified by the
       lattice's own sensitivity; a jump not carried would fling the sheet metres */
    ENSURE_MSG(later <= 0.4f * 1e-3f, "a second after the cut the sheet is %.3g m off", later);
    /* detected, the jump's step has no world motion (the body's 1/120 s of walk, 20% of it):
       a small transient, no fling */
    ENSURE_MSG(worst_detect <= 0.4f * 1e-2f && detect_later <= 0.4f * 0.1f,
               "the detected jump moved the sheet %.3g m, %.3g m over 1 s", worst_detect,
               detect_later);
    ENSURE_MSG(counts.allocs == created, "%zu allocations in steps", counts.allocs - created);
    for (int k = 0; k < 3; ++k)
        tl_cloth_destroy(cloths[k]);
    tl_cloth_model_destroy(s.model);
}

/* ---- the pendulum and the aim ---- */

static tl_chain_pose pivot_pose(float x, float angle_about_z) {
    tl_chain_pose p;
    memset(&p, 0, sizeof p);
    p.position[0] = x, p.position[1] = 1.6f;
    p.rotation[2] = sinf(angle_about_z / 2), p.rotation[3] = cosf(angle_about_z / 2);
    p.scale = 1;
    return p;
}

static float angle_deg(const float a[3], const float b[3]) {
    float d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) /
              sqrtf((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) *
                    (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
    return acosf(fminf(1.0f, fmaxf(-1.0f, d))) * 57.29578f;
}

static void rotate(const float q[4], const float v[3], float out[3]) {
    float t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]),
                  2 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

/* The hood bone tilted 40° from hanging: with no spring the particle swings down and comes to
 * rest hanging, and the bone looks at it (its rest axis, rotated, points at the particle). */
static void test_pendulum_look_at(void) {
    tl_pendulum_def d = tl_default_pendulum_def();
    d.stiffness = 0;
    tl_pendulum p;
    tl_error err;
    ENSURE_OK(tl_pendulum_init(&p, &d, &err), err);
    tl_chain_pose pivot = pivot_pose(0, (float)(40 * PI / 180));
    tl_pendulum_step(&p, &pivot, 0);
    ENSURE_NEAR(tl_pendulum_swing_deg(&p), 0, 1e-3);
    float speed = 0;
    for (int f = 1; f <= 600; ++f) {
        float before[3];
        memcpy(before, p.position, sizeof before);
        tl_pendulum_step(&p, &pivot, 1.0f / 60.0f);
        float dx = p.position[0] - before[0], dy = p.position[1] - before[1];
        speed = sqrtf(dx * dx + dy * dy) * 60;
    }
    float dir[3] = {p.position[0] - pivot.position[0], p.position[1] - pivot.position[1],
                    p.position[2] - pivot.position[2]};
    float down[3] = {0, -1, 0}, q[4], axis[3];
    tl_pendulum_rotation(&p, q);
    rotate(q, p.def.rest_direction, axis);
    float hang = angle_deg(dir, down), look = angle_deg(dir, axis);
    fprintf(stderr,
            "  after 10 s: %.3f° from hanging, swing %.2f°, look-at error %.2g°, speed %.2g m/s\n",
            hang, tl_pendulum_swing_deg(&p), look, speed);
    ENSURE_MSG(hang < 0.5f, "the particle rests %.2f° from hanging", hang);
    ENSURE_NEAR(tl_pendulum_swing_deg(&p), 40, 0.5);
    ENSURE_MSG(look < 0.01f, "the bone looks %.3g° off the particle", look);
    ENSURE_MSG(speed < 0.01f, "still moving at %.3g m/s", speed);
    ENSURE_NEAR(sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]), d.length, 1e-5);
}

/* The bone turned 90° (its rest direction horizontal) with a 30° cone: gravity pulls the
 * particle to the cone's edge and never past it, shaken or not; the spring pulls it back in. */
static void test_pendulum_limits(void) {
    tl_pendulum_def d = tl_default_pendulum_def();
    d.max_angle_deg = 30, d.stiffness = 0;
    tl_pendulum p;
    tl_error err;
    ENSURE_OK(tl_pendulum_init(&p, &d, &err), err);
    float worst = 0;
    for (int f = 0; f <= 480; ++f) {
        float x = f < 240 ? 0.3f * sinf(f / 60.0f * 9.0f) : 0;
        tl_chain_pose pivot = pivot_pose(x, (float)(PI / 2));
        tl_pendulum_step(&p, &pivot, f ? 1.0f / 60.0f : 0);
        worst = fmaxf(worst, tl_pendulum_swing_deg(&p));
    }
    fprintf(stderr, "  30° cone: largest swing %.4f°, at rest %.4f°\n", worst,
            tl_pendulum_swing_deg(&p));
    ENSURE_MSG(worst <= 30.001f, "swung %.4f° past a 30° cone", worst);
    ENSURE_NEAR(tl_pendulum_swing_deg(&p), 30, 0.01);
    d.stiffness = 0.5f; /* a stiff spring holds it nearer the rest direction */
    ENSURE_OK(tl_pendulum_init(&p, &d, &err), err);
    tl_chain_pose pivot = pivot_pose(0, (float)(PI / 2));
    for (int f = 0; f <= 240; ++f)
        tl_pendulum_step(&p, &pivot, f ? 1.0f / 60.0f : 0);
    fprintf(stderr, "  stiffness 0.5: at rest %.3f°\n", tl_pendulum_swing_deg(&p));
    ENSURE(tl_pendulum_swing_deg(&p) < 5);
}

/* A pivot spinning 720°/s, the particle in a 30° cone with no spring (it rides the cone's
 * edge), played at frame rates off the 1/120 s grid (144, 50 Hz) and on it (60 Hz): the swing
 * shown at every frame stays in the cone (the frame's leftover time moves the pivot, not the
 * particle's place in its frame), and the look-at turns the pivot's rest direction by it. */
static void test_pendulum_off_grid(void) {
    static const float rates[] = {144, 50, 60};
    for (int k = 0; k < 3; ++k) {
        tl_pendulum_def d = tl_default_pendulum_def();
        d.max_angle_deg = 30, d.stiffness = 0;
        tl_pendulum p;
        tl_error err;
        ENSURE_OK(tl_pendulum_init(&p, &d, &err), err);
        float swing = 0, mismatch = 0;
        int frames = (int)(3 * rates[k]);
        for (int f = 0; f <= frames; ++f) {
            tl_chain_pose pivot = pivot_pose(0, 4 * (float)PI * (float)f / rates[k]);
            tl_pendulum_step(&p, &pivot, f ? 1.0f / rates[k] : 0);
            float s = tl_pendulum_swing_deg(&p), q[4], bone[3], carried[3];
            swing = fmaxf(swing, s);
            tl_pendulum_rotation(&p, q);
            rotate(q, d.rest_direction, bone);
            rotate(pivot.rotation, d.rest_direction, carried);
            mismatch = fmaxf(mismatch, fabsf(angle_deg(bone, carried) - s));
        }
        fprintf(stderr,
                "  %g Hz, pivot at 720°/s: swing up to %.4f° (cone 30°), look-at %.2g° off it\n",
                rates[k], swing, mismatch);
        ENSURE_MSG(swing <= 30.001f, "%g Hz: the swing reaches %.4f°, past its 30° cone", rates[k],
                   swing);
        ENSURE_MSG(swing >= 29.9f, "%g Hz: the particle only reaches %.2f°", rates[k], swing);
        ENSURE_MSG(mismatch <= 0.01f, "%g Hz: the look-at is %.3g° off the swing", rates[k],
                   mismatch);
    }
}

/* A 100 m jump of the pivot is carried: the particle keeps its place in the pivot's frame. Bad
 * defs are refused with the field named. */
static void test_pendulum_teleport_and_def(void) {
    tl_pendulum_def d = tl_default_pendulum_def();
    tl_pendulum p, q;
    tl_error err;
    ENSURE_OK(tl_pendulum_init(&p, &d, &err), err);
    for (int f = 0; f <= 60; ++f) {
        tl_chain_pose pivot = pivot_pose(0.3f * sinf(f / 10.0f), 0.2f * sinf(f / 7.0f));
        tl_pendulum_step(&p, &pivot, f ? 1.0f / 60.0f : 0);
    }
    q = p; /* the same frame twice, once with the pivot 100 m on */
    tl_chain_pose a = p.pivot, b = a;
    b.position[2] += 100;
    tl_pendulum_step(&p, &a, 1.0f / 60.0f);
    tl_pendulum_step(&q, &b, 1.0f / 60.0f);
    float e = 0;
    for (int k = 0; k < 3; ++k)
        e = fmaxf(e, fabsf((q.position[k] - b.position[k]) - (p.position[k] - a.position[k])));
    fprintf(stderr, "  100 m jump: %.3g m off the run without it\n", e);
    ENSURE(q.teleports == 1 && p.teleports == 0);
    ENSURE_MSG(e <= 2e-5f, "carried %.3g m off (float spacing at 100 m: 7.6e-6 m)", e);
    d.max_angle_deg = 0;
    ENSURE(tl_pendulum_init(&p, &d, &err) == TL_ERROR_INVALID);
    ENSURE(strstr(err.message, "max_angle_deg") != NULL);
    d = tl_default_pendulum_def();
    d.rest_direction[1] = 0;
    ENSURE(tl_pendulum_init(&p, &d, &err) == TL_ERROR_INVALID);
    ENSURE(strstr(err.message, "rest_direction") != NULL);
}

/* The aim turns the bone's axis onto the target, no further than its limit, by its weight. */
static void test_aim(void) {
    tl_aim_def d = tl_default_aim_def();
    d.max_angle_deg = 180;
    float rest[4] = {0, 0, 0, 1}, pos[3] = {0.2f, 1.4f, 0}, out[4], axis[3];
    float target[3] = {0.2f, 1.0f, 0.3f}; /* below and in front: 90° from the x axis */
    tl_aim_solve(&d, rest, pos, target, out);
    rotate(out, d.aim_axis, axis);
    float to[3] = {target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]};
    float err_free = angle_deg(axis, to);
    d.max_angle_deg = 45;
    tl_aim_solve(&d, rest, pos, target, out);
    rotate(out, d.aim_axis, axis);
    float turned = angle_deg(axis, d.aim_axis);
    d.max_angle_deg = 180, d.weight = 0.5f;
    tl_aim_solve(&d, rest, pos, target, out);
    rotate(out, d.aim_axis, axis);
    float half = angle_deg(axis, d.aim_axis), full = angle_deg(to, d.aim_axis);
    fprintf(stderr,
            "  aim: %.2g° off the target free, %.3f° turned with a 45° limit, %.3f° of %.3f° at "
            "weight 0.5\n",
            err_free, turned, half, full);
    ENSURE(err_free < 0.01f);
    ENSURE_NEAR(turned, 45, 0.01);
    ENSURE_NEAR(half, full / 2, 0.01);
    float at[4];
    tl_aim_solve(&d, rest, pos, pos, at); /* a target on the bone leaves it */
    ENSURE_NEAR(at[3], 1, 1e-6);
}

/* ---- the cloth stress runs on real characters ---- */

/* The criteria a file meets in the normal suite (`met`); the rest are asserted only under
 * TL_CLOTH_STRESS_STRICT (today both files meet every one: no known_failing ctest). */
enum { MET_HITCH = 1, MET_TELEPORT = 2, MET_SETTLE = 4, MET_RENDER = 8 };

static void stress_cloth_file(const char* input, const char* label, const char* clip_name,
                              unsigned met) {
    char name[160];
    snprintf(name, sizeof name, "%s.rigged.glb", label);
    const char* output = tl_test_scratch(name);
    ENSURE_MSG(tl_test_cli(NULL, "rig '%s' -o '%s' >/dev/null", input, output) == 0, "rig %s",
               input);
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE(load_scene(output, &doc, &scene));
    uint32_t part = 0;
    while (part < scene->part_count && scene->parts[part].kind != TL_PART_CLOTH)
        ++part;
    ENSURE_MSG(part < scene->part_count, "%s: no cloth part", label);
    uint32_t clip;
    ENSURE_OK(tl_scene_find_clip(scene, clip_name, &clip, &err), err);
    tl_stress_def def = tl_default_stress_def();
    tl_stress_report r;
    ENSURE_OK(tl_measure_stress_cloth(scene, part, (int32_t)clip, &def, &r, &err), err);
    fprintf(
        stderr,
        "  %s %s: nonfinite %u, tether error %.3g, fps sampled %.4f%%, render %.3f%%, cut %.3g, "
        "hitch %.3f (later %.3f), teleport %.3f (later %.3f), control %.3f, settle %.2f s, "
        "step rotation %.1f° (neighbours %.1f°), penetration %.3g H over %u frames, %u colliders, "
        "column %.3g\n",
        label, clip_name, r.nonfinite, r.max_length_error, 100 * r.fps_max_diff_sampled,
        100 * r.fps_max_diff, r.cut_error, r.hitch_speed_ratio, r.hitch_speed_ratio_later,
        r.teleport_speed_ratio, r.teleport_speed_ratio_later, r.control_speed_ratio,
        r.settle_seconds, r.max_step_rotation_deg, r.max_neighbour_step_rotation_deg,
        r.collider_penetration, r.collider_frames, r.colliders, r.chain_length);
    ENSURE(r.nonfinite == 0);
    ENSURE_MSG(r.max_length_error <= 1e-4f, "tether error %.3g", r.max_length_error);
    ENSURE_MSG(r.fps_max_diff_sampled >= 0 && r.fps_max_diff_sampled <= 0.001f,
               "sampled rates differ by %.4f%% of a column", 100 * r.fps_max_diff_sampled);
    ENSURE_MSG(r.fps_max_diff > r.fps_max_diff_sampled, "render poses compare as sampled");
    ENSURE_MSG(r.cut_error >= 0 && r.cut_error <= 1e-5f, "a reported cut moved %.3g of a column",
               r.cut_error);
    ENSURE_MSG(r.collider_penetration <= 0.002f, "penetration %.3g H", r.collider_penetration);
    ENSURE_MSG(r.colliders == 0 || r.collider_frames > 0, "the penetration was read on no frame");
    bool hitch = r.hitch_speed_ratio >= 0 && r.hitch_speed_ratio <= 1.5f &&
                 r.hitch_speed_ratio_later <= 1.02f;
    bool teleport = r.teleport_speed_ratio >= 0 && r.teleport_speed_ratio <= 1.15f &&
                    r.teleport_speed_ratio_later <= 1.02f;
    bool settle = r.settle_seconds >= 0 && r.settle_seconds <= 2;
    bool render = r.fps_max_diff >= 0 && r.fps_max_diff <= 0.01f;
    const char* strict = getenv("TL_CLOTH_STRESS_STRICT");
    if (!(strict && *strict == '1')) {
        if (!hitch || !teleport || !settle || !render)
            fprintf(stderr, "  %s: KNOWN FAILING:%s%s%s%s\n", label, hitch ? "" : " hitch",
                    teleport ? "" : " teleport", settle ? "" : " settle",
                    render ? "" : " render-pose frame rate");
    } else {
        met = MET_HITCH | MET_TELEPORT | MET_SETTLE | MET_RENDER;
    }
    if (met & MET_HITCH)
        ENSURE_MSG(hitch, "hitch %.3f later %.3f", r.hitch_speed_ratio, r.hitch_speed_ratio_later);
    if (met & MET_TELEPORT)
        ENSURE_MSG(teleport, "teleport %.3f later %.3f", r.teleport_speed_ratio,
                   r.teleport_speed_ratio_later);
    if (met & MET_SETTLE) ENSURE_MSG(settle, "settles in %.2f s", r.settle_seconds);
    if (met & MET_RENDER) ENSURE_MSG(render, "render poses differ by %.2f%%", 100 * r.fps_max_diff);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

static void test_stress_skirt(void) {
    stress_cloth_file(tl_test_shared("cases/mh-suit-skirt.glb"), "mh-suit-skirt", "Walk",
                      MET_HITCH | MET_TELEPORT | MET_SETTLE | MET_RENDER);
}
static void test_stress_knight_cape(void) {
    stress_cloth_file(tl_test_shared("assets/kaykit-knight/Knight.glb"), "knight", "Running_A",
                      MET_HITCH | MET_TELEPORT | MET_SETTLE | MET_RENDER);
}

/* ---- pendulum and aim parts end to end (tailor rig --pendulum / --aim, the player) ---- */

/* Every malloc of the process counted while `counting_on` (the player's step must make none).
 * The C library's own allocator does the work; under a sanitizer, which replaces malloc itself,
 * nothing is counted. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define COUNT_MALLOC 0
#endif
#endif
#if !defined(COUNT_MALLOC) && defined(__GLIBC__)
#define COUNT_MALLOC 1
#endif
#ifndef COUNT_MALLOC
#define COUNT_MALLOC 0
#endif
static volatile bool counting_on;
static volatile size_t counted;
#if COUNT_MALLOC
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void __libc_free(void*);
void* malloc(size_t n) {
    if (counting_on) counted++;
    return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
    if (counting_on) counted++;
    return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
    if (counting_on) counted++;
    return __libc_realloc(p, n);
}
void free(void* p) {
    __libc_free(p);
}
#endif

/* The Quaternius knight with a pendulum on its head joint and its left shoulder aimed at the
 * head (the aim unlimited, so its axis must reach the target every frame), rigged by the CLI. */
static const char* knight_joint_parts(void) {
    const char* input = tl_test_shared("assets/quaternius-knight/KnightCharacter.glb");
    const char* output = tl_test_scratch("knight-joint-parts.glb");
    int rc = tl_test_cli(NULL,
                         "rig '%s' -o '%s' --force --pendulum Head --aim Shoulder.L=Head:180 "
                         ">/dev/null",
                         input, output);
    return rc == 0 ? output : NULL;
}

static void test_knight_pendulum_aim(void) {
    const char* path = knight_joint_parts();
    ENSURE_MSG(path, "tailor rig --pendulum Head --aim Shoulder.L=Head:180 failed");
    json_t* v = tl_test_validate(path);
    ENSURE_MSG(v, "the glTF validator did not run");
    fprintf(stderr, "  validator: %lld error(s), %lld warning(s)\n",
            (long long)json_integer_value(json_object_get(v, "errors")),
            (long long)json_integer_value(json_object_get(v, "warnings")));
    ENSURE(json_integer_value(json_object_get(v, "errors")) == 0);
    json_decref(v);
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE(load_scene(path, &doc, &scene));
    ENSURE(scene->joint_part_count == 2);
    uint32_t run;
    ENSURE_OK(tl_scene_find_clip(scene, "Run", &run, &err), err);

    /* the clip at 60 fps through a player with no chain; no allocation in any advance */
    tl_player_def pdef = tl_default_player_def();
    pdef.loop = true;
    tl_player* player;
    ENSURE_OK(tl_player_create(scene, NULL, 0, &pdef, &player, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    tl_pose* plain = tl_pose_create(scene);
    const tl_scene_part* aim = &scene->parts[tl_player_joint_part(player, 1)];
    ENSURE(aim->kind == TL_PART_AIM && tl_player_pendulum(player, 0));
    float swing = 0, aim_error = 0, unaimed = 0;
    double duration = scene->clips[run].duration;
    counting_on = true; /* the counter sees an allocation */
    tl_pose_destroy(tl_pose_create(scene));
    counting_on = false;
    ENSURE(counted > 0 || !COUNT_MALLOC);
    counted = 0;
    for (int f = 0; f <= 240; ++f) {
        float t = (float)fmod(f / 60.0, duration);
        counting_on = true;
        tl_player_advance(player, pose, run, t);
        counting_on = false;
        swing = fmaxf(swing, tl_pendulum_swing_deg(tl_player_pendulum(player, 0)));
        aim_error = fmaxf(aim_error, tl_measure_aim_error_deg(scene, aim, pose));
        tl_pose_sample(plain, scene, run, t);
        unaimed = fmaxf(unaimed, tl_measure_aim_error_deg(scene, aim, plain));
    }
    fprintf(stderr,
            "  Run, 4 s at 60 fps: head swing up to %.2f°, aim off target at most %.4f° (the clip "
            "alone: %.1f°); %zu allocation(s) in the advances%s\n",
            swing, aim_error, unaimed, counted, COUNT_MALLOC ? "" : " (not counted here)");
    ENSURE_MSG(swing >= 5, "the head swings at most %.2f° in a run", swing);
    ENSURE_MSG(swing <= 60.0001f, "the head swings %.2f°, past its 60° cone", swing);
    ENSURE_MSG(aim_error <= 0.05f, "the aim is %.4f° off its target", aim_error);
    ENSURE_MSG(unaimed >= 10, "the clip alone is only %.1f° off (the test would not see the aim)",
               unaimed);
    ENSURE_MSG(counted == 0, "%zu allocation(s) in the player's advances", counted);

    /* a reported cut 100 m away carries the pendulum: it swings on as without the jump */
    tl_player *control, *cut;
    ENSURE_OK(tl_player_create(scene, NULL, 0, &pdef, &control, &err), err);
    ENSURE_OK(tl_player_create(scene, NULL, 0, &pdef, &cut, &err), err);
    float off = 0, move[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 100, 0, 0, 1};
    for (int f = 0; f <= 180; ++f) {
        float t = (float)fmod(f / 60.0, duration), dt = f ? 1.0f / 60.0f : 0.0f;
        tl_pose_sample(plain, scene, run, t);
        counting_on = true;
        tl_player_step_pose(control, plain, dt);
        counting_on = false;
        if (f == 60) { /* the last frame's pose, moved: where the next one starts */
            tl_pose_sample(pose, scene, run, (float)fmod((f - 1) / 60.0, duration));
            tl_pose_move_skin(pose, scene, 0, move);
            tl_player_cut(cut, pose);
        }
        tl_pose_sample(pose, scene, run, t);
        if (f >= 60) tl_pose_move_skin(pose, scene, 0, move);
        tl_player_step_pose(cut, pose, dt);
        if (f >= 60)
            off = fmaxf(off, fabsf(tl_pendulum_swing_deg(tl_player_pendulum(control, 0)) -
                                   tl_pendulum_swing_deg(tl_player_pendulum(cut, 0))));
    }
    fprintf(stderr, "  a reported cut 100 m away: the swing %.4f° from the run without it\n", off);
    ENSURE_MSG(off <= 0.05f, "the cut moved the swing by %.4f°", off);
    ENSURE_MSG(counted == 0, "%zu allocation(s) in step_pose", counted);
    tl_player_destroy(control);
    tl_player_destroy(cut);

    /* the stress runs: the swing in the clip, the settle after the hip shake (within 2 s) */
    tl_stress_def def = tl_default_stress_def();
    tl_joint_part_report r[2];
    uint32_t n;
    ENSURE_OK(tl_measure_stress_joint_parts(scene, (int32_t)run, &def, r, 2, &n, &err), err);
    ENSURE(n == 2 && r[0].kind == TL_PART_PENDULUM && r[1].kind == TL_PART_AIM);
    fprintf(stderr, "  stress: swing %.2f°, settles in %.2f s; aim off at most %.4f°\n",
            r[0].swing_max_deg, r[0].settle_seconds, r[1].aim_error_max_deg);
    ENSURE(r[0].nonfinite == 0 && r[1].nonfinite == 0);
    ENSURE_MSG(r[0].settle_seconds >= 0 && r[0].settle_seconds <= 2, "settles in %.2f s",
               r[0].settle_seconds);
    ENSURE_MSG(r[1].aim_error_max_deg <= 0.05f, "aim off %.4f°", r[1].aim_error_max_deg);
    tl_pose_destroy(plain);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* tailor rig's refusals of --pendulum / --aim: exit 2 and a message naming the option. */
static void test_rig_joint_part_errors(void) {
    static const struct {
        const char *options, *message;
    } cases[] = {
        {"--pendulum Nope", "--pendulum Nope: no node is named or numbered \"Nope\""},
        {"--pendulum Head:-1", "--pendulum Head:-1: the length must be a number of metres > 0"},
        {"--aim Shoulder.L=LowerArm.L", "target node 14 is below node 12: turning it would move "
                                        "its own target"},
        {"--aim Shoulder.L=Shoulder.L", "target node 12 is the same as node 12"},
        {"--aim Shoulder.L", "expected NODE=TARGET"},
        {"--aim Shoulder.L=Head:200", "MAX_DEG must be in [0, 180]"},
        {"--pendulum Head --pendulum 10", "node 10 (Head) already holds a part"},
        {"--aim Shoulder.L=Shoulder.R --aim Shoulder.R=UpperArm.L", "(a cycle of aims)"},
    };
    const char* input = tl_test_shared("assets/quaternius-knight/KnightCharacter.glb");
    const char* output = tl_test_scratch("knight-refused.glb");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        remove(output);
        char* out = NULL;
        int rc = tl_test_cli(&out, "rig '%s' -o '%s' %s 2>&1", input, output, cases[i].options);
        ENSURE_MSG(rc == 2 && out && strstr(out, cases[i].message), "%s: exit %d, %s",
                   cases[i].options, rc, out ? out : "(no output)");
        FILE* f = fopen(output, "rb");
        ENSURE_MSG(!f, "%s: an output was written", cases[i].options);
        free(out);
    }
}

/* tailor bake on the knight: the pendulum's and the aim's motion keyed into every clip (their
 * parts then leave the file): the baked Run alone swings the head and keeps the shoulder on its
 * target, within the bake's key tolerance. */
static void test_knight_bake(void) {
    const char* path = knight_joint_parts();
    ENSURE_MSG(path, "tailor rig --pendulum Head --aim Shoulder.L=Head:180 failed");
    const char* baked = tl_test_scratch("knight-joint-parts-baked.glb");
    ENSURE(tl_test_cli(NULL, "bake '%s' -o '%s' --force >/dev/null", path, baked) == 0);
    tl_gltf *doc, *bdoc;
    tl_scene *scene, *bscene;
    tl_error err;
    ENSURE(load_scene(path, &doc, &scene));
    ENSURE(load_scene(baked, &bdoc, &bscene));
    ENSURE_MSG(bscene->joint_part_count == 0, "%u parts left", bscene->joint_part_count);
    const tl_scene_part* aim = &scene->parts[scene->joint_parts[1]];
    const tl_scene_part* pen = &scene->parts[scene->joint_parts[0]];
    ENSURE(aim->kind == TL_PART_AIM && pen->kind == TL_PART_PENDULUM);
    uint32_t run, brun;
    ENSURE_OK(tl_scene_find_clip(scene, "Run", &run, &err), err);
    ENSURE_OK(tl_scene_find_clip(bscene, "Run", &brun, &err), err);
    tl_pose* a = tl_pose_create(scene);
    tl_pose* b = tl_pose_create(bscene);
    uint32_t head = scene->skins[0].joints[pen->bone_joints[0]].node;
    float turned = 0, aim_error = 0;
    for (int f = 0; f <= 60; ++f) {
        float t = scene->clips[run].duration * (float)f / 60.0f;
        tl_pose_sample(a, scene, run, t);
        tl_pose_sample(b, bscene, brun, t);
        const float *q = a->locals[head].rotation, *r = b->locals[head].rotation;
        double d = fabs((double)q[0] * r[0] + (double)q[1] * r[1] + (double)q[2] * r[2] +
                        (double)q[3] * r[3]);
        turned = fmaxf(turned, (float)(2 * acos(d < 1 ? d : 1) * 180 / PI));
        aim_error = fmaxf(aim_error, tl_measure_aim_error_deg(bscene, aim, b));
    }
    fprintf(stderr, "  baked Run: the head up to %.2f° off the clip's, the aim %.3f° off target\n",
            turned, aim_error);
    ENSURE_MSG(turned >= 5, "the baked head is at most %.2f° off the clip's", turned);
    /* the keys' tolerance (0.1°) on the shoulder and on the head it aims at */
    ENSURE_MSG(aim_error <= 0.5f, "the baked aim is %.3f° off", aim_error);
    tl_pose_destroy(a);
    tl_pose_destroy(b);
    tl_scene_destroy(bscene);
    tl_gltf_destroy(bdoc);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* tailor measure on the knight plays its pendulum and aim in the clip run: a region for each
 * (the skin its joint turns) with the swing or the aim error, the skin's stretch as played
 * beside the file's static one, and the clip's "joint_parts". */
static void test_knight_measure_joints(void) {
    const char* path = knight_joint_parts();
    ENSURE_MSG(path, "tailor rig --pendulum Head --aim Shoulder.L=Head:180 failed");
    char* out = NULL;
    ENSURE(tl_test_cli(&out, "measure '%s' --clip Run --json", path) == 0);
    json_t* doc = out ? json_loads(out, 0, NULL) : NULL;
    free(out);
    ENSURE_MSG(doc, "tailor measure --json printed no JSON");
    json_t* regions = json_object_get(doc, "regions");
    const json_t *head = NULL, *shoulder = NULL;
    for (size_t i = 0; i < json_array_size(regions); ++i) {
        json_t* r = json_array_get(regions, i);
        const char* cls = json_string_value(json_object_get(r, "class"));
        const char* name = json_string_value(json_object_get(r, "name"));
        if (cls && name && !strcmp(cls, "pendulum") && !strcmp(name, "Head")) head = r;
        if (cls && name && !strcmp(cls, "aim") && !strcmp(name, "Shoulder.L")) shoulder = r;
    }
    ENSURE_MSG(head && shoulder, "no pendulum Head or aim Shoulder.L region (%zu regions)",
               json_array_size(regions));
    double swing =
        json_number_value(json_object_get(json_object_get(head, "joint"), "swing_max_deg"));
    double aim_error =
        json_number_value(json_object_get(json_object_get(shoulder, "joint"), "aim_error_max_deg"));
    json_t* st = json_object_get(head, "stretch");
    double p99_static =
        json_number_value(json_object_get(json_object_get(st, "chain_static"), "p99"));
    double p99_played = json_number_value(json_object_get(json_object_get(st, "chain"), "p99"));
    fprintf(stderr,
            "  measure, Run: Head (%lld vertices) swings up to %.2f°, stretch p99 %.3f static, "
            "%.3f played; Shoulder.L off target at most %.4f°\n",
            (long long)json_integer_value(json_object_get(head, "vertices")), swing, p99_static,
            p99_played, aim_error);
    ENSURE_MSG(swing >= 5 && swing <= 60.0001, "the head swings %.2f° in the measured run", swing);
    ENSURE_MSG(aim_error <= 0.05, "the measured aim is %.4f° off its target", aim_error);
    ENSURE(json_integer_value(json_object_get(head, "vertices")) > 0);
    ENSURE_MSG(p99_static > 0 && p99_played != p99_static,
               "the head's skin stretches the same played as static (p99 %.4f)", p99_played);
    ENSURE(json_array_size(json_object_get(doc, "joint_parts")) == 2);
    json_decref(doc);
}

/* The node's joint in the scene's skin `skin`, or -1. */
static int32_t joint_of_node(const tl_scene* scene, uint32_t skin, const char* name) {
    const tl_scene_skin* sk = &scene->skins[skin];
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        if (!strcmp(sk->joints[j].name, name)) return (int32_t)j;
    return -1;
}

/* The angle between two unit quaternions, degrees. */
static float quat_angle_deg(const float* a, const float* b) {
    double d =
        fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
    return (float)(2 * acos(d < 1 ? d : 1) * 180 / PI);
}

/* tailor rig --pendulum on an unskinned mesh node under a joint (the KayKit knight's helmet
 * under its head, a stand-in for a hood): the node becomes a joint of the skin, skinning as its
 * head in the stored pose; the file validates, the clip poses the helmet as the input's did,
 * and played the pendulum swings the helmet. */
static void test_mesh_node_pendulum(void) {
    const char* input = tl_test_shared("assets/kaykit-knight/Knight.glb");
    const char* path = tl_test_scratch("kaykit-helmet-pendulum.glb");
    ENSURE_MSG(tl_test_cli(NULL, "rig '%s' -o '%s' --force --pendulum Knight_Helmet >/dev/null",
                           input, path) == 0,
               "tailor rig --pendulum Knight_Helmet failed");
    json_t* v = tl_test_validate(path);
    ENSURE_MSG(v, "the glTF validator did not run");
    ENSURE(json_integer_value(json_object_get(v, "errors")) == 0);
    json_decref(v);
    tl_gltf *doc, *idoc;
    tl_scene *scene, *iscene;
    tl_error err;
    ENSURE(load_scene(path, &doc, &scene));
    ENSURE(load_scene(input, &idoc, &iscene));
    ENSURE(scene->joint_part_count == 1 && iscene->joint_part_count == 0);
    const tl_scene_part* pen = &scene->parts[scene->joint_parts[0]];
    int32_t helmet = joint_of_node(scene, pen->skin, "Knight_Helmet");
    int32_t head = joint_of_node(scene, pen->skin, "head");
    ENSURE(pen->kind == TL_PART_PENDULUM && helmet >= 0 && head >= 0 &&
           pen->bone_joints[0] == (uint32_t)helmet);
    const tl_scene_skin* sk = &scene->skins[pen->skin];
    uint32_t node = sk->joints[helmet].node;
    ENSURE(doc->nodes[node].mesh != TL_NONE && doc->nodes[node].skin == TL_NONE);
    /* in the stored pose the new joint skins as its head: W(helmet) IBM(helmet) = W(head) IBM(head)
     */
    float a[16], b[16], skinning = 0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            a[4 * c + r] = b[4 * c + r] = 0;
            for (int k = 0; k < 4; ++k) {
                a[4 * c + r] += scene->stored_world[16 * node + 4 * k + r] *
                                sk->joints[helmet].inverse_bind[4 * c + k];
                b[4 * c + r] += scene->stored_world[16 * sk->joints[head].node + 4 * k + r] *
                                sk->joints[head].inverse_bind[4 * c + k];
            }
        }
    for (int k = 0; k < 16; ++k)
        skinning = fmaxf(skinning, fabsf(a[k] - b[k]));
    /* the clip poses the helmet as the input did; the player swings it */
    uint32_t clip, iclip;
    ENSURE_OK(tl_scene_find_clip(scene, "Running_A", &clip, &err), err);
    ENSURE_OK(tl_scene_find_clip(iscene, "Running_A", &iclip, &err), err);
    tl_player_def pdef = tl_default_player_def();
    pdef.loop = true;
    tl_player* player;
    ENSURE_OK(tl_player_create(scene, NULL, 0, &pdef, &player, &err), err);
    tl_pose* pose = tl_pose_create(scene);
    tl_pose* plain = tl_pose_create(scene);
    tl_pose* before = tl_pose_create(iscene);
    float posed = 0, turned = 0, swing = 0;
    double duration = scene->clips[clip].duration;
    for (int f = 0; f <= 240; ++f) {
        float t = (float)fmod(f / 60.0, duration);
        tl_player_advance(player, pose, clip, t);
        tl_pose_sample(plain, scene, clip, t);
        tl_pose_sample(before, iscene, iclip, t);
        for (int k = 0; k < 16; ++k)
            posed = fmaxf(posed, fabsf(plain->world[16 * node + k] - before->world[16 * node + k]));
        tl_chain_pose p = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)node);
        tl_chain_pose q = tl_chain_pose_from_matrix(plain->world + 16 * (size_t)node);
        turned = fmaxf(turned, quat_angle_deg(p.rotation, q.rotation));
        swing = fmaxf(swing, tl_pendulum_swing_deg(tl_player_pendulum(player, 0)));
    }
    fprintf(stderr,
            "  helmet node %u: joint %d of %u, skinning off its head's by %.2g; the clip poses it "
            "%.2g off the input; Running_A 4 s: swing up to %.2f°, turned up to %.2f° off the "
            "clip\n",
            node, helmet, sk->joint_count, skinning, posed, swing, turned);
    ENSURE_MSG(skinning <= 1e-5f, "the helmet skins %.3g off its head in the stored pose",
               skinning);
    ENSURE_MSG(posed <= 1e-5f, "the clip poses the helmet %.3g off the input's", posed);
    ENSURE_MSG(swing >= 5 && swing <= 60.0001f, "the helmet swings %.2f°", swing);
    ENSURE_MSG(turned >= 5, "the helmet is at most %.2f° off the clip's", turned);
    tl_pose_destroy(before);
    tl_pose_destroy(plain);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    tl_scene_destroy(iscene);
    tl_gltf_destroy(idoc);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

static const tl_test_case cases[] = {
    {"sampled_frame_rate", test_sampled_frame_rate},
    {"sampled_cut", test_sampled_cut},
    {"pendulum_look_at", test_pendulum_look_at},
    {"pendulum_limits", test_pendulum_limits},
    {"pendulum_teleport_and_def", test_pendulum_teleport_and_def},
    {"pendulum_off_grid", test_pendulum_off_grid},
    {"aim", test_aim},
    {"knight_pendulum_aim", test_knight_pendulum_aim},
    {"knight_bake", test_knight_bake},
    {"knight_measure_joints", test_knight_measure_joints},
    {"mesh_node_pendulum", test_mesh_node_pendulum},
    {"rig_joint_part_errors", test_rig_joint_part_errors},
    {"stress_skirt", test_stress_skirt},
    {"stress_knight_cape", test_stress_knight_cape},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
