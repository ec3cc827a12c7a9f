/* Welding by position on a sorted grid: every vertex gets the integer cell of size
 * `tolerance` it falls in, the vertices are sorted by cell, and a sweep over the sorted cells
 * meets each cell's 13 "later" neighbours through 13 cursors that only move forward
 * (lexicographic order is translation invariant, so cell + offset grows as cell grows). Pairs
 * closer than the tolerance are joined by a union-find kept in the remap array.
 *
 * This is the spatial hash grid with the hashing replaced by sorting: every memory access is
 * sequential, where a hash table costs a cache (and TLB) miss per neighbour look-up — 14 per
 * vertex, which made a 200k-vertex weld memory-bound. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct weld_cell {
    int64_t key[3]; /* floor(position / tolerance) */
    uint32_t vertex;
} weld_cell;

/* Cell coordinate of x; clamped so that far-out values cannot overflow the conversion. */
static int64_t cell_coord(float x, double inv_cell) {
    double c = floor((double)x * inv_cell);
    const double limit = 4.0e18;
    return c > -limit ? (c < limit ? (int64_t)c : (int64_t)limit) : -(int64_t)limit;
}

static int compare_keys(const int64_t a[3], const int64_t b[3]) {
    for (int k = 0; k < 3; ++k)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Bottom-up merge sort by (key, vertex); returns whichever buffer holds the result. */
static weld_cell* sort_cells(weld_cell* a, weld_cell* b, size_t n) {
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n,
                   hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int c = compare_keys(a[j].key, a[i].key);
                b[k++] = c < 0 || (c == 0 && a[j].vertex < a[i].vertex) ? a[j++] : a[i++];
            }
            memcpy(b + k, a + i, (mid - i) * sizeof *a);
            memcpy(b + k + (mid - i), a + j, (hi - j) * sizeof *a);
        }
        weld_cell* swap = a;
        a = b, b = swap;
    }
    return a;
}

/* sort_cells by one 64-bit number a cell: the keys' offsets from their minima packed as
 * (k0 * range1 + k1) * range2 + k2, which orders as the keys do, sorted by 11-bit digits from
 * the lowest (each pass stable, so equal keys keep their vertex order: the cells come in
 * vertex order, a[i].vertex == i) and the cells laid out in that order into b. The same order
 * as sort_cells', in a handful of passes where the merge makes ~log2(n). NULL (nothing done)
 * when the ranges' product passes 2^62 or memory fails: sort_cells then. */
typedef struct packed_cell {
    uint64_t key;
    uint32_t vertex;
} packed_cell;

enum { DIGIT_BITS = 11, DIGITS = 1 << DIGIT_BITS };

static weld_cell* sort_cells_packed(const weld_cell* a, weld_cell* b, size_t n) {
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
        lo[k] = hi[k] = a[0].key[k];
    for (size_t i = 1; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = a[i].key[k] < lo[k] ? a[i].key[k] : lo[k];
            hi[k] = a[i].key[k] > hi[k] ? a[i].key[k] : hi[k];
        }
    const double limit = 4611686018427387904.0; /* 2^62 */
    double product = 1;
    uint64_t range[3];
    for (int k = 0; k < 3; ++k) { /* (keys lie within +-4e18: a range fits in a double) */
        range[k] = (uint64_t)hi[k] - (uint64_t)lo[k] + 1;
        product *= (double)range[k];
    }
    if (!(product < limit)) return NULL;
    packed_cell* p = malloc(2 * n * sizeof *p);
    uint32_t* count = malloc(DIGITS * sizeof *count);
    if (!p || !count) return free(p), free(count), NULL;
    uint64_t most = 0;
    for (size_t i = 0; i < n; ++i) {
        uint64_t key =
            ((uint64_t)(a[i].key[0] - lo[0]) * range[1] + (uint64_t)(a[i].key[1] - lo[1])) *
                range[2] +
            (uint64_t)(a[i].key[2] - lo[2]);
        p[i] = (packed_cell){key, a[i].vertex};
        most |= key;
    }
    packed_cell *from = p, *to = p + n;
    for (int shift = 0; shift < 64 && most >> shift; shift += DIGIT_BITS) {
        memset(count, 0, DIGITS * sizeof *count);
        for (size_t i = 0; i < n; ++i)
            count[from[i].key >> shift & (DIGITS - 1)]++;
        uint32_t sum = 0;
        for (int d = 0; d < DIGITS; ++d) {
            uint32_t c = count[d];
            count[d] = sum, sum += c;
        }
        for (size_t i = 0; i < n; ++i)
            to[count[from[i].key >> shift & (DIGITS - 1)]++] = from[i];
        packed_cell* swap = from;
        from = to, to = swap;
    }
    for (size_t i = 0; i < n; ++i)
        b[i] = a[from[i].vertex];
    free(p), free(count);
    return b;
}

