/* A cloth region's edge stretch split by the lattice's directions (issue: vertical stretch is
 * what looks bad). Each mesh edge takes the direction, vertical or horizontal, its rest
 * direction is nearer to at the nearest rest particle. */
#include "cloth_stretch.h"
#include <tailor/colliders.h>
#include <tailor/mesh.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cloth_stretch {
    const tl_scene* scene;
    uint32_t skin;
    size_t edge_count;
    const uint32_t* edges;
    float* rest;      /* edge_count rest lengths */
    uint8_t* cls;     /* edge_count: 0 vertical, 1 horizontal */
    float* ratios[2]; /* per class: its edges x samples */
    size_t count[2], capacity[2];
    float* joints;      /* joint_count x 16 */
    float* positions;   /* vertex_count x 3 */
    uint32_t* vertices; /* the edges' ends, each once */
    size_t vertex_count;
};

static void sub3(float* out, const float* a, const float* b) {
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

static float unit_dot(const float* a, const float* b) {
    float la = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    float lb = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    return la > 0 && lb > 0 ? fabsf(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb) : 0;
}

/* The lattice's rest particles in rest-world (M . bind). */
static float* lattice_rest(const tl_scene_skin* sk, const tl_scene_part* part) {
    uint32_t N = part->cloth_rows * part->cloth_columns;
    float* p = malloc((3 * (size_t)N + 1) * sizeof *p);
    if (!p) return NULL;
    const float* M = sk->rest_world;
    for (uint32_t i = 0; i < N; ++i) {
        const float* b = part->cloth_particles + 3 * i;
        for (int r = 0; r < 3; ++r)
            p[3 * i + r] = M[r] * b[0] + M[4 + r] * b[1] + M[8 + r] * b[2] + M[12 + r];
    }
    return p;
}

static uint8_t edge_class(const tl_scene_part* part, const float* lat, const float* a,
                          const float* b) {
    uint32_t R = part->cloth_rows, C = part->cloth_columns, best = 0;
    float mid[3] = {0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2])},
          bd = INFINITY;
    for (uint32_t i = 0; i < R * C; ++i) {
        float d[3];
        sub3(d, mid, lat + 3 * i);
        float e = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (e < bd) bd = e, best = i;
    }
    uint32_t r = best / C, c = best % C;
    uint32_t up = r > 0 ? best - C : best, down = r + 1 < R ? best + C : best;
    uint32_t left = c > 0 ? best - 1 : (part->cloth_closed ? best + C - 1 : best);
    uint32_t right = c + 1 < C ? best + 1 : (part->cloth_closed ? best + 1 - C : best);
    float v[3], h[3], e[3];
    sub3(v, lat + 3 * down, lat + 3 * up);
    sub3(h, lat + 3 * right, lat + 3 * left);
    sub3(e, b, a);
    return unit_dot(e, v) >= unit_dot(e, h) ? 0 : 1;
}

