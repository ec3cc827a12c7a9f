/* Helpers shared by the mesh algorithms (not installed). */
#ifndef TL_MESH_INTERNAL_H
#define TL_MESH_INTERNAL_H

#include <tailor/mesh.h>

#include <assert.h>

/* The xyz of vertex i in a strided position array. */
static inline const float* tl__mesh_position(const float* positions, size_t stride, size_t i) {
    return (const float*)((const char*)positions + i * stride);
}

/* Squared distance from p to segment a-b and the clamped parameter t, exactly as the spec
 * writes it (tl_mesh_segment_distance is its square root; inline for the hair's cover). */
static inline float tl__mesh_segment_distance2(const float p[3], const float a[3], const float b[3],
                                               float* t_out) {
    float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    float length_squared = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    float t = 0.0f; /* a zero-length segment is its point a */
    if (length_squared > 0.0f) {
        t = (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / length_squared;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    }
    float d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    if (t_out) *t_out = t;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* tl_mesh_weld (weld.c), its cells sorted by packed keys (packed: what tl_mesh_weld does) or
 * by the merge sort alone (the test that compares them). */
size_t tl__mesh_weld(uint32_t* remap, const float* positions, size_t vertex_count, size_t stride,
                     float tolerance, bool packed);

/* Union-find stored in one uint32 array, with the invariant parent[x] <= x: a union always
 * hangs the larger root under the smaller, so every root is its set's lowest index. */
static inline uint32_t tl__forest_find(uint32_t* parent, uint32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving keeps parent[x] <= x */
        x = parent[x];
    }
    return x;
}

static inline void tl__forest_unite(uint32_t* parent, uint32_t a, uint32_t b) {
    a = tl__forest_find(parent, a);
    b = tl__forest_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* Replaces every parent link by its set's label, 0..count-1 in order of each set's lowest
 * index, and returns count. Entries equal to UINT32_MAX (not in any set) stay so. Works in
 * place because parent[i] <= i: scanning upwards, a link's target is always final. */
static inline size_t tl__forest_label(uint32_t* parent, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (parent[i] != UINT32_MAX) parent[i] = parent[parent[i]]; /* now the root */
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t root = parent[i];
        if (root == UINT32_MAX) continue;
        parent[i] = root == i ? (uint32_t)count++ : parent[root]; /* root < i: already a label */
    }
    return count;
}

#endif
