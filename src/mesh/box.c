/* Axis-aligned boxes of point subsets and their overlap (tails.md §2 merge rule). */
#include "internal.h"

#include <math.h>

tl_mesh_box tl_mesh_box_of(const float* positions, size_t point_count, size_t stride,
                           const uint32_t* subset, size_t subset_count) {
    size_t n = subset ? subset_count : point_count;
    assert(positions || n == 0);
    tl_mesh_box box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t i = 0; i < n; ++i) {
        size_t v = subset ? subset[i] : i;
        assert(!subset || v < point_count);
        const float* p = tl__mesh_position(positions, stride, v);
        for (int k = 0; k < 3; ++k) {
            if (p[k] < box.min[k]) box.min[k] = p[k];
            if (p[k] > box.max[k]) box.max[k] = p[k];
        }
    }
    return box;
}

/* Ordering for "the smaller box": fewer axes with extent, then the smaller product of the
 * non-zero extents (the volume, when all three have extent). */
static void box_size(const tl_mesh_box* b, int* axes, double* measure) {
    *axes = 0;
    *measure = 1.0;
    for (int k = 0; k < 3; ++k) {
        double extent = (double)b->max[k] - (double)b->min[k];
        if (extent > 0) ++*axes, *measure *= extent;
    }
}

float tl_mesh_box_overlap(const tl_mesh_box* a, const tl_mesh_box* b) {
    assert(a && b);
    for (int k = 0; k < 3; ++k)
        if (!(a->min[k] <= a->max[k]) || !(b->min[k] <= b->max[k])) return 0.0f; /* empty */
    int axes_a, axes_b;
    double measure_a, measure_b;
    box_size(a, &axes_a, &measure_a);
    box_size(b, &axes_b, &measure_b);
    const tl_mesh_box* small = a;
    if (axes_b < axes_a || (axes_b == axes_a && measure_b < measure_a)) small = b;

    double ratio = 1.0;
    for (int k = 0; k < 3; ++k) {
        double lo = fmax(a->min[k], b->min[k]), hi = fmin(a->max[k], b->max[k]);
        if (hi < lo) return 0.0f; /* disjoint on this axis */
        double extent = (double)small->max[k] - (double)small->min[k];
        if (extent > 0) ratio *= (hi - lo) / extent; /* a flat axis inside counts 1 */
    }
    return (float)ratio;
}
