/* Point–segment distances: the skeleton distance field of tails.md §1. */
#include "internal.h"

#include <math.h>

/* Squared distance and the clamped parameter t, exactly as the spec writes it. */
static float segment_distance_squared(const float p[3], const float a[3], const float b[3],
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

float tl_mesh_segment_distance(const float p[3], const float a[3], const float b[3], float* t_out) {
    assert(p && a && b);
    return sqrtf(segment_distance_squared(p, a, b, t_out));
}

void tl_mesh_nearest_segments(float* distance, uint32_t* nearest, const float* points,
                              size_t point_count, size_t stride, const float* segments,
                              size_t segment_count) {
    assert(distance && (points || point_count == 0) && segments && segment_count > 0);
    assert(segment_count <= UINT32_MAX);
    for (size_t i = 0; i < point_count; ++i) {
        const float* p = tl__mesh_position(points, stride, i);
        float best = INFINITY;
        uint32_t best_index = 0;
        for (size_t s = 0; s < segment_count; ++s) {
            float d = segment_distance_squared(p, segments + 6 * s, segments + 6 * s + 3, NULL);
            if (d < best) best = d, best_index = (uint32_t)s;
        }
        distance[i] = sqrtf(best);
        if (nearest) nearest[i] = best_index;
    }
}
