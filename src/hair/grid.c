/* A uniform grid over points (merging, coverage) or boxes (the scalp's and the body skin's
 * triangles): each item filed in every cell its box meets, ascending within a cell. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void hair_grid_free(hair_grid* g) {
    free(g->start);
    free(g->items);
    memset(g, 0, sizeof *g);
}

bool hair_grid_range(const hair_grid* g, const float a[3], const float b[3], uint32_t lo[3],
                     uint32_t hi[3]) {
    for (int k = 0; k < 3; ++k) {
        float l = floorf((a[k] - g->origin[k]) / g->cell);
        float h = floorf((b[k] - g->origin[k]) / g->cell);
        if (!(h >= 0) || !(l < (float)g->dims[k])) return false; /* NaN too */
        lo[k] = l > 0 ? (uint32_t)l : 0;
        hi[k] = h < (float)(g->dims[k] - 1) ? (uint32_t)h : g->dims[k] - 1;
    }
    return true;
}

/* Counts (pass 0) or files (pass 1) item i in the cells of its box. */
static void grid_file(hair_grid* g, const float* lo, const float* hi, size_t stride,
                      const uint32_t* ids, uint32_t count, int pass) {
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t id = ids ? ids[i] : i, l[3], h[3];
        if (!hair_grid_range(g, lo + stride * id, hi + stride * id, l, h)) continue; /* NaN */
        for (uint32_t z = l[2]; z <= h[2]; ++z)
            for (uint32_t y = l[1]; y <= h[1]; ++y)
                for (uint32_t x = l[0]; x <= h[0]; ++x) {
                    size_t at = hair_grid_cell(g, x, y, z);
                    if (pass == 0)
                        g->start[at + 1]++;
                    else
                        g->items[g->start[at]++] = id;
                }
    }
}

/* The grid over the boxes [lo + stride * id, hi + stride * id] of the items ids[0..count) (NULL:
 * 0..count): the cell grows until the grid has at most max_cells (and ~4M) cells. */
static bool grid_build(hair_grid* g, const float* lo, const float* hi, size_t stride,
                       const uint32_t* ids, uint32_t count, float cell, size_t max_cells) {
    memset(g, 0, sizeof *g);
    assert(cell > 0);
    float a[3] = {INFINITY, INFINITY, INFINITY}, b[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            size_t at = stride * (ids ? ids[i] : i) + (size_t)k;
            a[k] = lo[at] < a[k] ? lo[at] : a[k];
            b[k] = hi[at] > b[k] ? hi[at] : b[k];
        }
    if (count == 0)
        for (int k = 0; k < 3; ++k)
            a[k] = b[k] = 0;
    size_t cells; /* grow the cell rather than the memory */
    for (;;) {
        cells = 1;
        for (int k = 0; k < 3; ++k) {
            float d = floorf((b[k] - a[k]) / cell) + 1;
            g->dims[k] = d > 1e6f ? 1000000u : (uint32_t)d;
            cells *= g->dims[k];
        }
        if (cells <= ((size_t)4 << 20) && cells <= max_cells) break;
        cell *= 1.5f;
    }
    g->cell = cell;
    memcpy(g->origin, a, sizeof a);
    g->start = calloc(cells + 1, sizeof(uint32_t));
    if (!g->start) return false;
    grid_file(g, lo, hi, stride, ids, count, 0);
    for (size_t c = 0; c < cells; ++c)
        g->start[c + 1] += g->start[c];
    g->items = malloc(sizeof(uint32_t) * (g->start[cells] ? g->start[cells] : 1));
    if (!g->items) {
        hair_grid_free(g);
        return false;
    }
    grid_file(g, lo, hi, stride, ids, count, 1);
    for (size_t c = cells; c > 0; --c) /* the fill moved each start to the next cell's */
        g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    return true;
}

bool hair_grid_build(hair_grid* g, const float* points, const uint32_t* ids, uint32_t count,
                     float cell) {
    return grid_build(g, points, points, 3, ids, count, cell, 4 * (size_t)count + 64);
}

bool hair_grid_build_boxes(hair_grid* g, const float* boxes, const uint32_t* ids, uint32_t count,
                           float cell, size_t max_cells) {
    return grid_build(g, boxes, boxes + 3, 6, ids, count, cell, max_cells);
}

void hair_grid_visit(const hair_grid* g, const float p[3], bool (*visit)(void* user, uint32_t id),
                     void* user) {
    if (!g->start) return;
    int64_t c[3];
    for (int k = 0; k < 3; ++k)
        c[k] = (int64_t)floorf((p[k] - g->origin[k]) / g->cell);
    for (int64_t z = c[2] - 1; z <= c[2] + 1; ++z) {
        if (z < 0 || z >= g->dims[2]) continue;
        for (int64_t y = c[1] - 1; y <= c[1] + 1; ++y) {
            if (y < 0 || y >= g->dims[1]) continue;
            for (int64_t x = c[0] - 1; x <= c[0] + 1; ++x) {
                if (x < 0 || x >= g->dims[0]) continue;
                size_t cell = hair_grid_cell(g, (uint32_t)x, (uint32_t)y, (uint32_t)z);
                for (uint32_t i = g->start[cell]; i < g->start[cell + 1]; ++i)
                    if (!visit(user, g->items[i])) return;
            }
        }
    }
}
