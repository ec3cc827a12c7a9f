/* The cloth solver and the pendulum as a WebAssembly program: a closed skirt (8 x 16) and an
 * open cape (6 x 9) on a body that walks, turns and bobs, against two leg capsules and an
 * ellipsoid, plus a pendulum hung from the same body; prints every particle and the pendulum's
 * rotation every 30 frames. tests/wasm_cloth.sh builds it natively and for wasm32-wasi and
 * compares the two outputs. Only + - * / and sqrt (exact in IEEE) make the inputs, so libm
 * differences between glibc and wasi-libc cannot enter them. With "simd" as argument the
 * native build keeps its SSE2/AVX2 relaxation kernels; without it it runs the scalar kernel
 * wasm32 runs. */
#include <tailor/cloth.h>
#include <tailor/pendulum.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/cloth_internal.h"

enum { FRAMES = 240, MAXN = 8 * 16 };

/* A point on the unit circle from a rational parameter (no sin/cos): (2u, 1 - u^2) / (1 + u^2). */
static void circle(float u, float* s, float* c) {
    float d = 1.0f + u * u;
    *s = 2.0f * u / d, *c = (1.0f - u * u) / d;
}

static void make_lattice(bool skirt, int rows, int columns, float* rest) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c) {
            float t = (float)r / (float)(rows - 1), *p = rest + 3 * (r * columns + c);
            if (skirt) { /* u over [-1, 1) covers half the circle; mirror it for the rest */
                int h = columns / 2, k = c % h;
                float s, co, radius = 0.17f + 0.13f * t;
                circle(-1.0f + 2.0f * (float)k / (float)h, &s, &co);
                if (c >= h) s = -s, co = -co;
                p[0] = radius * s, p[1] = 1.0f - 0.5f * t, p[2] = radius * co;
            } else {
                p[0] = 0.1f * (float)c - 0.05f * (float)(columns - 1);
                p[1] = 1.4f - 0.1f * (float)r;
                p[2] = -0.15f;
            }
        }
}

/* A triangle wave in [-1, 1] of period 1, smoothed (3x^2 - 2x^3 on each half). */
static float wave(float t) {
    float x = t - (float)(int)t, y = x < 0.5f ? 2.0f * x : 2.0f - 2.0f * x;
    return 2.0f * (y * y * (3.0f - 2.0f * y)) - 1.0f;
}

static tl_chain_pose body(int frame) {
    float t = (float)frame / 60.0f;
    tl_chain_pose p = {{0, 0, 0}, {0, 0, 0, 1}, 1};
    p.position[0] = 0.15f * wave(0.7f * t), p.position[1] = 0.04f * wave(2.0f * t);
    p.position[2] = 1.4f * t;
    p.rotation[1] = 0.1f * wave(t); /* normalised by the solver */
    float n = sqrtf(1.0f + p.rotation[1] * p.rotation[1]);
    p.rotation[1] /= n, p.rotation[3] /= n;
    return p;
}

static void apply(const tl_chain_pose* f, const float* x, float* out) {
    float qx = f->rotation[0], qy = f->rotation[1], qz = f->rotation[2], qw = f->rotation[3];
    /* v + 2w (q x v) + 2 q x (q x v) */
    float cx = qy * x[2] - qz * x[1], cy = qz * x[0] - qx * x[2], cz = qx * x[1] - qy * x[0];
    float dx = qy * cz - qz * cy, dy = qz * cx - qx * cz, dz = qx * cy - qy * cx;
    out[0] = f->position[0] + f->scale * (x[0] + 2 * (qw * cx + dx));
    out[1] = f->position[1] + f->scale * (x[1] + 2 * (qw * cy + dy));
    out[2] = f->position[2] + f->scale * (x[2] + 2 * (qw * cz + dz));
}

static int run(bool skirt) {
    int rows = skirt ? 8 : 6, columns = skirt ? 16 : 9, n = rows * columns;
    static float rest[3 * MAXN], targets[3 * MAXN];
    make_lattice(skirt, rows, columns, rest);
    tl_cloth_def def = tl_default_cloth_def();
    def.rows = rows, def.columns = columns, def.closed = skirt, def.rest_positions = rest;
    tl_cloth_model* model;
    tl_cloth* cloth;
    tl_error err;
    if (tl_cloth_model_create(&def, NULL, &model, &err) != TL_OK ||
        tl_cloth_create(model, NULL, &cloth, &err) != TL_OK) {
        printf("create: %s\n", err.message);
        return 1;
    }
    tl_pendulum pendulum;
    tl_pendulum_def pd = tl_default_pendulum_def();
    if (tl_pendulum_init(&pendulum, &pd, &err) != TL_OK) {
        printf("pendulum: %s\n", err.message);
        return 1;
    }
    tl_cloth_input in = tl_default_cloth_input();
    tl_collider legs[2];
    tl_cloth_ellipsoid belly = {{0, 1.05f, 0.05f}, {0, 0, 0, 1}, {0.16f, 0.2f, 0.12f}};
    for (int f = 0; f <= FRAMES; ++f) {
        tl_chain_pose frame = body(f);
        for (int i = 0; i < n; ++i)
            apply(&frame, rest + 3 * i, targets + 3 * i);
        for (int k = 0; k < 2; ++k) { /* legs swinging in opposite phase */
            float hip[3] = {k ? 0.09f : -0.09f, 0.95f, 0}, ankle[3];
            float s, c;
            circle(0.3f * wave((float)f / 60.0f + 0.5f * (float)k), &s, &c);
            ankle[0] = hip[0], ankle[1] = hip[1] - 0.85f * c, ankle[2] = 0.85f * s;
            legs[k].shape = TL_COLLIDER_CAPSULE, legs[k].radius = 0.075f;
            apply(&frame, hip, legs[k].a), apply(&frame, ankle, legs[k].b);
        }
        tl_cloth_ellipsoid e = belly;
        apply(&frame, belly.centre, e.centre);
        memcpy(e.rotation, frame.rotation, sizeof e.rotation);
        in.frame = frame, in.targets = targets;
        in.colliders = legs, in.collider_count = 2, in.ellipsoids = &e, in.ellipsoid_count = 1;
        in.force[0] = 2.0f * wave(0.3f * (float)f / 60.0f);
        tl_cloth_step(cloth, &in, 1.0f / 60.0f);
        tl_chain_pose pivot = frame;
        pivot.position[1] += 1.6f;
        tl_pendulum_step(&pendulum, &pivot, 1.0f / 60.0f);
        if (f % 30) continue;
        const float* x = tl_cloth_positions(cloth);
        for (int i = 0; i < n; ++i)
            printf("%s %d %d %.9g %.9g %.9g\n", skirt ? "skirt" : "cape", f, i, x[3 * i],
                   x[3 * i + 1], x[3 * i + 2]);
        float q[4];
        tl_pendulum_rotation(&pendulum, q);
        printf("pendulum %d %.9g %.9g %.9g %.9g\n", f, q[0], q[1], q[2], q[3]);
    }
    tl_cloth_stats st = tl_cloth_get_stats(cloth);
    printf("%s steps %llu contacts %u clamps %u nonfinite %u\n", skirt ? "skirt" : "cape",
           (unsigned long long)st.steps, st.contacts, st.max_distance_clamps,
           st.nonfinite_inputs + st.nonfinite_states);
    tl_cloth_destroy(cloth);
    tl_cloth_model_destroy(model);
    return 0;
}

int main(int argc, char** argv) {
    if (!(argc > 1 && strcmp(argv[1], "simd") == 0)) cloth_set_simd_level(0);
    return run(true) || run(false);
}
