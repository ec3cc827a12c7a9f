/* Cloth solver cost (CSV on stdout): a 100 x 100 lattice (10k particles) hanging from a walking
 * body, 8 relaxation iterations a step, one 1/60 s step a frame, on one core; the library's
 * step with its best vector kernels, with SSE2, with its scalar kernel, and a plain scalar
 * textbook version (positions as x,y,z structs, every constraint in one list, a branch for
 * pinned ends, sqrt and division, the same tether pass) in the same run.
 *   solver,particles,iterations,constraints,ms_per_step,ns_per_particle_iteration,plain_over_this
 */
#define _POSIX_C_SOURCE 200112L
#include "bench.h"
#include <tailor/cloth.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cloth_internal.h"

enum { ROWS = 100, COLS = 100, N = ROWS * COLS, ITER = 8 };

static tl_chain_pose walk(double t) {
    double yaw = 0.2 * sin(2 * 3.14159265358979 * t);
    tl_chain_pose p = {{(float)(0.05 * sin(2 * 3.14159265358979 * t)),
                        (float)(0.03 * sin(4 * 3.14159265358979 * t)), (float)(1.4 * t)},
                       {0, (float)sin(yaw / 2), 0, (float)cos(yaw / 2)},
                       1};
    return p;
}

static void targets_at(const float* rest, const tl_chain_pose* f, float* out) {
    qt q = qt_load(f->rotation);
    for (int i = 0; i < N; ++i)
        v3_store(out + 3 * i, v3_add(v3_load(f->position), qt_rotate(q, v3_load(rest + 3 * i))));
}

/* ---- the plain version ---- */

typedef struct plain_pair {
    int a, b;
    float rest;
    bool stretch;
} plain_pair;

typedef struct plain {
    v3 x[N], p[N];
    plain_pair* pairs;
    int pair_count;
    float tether[N];
} plain;

static void plain_step(plain* s, const float* targets, float h) {
    v3 g = v3_make(0, -9.81f * h * h, 0);
    for (int i = COLS; i < N; ++i) {
        v3 v = v3_sub(s->x[i], s->p[i]);
        s->p[i] = s->x[i];
        s->x[i] = v3_add(v3_madd(s->x[i], v, 0.96f), g);
    }
    for (int i = 0; i < COLS; ++i)
        s->x[i] = v3_load(targets + 3 * i);
    for (int it = 0; it < ITER; ++it)
        for (int k = 0; k < s->pair_count; ++k) {
            plain_pair* c = &s->pairs[k];
            v3 d = v3_sub(s->x[c->b], s->x[c->a]);
            float len = sqrtf(v3_dot(d, d));
            if (len <= 0) continue;
            v3 off = v3_scale(d, (len - c->rest) / len * (c->stretch ? 1.0f : 0.2f));
            bool pa = c->a < COLS, pb = c->b < COLS;
            if (pa)
                s->x[c->b] = v3_sub(s->x[c->b], off);
            else if (pb)
                s->x[c->a] = v3_add(s->x[c->a], off);
            else
                s->x[c->a] = v3_madd(s->x[c->a], off, 0.5f),
                s->x[c->b] = v3_madd(s->x[c->b], off, -0.5f);
        }
    for (int i = COLS; i < N; ++i) { /* the tether pass */
        v3 d = v3_sub(s->x[i], s->x[i - COLS]);
        float len = sqrtf(v3_dot(d, d));
        if (len > 0) s->x[i] = v3_madd(s->x[i - COLS], d, s->tether[i] / len);
    }
}

static double run_library(tl_cloth* c, const float* rest, float* targets, int level, int* steps) {
    cloth_set_simd_level(level);
    tl_cloth_clear(c);
    tl_cloth_input in = tl_default_cloth_input();
    in.targets = targets;
    double start = bench_cpu_ms(), now = start;
    int f = 0;
    for (; now - start < 300 || f < 30; ++f) {
        in.frame = walk(f / 60.0);
        targets_at(rest, &in.frame, targets); /* (the host's skinning, timed apart below) */
        tl_cloth_step(c, &in, f ? 1.0f / 60.0f : 0.0f);
        now = bench_cpu_ms();
    }
    *steps = f - 1;
    return now - start;
}

