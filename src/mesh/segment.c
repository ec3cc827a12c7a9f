/* Point–segment distances (the skeleton distance field of tails.md §1), a point's nearest
 * point on a triangle, and a ray's hit on one. */
#include "internal.h"

#include <math.h>

float tl_mesh_segment_distance(const float p[3], const float a[3], const float b[3], float* t_out) {
    assert(p && a && b);
    return sqrtf(tl__mesh_segment_distance2(p, a, b, t_out));
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
            float d = tl__mesh_segment_distance2(p, segments + 6 * s, segments + 6 * s + 3, NULL);
            if (d < best) best = d, best_index = (uint32_t)s;
        }
        distance[i] = sqrtf(best);
        if (nearest) nearest[i] = best_index;
    }
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The nearest point by the Voronoi regions of the vertices, edges and face. */
float tl_mesh_triangle_nearest(const float p[3], const float a[3], const float b[3],
                               const float c[3], float bary[3]) {
    /* by the Voronoi regions of the vertices, edges and face */
    float ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    }
    float d1 = dot3(ab, ap), d2 = dot3(ac, ap), d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    float d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    float u = 1, v = 0, w = 0; /* weights of a, b, c */
    float vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0) {
        u = 1, v = 0, w = 0;
    } else if (d3 >= 0 && d4 <= d3) {
        u = 0, v = 1, w = 0;
    } else if (d6 >= 0 && d5 <= d6) {
        u = 0, v = 0, w = 1;
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
        /* (an edge of no length is no edge: the point lies on another, or at a vertex) */
        v = d1 / (d1 - d3), u = 1 - v, w = 0;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
        w = d2 / (d2 - d6), u = 1 - w, v = 0;
    } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0 && (d4 - d3) + (d5 - d6) > 0) {
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6)), v = 1 - w, u = 0;
    } else {
        float s = va + vb + vc;
        if (s > 0) {
            v = vb / s, w = vc / s, u = 1 - v - w;
        } /* else degenerate: a */
    }
    bary[0] = u, bary[1] = v, bary[2] = w;
    float q[3];
    for (int k = 0; k < 3; ++k)
        q[k] = u * a[k] + v * b[k] + w * c[k];
    float d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return dot3(d, d);
}

double tl_mesh_ray_triangle(const float o[3], const double d[3], const float a[3], const float b[3],
                            const float c[3]) {
    /* Moller-Trumbore, in doubles from the float differences */
    double e1[3], e2[3], s[3];
    for (int k = 0; k < 3; ++k)
        e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = o[k] - a[k]; /* in floats */
    double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                   d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
    if (fabs(det) < 1e-30) return INFINITY;
    double f = 1 / det, u = f * (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]);
    if (u < 0 || u > 1) return INFINITY;
    double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2],
                   s[0] * e1[1] - s[1] * e1[0]};
    double v = f * (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]);
    if (v < 0 || u + v > 1) return INFINITY;
    return f * (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]);
}
