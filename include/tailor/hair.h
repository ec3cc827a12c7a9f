/* tailor/hair.h — guide curves through a hair mesh, their roots bound to the scalp, and the
 * audit of how much of the style they hold (../shared/spec/hair.md, docs/hair.md).
 *
 * The pipeline, each step a call:
 *   1. a hair mesh: tl_hair_mesh_read_obj (an OBJ file) or tl_hair_mesh_from_scene (a
 *      primitive of a character), in the character's rest-world frame;
 *   2. the scalp: tl_hair_scalp_find (the head-dominated skin on the top and back of the head,
 *      automatic) or tl_hair_scalp_from_mask (the caller's triangles);
 *   3. the guides: tl_hair_guides_create welds the mesh (analysis only), traces per connected
 *      component surface shortest paths from its highest point to geodesic extremes, smooths
 *      and resamples them, binds each path's end nearest the scalp to a scalp triangle
 *      (rejecting it past root_distance), then links rejected pieces to attached guides (tip
 *      and mid-guide links) and fills the audit.
 *
 * Scale: every distance of tl_hair_def is given in millimetres at human scale and applied as
 * mm / TL_HAIR_HUMAN_MM × H, H the character's height (tl_scene_skin.height) in the file's
 * units: the same hair on a 1 mm figurine or on a giant gets the same guides; on a head wider
 * for its body than a human's, as mm / TL_HAIR_HUMAN_HEAD_MM × the head's width (the hair is
 * fitted to the head, not to the height).
 *
 * Ownership: the create/read functions allocate what they fill; the matching _free/destroy
 * releases it. A scalp keeps pointers into its scene (rest positions), so the scene must
 * outlive it. Nothing here prints.
 *
 * Example:
 *     tl_hair_mesh hair; tl_hair_scalp* scalp; tl_hair_guides* guides; tl_error err;
 *     tl_hair_mesh_read_obj("long01.obj", &hair, &err);
 *     tl_hair_def def = tl_default_hair_def();
 *     tl_hair_scalp_find(scene, 0, &def, NULL, &scalp, &err);
 *     tl_hair_guides_create(&hair, scalp, &def, &guides, &err);
 *     printf("%u of %u attached\n", guides->audit.attached, guides->audit.candidates);
 *     tl_hair_guides_destroy(guides); tl_hair_scalp_destroy(scalp); tl_hair_mesh_free(&hair);
 */
#ifndef TAILOR_HAIR_H
#define TAILOR_HAIR_H

#include <tailor/base.h>
#include <tailor/measure.h>
#include <tailor/rig.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The height, in mm, that "human scale" distances refer to. */
#define TL_HAIR_HUMAN_MM 1750.0f
/* A human head's width at that height, in mm, as the head skin's extent along the lateral axis
 * (ears included) measures it on MakeHuman's base body (176 mm at 1.666 m). A head wider than
 * this for its body (a stylised or chibi character, an animal) scales the guides' distances by
 * its width instead (tl_hair_audit.scale). */
#define TL_HAIR_HUMAN_HEAD_MM 185.0f

/* The settings of guide extraction, binding and merging. Distances: mm at human scale. */
typedef struct tl_hair_def {
    float weld_mm;          /* vertices closer than this are one (UV seams); 0.0175 (1e-5 H) */
    float spacing_mm;       /* a component gets guides until every vertex lies within this
                               surface distance of one; 7 */
    float sample_mm;        /* guide points are resampled this far apart; 6 */
    uint32_t smooth_passes; /* Laplacian passes over a path before resampling (ends fixed); 3 */
    uint32_t max_points;    /* most points per guide curve; 64 */
    uint32_t max_guides_per_component; /* most candidates one connected piece yields; 512 */
    float min_length_mm;       /* a piece whose guides would be shorter is excluded (its vertices
                                  are reported as excluded); 2 */
    float root_distance_mm;    /* a root farther than this from the scalp is rejected (§3); 20 */
    float merge_distance_mm;   /* a rejected piece's end links to an attached guide this close;
                                  25 (§4) */
    float merge_dot;           /* ... when the tangents' dot product is above this; 0.5 */
    bool mid_guide_links;      /* an end may link to any point of an attached guide, not only to
                                  its tip (each such link is counted for review); true */
    uint32_t merge_passes;     /* most merging passes (attached pieces parent the next pass); 16 */
    float max_chain_mm;        /* a merged lock (root to tip through its links) is at most this
                                  long; 1200 */
    uint32_t max_chain_points; /* ... and has at most this many points; 1024 */
    float coverage_mm;         /* coverage counts vertices this close to an attached guide; 10 */

    /* The automatic scalp (tl_hair_scalp_find), as fractions of the head skin's extent. */
    float scalp_ear_level;  /* up from the head skin's bottom, the ears' level: scalp above it,
                               or behind the head's centre; 0.35 */
    float scalp_brow_level; /* up from the bottom, the brow: the front of the head below it is
                               the face; 0.8 */
    float scalp_face_front; /* from the head's centre to its front, where the face begins; 0.3 */
} tl_hair_def;

