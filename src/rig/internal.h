/* Shared between the files of the rig module; not part of the public API. */
#ifndef TL_RIG_INTERNAL_H
#define TL_RIG_INTERNAL_H

#include <tailor/mesh.h>
#include <tailor/rig.h>

#include "hair/seam_fit.h"

#include <assert.h>

/* The bones of a skin: segments of its deforming joints (tails.md §1), grouped by joint. */
typedef struct rig_bones {
    float* ab;       /* count × 6: a then b, rest-world */
    uint32_t* joint; /* count: the joint each segment belongs to */
    uint32_t count;
    uint32_t* first; /* joint_count + 1: segments of joint j are first[j] .. first[j+1]-1 */
    uint32_t joint_count;
} rig_bones;

/* Builds the bones of a skin; false when out of memory. A skin with no deforming joint has
 * no segments. */
bool rig_bones_build(rig_bones* bones, const tl_scene_skin* skin);
void rig_bones_free(rig_bones* bones);

/* Distance from p to the nearest segment of joint j (INFINITY when it has none). */
float rig_joint_distance(const rig_bones* bones, uint32_t j, const float p[3]);

/* Distance from p to the nearest segment of any joint (INFINITY when there is none). */
float rig_skeleton_distance(const rig_bones* bones, const float p[3]);

/* The skeleton distances of `count` points (xyz) into out, the values tl_mesh_nearest_segments
 * gives, through the bones' boxes (bones->count > 0). False: out of memory. */
bool rig_skeleton_distances(const rig_bones* bones, const float* points, uint32_t count,
                            float* out);

/* Weighted bone distance of union vertex v on its own influences. */
float rig_vertex_bone_distance(const rig_bones* bones, const tl_scene_skin* skin, uint32_t v);

/* A growable list of uint32. */
typedef struct rig_list {
    uint32_t* items;
    uint32_t count, capacity;
} rig_list;

bool rig_list_push(rig_list* list, uint32_t value);
void rig_list_free(rig_list* list);

/* A part while it is being found, on welded vertices. */
typedef struct rig_wpart {
    rig_list verts;  /* welded vertex ids */
    rig_list collar; /* welded ids of its collar */
    bool own_collar; /* the collar is the part's own vertices nearest the skeleton */
    uint32_t shells;
    bool garment;    /* a garment shell of its own standing off the body (standoff.c) */
    bool apart;      /* a garment modelled apart and rebound to a torso joint (unskinned.c) */
    float threshold; /* × H */
    int32_t attach;
    float collar_c[3];
    float reach, centroid_ratio, elongation, tube_ratio, length, misbound, own_bones;
    uint32_t grown;
    tl_rig_class cls;
    tl_rig_region region;
    tl_rig_action action;
    const char* reason;
    bool overridden;
    float* g; /* verts.count geodesic coordinates, once computed */
} rig_wpart;

void rig_wpart_free(rig_wpart* part);

/* After a rig's edits: each of the `replaced` accessors (indices below first_new) that nothing
 * references any more takes the place of an accessor the rig added (index >= first_new, the
 * last one first), so no accessor is left unused and no other reference moves (prune.c). */
tl_result rig_prune_accessors(tl_gltf* doc, const uint32_t* replaced, uint32_t replaced_count,
                              uint32_t first_new, tl_error* err);

/* Everything one skin's analysis shares. Per-welded arrays are indexed by welded id. */
typedef struct rig_ctx {
    const tl_scene* scene;
    const tl_scene_skin* skin;
    const tl_rig_def* def;
    float H;
    uint32_t V, W;        /* union and welded vertex counts */
    uint32_t* remap;      /* V: welded id of each union vertex */
    float* wpos;          /* W × 3 welded positions */
    uint32_t* copy_first; /* W + 1 */
    uint32_t* copies;     /* V union vertices, grouped by welded id */
    uint32_t* adj_off;    /* W + 1 */
    uint32_t* adj;
    float* adj_len;
    rig_bones bones;
    float* dskel;      /* W */
    float* wbd_union;  /* V */
    float* wbd;        /* W: mean over copies */
    uint8_t* misbound; /* W */
    int32_t* region;   /* joint_count: tl_rig_region of each joint */
    int32_t pelvis;    /* the pelvis-region joint (LCA of the thighs), or TL_NONE */
    /* scratch */
    uint32_t* stamp; /* W */
    uint32_t stamp_value;
    uint8_t* mask;   /* W, kept all-zero between uses */
    uint32_t* queue; /* W: breadth-first queue, or welded id -> local index */
    int32_t* owner;  /* W: index of the classified part holding it, or -1 */
    uint8_t* body;   /* W: far skin left unclassified by re-splitting */
    uint32_t* shell; /* W: connected shell of each welded vertex (rig_shells_build) */
    uint32_t* shell_size;
    uint32_t shell_count, largest_shell;
    rig_wpart* parts; /* found parts of this skin */
    uint32_t part_count, part_capacity;
    double* seconds; /* the analysis' stage times */
} rig_ctx;

