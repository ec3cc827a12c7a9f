/* tailor/mesh.h — mesh algorithms on plain arrays.
 *
 * Welding, edges, adjacency, connected components, geodesic distances, PCA, point–segment
 * distances, boxes and percentiles: the building blocks the tail, hair and cloth pipelines
 * run on. Nothing here knows about glTF, skins or tails; every input is a plain array.
 *
 * Conventions (after meshoptimizer):
 *   - Output arrays come first, then inputs with their counts and byte strides; the return
 *     value is a count.
 *   - Positions are 3 floats at the start of each vertex; `stride` is the byte distance
 *     between vertices (12 for packed xyz).
 *   - When an output's size is not known in advance, a `*_bound()` function gives the worst
 *     case so the caller can allocate.
 *   - A mask is one byte per vertex, non-zero meaning "in the subset"; NULL means every
 *     vertex.
 *   - Caller mistakes (NULL outputs, an index past vertex_count, a zero tolerance) are
 *     asserts. The functions never print.
 *   - Memory: the caller owns every array. tl_mesh_weld and tl_mesh_edges need working
 *     memory; they malloc it once per call, free it before returning, and return
 *     TL_MESH_OUT_OF_MEMORY when malloc fails. Everything else allocates nothing
 *     (tl_mesh_geodesic takes its heap as caller-provided scratch).
 *
 * Example — connected parts of a glTF mesh whose vertices are split at UV seams:
 *     uint32_t* remap = malloc(vertex_count * sizeof *remap);
 *     size_t welded = tl_mesh_weld(remap, positions, vertex_count, 12, 1e-5f * height);
 *     uint32_t* edges = malloc(2 * tl_mesh_edges_bound(index_count) * sizeof *edges);
 *     size_t edge_count = tl_mesh_edges(edges, indices, index_count, remap);
 *     uint32_t* part = malloc(welded * sizeof *part);
 *     size_t part_count = tl_mesh_components(part, edges, edge_count, NULL, welded);
 *     // vertex i of the original mesh belongs to part[remap[i]]
 */
#ifndef TAILOR_MESH_H
#define TAILOR_MESH_H

#include <tailor/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returned by the few functions that allocate, when malloc failed. */
#define TL_MESH_OUT_OF_MEMORY SIZE_MAX

/* ---- Welding ------------------------------------------------------------------------- */

/* Merges vertices closer than `tolerance` (strictly: distance < tolerance) and writes
 * remap[i], the welded id of vertex i in 0..count-1. Ids are given in order of first
 * appearance, so the representative of each welded vertex is the lowest original index in
 * its cluster and remap[0] == 0.
 *
 * Clusters are single-linkage: if a is within tolerance of b and b of c, all three become
 * one vertex even when a and c are farther apart than tolerance. The result depends only on
 * the set of close pairs, not on the order they are found in. At the tolerances the
 * pipeline uses (1e-5 of the model height) such chains only occur on genuinely coincident
 * seams.
 *
 * How: each vertex falls in an integer cell of size `tolerance`; the cells are sorted and a
 * sweep meets each cell's neighbours, so every close pair is found with sequential memory
 * access (about 20 ms for 200k vertices, 64 bytes of working memory per vertex). Returns the
 * welded count, or TL_MESH_OUT_OF_MEMORY. Positions must be finite; tolerance must be > 0. */
size_t tl_mesh_weld(uint32_t* remap, const float* positions, size_t vertex_count, size_t stride,
                    float tolerance);

/* Writes the position of each welded vertex (3 floats per welded id, packed): that of its
 * representative, the lowest original index with that id. `welded` holds 3 × (largest remap
 * value + 1) floats. */
void tl_mesh_weld_positions(float* welded, const uint32_t* remap, const float* positions,
                            size_t vertex_count, size_t stride);

/* ---- Edges and adjacency ------------------------------------------------------------- */

/* The most edges tl_mesh_edges can write for a triangle list of index_count indices (one
 * per index). The edges array needs 2 × this many uint32. */
size_t tl_mesh_edges_bound(size_t index_count);

/* The unique undirected edges of a triangle list, as pairs (a, b) with a < b, sorted by a
 * then b. Each index goes through remap first when remap is not NULL (e.g. the weld remap,
 * so that seam copies share edges); edges whose two ends map to the same vertex are dropped.
 * index_count must be a multiple of 3.
 *
 * Several primitives: concatenate their index lists after adding each primitive's vertex
 * base (the number of vertices of the primitives before it) to its indices, and weld the
 * concatenated positions in the same order, so one remap covers them all.
 *
 * Returns the edge count (≤ tl_mesh_edges_bound), or TL_MESH_OUT_OF_MEMORY. */