tl_hair_def tl_default_hair_def(void);

/* ---- The hair mesh ------------------------------------------------------------------ */

/* Triangles over positions, in the character's rest-world frame. Owned by whoever filled it. */
typedef struct tl_hair_mesh {
    float* positions; /* vertex_count × 3 */
    uint32_t vertex_count;
    uint32_t* triangles; /* triangle_count × 3 */
    uint32_t triangle_count;
} tl_hair_mesh;

/* Reads the vertices and faces of a Wavefront OBJ (polygons fanned into triangles; v/vt/vn
 * and negative indices accepted, everything else ignored). Errors name the file and line (a
 * NUL byte: its offset). Only a regular file of at most TL_HAIR_MAX_OBJ_BYTES is read; a FIFO,
 * a device or a folder is refused without waiting. */
#define TL_HAIR_MAX_OBJ_BYTES ((uint64_t)2 << 30)
tl_result tl_hair_mesh_read_obj(const char* path, tl_hair_mesh* out, tl_error* err);

/* The same from `size` bytes in memory; `name` stands for the file in messages. */
tl_result tl_hair_mesh_read_obj_memory(const void* data, size_t size, const char* name,
                                       tl_hair_mesh* out, tl_error* err);

/* Copies primitive `primitive` of skin `skin` (tl_scene_skin.primitives) at rest. */
tl_result tl_hair_mesh_from_scene(const tl_scene* scene, uint32_t skin, uint32_t primitive,
                                  tl_hair_mesh* out, tl_error* err);

/* The primitives of a skin that are hair: nearly all their vertices (≥ 95%) dominated by the
 * head joint or joints below it (a mesh on the head), and a surface of its own: fewer than 1% of
 * its vertices on another primitive's (within 1e-4 H), where skin cut into pieces by material
 * (a snout, a face) is stitched to the body. Writes flags[primitive] (primitive_count bytes) and
 * returns how many. 0 when the skin has no head joint. */
uint32_t tl_hair_find_primitives(const tl_scene* scene, uint32_t skin, uint8_t* flags);

/* Every hair primitive (tl_hair_find_primitives) of the skin, concatenated. NOT_FOUND: none. */
tl_result tl_hair_mesh_from_scene_hair(const tl_scene* scene, uint32_t skin, tl_hair_mesh* out,
                                       tl_error* err);

/* A hair file: an OBJ (by its extension), else a glTF/GLB whose hair primitives are taken from
 * its skin with a head (tl_hair_scene_skin). Positions as stored (rest-world). */
tl_result tl_hair_mesh_read(const char* path, tl_hair_mesh* out, tl_error* err);

/* The skin a character's hair belongs to: of the skins with a head joint, the one with the most
 * vertices; TL_NONE when none has a head. */
int32_t tl_hair_scene_skin(const tl_scene* scene);

void tl_hair_mesh_free(tl_hair_mesh* mesh);

/* ---- The scalp ---------------------------------------------------------------------- */

typedef struct tl_hair_scalp {
    const tl_scene* scene;
    uint32_t skin;
    uint32_t triangle_count;
    const uint32_t* triangles;        /* triangle_count × 3 skin-union vertex indices */
    const float* positions;           /* the skin's rest positions (the scene's array) */
    float height;                     /* H of the skin, file units */
    const struct tl_hair_scalp* head; /* the whole head skin (face and ears too), which the
                                         guides' scale is measured from (the adapter's cap is
                                         measured from the scalp's own triangles); NULL: the
                                         scalp itself (a skin with no head joint) */
    void* internal;
} tl_hair_scalp;

