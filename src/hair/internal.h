/* Shared between the files of the hair module; not part of the public API. */
#ifndef TL_HAIR_INTERNAL_H
#define TL_HAIR_INTERNAL_H

#include <tailor/hair.h>
#include <tailor/gltf.h>
#include <tailor/mesh.h>
#include <tailor/colliders.h>

#include <assert.h>
#include <math.h>

/* mesh.c: a growable array of items of `size` bytes (uint32 or float), doubled as it fills;
 * zero it but for size; items freed by the owner. */
typedef struct hair_grow {
    void* items;
    size_t count, capacity, size;
} hair_grow;
bool hair_grow_push(hair_grow* g, const void* item);

/* in_head[j] = 1 for the head joint and every joint below it; false when there is none. */
bool hair_head_joints(const tl_scene_skin* skin, uint8_t* in_head);

/* File units per human-scale mm for the guides: the larger of the body's (H / TL_HAIR_HUMAN_MM)
 * and the head's (the head skin's width along the lateral axis / TL_HAIR_HUMAN_HEAD_MM, the
 * measure tl_hair_fit scales a style by): a stylised big head carries its hair at its own scale.
 * A caller's mask (no head skin): the body's. */
float hair_scalp_scale(const tl_hair_scalp* scalp);

/* How many of `mine` (m points, xyz) have one of `points` (n) at a squared distance under
 * tolerance² (the float test measuring to the nearest point makes): into *on. False when it
 * cannot tell (out of memory, tolerance not positive, cells out of range): find the nearest. */
bool hair_stitched_count(const float* mine, uint32_t m, const float* points, uint32_t n,
                         float tolerance, uint32_t* on);

/* hair_stitched_count's grid of points, built once to count several point sets against
 * (tl_hair_find_primitives: each head primitive against a whole skin's other vertices). */
typedef struct hair_stitch_grid {
    const float* points;
    double cell;
    float tolerance;
    uint32_t n, mask;
    uint32_t *head, *next;
} hair_stitch_grid;
/* False when it cannot tell (as hair_stitched_count); *grid then holds nothing to free. */
bool hair_stitch_grid_build(hair_stitch_grid* grid, const float* points, uint32_t n,
                            float tolerance);
/* hair_stitched_count of mine against the grid's points outside [skip_from, skip_to). */
bool hair_stitch_grid_count(const hair_stitch_grid* grid, const float* mine, uint32_t m,
                            uint32_t skip_from, uint32_t skip_to, uint32_t* on);
void hair_stitch_grid_free(hair_stitch_grid* grid);

/* The nearest scalp triangle to p no farther than max_distance: its index, or UINT32_MAX;
 * *distance and bary are filled when found. */
uint32_t hair_scalp_nearest(const tl_hair_scalp* scalp, const float p[3], float max_distance,
                            float* distance, float bary[3]);
/* The triangles hair_scalp_nearest at max_distance may test for any point within spread of
 * centre, ascending, into tris (room for the scalp's triangle count); their count. Every other
 * triangle its sphere test skips for each such point. */
uint32_t hair_scalp_near_list(const tl_hair_scalp* scalp, const float centre[3], float max_distance,
                              float spread, uint32_t* tris);
/* hair_scalp_nearest of p over such a list (p within its spread of its centre, the same
 * max_distance): the same triangle, distance and barycentrics. */
uint32_t hair_scalp_nearest_listed(const tl_hair_scalp* scalp, const uint32_t* tris, uint32_t count,
                                   const float p[3], float max_distance, float* distance,
                                   float bary[3]);
/* Whether hair_scalp_nearest finds a triangle (found the same way, without the nearest). */
bool hair_scalp_within(const tl_hair_scalp* scalp, const float p[3], float max_distance);

/* The binding of point p to scalp triangle t at the barycentrics. */
tl_hair_binding hair_bind(const tl_hair_scalp* scalp, uint32_t t, const float bary[3],
                          const float p[3]);

/* The mesh of the primitives flagged (tl_hair_find_primitives), in order; none: NOT_FOUND. */
tl_result hair_mesh_of_primitives(const tl_scene* scene, uint32_t skin, const uint8_t* flags,
                                  tl_hair_mesh* out, tl_error* err);
/* The hair mesh of the skin (every primitive flagged by tl_hair_find_primitives, in order: the
 * caller's flags, not found again) and each of its vertices' union index (malloc'd). */
tl_result hair_skin_mesh(const tl_scene* scene, uint32_t skin, const uint8_t* flags,
                         tl_hair_mesh* mesh, uint32_t** union_index, tl_error* err);

/* Adds a mesh `name` of one primitive (glTF mode `mode`: 1 lines, 4 triangles) skinned to skin
 * sk on a new root node: rest-world positions (taken to bind space), 4 joints (the skin's
 * joint indices) and weights per vertex, the indices; reindexes the document. */
tl_result hair_mesh_add(tl_gltf* doc, const tl_scene_skin* sk, const char* name,
                        const float* positions, uint32_t vertex_count, const uint16_t* joints,
                        const float* weights, const uint32_t* indices, size_t index_count, int mode,
                        tl_error* err);