cloth_stretch* cloth_stretch_create(const tl_scene* scene, uint32_t skin, const tl_scene_part* part,
                                    const uint32_t* edges, size_t edge_count, uint32_t samples) {
    const tl_scene_skin* sk = &scene->skins[skin];
    cloth_stretch* cs = calloc(1, sizeof *cs);
    float* lat = lattice_rest(sk, part);
    if (!cs || !lat) {
        free(cs);
        free(lat);
        return NULL;
    }
    cs->scene = scene, cs->skin = skin, cs->edges = edges, cs->edge_count = edge_count;
    cs->rest = malloc((edge_count + 1) * sizeof *cs->rest);
    cs->cls = malloc(edge_count + 1);
    cs->joints = malloc((16 * (size_t)sk->joint_count + 1) * sizeof *cs->joints);
    cs->positions = malloc((3 * (size_t)sk->vertex_count + 1) * sizeof *cs->positions);
    cs->vertices = malloc((2 * edge_count + 1) * sizeof *cs->vertices);
    uint8_t* seen = calloc((size_t)sk->vertex_count + 1, 1);
    bool ok = cs->rest && cs->cls && cs->joints && cs->positions && cs->vertices && seen;
    for (size_t e = 0; ok && e < 2 * edge_count; ++e)
        if (!seen[edges[e]]) seen[edges[e]] = 1, cs->vertices[cs->vertex_count++] = edges[e];
    free(seen);
    size_t n[2] = {0, 0};
    for (size_t e = 0; ok && e < edge_count; ++e) {
        const float *a = sk->rest_positions + 3 * (size_t)edges[2 * e],
                    *b = sk->rest_positions + 3 * (size_t)edges[2 * e + 1];
        float d[3];
        sub3(d, b, a);
        cs->rest[e] = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        cs->cls[e] = edge_class(part, lat, a, b);
        n[cs->cls[e]]++;
    }
    for (int k = 0; ok && k < 2; ++k) {
        cs->capacity[k] = n[k] * samples;
        ok = (cs->ratios[k] = malloc((cs->capacity[k] + 1) * sizeof(float))) != NULL;
    }
    free(lat);
    if (!ok) {
        cloth_stretch_destroy(cs);
        return NULL;
    }
    return cs;
}

void cloth_stretch_pose(cloth_stretch* cs, const tl_pose* pose) {
    tl_pose_joint_matrices(pose, cs->scene, cs->skin, cs->joints);
    tl_scene_skin_positions(cs->scene, cs->skin, cs->joints, cs->positions);
}

void cloth_stretch_add(cloth_stretch* cs, const tl_pose* pose) {
    cloth_stretch_pose(cs, pose);
    for (size_t e = 0; e < cs->edge_count; ++e) {
        int k = cs->cls[e];
        if (cs->count[k] >= cs->capacity[k] || !(cs->rest[e] > 0)) continue;
        float d[3];
        sub3(d, cs->positions + 3 * (size_t)cs->edges[2 * e + 1],
             cs->positions + 3 * (size_t)cs->edges[2 * e]);
        cs->ratios[k][cs->count[k]++] =
            sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / cs->rest[e];
    }
}

double cloth_stretch_depth(const cloth_stretch* cs, const tl_collider* colliders, uint32_t count) {
    double deepest = 0;
    for (uint32_t k = 0; k < count; ++k)
        for (size_t i = 0; i < cs->vertex_count; ++i) {
            double d =
                tl_collider_depth(&colliders[k], cs->positions + 3 * (size_t)cs->vertices[i]);
            if (d > deepest) deepest = d;
        }
    return deepest;
}

static void stats_of(float* r, size_t n, tl_stretch_stats* out) {
    tl_measure_def def = tl_default_measure_def();
    memset(out, 0, sizeof *out);
    out->count = n;
    if (!n) return;
    uint64_t torn = 0;
    float max = 0;
    for (size_t i = 0; i < n; ++i) {
        torn += r[i] > def.torn_above || r[i] < def.torn_below;
        max = fmaxf(max, r[i]);
    }
    out->max = max;
    out->torn_pct = (float)(100.0 * (double)torn / (double)n);
    out->p95 = tl_mesh_percentile(r, n, 95.0f);
    out->p99 = tl_mesh_percentile(r, n, 99.0f);
}

void cloth_stretch_stats(cloth_stretch* cs, tl_stretch_stats* vertical,
                         tl_stretch_stats* horizontal) {
    stats_of(cs->ratios[0], cs->count[0], vertical);
    stats_of(cs->ratios[1], cs->count[1], horizontal);
}

void cloth_stretch_destroy(cloth_stretch* cs) {
    if (!cs) return;
    free(cs->rest);
    free(cs->cls);
    free(cs->ratios[0]);
    free(cs->ratios[1]);
    free(cs->joints);
    free(cs->positions);
    free(cs->vertices);
    free(cs);
}