/* The automatic scalp: triangles of the skin whose three vertices are dominated by the head
 * joint or a joint below it, facing away from the head's centre, above the ears or behind the
 * head's centre, and not the face. `exclude` (primitive_count bytes, non-zero: not skin, e.g.
 * the hair itself; NULL: none) leaves primitives out. TL_ERROR_NOT_FOUND when the skin has no
 * head joint or no such triangle. */
tl_result tl_hair_scalp_find(const tl_scene* scene, uint32_t skin, const tl_hair_def* def,
                             const uint8_t* exclude, tl_hair_scalp** out, tl_error* err);

/* The override: the skin's triangles (tl_scene_skin.triangles) with mask[t] non-zero; `head` is
 * still the skin's whole head skin (every primitive) when it has a head joint. */
tl_result tl_hair_scalp_from_mask(const tl_scene* scene, uint32_t skin, const uint8_t* mask,
                                  tl_hair_scalp** out, tl_error* err);

void tl_hair_scalp_destroy(tl_hair_scalp* scalp);

/* ---- Placing an asset (§1) --------------------------------------------------------- */

/* Fits a hair asset modelled for another head to skin `skin`'s head, in place: uniform scale so
 * the style's width matches the head skin's (its box along the character's lateral axis), its
 * crown (top, lateral and front-back centre) onto the head's top grown by margin_mm (human
 * scale; typical 8), then every vertex inside the head's ellipsoid (the box's half extents,
 * grown by the margin) pushed out onto it along its direction from the centre, and out of the
 * head's body colliders (colliders.h) by the margin. `exclude`
 * (primitive_count bytes, NULL: none) leaves primitives out of the head skin (the character's
 * own hair). NOT_FOUND without a head skin. */
tl_result tl_hair_fit(const tl_scene* scene, uint32_t skin, const uint8_t* exclude, float margin_mm,
                      tl_hair_mesh* mesh, tl_error* err);

/* Adds the mesh (rest-world positions, as fitted or as made for this body) to the scene's
 * document as a mesh "hair" on a new root node, skinned with weight 1 to the head of `skin`
 * (bind space = the skin's M^-1 · position), and reindexes the document: the scene is stale
 * until tl_scene_refresh, after which tailor rig's hair step (tl_hair_rig_plan) finds it. */
tl_result tl_hair_attach(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                         const tl_hair_mesh* mesh, tl_error* err);

/* ---- Guides ------------------------------------------------------------------------- */

/* Why a candidate guide was not attached. */
typedef enum tl_hair_reject {
    TL_HAIR_REJECT_NONE,      /* attached */
    TL_HAIR_REJECT_TOO_FAR,   /* no scalp within root_distance, no attached guide within
                                 merge_distance of either end */
    TL_HAIR_REJECT_DIRECTION, /* an attached guide was near, but the tangents disagreed */
    TL_HAIR_REJECT_CAPPED,    /* linking would pass max_chain_mm or max_chain_points */
    TL_HAIR_REJECT_COUNT
} tl_hair_reject;

/* "none", "too_far", "direction", "capped". Never NULL. */
const char* tl_hair_reject_string(tl_hair_reject reason);

/* How an attached guide holds on. */
typedef enum tl_hair_link {
    TL_HAIR_LINK_NONE, /* rejected */
    TL_HAIR_LINK_ROOT, /* its root is bound to the scalp */
    TL_HAIR_LINK_TIP,  /* its root continues the tip of an attached guide (§4) */
    TL_HAIR_LINK_MID,  /* its root leaves an attached guide partway (§4, for review) */
} tl_hair_link;

/* "none", "root", "tip", "mid". Never NULL. */
const char* tl_hair_link_string(tl_hair_link link);

/* A root bound to a scalp triangle: the triangle's point at the barycentrics, plus an offset in
 * the triangle's own frame (edge v0→v1, normal, their cross product), so the root follows the
 * triangle as the skin moves and rebuilds exactly at rest. */
typedef struct tl_hair_binding {
    uint32_t vertices[3]; /* skin-union vertex indices */
    float barycentric[3]; /* sum 1 */
    float offset[3];      /* root − that point, along (edge, normal, edge × normal) */
} tl_hair_binding;

