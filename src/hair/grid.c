/* A uniform grid over points (merging, coverage) or boxes (the scalp's and the body skin's
 * triangles): each item filed in every cell its box meets, ascending within a cell. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hair_grid_free(hair_grid* g) {
    free(g->start);
    free(g->items);
    memset(g, 0, sizeof *g);
}

/* The grid over [a, b] at `cell` or coarser (at most max_cells and ~4M cells), its cells
 * counted in start[1..] by the caller. */
static bool grid_alloc(hair_grid* g, const float a[3], const float b[3], float cell,
                       size_t max_cells) {
    assert(cell > 0);
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
    memcpy(g->origin, a, 3 * sizeof(float));
    g->start = calloc(cells + 1, sizeof(uint32_t));
    return g->start != NULL;
}

/* The box [lo, hi] of the boxes [lo + stride * id, hi + stride * id] of ids[0..count) (NULL:
 * 0..count); zero when there is none. */
static void grid_bounds(const float* lo, const float* hi, size_t stride, const uint32_t* ids,
                        uint32_t count, float a[3], float b[3]) {
    for (int k = 0; k < 3; ++k)
        a[k] = count ? INFINITY : 0, b[k] = count ? -INFINITY : 0;
    for (uint32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            size_t at = stride * (ids ? ids[i] : i) + (size_t)k;
            a[k] = lo[at] < a[k] ? lo[at] : a[k];
            b[k] = hi[at] > b[k] ? hi[at] : b[k];
        }
}

static size_t grid_cells(const hair_grid* g) {
    return (size_t)g->dims[0] * g->dims[1] * g->dims[2];
}

bool hair_grid_build(hair_grid* g, const float* points, const uint32_t* ids, uint32_t count,
                     float cell) {
    memset(g, 0, sizeof *g);
    float a[3], b[3];
    grid_bounds(points, points, 3, ids, count, a, b);
    uint32_t* at = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!at || !grid_alloc(g, a, b, cell, 4 * (size_t)count + 64)) {
        free(at);
        hair_grid_free(g);
        return false;
    }
    size_t cells = grid_cells(g);
    for (uint32_t i = 0; i < count; ++i) { /* one cell each, clamped */
        uint32_t c[3];
        for (int k = 0; k < 3; ++k) {
            float x = floorf((points[3 * (size_t)ids[i] + k] - g->origin[k]) / g->cell);
            c[k] = !(x > 0) ? 0 : x >= (float)g->dims[k] ? g->dims[k] - 1 : (uint32_t)x;
        }
        at[i] = (uint32_t)hair_grid_cell(g, c[0], c[1], c[2]);
        g->start[at[i] + 1]++;
    }
    for (size_t c = 0; c < cells; ++c)
        g->start[c + 1] += g->start[c];
    g->items = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!g->items) {
        free(at);
        hair_grid_free(g);
        return false;
    }
    for (uint32_t i = 0; i < count; ++i) /* ascending within a cell; starts move one cell on */
        g->items[g->start[at[i]]++] = ids[i];
    for (size_t c = cells; c > 0; --c)
        g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    free(at);
    return true;
}

/* Counts (pass 0) or files (pass 1) each box in the cells it meets. */
static void grid_file(hair_grid* g, const float* boxes, const uint32_t* ids, uint32_t count,
                      int pass) {
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t id = ids ? ids[i] : i, l[3], h[3];
        if (!hair_grid_range(g, boxes + 6 * (size_t)id, boxes + 6 * (size_t)id + 3, l, h))
            continue; /* NaN */
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

bool hair_grid_build_boxes(hair_grid* g, const float* boxes, const uint32_t* ids, uint32_t count,
                           float cell, size_t max_cells) {
    memset(g, 0, sizeof *g);
    float a[3], b[3];
    grid_bounds(boxes, boxes + 3, 6, ids, count, a, b);
    for (int k = 0; k < 3; ++k) /* a NaN or infinite box: no grid (cells would not count) */
        if (!isfinite(a[k]) || !isfinite(b[k])) return false;
    if (!grid_alloc(g, a, b, cell, max_cells)) return false;
    size_t cells = grid_cells(g);
    grid_file(g, boxes, ids, count, 0);
    for (size_t c = 0; c < cells; ++c)
        g->start[c + 1] += g->start[c];
    g->items = malloc(sizeof(uint32_t) * (g->start[cells] ? g->start[cells] : 1));
    if (!g->items) {
        hair_grid_free(g);
        return false;
    }
    grid_file(g, boxes, ids, count, 1);
    for (size_t c = cells; c > 0; --c) /* the fill moved each start to the next cell's */
        g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    return true;
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
