/* Welding by position: a spatial hash of tolerance-sized cells finds every pair of vertices
 * closer than the tolerance, and a union-find kept in the remap array joins them. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct weld_cell {
    int64_t key[3];
    uint32_t head; /* first vertex in this cell (lowest index), UINT32_MAX when the slot is free */
} weld_cell;

typedef struct weld_grid {
    weld_cell* cells;
    size_t mask;    /* capacity - 1, capacity a power of two */
    uint32_t* next; /* next vertex in the same cell, ascending */
} weld_grid;

/* Cell coordinate of x; clamped so that far-out values cannot overflow the conversion. */
static int64_t cell_coord(float x, double inv_cell) {
    double c = floor((double)x * inv_cell);
    const double limit = 4.0e18;
    return c > -limit ? (c < limit ? (int64_t)c : (int64_t)limit) : -(int64_t)limit;
}

static size_t cell_hash(const int64_t key[3]) {
    uint64_t h = (uint64_t)key[0] * 0x9E3779B97F4A7C15u ^ (uint64_t)key[1] * 0xC2B2AE3D27D4EB4Fu ^
                 (uint64_t)key[2] * 0x165667B19E3779F9u;
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding `key`, or the free slot where it belongs (linear probing). */
static weld_cell* cell_find(const weld_grid* grid, const int64_t key[3]) {
    for (size_t i = cell_hash(key) & grid->mask;; i = (i + 1) & grid->mask) {
        weld_cell* c = &grid->cells[i];
        if (c->head == UINT32_MAX ||
            (c->key[0] == key[0] && c->key[1] == key[1] && c->key[2] == key[2]))
            return c;
    }
}

static float distance_squared(const float* a, const float* b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

size_t tl_mesh_weld(uint32_t* remap, const float* positions, size_t vertex_count, size_t stride,
                    float tolerance) {
    assert(remap && (positions || vertex_count == 0));
    assert(stride >= 3 * sizeof(float) && tolerance > 0);
    assert(vertex_count < UINT32_MAX);
    if (vertex_count == 0) return 0;

    size_t capacity = 16;
    while (capacity < 2 * vertex_count)
        capacity *= 2;
    weld_grid grid = {malloc(capacity * sizeof *grid.cells), capacity - 1,
                      malloc(vertex_count * sizeof *grid.next)};
    if (!grid.cells || !grid.next) {
        free(grid.cells);
        free(grid.next);
        return TL_MESH_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < capacity; ++i)
        grid.cells[i].head = UINT32_MAX;

    const double inv_cell = 1.0 / (double)tolerance;
    /* Inserting from the last vertex down leaves every cell's list in ascending order. */
    for (size_t i = vertex_count; i-- > 0;) {
        const float* p = tl__mesh_position(positions, stride, i);
        int64_t key[3] = {cell_coord(p[0], inv_cell), cell_coord(p[1], inv_cell),
                          cell_coord(p[2], inv_cell)};
        weld_cell* c = cell_find(&grid, key);
        if (c->head == UINT32_MAX) c->key[0] = key[0], c->key[1] = key[1], c->key[2] = key[2];
        grid.next[i] = c->head;
        c->head = (uint32_t)i;
        remap[i] = (uint32_t)i;
    }

    /* Each pair is tested once: in the vertex's own cell against later vertices, and in the
     * 13 neighbouring cells that come after it in (dx, dy, dz) order against all of theirs. */
    const float tolerance_squared = tolerance * tolerance;
    for (size_t i = 0; i < vertex_count; ++i) {
        const float* p = tl__mesh_position(positions, stride, i);
        int64_t base[3] = {cell_coord(p[0], inv_cell), cell_coord(p[1], inv_cell),
                           cell_coord(p[2], inv_cell)};
        for (int d = 13; d < 27; ++d) {
            int64_t key[3] = {base[0] + d / 9 - 1, base[1] + d / 3 % 3 - 1, base[2] + d % 3 - 1};
            const weld_cell* c = cell_find(&grid, key);
            for (uint32_t j = c->head; j != UINT32_MAX; j = grid.next[j]) {
                if (d == 13 && j <= i) continue; /* own cell: pairs with earlier ones are done */
                if (distance_squared(p, tl__mesh_position(positions, stride, j)) <
                    tolerance_squared)
                    tl__forest_unite(remap, (uint32_t)i, j);
            }
        }
    }
    free(grid.cells);
    free(grid.next);
    return tl__forest_label(remap, vertex_count);
}

void tl_mesh_weld_positions(float* welded, const uint32_t* remap, const float* positions,
                            size_t vertex_count, size_t stride) {
    assert(welded && remap && (positions || vertex_count == 0));
    size_t seen = 0; /* ids come in order of first appearance: id == seen marks a first copy */
    for (size_t i = 0; i < vertex_count; ++i) {
        assert(remap[i] <= seen);
        if (remap[i] != seen) continue;
        const float* p = tl__mesh_position(positions, stride, i);
        welded[3 * seen + 0] = p[0], welded[3 * seen + 1] = p[1], welded[3 * seen + 2] = p[2];
        ++seen;
    }
}