typedef struct tl_hair_guide {
    uint32_t first_point; /* into tl_hair_guides.points; point 0 is the root end */
    uint32_t point_count; /* ≥ 2 */
    uint32_t component;   /* the welded connected component it was traced in */
    float length;         /* along its points, file units */
    tl_hair_reject reason;
    tl_hair_link link;
    int32_t parent;          /* tip and mid links: the guide it hangs from, else TL_NONE */
    uint32_t parent_point;   /* ... and the point of that guide it leaves from */
    float root_distance;     /* root links: distance of the root to the scalp, file units */
    tl_hair_binding binding; /* root links only */
} tl_hair_guide;

/* The audit record of one style (§5). */
typedef struct tl_hair_audit {
    uint32_t vertices;                       /* of the hair mesh as given */
    uint32_t candidates;                     /* guides traced */
    uint32_t attached;                       /* root, tip and mid links */
    uint32_t rejected[TL_HAIR_REJECT_COUNT]; /* by reason ([0] unused) */
    uint32_t merged_links;                   /* tip and mid links */
    uint32_t mid_guide_links;                /* of which mid-guide */
    uint32_t components;                     /* welded connected components */
    uint32_t components_attached;            /* with at least one attached guide */
    uint32_t excluded_vertices; /* in no triangle, or in a piece too small for a guide */
    double coverage;            /* share of the mesh's vertices within coverage_mm of an
                                   attached guide, 0..1 */
    float scale;                /* file units per human mm: H / TL_HAIR_HUMAN_MM, or the head's
                                   width / TL_HAIR_HUMAN_HEAD_MM when larger */
} tl_hair_audit;

typedef struct tl_hair_guides {
    const tl_hair_guide* guides;
    uint32_t guide_count;
    const float* points; /* point_count × 3, rest-world */
    uint32_t point_count;
    tl_hair_audit audit;
    void* internal;
} tl_hair_guides;

/* Traces, binds, merges and audits. A mesh with no triangle gives zero candidates (its
 * vertices excluded), not an error. */
tl_result tl_hair_guides_create(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                                const tl_hair_def* def, tl_hair_guides** out, tl_error* err);

void tl_hair_guides_destroy(tl_hair_guides* guides);

/* Where a binding puts its root for skin positions `positions` (skin vertex_count × 3: the
 * rest positions, or tl_scene_skin_positions of a pose). */
void tl_hair_binding_position(const tl_hair_binding* binding, const float* positions, float out[3]);

/* How well the roots stay on the scalp over a clip (§3): at `samples` evenly spaced times of
 * clip `clip` (skinned with tl_scene_skin_positions), for every root-linked guide,
 * triangle_drift = how far the root leaves the offset its binding stored from its triangle (the
 * binding followed: numerical precision), head_drift = the distance between the root carried by
 * the head joint alone and the root its triangle gives (the article: up to 0.657 mm). Both
 * maxima in file units. `positions` (skin vertex_count × 3) and `joints` (joint_count × 16) are
 * the caller's scratch. */
typedef struct tl_hair_drift {
    uint32_t roots;
    float triangle_drift;
    float head_drift;
} tl_hair_drift;

tl_hair_drift tl_hair_root_drift(const tl_scene* scene, uint32_t skin, const tl_hair_guides* guides,
                                 uint32_t clip, uint32_t samples, tl_pose* pose, float* joints,
                                 float* positions);

/* The "hair" figures of `tailor measure` for a clip (the Measurement; metres of the
 * file's frame, but collider_penetration a fraction of H): the skin's hair (its hair primitives)
 * with the chains the file stores, simulated from rest. */
typedef struct tl_hair_measure {
    uint32_t roots;                /* root-linked guides of the hair at rest */
    float root_drift_max;          /* tl_hair_root_drift's triangle_drift over `samples` times */
    float head_bone_drift_max;     /* ... and its head_drift */
    float free_motion_max;         /* the largest distance of a hair vertex from its rest place in
                                      the head's frame (the head's own motion undone) */
    float rest_sag_max;            /* after 3 s settled in the bind pose, the largest distance of a
                                      hair vertex from its modelled place */
    float collider_penetration;    /* the deepest hair vertex inside a body collider it was not
                                      inside at rest, / H */
    tl_stretch_stats stretch;      /* every edge with both ends hair vertices (the whole hair
                                      mesh, seams between chains and the head included), the
                                      chains simulated from rest, tl_stretch_run's sample times */
    tl_stretch_stats stretch_body; /* ... every other edge of the skin, in the same run */
} tl_hair_measure;