size_t tl_mesh_edges(uint32_t* edges, const uint32_t* indices, size_t index_count,
                     const uint32_t* remap);

/* Compressed adjacency (CSR) of an undirected edge list over vertex_count vertices: the
 * neighbours of v are neighbors[offsets[v] .. offsets[v+1]-1]. offsets holds vertex_count+1
 * entries; neighbors holds 2 × edge_count. When the edges come sorted from tl_mesh_edges,
 * each vertex's neighbours are in ascending order.
 *
 * When lengths is not NULL (2 × edge_count floats), lengths[k] is the Euclidean length of
 * the edge to neighbors[k], from `positions` (vertex_count vertices, byte stride `stride`).
 * positions may be NULL when lengths is NULL. Returns the neighbour count, 2 × edge_count. */
size_t tl_mesh_adjacency(uint32_t* offsets, uint32_t* neighbors, float* lengths,
                         const uint32_t* edges, size_t edge_count, size_t vertex_count,
                         const float* positions, size_t stride);

/* ---- Connected components ------------------------------------------------------------ */

/* Connected components of the vertices in `mask` (NULL: all), joined along the edges whose
 * two ends are both in the mask. component[v] is the component id of v in 0..count-1, given
 * in order of each component's lowest vertex; vertices outside the mask get UINT32_MAX. A
 * vertex in the mask with no edge is a component of its own. Returns the component count.
 * Allocates nothing (component doubles as the union-find forest). */
size_t tl_mesh_components(uint32_t* component, const uint32_t* edges, size_t edge_count,
                          const uint8_t* mask, size_t vertex_count);

/* ---- Geodesic distance --------------------------------------------------------------- */

/* Bytes of scratch tl_mesh_geodesic needs for vertex_count vertices (its binary heap). */
size_t tl_mesh_geodesic_scratch_size(size_t vertex_count);

/* Multi-source Dijkstra over a CSR adjacency (tl_mesh_adjacency) with edge lengths:
 * distance[v] is the length of the shortest edge path from any source to v that, after
 * leaving the source, only passes through vertices in `mask` (NULL: all). Sources are at
 * distance 0 whether or not they are in the mask (a part's collar lies just outside the
 * part); vertices the search cannot reach get INFINITY. Duplicate sources are fine.
 *
 * scratch: tl_mesh_geodesic_scratch_size(vertex_count) bytes, 4-byte aligned, owned by the
 * caller and reusable between calls; nothing is allocated. Lengths must be ≥ 0.
 * Returns the number of vertices reached (sources included). */
size_t tl_mesh_geodesic(float* distance, const uint32_t* offsets, const uint32_t* neighbors,
                        const float* lengths, size_t vertex_count, const uint8_t* mask,
                        const uint32_t* sources, size_t source_count, void* scratch);

/* Lowers a distance field to the distance from `sources` where that is shorter, without a
 * mask: afterwards distance[v] is min(distance[v] before, tl_mesh_geodesic's distance from
 * the sources), bit for bit, provided the field before holds distance[v] <= distance[u] +
 * length in float arithmetic along every edge — as tl_mesh_geodesic's output without a mask
 * and any minimum of such fields do. Only vertices whose distance drops are visited, so
 * covering a mesh path after path (farthest-point sampling) costs the area each path claims,
 * not the whole mesh each time. scratch as tl_mesh_geodesic's. Returns the vertices lowered
 * (sources included). */
size_t tl_mesh_geodesic_lower(float* distance, const uint32_t* offsets, const uint32_t* neighbors,
                              const float* lengths, size_t vertex_count, const uint32_t* sources,
                              size_t source_count, void* scratch);

/* ---- Principal axes ------------------------------------------------------------------ */

/* Mean and covariance (divided by n, not n - 1) of a point set: the points given by
 * `subset` (subset_count indices into positions), or the first point_count points when
 * subset is NULL. covariance is a symmetric 3×3 matrix, row-major. Sums are taken in double
 * around the mean, so large offsets do not cost precision. An empty set gives zeros. */
void tl_mesh_covariance(float covariance[9], float mean[3], const float* positions,
                        size_t point_count, size_t stride, const uint32_t* subset,
                        size_t subset_count);

/* Eigenvalues and unit eigenvectors of a symmetric 3×3 matrix (row-major; only the upper
 * triangle is read), by cyclic Jacobi rotations in double. values are sorted descending;
 * vectors[3i .. 3i+2] is the unit eigenvector of values[i], the three orthonormal, each
 * signed so that its largest-magnitude component is positive (deterministic output).
 * Repeated eigenvalues are fine: an orthonormal basis of their eigenspace is returned. */