/* A uniform grid (cell size `cell`) over points, or over boxes with each item filed in every
 * cell its box meets (ascending ids within a cell): the items of the 27 cells around a query. */
typedef struct hair_grid {
    float cell;
    float origin[3];
    uint32_t dims[3];
    uint32_t* start; /* cell count + 1; NULL: no grid */
    uint32_t* items; /* item ids by cell */
} hair_grid;

/* Over the points points[3 * ids[i]] (the cell grows to keep at most 4 cells per point). */
bool hair_grid_build(hair_grid* g, const float* points, const uint32_t* ids, uint32_t count,
                     float cell);
/* Over the boxes boxes[6 * id] (lo xyz, hi xyz) of ids[0..count) (NULL: 0..count); the cell
 * grows to keep at most max_cells cells. False, no grid, without memory or when the boxes'
 * bounds are not finite. */
bool hair_grid_build_boxes(hair_grid* g, const float* boxes, const uint32_t* ids, uint32_t count,
                           float cell, size_t max_cells);
void hair_grid_free(hair_grid* g);
/* The largest float whose sqrtf is at most bind (sqrtf is correctly rounded, so monotone): a
 * squared distance is at most it exactly when its square root is at most bind (the cover's test
 * without the root). -INFINITY: no such float (bind negative or NaN). */
float hair_cover_bind2(float bind);

/* The guide layer's closest hair triangle to each of `points` (count), over a vertex grid of
 * `cell`: by the visit of the 27 cells alone (triangles false) or through the triangle grid
 * after the seed (true, as the layer runs); out[i] the triangle, or ~v when no vertex is in
 * the cells around the point and v is the nearest vertex. Both give the same (tests). False:
 * out of memory. */
bool hair_layer_closest(const tl_hair_mesh* mesh, float cell, const float* points, uint32_t count,
                        bool triangles, uint32_t* out);
/* Per chain of cs, TL_CHAIN_MAX_BONES + 1 boxes of 6 floats (min xyz, max xyz): the chain's,
 * then each bone's, grown by bind and a slack far above the distance test's float rounding, so
 * a point outside a box is farther than bind from its bones in tl_mesh_segment_distance too. */
size_t hair_chain_boxes_size(const tl_hair_chains* cs); /* floats */
void hair_chain_boxes(const tl_hair_chains* cs, float bind, float* boxes);
/* The bone of cs nearest p by tl_mesh_segment_distance, at most bind, of equals the last in
 * chain and bone order: its chain (UINT32_MAX: none within bind), *bone and *t along it.
 * boxes (hair_chain_boxes at this bind) skip the bones surely farther; NULL: every bone tested.
 * Both give the same (tests). */
uint32_t hair_chain_nearest(const tl_hair_chains* cs, const float* boxes, const float p[3],
                            float bind, uint32_t* bone, float* t);
/* The adapter's cover: for each of `count` bone sets (bones + 1 joints each, from
 * joints[3 * (bones + 1) * i]), the vertices v with off_cap[v] within bind of one of its bones
 * (tl_mesh_segment_distance <= bind), in items[off[i] .. off[i + 1]) in any order; none for a set
 * with skip[i] (skip NULL: none skipped). False: out of memory (*items NULL). */
bool hair_cover_build(const float* positions, uint32_t V, const uint8_t* off_cap,
                      const float* joints, const uint8_t* skip, uint32_t count, uint32_t bones,
                      float bind, uint32_t* off, uint32_t** items);
/* What the chain choice reads of a cover (items[off[i] .. off[i + 1]) of `count` sets over V
 * vertices): fresh[i], the entries of set i whose vertex no set taken so far lists, kept as sets
 * are taken (each vertex's sets listed once, so a take costs the vertices it newly takes). */
typedef struct hair_cover_tally {
    uint32_t count, V;
    const uint32_t *off, *items;
    uint32_t *by_off, *by; /* per vertex: the sets listing it, by[by_off[v] .. by_off[v + 1]) */
    uint32_t* fresh;
    uint8_t* taken; /* per vertex: listed by a set taken */
} hair_cover_tally;
/* False: out of memory (nothing to free). */
bool hair_cover_tally_init(hair_cover_tally* t, const uint32_t* off, const uint32_t* items,
                           uint32_t count, uint32_t V);
void hair_cover_tally_reset(hair_cover_tally* t); /* no set taken */
void hair_cover_tally_take(hair_cover_tally* t, uint32_t set);
void hair_cover_tally_free(hair_cover_tally* t);
/* The cells [lo, hi] along each axis that the box [a, b] meets (clamped); false when none.
 * Inline: the scalp asks it for every query. */