tl_result tl_hair_measure_clip(const tl_scene* scene, uint32_t skin, uint32_t clip,
                               uint32_t samples, tl_hair_measure* out, tl_error* err);

/* The guides and audit as JSON text (docs/hair.md "The guides file"): points, root bindings,
 * links and the audit. malloc'd; NULL when out of memory. */
char* tl_hair_guides_to_json(const tl_hair_guides* guides, const char* name);

/* Reads what tl_hair_guides_to_json wrote. Errors give the JSON pointer. `skin_vertex_count`
 * bounds the binding indices. */
tl_result tl_hair_guides_from_json(const char* text, const char* name, uint32_t skin_vertex_count,
                                   tl_hair_guides** out, tl_error* err);

/* ---- Guide chains (§6) ---------------------------------------------------------------- */

/* How the adapter picks chains from the attached guides and weights the mesh. mm: human scale. */
typedef struct tl_hair_chain_def {
    uint32_t max_chains;     /* at most this many chains; 24 */
    uint32_t bones;          /* bones per chain; 6 */
    float cap_mm;            /* hair this close to the scalp is the cap (the style's volume over the
                                head): it stays on the head; 30 */
    float min_free_mm;       /* a guide needs this much length past the cap to be a chain; a style
                                with none stays rigid on the head; 120 */
    float bind_mm;           /* a vertex farther than this from every chain stays on the head; 40 */
    float head_ramp_mm;      /* chain-bound hair within this past the cap's edge shares its
                                weight with the head, linearly (the head's share 1 at cap_mm, 0
                                at cap_mm + this): the step from the cap to a bone spreads over
                                a band; 0: off (30 cut bob01's stretch but sank hair, hair.md) */
    float min_drop;          /* a lock's free part must drop along up by this share of its length
                                (hair hangs; horns and antlers stand); 0.5 */
    uint32_t min_vertices;   /* a chain that would move fewer hair vertices is dropped; 16 */
    uint32_t smooth_steps;   /* Jacobi steps diffusing the weights over the hair surface (each
                                the mean of a welded vertex and its neighbours, the cap held on
                                the head, the 4 largest kept); 0: off (8 blurs the seams between
                                chains but spreads them into the chain regions, hair.md) */
    uint32_t seam_steps;     /* the same Jacobi steps on the band along the seams between chains
                                alone (a vertex with an edge to another chain's, and one ring
                                beside it), everything else held: the locks' skins blend where
                                they meet. Run once the chains are kept (min_vertices counts
                                the weights before it), so it never changes which chains there
                                are; in tailor rig through tl_rig_def.hair. 0: off (4 measured,
                                hair.md "The seam blend as an option") */
    bool fill_unowned;       /* hair off the cap that no chain takes (farther than bind_mm from
                                every chain) gets weights filled over the hair surface from the
                                chain-bound hair and the cap around it (harmonic), not the head
                                alone; false (measured, hair.md: less stretch on long01, deeper
                                in the body in Jump) */
    bool cover_unowned;      /* choose each next chain by the hair off the cap it would take that
                                no chain chosen takes yet (within bind_mm of its bones), then by
                                free length × spread; false: free length × spread alone */
    bool nape;               /* hair the rig leaves on the head alone that lies on the body's skin
                                (the nape, the sides of the neck) takes that skin's weights,
                                blended with the head's by its distance (hair_nape_bind, hair.md
                                "Hair lying on the neck"); true (false: on the head alone) */
    tl_chain_settings chain; /* written with each hair chain: tl_default_chain_settings but
                                gravity 0 (the modelled style already hangs under gravity: the
                                springs aim at it as it is), carry_deg -180 and rest_curve 1
                                (the authored shape is the rest: the carry lifts a lock to
                                carry_deg from straight down, so 0 still lifted locks modelled
                                hanging forward) */
    /* The body's colliders in the rest pose's world, or NULL: with them each seam-blended vertex
       keeps only as much of its blend (1, 3/4, 1/2, 1/4, none) as takes it no deeper into them
       than its unblended weights with the chains bent (32 samples, each joint by up to
       chain.bend_limit_deg, the joints pushed out of them); tl_hair_rig_plan fits them when
       seam_steps > 0 (hair.md "Seams blended outside the body") */
    const tl_collider* colliders;
    uint32_t collider_count;
} tl_hair_chain_def;

