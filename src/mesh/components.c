/* Connected components of a vertex subset, by union-find in the output array. */
#include "internal.h"

size_t tl_mesh_components(uint32_t* component, const uint32_t* edges, size_t edge_count,
                          const uint8_t* mask, size_t vertex_count) {
    assert(component && (edges || edge_count == 0));
    assert(vertex_count < UINT32_MAX);
    for (size_t v = 0; v < vertex_count; ++v)
        component[v] = !mask || mask[v] ? (uint32_t)v : UINT32_MAX;
    for (size_t e = 0; e < edge_count; ++e) {
        uint32_t a = edges[2 * e], b = edges[2 * e + 1];
        assert(a < vertex_count && b < vertex_count);
        if (component[a] != UINT32_MAX && component[b] != UINT32_MAX)
            tl__forest_unite(component, a, b);
    }
    return tl__forest_label(component, vertex_count);
}