/* A fresh stamp value (all stamps reset when it wraps). */
uint32_t rig_stamp(rig_ctx* ctx);

double rig_now(void);

/* field.c: weld, graph, skeleton distance, weighted bone distance, misbinding, regions. */
bool rig_field_build(rig_ctx* ctx);

/* parts.c: far components, merging, re-splitting, classes, already-rigged check, growth. */
bool rig_parts_find(rig_ctx* ctx);

/* protrude.c: marks in `grown` (W bytes; only the set's entries are written) the skin of `set`
 * on bone-less protrusions: the vertices under which the solid ends (the ray along the inward
 * normal leaves through a far wall) nearer than their nearest bone, and the skin nearer to
 * them along the surface than to any bone. False on memory. */
bool rig_protrusions(rig_ctx* ctx, const rig_list* set, uint8_t* grown);

/* parts.c: what happens to each part (overrides, fix-rigid rule, already rigged), and growth
 * of the tails to re-weight. `first_id` is the public id of the skin's first part. */
bool rig_parts_decide(rig_ctx* ctx, uint32_t first_id);

/* bound.c: the share of the part's well-bound skin weight on its own bones (joints whose
 * segment's nearest welded vertex, `segment_vertex`, lies in the part); Σ_j min(a_j, b_j) of
 * the mean weight vectors of the part and its collar; each segment's nearest welded vertex
 * (malloc'd, NULL when out of memory). */
float rig_own_bone_share(rig_ctx* ctx, const rig_wpart* p, const uint32_t* segment_vertex);
float rig_weight_overlap(rig_ctx* ctx, const rig_wpart* p);
uint32_t* rig_segment_vertices(rig_ctx* ctx);

/* chain.c: the geodesic coordinate of a part from its collar (part->g, and part->length). */
bool rig_part_geodesic(rig_ctx* ctx, rig_wpart* part);

/* chain.c: fills the public part's chain and planned weights. `first_new_joint` is the
 * skin joint index its first bone gets. */
bool rig_part_plan(rig_ctx* ctx, const rig_wpart* wpart, tl_rig_part* part);

/* band.c: the root band of a re-weighted part (def->root_band), after its plan. `banded`
 * (W bytes) marks welded vertices already in a band; the band's are added. */
bool rig_part_band(rig_ctx* ctx, const rig_wpart* wpart, tl_rig_part* part, uint8_t* banded);

/* junction.c: the junction fit of a re-weighted part (def->junction_fit), after its band:
 * rewrites the part's planned weights near its root and replaces its band by the vertices
 * outside the part whose weights the fit changed (marked in `banded`). */
/* The collar ring's radius: the mean distance of its vertices from their centroid (band.c). */
float rig_collar_radius(const rig_ctx* ctx, const rig_wpart* p);
bool rig_part_junction(rig_ctx* ctx, const rig_wpart* wpart, tl_rig_part* part, uint8_t* banded);

/* parts.c: the part's collar: the ring of welded neighbours outside it (filtered by `keep`
 * when given), or when there is none (a shell modelled apart) its own vertices nearest the
 * skeleton (own_collar). False on memory. */
bool rig_part_collar(rig_ctx* ctx, rig_wpart* p, const uint8_t* keep);

/* standoff.c: the welded mesh's shells (ctx->shell, shell_size, largest_shell); false on
 * memory. */
bool rig_shells_build(rig_ctx* ctx);

/* standoff.c: *garment is whether a fresh far component is a garment on a shell of its own
 * standing off the body (it then skips the limb test); false on memory. */
bool rig_part_garment(rig_ctx* ctx, const rig_wpart* p, bool* garment);

/* unskinned.c: the part of garment node `node` (def->garment_nodes) in this skin: its vertices,
 * attached to the joint they are bound to, class cloth, its collar its own top edge and its
 * geodesic coordinate; no vertex when the skin has none of the node's. False on memory. */
bool rig_garment_part(rig_ctx* ctx, uint32_t node, rig_wpart* out);

/* cloth.c: a wide part's cloth lattice and weights (action TL_RIG_ACTION_CLOTH), after
 * rig_part_plan, with part->first_new_joint set. *built is false when the part is too small or
 * has no collar (then it is only reported); false on memory. */
bool rig_cloth_plan(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, bool* built);