int main(void) {
    float* rest = bench_malloc(sizeof(float) * 3 * N);
    float* targets = bench_malloc(sizeof(float) * 3 * N);
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) {
            float* p = rest + 3 * (r * COLS + c);
            p[0] = 0.01f * (float)c - 0.5f, p[1] = 1.4f - 0.01f * (float)r, p[2] = -0.15f;
        }
    tl_cloth_def def = tl_default_cloth_def();
    def.rows = ROWS, def.columns = COLS, def.rest_positions = rest;
    def.settings.iterations = ITER;
    tl_cloth_model* model;
    tl_cloth* cloth;
    tl_error err;
    if (tl_cloth_model_create(&def, NULL, &model, &err) != TL_OK ||
        tl_cloth_create(model, NULL, &cloth, &err) != TL_OK) {
        fprintf(stderr, "bench_cloth: %s\n", err.message);
        return 1;
    }
    /* the plain version's constraint list: the same pairs, in lattice order */
    plain* s = bench_malloc(sizeof(plain));
    int total = 0;
    for (int g = 0; g < tl_cloth_model_group_count(model); ++g)
        total += tl_cloth_model_group(model, g).count;
    s->pairs = bench_malloc(sizeof(plain_pair) * (size_t)total);
    int* a = bench_malloc(sizeof(int) * (size_t)total);
    int* b = bench_malloc(sizeof(int) * (size_t)total);
    float* len = bench_malloc(sizeof(float) * (size_t)total);
    s->pair_count = 0;
    for (int g = 0; g < tl_cloth_model_group_count(model); ++g) {
        tl_cloth_group_view v = tl_cloth_model_group(model, g);
        tl_cloth_model_group_pairs(model, g, a, b, len);
        for (int k = 0; k < v.count; ++k)
            s->pairs[s->pair_count++] = (plain_pair){a[k], b[k], len[k], v.stretch};
    }
    memcpy(s->tether, tl_cloth_model_tethers(model), sizeof s->tether);
    for (int i = 0; i < N; ++i)
        s->x[i] = s->p[i] = v3_load(rest + 3 * i);

    /* the host's skinning stand-in, timed alone and subtracted from the library's runs */
    double t0 = bench_cpu_ms();
    int skin_frames = 0;
    for (; bench_cpu_ms() - t0 < 100; ++skin_frames) {
        tl_chain_pose f = walk(skin_frames / 60.0);
        targets_at(rest, &f, targets);
    }
    double skin_ms = (bench_cpu_ms() - t0) / skin_frames;

    double start = bench_cpu_ms(), now = start;
    int plain_steps = 0;
    for (; now - start < 300 || plain_steps < 30; ++plain_steps) {
        tl_chain_pose f = walk(plain_steps / 60.0);
        targets_at(rest, &f, targets);
        plain_step(s, targets, 1.0f / 60.0f);
        now = bench_cpu_ms();
    }
    double plain_ms = (now - start) / plain_steps - skin_ms;

    printf("solver,particles,iterations,constraints,ms_per_step,ns_per_particle_iteration,"
           "plain_over_this\n");
    const char* names[] = {"library_scalar", "library_sse2", "library_avx2", "library_avx512"};
    int best = cloth_simd_level();
    for (int level = best; level >= 0; --level) {
        int steps;
        double ms = run_library(cloth, rest, targets, level, &steps) / steps - skin_ms;
        printf("%s,%d,%d,%d,%.4f,%.3f,%.2f\n", names[level], N, ITER, total, ms,
               ms * 1e6 / ((double)N * ITER), plain_ms / ms);
    }
    printf("plain_scalar,%d,%d,%d,%.4f,%.3f,%.2f\n", N, ITER, total, plain_ms,
           plain_ms * 1e6 / ((double)N * ITER), 1.0);
    tl_cloth_stats st = tl_cloth_get_stats(cloth);
    fprintf(stderr, "bench_cloth: %llu steps; skinning stand-in %.4f ms a frame (subtracted)\n",
            (unsigned long long)st.steps, skin_ms);
    tl_cloth_destroy(cloth);
    tl_cloth_model_destroy(model);
    return 0;
}
