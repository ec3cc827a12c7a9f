/* Multi-source Dijkstra with an indexed binary heap in caller scratch. */
#include "internal.h"

#include <math.h>
#include <string.h>

size_t tl_mesh_geodesic_scratch_size(size_t vertex_count) {
    return 2 * vertex_count * sizeof(uint32_t); /* the heap and each vertex's place in it */
}

typedef struct heap {
    uint32_t* items;  /* vertices, a binary min-heap on (distance, vertex) */
    uint32_t* place;  /* place[v]: v's index in items, UINT32_MAX when not queued */
    const float* key; /* the distances */
    uint32_t size;
} heap;

/* Ties broken by vertex id, so the visiting order is fully determined by the input. */
static int heap_less(const heap* h, uint32_t a, uint32_t b) {
    return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void heap_set(heap* h, uint32_t i, uint32_t v) {
    h->items[i] = v;
    h->place[v] = i;
}

static void heap_up(heap* h, uint32_t i) {
    uint32_t v = h->items[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!heap_less(h, v, h->items[parent])) break;
        heap_set(h, i, h->items[parent]);
        i = parent;
    }
    heap_set(h, i, v);
}

static void heap_down(heap* h, uint32_t i) {
    uint32_t v = h->items[i];
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= h->size) break;
        if (child + 1 < h->size && heap_less(h, h->items[child + 1], h->items[child])) ++child;
        if (!heap_less(h, h->items[child], v)) break;
        heap_set(h, i, h->items[child]);
        i = child;
    }
    heap_set(h, i, v);
}

static uint32_t heap_pop(heap* h) {
    uint32_t top = h->items[0];
    h->place[top] = UINT32_MAX;
    if (--h->size > 0) {
        h->items[0] = h->items[h->size];
        heap_down(h, 0);
    }
    return top;
}

/* Queues v, or moves it up after its distance dropped. */
static void heap_update(heap* h, uint32_t v) {
    if (h->place[v] == UINT32_MAX) {
        h->items[h->size] = v;
        h->place[v] = h->size++;
    }
    heap_up(h, h->place[v]);
}

/* Dijkstra from the sources over the field as it stands (a vertex is queued only when its
 * distance drops); the number of vertices settled. */
static size_t settle(heap* h, float* distance, const uint32_t* offsets, const uint32_t* neighbors,
                     const float* lengths, const uint8_t* mask, const uint32_t* sources,
                     size_t source_count) {
    for (size_t s = 0; s < source_count; ++s) {
        if (distance[sources[s]] == 0) continue;
        distance[sources[s]] = 0;
        heap_update(h, sources[s]);
    }
    size_t settled = 0;
    while (h->size > 0) {
        uint32_t u = heap_pop(h);
        ++settled;
        for (uint32_t k = offsets[u]; k < offsets[u + 1]; ++k) {
            uint32_t v = neighbors[k];
            if (mask && !mask[v]) continue;
            assert(lengths[k] >= 0);
            float d = distance[u] + lengths[k];
            if (d < distance[v]) { /* never true for a settled v: lengths are >= 0 */
                distance[v] = d;
                heap_update(h, v);
            }
        }
    }
    return settled;
}

size_t tl_mesh_geodesic(float* distance, const uint32_t* offsets, const uint32_t* neighbors,
                        const float* lengths, size_t vertex_count, const uint8_t* mask,
                        const uint32_t* sources, size_t source_count, void* scratch) {
    assert(distance && offsets && (sources || source_count == 0));
    assert(vertex_count < UINT32_MAX && (scratch || vertex_count == 0));
    assert(((uintptr_t)scratch & 3) == 0);
    if (vertex_count == 0) return 0;
    assert(neighbors || offsets[vertex_count] == 0);
    assert(lengths || offsets[vertex_count] == 0);
    for (size_t s = 0; s < source_count; ++s)
        assert(sources[s] < vertex_count);

    heap h = {(uint32_t*)scratch, (uint32_t*)scratch + vertex_count, distance, 0};
    for (size_t v = 0; v < vertex_count; ++v) {
        distance[v] = INFINITY;
        h.place[v] = UINT32_MAX;
    }
    return settle(&h, distance, offsets, neighbors, lengths, mask, sources, source_count);
}

size_t tl_mesh_geodesic_lower(float* distance, const uint32_t* offsets, const uint32_t* neighbors,
                              const float* lengths, size_t vertex_count, const uint32_t* sources,
                              size_t source_count, void* scratch) {
    assert(distance && offsets && (sources || source_count == 0));
    assert(vertex_count < UINT32_MAX && (scratch || vertex_count == 0));
    assert(((uintptr_t)scratch & 3) == 0);
    if (vertex_count == 0) return 0;
    for (size_t s = 0; s < source_count; ++s)
        assert(sources[s] < vertex_count);
    heap h = {(uint32_t*)scratch, (uint32_t*)scratch + vertex_count, distance, 0};
    memset(h.place, 0xff, vertex_count * sizeof(uint32_t));
    /* Dijkstra seeded with the old field as upper bounds: a vertex is queued only when its
     * distance drops. Where the new distance is shorter, every vertex on its shortest path
     * dropped too (the old field's d(v) <= d(u) + length, and rounding is monotone), so the
     * search reaches it along that path and computes the very sum tl_mesh_geodesic would. */
    return settle(&h, distance, offsets, neighbors, lengths, NULL, sources, source_count);
}
