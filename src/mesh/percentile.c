/* Percentiles by selection (Hoare's FIND), for the p95/p99 statistics of every pipeline. */
#include "internal.h"

#include <math.h>

/* Moves the k-th smallest value to values[k], smaller ones before it, larger after. */
static void select_nth(float* values, size_t count, size_t k) {
    size_t lo = 0, hi = count - 1;
    while (lo < hi) {
        /* Median of three as the pivot keeps sorted and reversed input linear. */
        float x = values[lo], y = values[lo + (hi - lo) / 2], z = values[hi];
        float pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        for (;;) { /* the pivot value lies in [lo, hi], so both scans stop in range */
            while (values[i] < pivot)
                ++i;
            while (pivot < values[j])
                --j;
            if (i >= j) break;
            float swap = values[i];
            values[i] = values[j], values[j] = swap;
            ++i, --j;
        }
        /* Now values[lo..j] <= pivot <= values[j+1..hi] (Hoare's invariant). */
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
}

float tl_mesh_nth(float* values, size_t count, size_t k) {
    assert(values && k < count);
    select_nth(values, count, k);
    return values[k];
}

float tl_mesh_percentile(float* values, size_t count, float p) {
    assert(values && count > 0 && p >= 0.0f && p <= 100.0f);
    for (size_t i = 0; i < count; ++i)
        assert(!isnan(values[i]));
    double rank = (double)p / 100.0 * (double)(count - 1);
    size_t k = (size_t)rank;
    if (k >= count - 1) k = count - 1;
    double f = rank - (double)k;
    select_nth(values, count, k);
    float low = values[k];
    if (f <= 0.0 || k + 1 >= count) return low;
    float high = values[k + 1]; /* the next rank: the smallest value above position k */
    for (size_t i = k + 2; i < count; ++i)
        if (values[i] < high) high = values[i];
    if (high == low) return low; /* also keeps INFINITY − INFINITY out */
    return (float)((double)low + f * ((double)high - (double)low));
}