/* cloth_write.c: a cloth part's bone nodes (appended to the document's nodes and to
 * skin_joints, their inverse binds written at `ibm`) and its extras.tailor record.
 * skin_joint_nodes: the skin's joint -> node table. False on memory. */
struct json_t;
bool rig_cloth_add(tl_gltf* doc, const tl_rig_part* part, const uint32_t* skin_joint_nodes,
                   const double Minv[16], const double ibm_attach[16], float* ibm,
                   struct json_t* skin_joints);

/* Each hair part's lock thickness and each skin's sheet ties, as the C player finds them in the
 * rigged document, stored in it (write_hair.c, docs/schema.md). `scene` is the rigged
 * document's: tl_rig_apply's, made before its colliders, frames and guide layers were written,
 * none of which the lock thickness or the ties read (the frame stored is the scene's own). */
tl_result rig_write_hair_play(tl_gltf* doc, const tl_scene* scene, tl_error* err);

/* The play keys the analysis found missing on the skins' older parts (tl_rig_skin.play_frame,
 * play_colliders, play_hit_radii, play_sheet), written by the same writers as a fresh rig's;
 * keys present stay. */
tl_result rig_write_play_missing(tl_gltf* doc, const tl_rig_analysis* a, tl_error* err);

/* write_hair.c: with def.hair_fit, the seam weights of each skin with new hair chains, or with
 * hair tailor rigged before and no earlier fit's record, fitted to its clips
 * (src/hair/seam_fit.c) once the weights and the play data are written (the play data stay the
 * pre-fit weights', and the player plays them), and the fit's record written. */
tl_result rig_write_hair_fit(tl_gltf* doc, const tl_rig_analysis* a, tl_error* err);

/* write_hair.c: skin `skin`'s weights refitted by `fit` (hair_seam_fit, rig_cloth_fit_skin) and
 * the changed vertices written (rig_write_skin_weights: the document reindexed, scene stale). */
typedef tl_result (*rig_skin_refit)(const tl_scene* scene, uint32_t skin, const void* def,
                                    uint32_t* joints, float* weights, uint8_t* changed,
                                    hair_seam_fit_report* report, tl_error* err);
/* What a refit writes beside the weights, before them (NULL: nothing). */
typedef void (*rig_refit_record)(tl_gltf* doc, const tl_scene* scene,
                                 const hair_seam_fit_report* report, const void* user);
tl_result rig_refit_skin(tl_gltf* doc, const tl_scene* scene, uint32_t skin, rig_skin_refit fit,
                         const void* def, rig_refit_record record, const void* user, tl_error* err);

/* cloth_fit.c: with def.cloth_fit, each cloth part's render weights fitted to its clips
 * (docs/cloth.md "Session 27 (skirtfit27)") after everything else is written. */
typedef struct rig_cloth_fit_def {
    hair_seam_fit_def fit; /* the seam fit's def: rings 2 (candidates from 3 edges round),
                              clips, samples, sweeps, pull, colliders as the hair's */
    float push; /* the pull onto a body collider's surface per pose a vertex is inside, against
                   1 per kept edge; 8 */
} rig_cloth_fit_def;

rig_cloth_fit_def rig_default_cloth_fit_def(void);

/* The fit on skin `skin` of the scene (joints, weights, changed as hair_seam_fit's); nothing
 * changes when it has no cloth part (report->free_vertices 0). */
tl_result rig_cloth_fit_skin(const tl_scene* scene, uint32_t skin, const rig_cloth_fit_def* def,
                             uint32_t* joints, float* weights, uint8_t* changed,
                             hair_seam_fit_report* report, tl_error* err);

/* Every skin's cloth fitted and its weights written (the document reindexed). */
tl_result rig_write_cloth_fit(tl_gltf* doc, const rig_cloth_fit_def* def, tl_error* err);

/* write.c: new JOINTS_0 / WEIGHTS_0 (4 a vertex) for the vertices of skin `skin` with planned[v]
 * (union indices of `scene`, the document's), the others copied value for value; the replaced
 * accessors pruned and the document reindexed (scene must not be used after). */
tl_result rig_write_skin_weights(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                 const uint32_t* joints, const float* weights,
                                 const uint8_t* planned, tl_error* err);

/* Whether analysis skin `s` has a hair part made a chain. */
bool rig_skin_hair_chained(const tl_rig_analysis* a, uint32_t s);

/* The body colliders of scene skin `skin`, fitted to its skin (tl_body_colliders_fit) and stored
 * as skins[s].extras.tailor.colliders, with the skin's frame first when `frame` (write.c). */
tl_result rig_write_skin_colliders(tl_gltf* doc, const tl_scene* scene, uint32_t skin, bool frame,
                                   tl_error* err);

#endif
