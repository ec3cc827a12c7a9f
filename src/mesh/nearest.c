/* Nearest point of a set for many queries, on a uniform grid of about one point per cell. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t tl_mesh_nearest_points(uint32_t* nearest, const float* queries, size_t query_count,
                              size_t query_stride, const float* points, size_t point_count,
                              size_t point_stride) {
    assert(point_count >= 1);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < point_count; ++i) {
        const float* p = tl__mesh_position(points, point_stride, i);
        for (int a = 0; a < 3; ++a)
            lo[a] = fminf(lo[a], p[a]), hi[a] = fmaxf(hi[a], p[a]);
    }
    /* cell size: the edge of a cube holding one point on average over the box's non-flat axes */
    double extent[3], volume = 1;
    int flat = 0;
    for (int a = 0; a < 3; ++a) {
        extent[a] = (double)hi[a] - lo[a];
        if (extent[a] > 0)
            volume *= extent[a];
        else
            ++flat;
    }
    double h = flat == 3 ? 1.0 : pow(volume / (double)point_count, 1.0 / (3 - flat));
    uint32_t dims[3];
    size_t cells;
    for (;;) { /* at most a few cells per point, whatever the box's proportions */
        cells = 1;
        for (int a = 0; a < 3; ++a) {
            double d = extent[a] / h + 1;
            dims[a] = d > 1024 ? 1024 : (uint32_t)d;
            cells *= dims[a];
        }
        if (cells <= 4 * point_count + 64) break;
        h *= 1.5;
    }
    size_t* start = calloc(cells + 1, sizeof *start);
    uint32_t* order = malloc(point_count * sizeof *order);
    uint32_t* cell_of = malloc(point_count * sizeof *cell_of);
    if (!start || !order || !cell_of) {
        free(start), free(order), free(cell_of);
        return TL_MESH_OUT_OF_MEMORY;
    }
    float inv[3];
    for (int a = 0; a < 3; ++a)
        inv[a] = extent[a] > 0 ? (float)(dims[a] / (extent[a] * (1 + 1e-6))) : 0;
#define CELL_AXIS(p, a)                                                                            \
    ((uint32_t)fminf(fmaxf(((p)[a] - lo[a]) * inv[a], 0.0f), (float)(dims[a] - 1)))
    for (size_t i = 0; i < point_count; ++i) {
        const float* p = tl__mesh_position(points, point_stride, i);
        size_t c = CELL_AXIS(p, 0) +
                   (size_t)dims[0] * (CELL_AXIS(p, 1) + (size_t)dims[1] * CELL_AXIS(p, 2));
        cell_of[i] = (uint32_t)c;
        start[c + 1]++;
    }
    for (size_t c = 0; c < cells; ++c)
        start[c + 1] += start[c];
    size_t* fill = malloc(cells * sizeof *fill);
    if (!fill) {
        free(start), free(order), free(cell_of);
        return TL_MESH_OUT_OF_MEMORY;
    }
    memcpy(fill, start, cells * sizeof *fill);
    for (size_t i = 0; i < point_count; ++i)
        order[fill[cell_of[i]]++] = (uint32_t)i; /* stable: ascending */
    free(fill);
    float cell_size[3];
    for (int a = 0; a < 3; ++a)
        cell_size[a] = inv[a] > 0 ? 1.0f / inv[a] : INFINITY;
    float min_cell = fminf(cell_size[0], fminf(cell_size[1], cell_size[2]));
    for (size_t q = 0; q < query_count; ++q) {
        const float* x = tl__mesh_position(queries, query_stride, q);
        int32_t c[3] = {(int32_t)CELL_AXIS(x, 0), (int32_t)CELL_AXIS(x, 1),
                        (int32_t)CELL_AXIS(x, 2)};
        float best = INFINITY;
        uint32_t best_index = 0;
        uint32_t max_ring = dims[0] > dims[1] ? dims[0] : dims[1];
        if (dims[2] > max_ring) max_ring = dims[2];
        for (uint32_t r = 0; r <= max_ring; ++r) {
            /* cells at Chebyshev distance r from the query's cell */
            for (int32_t k = c[2] - (int32_t)r; k <= c[2] + (int32_t)r; ++k) {
                if (k < 0 || k >= (int32_t)dims[2]) continue;
                for (int32_t j = c[1] - (int32_t)r; j <= c[1] + (int32_t)r; ++j) {
                    if (j < 0 || j >= (int32_t)dims[1]) continue;
                    bool edge_jk = (uint32_t)abs(k - c[2]) == r || (uint32_t)abs(j - c[1]) == r;
                    for (int32_t i = c[0] - (int32_t)r; i <= c[0] + (int32_t)r; ++i) {
                        if (i < 0 || i >= (int32_t)dims[0]) continue;
                        if (!edge_jk && (uint32_t)abs(i - c[0]) != r) continue;
                        size_t cell =
                            (size_t)i + (size_t)dims[0] * ((size_t)j + (size_t)dims[1] * (size_t)k);
                        for (size_t s = start[cell]; s < start[cell + 1]; ++s) {
                            const float* p = tl__mesh_position(points, point_stride, order[s]);
                            float d = (x[0] - p[0]) * (x[0] - p[0]) +
                                      (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
                            if (d < best || (d == best && order[s] < best_index))
                                best = d, best_index = order[s];
                        }
                    }
                }
            }
            /* anything in a farther ring is at least r whole cells away */
            float reach = (float)r * min_cell;
            if (best < INFINITY && best < reach * reach) break;
        }
        nearest[q] = best_index;
    }
#undef CELL_AXIS
    free(start), free(order), free(cell_of);
    return query_count;
}