tl_hair_chain_def tl_default_hair_chain_def(void);

/* One chain: joints along the free part of an attached guide's lock (its parents' points up to
 * its link, then its own), from where it leaves the cap to its tip. */
typedef struct tl_hair_chain {
    uint32_t guide; /* the guide it follows */
    uint32_t bone_count;
    float joints[3 * (TL_CHAIN_MAX_BONES + 1)]; /* bone_count + 1 points, rest-world */
    float free_length;                          /* of the lock past the cap, file units */
} tl_hair_chain;

#define TL_HAIR_INFLUENCES 4 /* influences per hair vertex in tl_hair_chains */

/* The adapter's result. Vertex v of the hair mesh has TL_HAIR_INFLUENCES influences, largest
 * first: influence[4v + i] is chain × TL_CHAIN_MAX_BONES + bone, or UINT32_MAX for the head
 * (also on unused slots, weight 0), weighted weight[4v + i]. */
typedef struct tl_hair_chains {
    const tl_hair_chain* chains;
    uint32_t chain_count;
    bool rigid;         /* no guide long enough past the cap: the style stays on the head */
    float longest_free; /* the longest free length of any attached guide, file units */
    uint32_t vertex_count;
    const uint32_t* influence; /* TL_HAIR_INFLUENCES × vertex_count */
    const float* weight;       /* TL_HAIR_INFLUENCES × vertex_count, each vertex's sum to 1 */
    uint32_t bound_vertices;   /* with some weight on a chain */
    void* internal;
} tl_hair_chains;

/* Picks at most max_chains chains: with cover_unowned each next one takes the most hair off the
 * cap that no chain chosen takes yet, weighed by its free length; once none takes any, by free
 * length and spread (its free length times its tip's distance from the tips chosen). Puts
 * `bones` bones along each, and
 * weights the mesh: the cap and far vertices on the head, the others on their nearest chain
 * bone, blended along it, then diffused over the surface for smooth_steps steps. */
tl_result tl_hair_chains_create(const tl_hair_mesh* mesh, const tl_hair_scalp* scalp,
                                const tl_hair_guides* guides, const tl_hair_chain_def* def,
                                tl_hair_chains** out, tl_error* err);

void tl_hair_chains_destroy(tl_hair_chains* chains);

/* The guide layer (§6): the attached guides of skin `skin`'s hair written as one skinned line
 * primitive (glTF mode 1, LINES: a segment between each guide's consecutive points) on a mesh and
 * root node "hair_guides", each point weighted as the visible hair is where the guide runs (the
 * influences of the closest point of the hair mesh, blended over its triangle, the four largest),
 * so the guides move with the mesh. `scene` is of the rigged document: tl_rig_apply calls this
 * for every skin that got hair chains. Reindexes the document (the scene is stale after).
 * *guides_written: the guides written (0: no hair or no scalp; nothing added). */
tl_result tl_hair_guide_layer_add(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                  uint32_t* guides_written, tl_error* err);
/* The same with the guides given (the ones the chains were planned from, tl_rig_skin's
 * hair_guides: found again from the rigged skin they are the same, at the cost of a second
 * search); NULL: found as tl_hair_guide_layer_add does. */
tl_result tl_hair_guide_layer_add_guides(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                                         const tl_hair_guides* guides, uint32_t* guides_written,
                                         tl_error* err);

/* The rig's hair step (tl_rig_analyze calls it per skin, chain mode only): the skin's hair
 * primitives get guides and chains with the defaults above (not on a character standing on
 * four legs: front feet within 0.2 H of the floor), and each chain is appended to the
 * analysis as a part of class TL_RIG_CLASS_HAIR (action chain, bones HairNN_1 … HairNN_End
 * under the head), the hair mesh's planned weights spread over those parts. A skin with no hair,
 * no scalp or no chain (a short style: rigid on the head) gets none. False when out of memory. */
bool tl_hair_rig_plan(tl_rig_analysis* analysis, const tl_scene* scene, uint32_t skin);

#ifdef __cplusplus
}
#endif

#endif