static inline bool hair_grid_range(const hair_grid* g, const float a[3], const float b[3],
                                   uint32_t lo[3], uint32_t hi[3]) {
    for (int k = 0; k < 3; ++k) {
        float l = floorf((a[k] - g->origin[k]) / g->cell);
        float h = floorf((b[k] - g->origin[k]) / g->cell);
        if (!(h >= 0) || !(l < (float)g->dims[k])) return false; /* NaN too */
        lo[k] = l > 0 ? (uint32_t)l : 0;
        hi[k] = h < (float)(g->dims[k] - 1) ? (uint32_t)h : g->dims[k] - 1;
    }
    return true;
}
static inline size_t hair_grid_cell(const hair_grid* g, uint32_t x, uint32_t y, uint32_t z) {
    return ((size_t)z * g->dims[1] + y) * g->dims[0] + x;
}
/* Calls visit(user, id) for every item in the cells around p; stops when it returns false. */
void hair_grid_visit(const hair_grid* g, const float p[3], bool (*visit)(void* user, uint32_t id),
                     void* user);

static inline float tl__dist2(const float a[3], const float b[3]) {
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}
static inline float tl__dot(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The guides' storage behind tl_hair_guides. */
typedef struct hair_store {
    tl_hair_guide* guides;
    uint32_t guide_count, guide_capacity;
    float* points;
    uint32_t point_count, point_capacity;
} hair_store;

bool hair_store_guide(hair_store* s, const float* points, uint32_t count, uint32_t component);

/* tl_hair_guides_create; fast false: the plain paths (the merge sums each attached guide's
 * length up to a candidate point on every visit instead of keeping its lengths per pass; the
 * second trace's check scans every guide instead of a grid over their points), the same guides,
 * for the test that compares them. */
tl_result hair_guides_build(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                            const tl_hair_def* def, bool fast, tl_hair_guides** out, tl_error* err);

/* Traces candidate guides through every welded component (trace.c); fills audit->components,
 * excluded_vertices and the component of each vertex (component[v], UINT32_MAX: excluded).
 * grid_kept false: which hair no guide holds found by a scan of every guide (the plain path). */
tl_result hair_trace(const tl_hair_mesh* mesh, const tl_hair_def* def, float scale,
                     const float up[3], hair_store* store, uint32_t* component,
                     tl_hair_audit* audit, bool grid_kept, tl_error* err);

/* The seam blend's weights as the guard reads them: W welded rows of J columns (each chain's
 * bones from first[c], the head's column last), each row's rest position. */
typedef struct hair_seam_field {
    size_t W, J;
    const uint32_t* first;
    const float* positions; /* W x 3 */
    const tl_hair_chains* chains;
} hair_seam_field;

/* Gives back the seam blend where it sinks hair (seam_guard.c): each row of the band moved from
 * a0 to a keeps the largest of 1, 3/4, 1/2, 1/4 or none of its move whose position, with every
 * chain bent (sampled: each joint turning by up to `turn` radians about an axis across the lock,
 * the joints pushed out of the colliders as the solver's particles are), goes no deeper than eps
 * past where the unblended row, or the rest, lies in any of the n colliders (rest world).
 * False: out of memory. */
bool hair_seam_guard(const hair_seam_field* f, const uint8_t* band, const float* a0, float* a,
                     const tl_collider* col, uint32_t n, float turn, float eps);

/* Cap hair lying on skin the head does not move (nape.c): each vertex of the planned parts
 * [first_part, first_part + parts) bound to the head alone that lies within the style's
 * lying-on distance (the median of the cap's distance to the scalp, the cap: within
 * `cap` of it) of the body skin takes that skin's weights, blended with the head's by distance;
 * the head stays its largest joint. known: per skin vertex, hair_scalp_nearest's distance within
 * `cap` (INFINITY beyond), NaN where not known; NULL: none known. narrow: only the body
 * triangles near the hair searched, each vertex's search from the previous one's triangle (the
 * same weights, faster; false: the plain visit, for the test that compares). False: out of
 * memory. */
bool hair_nape_bind(tl_rig_analysis* a, const tl_scene* scene, uint32_t skin,
                    const tl_hair_scalp* scalp, uint32_t first_part, uint32_t parts, float cap,
                    const float* known, bool narrow);
/* The nape's lying-on distance (nape.c): the median scalp distance within `cap` of the points
 * pos[3 * ids[i]], known[ids[i]] read where it is not NaN (known NULL: every one asked). */
float hair_lying_on(const tl_hair_scalp* scalp, const float* pos, const uint32_t* ids,
                    uint32_t count, float cap, const float* known);
/* Per point of positions (count, xyz): hair_scalp_nearest's distance within reach, INFINITY
 * beyond it, into out. memo: a point whose bits repeat an earlier one's takes its distance
 * (the same query: the same bits; 982 of bob01's 5961 hair vertices repeat one); false, or no
 * memory for the memo: each point asked (the test that compares). */
void hair_scalp_distances(const tl_hair_scalp* scalp, const float* positions, uint32_t count,
                          float reach, bool memo, float* out);
/* tl_hair_guide_layer_add_guides (layer.c) given the skin's tl_hair_find_primitives flags
 * (hair, primitive_count bytes, found on this scene; NULL: found here). */
tl_result hair_guide_layer_add(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                               const tl_hair_guides* given, const uint8_t* hair,
                               uint32_t* guides_written, tl_error* err);
/* The chains' scalp distances (chains.c): per hair mesh vertex, hair_scalp_nearest's distance
 * within *reach, INFINITY beyond it. */
const float* hair_chains_scalp(const tl_hair_chains* chains, float* reach);

#endif
