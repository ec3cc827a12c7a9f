/* Edge stretch over a clip (measure.md): skinned length over rest length, per region. */
#include <tailor/measure.h>
#include <tailor/mesh.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_measure_def tl_default_measure_def(void) {
    tl_measure_def def;
    def.samples = 24;
    def.torn_above = 1.5f;
    def.torn_below = 0.67f;
    return def;
}

typedef struct region_edges {
    uint32_t* edges; /* pairs */
    float* rest;     /* rest length per edge */
    float* ratios;   /* count × samples */
    size_t count;
} region_edges;

struct tl_stretch {
    const tl_scene* scene;
    uint32_t skin;
    tl_measure_def def;
    region_edges* regions;
    uint32_t region_count;
    tl_pose* pose;
    float* joint_matrices;
    float* positions;
};

static float edge_length(const float* positions, uint32_t a, uint32_t b) {
    float dx = positions[3 * a] - positions[3 * b];
    float dy = positions[3 * a + 1] - positions[3 * b + 1];
    float dz = positions[3 * a + 2] - positions[3 * b + 2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

tl_result tl_stretch_create(const tl_scene* scene, uint32_t skin, const uint8_t* const* masks,
                            uint32_t mask_count, const tl_measure_def* def, tl_stretch** out,
                            tl_error* err) {
    assert(skin < scene->skin_count && def->samples > 0);
    *out = NULL;
    const tl_scene_skin* sk = &scene->skins[skin];
    tl_stretch* st = calloc(1, sizeof *st);
    if (!st) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    st->scene = scene;
    st->skin = skin;
    st->def = *def;
    st->region_count = mask_count;
    st->regions = calloc(mask_count ? mask_count : 1, sizeof *st->regions);
    size_t index_count = (size_t)sk->triangle_count * 3;
    uint32_t* all = malloc(sizeof(uint32_t) * 2 * (tl_mesh_edges_bound(index_count) + 1));
    size_t all_count = all ? tl_mesh_edges(all, sk->triangles, index_count, NULL) : 0;
    bool ok = st->regions && all && all_count != TL_MESH_OUT_OF_MEMORY;
    float min_rest = 1e-6f * (sk->height > 0 ? sk->height : 1.0f);
    for (uint32_t m = 0; ok && m < mask_count; ++m) {
        region_edges* r = &st->regions[m];
        r->edges = malloc(sizeof(uint32_t) * 2 * (all_count + 1));
        r->rest = malloc(sizeof(float) * (all_count + 1));
        ok = r->edges && r->rest;
        for (size_t e = 0; ok && e < all_count; ++e) {
            uint32_t a = all[2 * e], b = all[2 * e + 1];
            if (!masks[m][a] || !masks[m][b]) continue;
            float len = edge_length(sk->rest_positions, a, b);
            if (!(len > min_rest)) continue;
            r->edges[2 * r->count] = a;
            r->edges[2 * r->count + 1] = b;
            r->rest[r->count++] = len;
        }
        r->ratios = malloc(sizeof(float) * (r->count * def->samples + 1));
        ok = ok && r->ratios;
    }
    free(all);
    if (ok) {
        st->pose = tl_pose_create(scene);
        st->joint_matrices = malloc(sizeof(float) * 16 * (sk->joint_count + 1));
        st->positions = malloc(sizeof(float) * 3 * ((size_t)sk->vertex_count + 1));
        ok = st->pose && st->joint_matrices && st->positions;
    }
    if (!ok) {
        tl_stretch_destroy(st);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory preparing edge stretch");
    }
    *out = st;
    return TL_OK;
}

size_t tl_stretch_edge_count(const tl_stretch* st, uint32_t mask) {
    assert(mask < st->region_count);
    return st->regions[mask].count;
}

const uint32_t* tl_stretch_edges(const tl_stretch* st, uint32_t mask) {
    assert(mask < st->region_count);
    return st->regions[mask].edges;
}

/* Stats of one region over all its samples (reorders the ratios). */
static tl_stretch_stats summarise(const tl_stretch* st, float* ratios, size_t n) {
    tl_stretch_stats s = {0};
    if (n == 0) return s;
    size_t torn = 0;
    float mx = 0;
    for (size_t i = 0; i < n; ++i) {
        float r = ratios[i];
        if (r > mx) mx = r;
        if (r > st->def.torn_above || r < st->def.torn_below) ++torn;
    }
    s.count = n;
    s.max = mx;
    s.torn_pct = (float)(100.0 * (double)torn / (double)n);
    s.p95 = tl_mesh_percentile(ratios, n, 95);
    s.p99 = tl_mesh_percentile(ratios, n, 99);
    return s;
}

void tl_stretch_run(tl_stretch* st, uint32_t clip, tl_measure_pose_fn* pose_fn, void* user,
                    tl_stretch_stats* out) {
    const tl_scene* scene = st->scene;
    assert(clip < scene->clip_count);
    float duration = scene->clips[clip].duration;
    uint32_t samples = st->def.samples;
    for (uint32_t j = 0; j < samples; ++j) {
        float t = (float)j * duration / (float)samples;
        tl_pose_sample(st->pose, scene, clip, t);
        if (pose_fn) pose_fn(user, st->pose, t);
        tl_pose_joint_matrices(st->pose, scene, st->skin, st->joint_matrices);
        tl_scene_skin_positions(scene, st->skin, st->joint_matrices, st->positions);
        for (uint32_t m = 0; m < st->region_count; ++m) {
            const region_edges* r = &st->regions[m];
            float* ratios = r->ratios + (size_t)j * r->count;
            for (size_t e = 0; e < r->count; ++e)
                ratios[e] =
                    edge_length(st->positions, r->edges[2 * e], r->edges[2 * e + 1]) / r->rest[e];
        }
    }
    for (uint32_t m = 0; m < st->region_count; ++m)
        out[m] = summarise(st, st->regions[m].ratios, st->regions[m].count * samples);
}

void tl_stretch_destroy(tl_stretch* st) {
    if (!st) return;
    for (uint32_t m = 0; st->regions && m < st->region_count; ++m) {
        free(st->regions[m].edges);
        free(st->regions[m].rest);
        free(st->regions[m].ratios);
    }
    free(st->regions);
    tl_pose_destroy(st->pose);
    free(st->joint_matrices);
    free(st->positions);
    free(st);
}
