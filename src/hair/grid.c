/* A uniform grid over points, for the neighbour queries of merging and coverage. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void hair_grid_free(hair_grid* g) {
    free(g->start);
    free(g->items);
    memset(g, 0, sizeof *g);
}

static uint32_t cell_of(const hair_grid* g, const float p[3], int k) {
    float c = floorf((p[k] - g->origin[k]) / g->cell);
    if (c < 0) return 0;
    if (c >= (float)g->dims[k]) return g->dims[k] - 1;
    return (uint32_t)c;
}

static size_t cell_index(const hair_grid* g, uint32_t x, uint32_t y, uint32_t z) {
    return ((size_t)z * g->dims[1] + y) * g->dims[0] + x;
}

bool hair_grid_build(hair_grid* g, const float* points, const uint32_t* ids, uint32_t count,
                     float cell) {
    memset(g, 0, sizeof *g);
    assert(cell > 0);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            float v = points[3 * (size_t)ids[i] + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    if (count == 0)
        for (int k = 0; k < 3; ++k)
            lo[k] = hi[k] = 0;
    /* at most ~4M cells: grow the cell rather than the memory */
    for (;;) {
        size_t cells = 1;
        for (int k = 0; k < 3; ++k) {
            float d = floorf((hi[k] - lo[k]) / cell) + 1;
            g->dims[k] = d > 1e6f ? 1000000u : (uint32_t)d;
            cells *= g->dims[k];
        }
        if (cells <= ((size_t)4 << 20) && cells <= 4 * (size_t)count + 64) break;
        cell *= 1.5f;
    }
    g->cell = cell;
    memcpy(g->origin, lo, sizeof lo);
    size_t cells = (size_t)g->dims[0] * g->dims[1] * g->dims[2];
    g->start = calloc(cells + 1, sizeof(uint32_t));
    g->items = malloc((count ? count : 1) * sizeof(uint32_t));
    uint32_t* at = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!g->start || !g->items || !at) {
        free(at);
        hair_grid_free(g);
        return false;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const float* p = points + 3 * (size_t)ids[i];
        at[i] = (uint32_t)cell_index(g, cell_of(g, p, 0), cell_of(g, p, 1), cell_of(g, p, 2));
        g->start[at[i] + 1]++;
    }
    for (size_t c = 0; c < cells; ++c)
        g->start[c + 1] += g->start[c];
    uint32_t* fill = malloc((cells ? cells : 1) * sizeof(uint32_t));
    if (!fill) {
        free(at);
        hair_grid_free(g);
        return false;
    }
    memcpy(fill, g->start, cells * sizeof(uint32_t));
    for (uint32_t i = 0; i < count; ++i)
        g->items[fill[at[i]]++] = ids[i];
    free(fill);
    free(at);
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
                size_t cell = cell_index(g, (uint32_t)x, (uint32_t)y, (uint32_t)z);
                for (uint32_t i = g->start[cell]; i < g->start[cell + 1]; ++i)
                    if (!visit(user, g->items[i])) return;
            }
        }
    }
}