void tl_mesh_eigen_symmetric(float values[3], float vectors[9], const float matrix[9]);

/* ---- Point–segment distance ---------------------------------------------------------- */

/* Distance from p to the segment a–b: t = clamp(((p−a)·(b−a)) / |b−a|², 0, 1), distance to
 * a + t(b−a). A zero-length segment is the point a (t = 0). Writes t when t_out is not
 * NULL. */
float tl_mesh_segment_distance(const float p[3], const float a[3], const float b[3], float* t_out);

/* The point of triangle a, b, c nearest p: writes its barycentrics (weights of a, b, c) and
 * returns the squared distance. A degenerate triangle gives its nearest edge or vertex. */
float tl_mesh_triangle_nearest(const float p[3], const float a[3], const float b[3],
                               const float c[3], float bary[3]);

/* Where the ray o + t d meets triangle a, b, c: its parameter t (negative behind o), or INFINITY
 * when it misses or runs parallel to the triangle's plane. */
double tl_mesh_ray_triangle(const float o[3], const double d[3], const float a[3], const float b[3],
                            const float c[3]);

/* For each of point_count points (byte stride `stride`), the nearest of segment_count
 * segments, given as 6 packed floats each (a then b). Writes distance[i] and, when nearest
 * is not NULL, the segment index (the lowest one on ties). segment_count must be ≥ 1. */
void tl_mesh_nearest_segments(float* distance, uint32_t* nearest, const float* points,
                              size_t point_count, size_t stride, const float* segments,
                              size_t segment_count);

/* For each of query_count queries (byte stride query_stride), the index of the nearest of
 * point_count ≥ 1 points (byte stride point_stride), by Euclidean distance, the lowest index
 * on ties. A balanced k-d tree over the points, each node split only when a query first
 * reaches it, keeps it fast for queries standing off the set as well as on it. Allocates its
 * tree; returns query_count, or TL_MESH_OUT_OF_MEMORY. */
size_t tl_mesh_nearest_points(uint32_t* nearest, const float* queries, size_t query_count,
                              size_t query_stride, const float* points, size_t point_count,
                              size_t point_stride);

/* ---- Axis-aligned boxes -------------------------------------------------------------- */

typedef struct tl_mesh_box {
    float min[3];
    float max[3]; /* min > max on some axis: the empty box */
} tl_mesh_box;

/* Box of the points given by `subset` (or the first point_count points when subset is
 * NULL). An empty set gives the empty box (min = +INFINITY, max = -INFINITY). */
tl_mesh_box tl_mesh_box_of(const float* positions, size_t point_count, size_t stride,
                           const uint32_t* subset, size_t subset_count);

/* How much two boxes overlap: the volume of their intersection over the volume of the
 * smaller box, in 0..1 (the merge rule of tails.md §2: > 0.5 means "the same part").
 * Equivalently, the product over the three axes of the intersection's length over the
 * smaller box's length on that axis.
 *
 * Flat boxes (a shell lying in a plane, a line of points, a single point) have zero volume;
 * for them an axis where the smaller box has zero extent counts 1 if its coordinate lies in
 * the other box's closed interval and 0 otherwise — the limit of a thin box inside or
 * outside the other. The "smaller" box is the one with the smaller volume; between two
 * zero-volume boxes, the one with fewer non-zero axes, then the smaller product of its
 * non-zero extents. So a flat patch lying inside a solid box overlaps it by 1, and two
 * equal flat patches in one plane by 1. Boxes that only touch (share a face, edge or corner)
 * overlap by 0 unless the smaller one is flat in that direction. An empty box overlaps
 * nothing (0). */
float tl_mesh_box_overlap(const tl_mesh_box* a, const tl_mesh_box* b);

/* ---- Percentiles --------------------------------------------------------------------- */

/* The p-th percentile (p in 0..100) of count values, linearly interpolated between the two
 * nearest ranks (numpy's default): rank r = p/100 × (count − 1). Found by selection in
 * O(count), which reorders `values`: pass a copy. INFINITY is allowed (unreachable
 * distances), NaN is not; count must be ≥ 1. */
float tl_mesh_percentile(float* values, size_t count, float p);

/* The k-th smallest of count values (k < count; no interpolation), by the same selection:
 * reorders `values`. */
float tl_mesh_nth(float* values, size_t count, size_t k);

#ifdef __cplusplus
}
#endif

#endif
