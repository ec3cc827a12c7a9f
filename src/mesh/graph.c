/* Unique edges of a triangle list and their compressed adjacency. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t tl_mesh_edges_bound(size_t index_count) {
    return index_count;
}

static int compare_uint32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

/* Buckets are a vertex's higher neighbours: a handful, except at fan centres. */
static void sort_bucket(uint32_t* v, size_t n) {
    if (n > 32) {
        qsort(v, n, sizeof *v, compare_uint32);
        return;
    }
    for (size_t i = 1; i < n; ++i) {
        uint32_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; --j)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

size_t tl_mesh_edges(uint32_t* edges, const uint32_t* indices, size_t index_count,
                     const uint32_t* remap) {
    assert(edges && (indices || index_count == 0));
    assert(index_count % 3 == 0 && index_count < UINT32_MAX);
    if (index_count == 0) return 0;

    uint32_t vertex_end = 0; /* one past the largest vertex id */
    for (size_t i = 0; i < index_count; ++i) {
        uint32_t v = remap ? remap[indices[i]] : indices[i];
        assert(v != UINT32_MAX);
        if (v >= vertex_end) vertex_end = v + 1;
    }

    /* Counting sort by the lower end, then each bucket of higher ends sorted and deduplicated:
     * linear, and the output order depends on nothing but the edge set. */
    uint32_t* start = calloc((size_t)vertex_end + 1 + index_count, sizeof *start);
    if (!start) return TL_MESH_OUT_OF_MEMORY;
    uint32_t* higher = start + vertex_end + 1;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t t = 0; t < index_count; t += 3) {
            for (int k = 0; k < 3; ++k) {
                uint32_t a = indices[t + k], b = indices[t + (k + 1) % 3];
                if (remap) a = remap[a], b = remap[b];
                if (a == b) continue;
                if (a > b) {
                    uint32_t swap = a;
                    a = b, b = swap;
                }
                if (pass == 0)
                    ++start[a + 1];
                else
                    higher[start[a]++] = b; /* start[a] runs as a cursor; shifted back below */
            }
        }
        if (pass == 0)
            for (uint32_t v = 0; v < vertex_end; ++v)
                start[v + 1] += start[v];
    }
    memmove(start + 1, start, vertex_end * sizeof *start);
    start[0] = 0;

    size_t count = 0;
    for (uint32_t a = 0; a < vertex_end; ++a) {
        uint32_t* bucket = higher + start[a];
        size_t n = start[a + 1] - start[a];
        sort_bucket(bucket, n);
        for (size_t i = 0; i < n; ++i) {
            if (i > 0 && bucket[i] == bucket[i - 1]) continue;
            edges[2 * count] = a;
            edges[2 * count + 1] = bucket[i];
            ++count;
        }
    }
    free(start);
    return count;
}

size_t tl_mesh_adjacency(uint32_t* offsets, uint32_t* neighbors, float* lengths,
                         const uint32_t* edges, size_t edge_count, size_t vertex_count,
                         const float* positions, size_t stride) {
    assert(offsets && (neighbors || edge_count == 0) && (edges || edge_count == 0));
    assert(!lengths || (positions && stride >= 3 * sizeof(float)));
    assert(edge_count < UINT32_MAX / 2 && vertex_count < UINT32_MAX);

    memset(offsets, 0, (vertex_count + 1) * sizeof *offsets);
    for (size_t e = 0; e < edge_count; ++e) {
        assert(edges[2 * e] < vertex_count && edges[2 * e + 1] < vertex_count);
        ++offsets[edges[2 * e] + 1];
        ++offsets[edges[2 * e + 1] + 1];
    }
    for (size_t v = 0; v < vertex_count; ++v)
        offsets[v + 1] += offsets[v];

    /* offsets[v] serves as v's write cursor, which leaves it at the start of v + 1. */
    for (size_t e = 0; e < edge_count; ++e) {
        uint32_t a = edges[2 * e], b = edges[2 * e + 1];
        uint32_t slot_a = offsets[a]++, slot_b = offsets[b]++;
        neighbors[slot_a] = b;
        neighbors[slot_b] = a;
        if (lengths) {
            const float* p = tl__mesh_position(positions, stride, a);
            const float* q = tl__mesh_position(positions, stride, b);
            float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
            lengths[slot_a] = lengths[slot_b] = sqrtf(dx * dx + dy * dy + dz * dz);
        }
    }
    memmove(offsets + 1, offsets, vertex_count * sizeof *offsets);
    offsets[0] = 0;
    return 2 * edge_count;
}