static float distance_squared(const float* a, const float* b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Joins every pair (one vertex from each of two runs of cells) closer than the tolerance;
 * `same` when both runs are one cell, so each pair is tested once. */
static void weld_runs(uint32_t* remap, const weld_cell* a, size_t a_count, const weld_cell* b,
                      size_t b_count, bool same, const float* positions, size_t stride,
                      float tolerance_squared) {
    for (size_t i = 0; i < a_count; ++i) {
        const float* p = tl__mesh_position(positions, stride, a[i].vertex);
        for (size_t j = same ? i + 1 : 0; j < b_count; ++j)
            if (distance_squared(p, tl__mesh_position(positions, stride, b[j].vertex)) <
                tolerance_squared)
                tl__forest_unite(remap, a[i].vertex, b[j].vertex);
    }
}

size_t tl_mesh_weld(uint32_t* remap, const float* positions, size_t vertex_count, size_t stride,
                    float tolerance) {
    return tl__mesh_weld(remap, positions, vertex_count, stride, tolerance, true);
}

size_t tl__mesh_weld(uint32_t* remap, const float* positions, size_t vertex_count, size_t stride,
                     float tolerance, bool packed) {
    assert(remap && (positions || vertex_count == 0));
    assert(stride >= 3 * sizeof(float) && tolerance > 0);
    assert(vertex_count < UINT32_MAX);
    if (vertex_count == 0) return 0;

    weld_cell* buffer = malloc(2 * vertex_count * sizeof *buffer);
    if (!buffer) return TL_MESH_OUT_OF_MEMORY;
    const double inv_cell = 1.0 / (double)tolerance;
    for (size_t i = 0; i < vertex_count; ++i) {
        const float* p = tl__mesh_position(positions, stride, i);
        for (int k = 0; k < 3; ++k)
            buffer[i].key[k] = cell_coord(p[k], inv_cell);
        buffer[i].vertex = (uint32_t)i;
        remap[i] = (uint32_t)i;
    }
    const weld_cell* cells =
        packed ? sort_cells_packed(buffer, buffer + vertex_count, vertex_count) : NULL;
    if (!cells) cells = sort_cells(buffer, buffer + vertex_count, vertex_count);

    /* The 13 offsets after (0, 0, 0) in lexicographic order; the other 13 neighbours see this
     * cell as one of their own later ones. */
    size_t cursor[13] = {0};
    const float tolerance_squared = tolerance * tolerance;
    for (size_t run = 0, run_end; run < vertex_count; run = run_end) {
        const int64_t* key = cells[run].key;
        for (run_end = run + 1; run_end < vertex_count; ++run_end)
            if (compare_keys(cells[run_end].key, key) != 0) break;
        weld_runs(remap, cells + run, run_end - run, cells + run, run_end - run, true, positions,
                  stride, tolerance_squared);
        for (int d = 14; d < 27; ++d) {
            int64_t target[3] = {key[0] + d / 9 - 1, key[1] + d / 3 % 3 - 1, key[2] + d % 3 - 1};
            size_t* c = &cursor[d - 14];
            while (*c < vertex_count && compare_keys(cells[*c].key, target) < 0)
                ++*c;
            size_t end = *c;
            while (end < vertex_count && compare_keys(cells[end].key, target) == 0)
                ++end;
            weld_runs(remap, cells + run, run_end - run, cells + *c, end - *c, false, positions,
                      stride, tolerance_squared);
        }
    }
    free(buffer);
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
