/* tailor/rig.h — find the skin the skeleton does not cover, and give tails a bone chain.
 *
 * The pipeline of the spec's tails.md, on the rest-world frame of a tl_scene:
 *   1. skeleton distance field: segments of the deforming joints, each vertex's distance to
 *      the nearest one (d_skel) and to the bones that move it (the weighted bone distance);
 *      misbound vertices (bound to bones much farther than the nearest);
 *   2. far parts: welded vertices farther than `far` × H, connected along mesh edges, shells
 *      that overlap and hang from the same joint merged, parts that fail the limb test split
 *      again at rising thresholds;
 *   3. where each part hangs from (collar, nearest deforming joint with a torso and thigh
 *      bias, the pelvis region), its shape (elongation, tube ratio, length) and class;
 *   4. tails: left alone when already rigged to their own bones, else grown over their
 *      misbound root and given a chain Tail_1..Tail_K + Tail_End with smooth weights (or, in
 *      rigid mode, weight 1 on the attachment joint); a band of body skin around the root
 *      blended in, then the weights where tail and body meet fitted to the file's own clips
 *      (the junction fit, def.junction_fit; CHOLMOD for its sparse solves);
 *   5. tl_rig_apply writes the chains and weights into the document.
 *
 * Every length in a def is a fraction of the model height H (the skin's vertical extent), so
 * one def fits a 5.6-unit knight and a 180-unit fox alike.
 *
 * Vertex indices in an analysis are indices into the skin's union of primitives
 * (tl_scene_skin.rest_positions, influence_joints, …): a part's `vertices` can be used as a
 * region by anything that reads that union (the measurement module does).
 *
 * Ownership: tl_rig_analyze allocates the analysis and every array in it;
 * tl_rig_analysis_destroy frees it. The analysis keeps no pointer to the scene or document
 * (names are copied), so it may outlive both.
 *
 * Example:
 *     tl_rig_def def = tl_default_rig_def();
 *     tl_rig_analysis* rig; tl_error err;
 *     if (tl_rig_analyze(scene, &def, &rig, &err) != TL_OK) { puts(err.message); return 1; }
 *     for (uint32_t i = 0; i < rig->part_count; ++i)
 *         printf("part %u: %s (%s)\n", rig->parts[i].id,
 *                tl_rig_class_string(rig->parts[i].cls), rig->parts[i].reason);
 *     if (tl_rig_apply(doc, rig, &err) != TL_OK) { puts(err.message); return 1; }
 *     tl_rig_analysis_destroy(rig);
 *     tl_scene_refresh(scene, &err);  // apply reindexed the document: scene->parts has the chains
 */
#ifndef TAILOR_RIG_H
#define TAILOR_RIG_H

#include <tailor/base.h>
#include <tailor/cloth.h>
#include <tailor/gltf.h>
#include <tailor/scene.h>
#include <tailor/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A chain has at most this many bones (tails.md §8: K = clamp(round(L / segment), 3, 8)). */
#define TL_RIG_MAX_LINKS 16
/* Part-class overrides a def can carry (`--part ID=CLASS`). */
#define TL_RIG_MAX_OVERRIDES 16
#define TL_RIG_MAX_GARMENTS 16 /* tl_rig_def.garment_nodes */

/* What a part is (tails.md §4). */
typedef enum tl_rig_class {
    TL_RIG_CLASS_BODY,  /* far body skin that wraps its bone (failed the limb test): left */
    TL_RIG_CLASS_TAIL,  /* long, hangs from the pelvis region: a bone chain */
    TL_RIG_CLASS_RIGID, /* long from the spine (carried object), anything on a limb, or too
                           short for a chain: moves rigidly with its joint */
    TL_RIG_CLASS_CLOTH, /* wide, from the pelvis region or the spine: cloth (cloth.md) */
    TL_RIG_CLASS_NONE,  /* hangs from the head (ears, hair) or asked to be left: untouched */
    TL_RIG_CLASS_HAIR,  /* a guide chain of the hair (tailor/hair.h, tl_hair_rig_plan) */
    TL_RIG_CLASS_COUNT
} tl_rig_class;

/* Where a part hangs from: the region of its attachment joint. */
typedef enum tl_rig_region {
    TL_RIG_REGION_PELVIS, /* the pelvis joint and the torso joints at or behind it */
    TL_RIG_REGION_SPINE,  /* torso joints between the pelvis region and the neck, the neck */
    TL_RIG_REGION_HEAD,   /* the head and the joints below it */
    TL_RIG_REGION_LIMB,   /* legs, arms and their girdles */
    TL_RIG_REGION_OTHER,  /* a joint with no role above it (a root) */
    TL_RIG_REGION_COUNT
} tl_rig_region;

/* What tl_rig_apply does (or, on a dry run, would do) with a part. */
typedef enum tl_rig_action {
    TL_RIG_ACTION_REPORTED,       /* reported only: nothing changes */
    TL_RIG_ACTION_CHAIN,          /* a new bone chain, the part's skin re-weighted to it */
    TL_RIG_ACTION_RIGID,          /* the part's skin re-weighted to its attachment joint */
    TL_RIG_ACTION_ALREADY_RIGGED, /* a tail bound to its own bones already: left */
    TL_RIG_ACTION_CLOTH,          /* a cloth lattice whose bones the part's skin follows */
    TL_RIG_ACTION_COUNT
} tl_rig_action;

/* Short fixed names ("tail", "pelvis", "chain", …). Never NULL. */
const char* tl_rig_class_string(tl_rig_class cls);
const char* tl_rig_region_string(tl_rig_region region);
const char* tl_rig_action_string(tl_rig_action action);

typedef enum tl_rig_mode {
    TL_RIG_MODE_CHAIN, /* tails get a bone chain (tails.md §8) */
    TL_RIG_MODE_RIGID, /* tails get weight 1 on their attachment joint (§7): the reference
                          the measurement harness checks itself against */
} tl_rig_mode;

/* Forces a part's class (`tailor rig --part 2=rigid`). */
typedef struct tl_rig_override {
    uint32_t part;    /* the part id, as reported */
    tl_rig_class cls; /* TL_RIG_CLASS_TAIL: chain; _RIGID: rigid; _NONE: leave it */
} tl_rig_override;

/* How to find and rig parts. Make one with tl_default_rig_def. Fractions of H are of the
 * model height; the typical values are the spec's, checked on real characters. */
typedef struct tl_rig_def {
    float far;              /* a vertex is far when its skeleton distance exceeds this × H;
                               0.07 (13 cm on a 1.9 m fox) */
    float resplit_step;     /* re-splitting raises the threshold in these steps, × H; 0.01 */
    float resplit_max;      /* … up to this, × H; 0.40 */
    float limb_ratio;       /* limb test: the part's centroid must be at least this × its reach
                               from every bone; 0.4 */
    float elongation;       /* "long" when sqrt(λ1/λ2) reaches this; 1.8 */
    float tube_ratio;       /* … or when length / mean diameter reaches this; 1.5 */
    float min_length;       /* a chain needs a part at least this long (geodesic), × H; 0.15 */
    float segment;          /* target chain segment length, × H; 0.1 */
    uint32_t min_links;     /* fewest chain bones; 3 */
    uint32_t max_links;     /* most chain bones, ≤ TL_RIG_MAX_LINKS; 8 */
    float overlap;          /* shells merge when their boxes overlap by more than this (volume
                               of the intersection over the smaller box); 0.5 */
    float attach_bias;      /* torso (then thigh) joints within this × the nearest joint's
                               distance win the attachment; 1.5 */
    float pelvis_tolerance; /* torso joints up to this × H ahead of the pelvis joint still
                               count as the pelvis region; 0.02 */
    float misbound_ratio; /* misbound: weighted bone distance > ratio × d_skel + slack × H; 1.5 */
    float misbound_slack; /* 0.02 */
    float weld;           /* vertices closer than this × H are one; 1e-5 */
    float collar_share;   /* a shell with no outer ring uses its own vertices nearest the
                             skeleton, this share of them, as its collar; 0.05 */
    float own_bone_share; /* a tail with at least this share of its (well-bound) skin weight
                             on its own bones is already rigged; 0.5 */
    float bound_like_collar; /* --fix-rigid re-weights a part only when the overlap of its and
                                its collar's mean weight vectors is below this; 0.5 */
    tl_rig_mode mode;        /* chain or rigid; TL_RIG_MODE_CHAIN */
    bool fix_rigid;          /* re-weight misbound rigid and cloth parts (§5) instead of only
                                reporting them; false */
    bool grow;               /* grow tails over their misbound root (§6); true */
    float root_band;         /* re-weighted tails blend into the body: skin outside every part
                                within this × the collar ring's radius (geodesic, along mesh
                                edges) of the part gets weights that interpolate harmonically
                                between the part's new weights and the body's own beyond the
                                band (docs/rig.md "The root band"); 1.0 (a tail's thickness);
                                0: off */

    /* the junction fit (docs/rig.md "The junction fit") */
    bool junction_fit;            /* fit the weights where a re-weighted tail meets the body to the
                                     file's own motion (docs/rig.md "The junction fit"); true */
    float junction_ring;          /* the fit's free set reaches this × the collar ring's radius
                                     beyond the part and its band (geodesic); 2.0 */
    uint32_t junction_poses;      /* sampled poses per clip; 16 */
    uint32_t junction_max_poses;  /* … at most this many in all (fewer per clip, at least 4);
                                     64 */
    uint32_t junction_iterations; /* local/global passes at most (fewer when two in a row do
                                     not cut the samples that tear; docs/rig.md §8); 20 */
    float junction_smooth;        /* weight of the graph Laplacian of the weights; 0.05 */
    float junction_pull;          /* weight of the pull towards the rig's weights; 1e-3 */
    uint64_t junction_skip;       /* bit c set: clip c is not shown to the fit (a hold-out test);
                                     0 */

    /* cloth (cloth.md, docs/cloth.md) */
    bool cloth;             /* wide parts become cloth lattices; true (false: reported only) */
    float cloth_row;        /* the lattice's row spacing, x H; 0.05 */
    float cloth_min_length; /* a lattice needs a part at least this long (geodesic), x H; 0.05 */
    uint32_t cloth_min_vertices; /* ... and at least this many welded vertices; 20 */
    float cloth_open_gap_deg;    /* the collar ring is open (a cape) when its largest gap around
                                    the up axis exceeds this, degrees; 60 */
    uint32_t garment_nodes[TL_RIG_MAX_GARMENTS]; /* mesh nodes that are garments modelled
                                    apart and rebound to a torso joint (tl_rig_skin_unskinned):
                                    each one's vertices become one part of class cloth hanging
                                    from that joint; none by default */
    uint32_t garment_node_count;                 /* 0 */

    tl_rig_override overrides[TL_RIG_MAX_OVERRIDES];
    uint32_t override_count;
    tl_chain_settings chain;          /* stored with each chain (tl_default_chain_settings) */
    tl_cloth_settings cloth_settings; /* stored with each cloth (tl_default_cloth_settings) */
    /* how the hair on a skin's head gets its chains and weights (tailor/hair.h,
       tl_hair_rig_plan), read during tl_rig_analyze only; NULL: tl_default_hair_chain_def() */
    const struct tl_hair_chain_def* hair;
    /* the hair's seam weights fitted to the character's clips once its weights and play data
       are written (tailor rig --hair-fit; docs/hair.md "Session 26 (hairfit26)"); false */
    bool hair_fit;
    bool hair_fit_no_colliders; /* the fit without its body-collider half-spaces (measured
                                   only: it sinks the hair into the body); false */
    const char* hair_fit_clips; /* comma-separated clip names the fit sees (read by
                                   tl_rig_apply: it must live until then); NULL: every clip of
                                   the file (the first 64) */
    /* each cloth part's render weights fitted to the character's clips as its lattice plays
       them, out of the body colliders where the lattice's weights put them in (tailor rig
       --cloth-fit; docs/cloth.md "Session 27 (skirtfit27)"); false */
    bool cloth_fit;
    bool cloth_fit_no_colliders; /* the fit without its half-spaces (measured only); false */
    const char* cloth_fit_clips; /* comma-separated clip names the fit sees (living until
                                    tl_rig_apply); NULL: every clip of the file (the first 64) */
} tl_rig_def;

tl_rig_def tl_default_rig_def(void);

/* Checks a def's ranges; TL_ERROR_ARGUMENT names the field. */
tl_result tl_rig_def_check(const tl_rig_def* def, tl_error* err);

/* What the junction fit did for a part (all zero when it did not run). */
typedef struct tl_rig_fit {
    uint32_t free_vertices;  /* welded vertices whose weights were solved for */
    uint32_t fixed_vertices; /* welded vertices around them held at their weights */
    uint32_t poses;          /* poses fitted over */
    uint32_t iterations;     /* local/global passes run */
    uint32_t joints;         /* joint groups (joints that move alike count once) */
    uint32_t reverted;       /* free vertices given the file's weights back */
    uint32_t reached;        /* free vertices reached over torn body skin (docs/rig.md §8) */
    float energy_before;     /* the edge term with the rig's weights: mean over poses of
                                Σ (stretch - 1)² over the edges touching the free set */
    float energy_after;      /* … with the kept pass's weights (docs/rig.md §8) */
    float energy_final;      /* … after the revert */
    float seconds;
} tl_rig_fit;

/* A part's cloth lattice (action TL_RIG_ACTION_CLOTH), rest-world (cloth.md §1): particle
 * (r, c) is the centroid of the part's skin in geodesic row band r from the collar and collar
 * column cell c; bones sit at every row but the last and every other column. */
typedef struct tl_rig_cloth {
    uint32_t rows, columns;     /* particles: rows x columns, row 0 on the collar (pinned) */
    bool closed;                /* the columns close around (a skirt) or not (a cape) */
    float* particles;           /* rows x columns x 3, row-major */
    uint32_t* particle_joints;  /* rows x columns: the body joint each particle's rest position
                                   is skinned to (its nearest deforming bone) */
    uint32_t bone_columns;      /* columns with bones: 0, 2, 4, ... */
    uint32_t bone_count;        /* (rows - 1) x bone_columns: bone (r, b) at particle (r, 2 b)
                                   is skin joint first_new_joint + r x bone_columns + b */
    tl_cloth_settings settings; /* stored with the part */
} tl_rig_cloth;

/* One part of far skin and what tailor decided for it. Lengths are rest-world units. */
typedef struct tl_rig_part {
    uint32_t id;   /* 0, 1, … in the analysis (stable for a given file and def) */
    uint32_t skin; /* index into doc->skins */
    tl_rig_class cls;
    tl_rig_region region;
    tl_rig_action action;
    const char* reason; /* one line: why this class and action (static string) */
    bool overridden;    /* the class came from def->overrides */

    uint32_t* vertices; /* vertex_count union vertex indices, ascending (every welded
                           copy), after growth */
    uint32_t vertex_count;
    uint32_t welded_count; /* welded vertices in the part */
    uint32_t grown;        /* welded vertices added by growth over the misbound root */
    uint32_t shells;       /* components merged into the part (2: a fur shell over skin) */
    float threshold;       /* the far threshold it was found at, × H (0.07, or higher when
                              re-split) */

    int32_t attach_joint; /* joint index in the skin, or TL_NONE */
    char attach_name[64]; /* its node name (truncated), "" when none */
    tl_role attach_role;
    float collar[3];           /* collar centroid (J_0 for a chain), rest-world */
    float reach;               /* largest distance from the collar centroid to a part vertex */
    float centroid_ratio;      /* d_skel(part centroid) / reach; the limb test wants ≥ 0.4 */
    float elongation;          /* sqrt(λ1/λ2) of the welded positions */
    float tube_ratio;          /* length / mean diameter of six geodesic bands */
    float length;              /* 99th percentile of the geodesic coordinate from the collar */
    float misbound;            /* share of the part's welded vertices that are misbound, 0..1 */
    float own_bones;           /* share of well-bound skin weight on the part's own bones */
    float bone_distance;       /* mean weighted bone distance over the part, as the file is */
    float bone_distance_after; /* … after the planned re-weighting (= before when unchanged) */

    /* the chain (action TL_RIG_ACTION_CHAIN), rest-world */
    uint32_t segments;                        /* K bones Tail_1..Tail_K, plus Tail_End */
    float joints[(TL_RIG_MAX_LINKS + 1) * 3]; /* J_0..J_K: bone heads, then Tail_End */
    float radii[TL_RIG_MAX_LINKS]; /* per bone, the 90th percentile distance of the skin it
                                      owns from it (for the solver's bend limit) */
    char bone_prefix[32];          /* "Tail", "Tail.001", …: bones are PREFIX_1 … PREFIX_K and
                                      PREFIX_End */
    uint32_t first_new_joint;      /* the skin joint index Tail_1 gets */

    /* planned weights (actions CHAIN and RIGID): 4 per part vertex in `vertices` order,
       joint indices in the skin as extended by the chains (unused: joint 0, weight 0) */
    uint32_t* new_joints;
    float* new_weights;

    /* the root band (def.root_band): body skin around the collar re-weighted with the part,
       not part of it (measured as body). band_count union vertex indices, ascending, and 4
       planned influences per vertex in that order, as new_joints/new_weights */
    uint32_t* band_vertices;
    uint32_t band_count;
    uint32_t* band_joints;
    float* band_weights;
    float band_radius; /* the band's geodesic width, rest-world units (0: no band) */

    tl_rig_fit fit;     /* the junction fit (def.junction_fit): after it, the band holds every
                           vertex outside the part whose weights it changed */
    tl_rig_cloth cloth; /* action TL_RIG_ACTION_CLOTH: the lattice (bone_prefix names its
                           bones PREFIX_r_b); otherwise zero */
} tl_rig_part;

/* Per-skin fields, per union vertex of tl_scene_skin. */
typedef struct tl_rig_skin {
    uint32_t skin; /* index into doc->skins */
    uint32_t vertex_count;
    uint32_t welded_count;
    float height;                   /* H */
    float* skeleton_distance;       /* d_skel: distance to the nearest deforming bone */
    float* bone_distance;           /* weighted bone distance over the vertex's own influences */
    uint8_t* misbound;              /* 1 when misbound (welded copies share the mean) */
    int32_t* part;                  /* the part id holding the vertex, or -1 */
    uint32_t joint_count;           /* joints in the file's skin */
    uint32_t new_joint_count;       /* joints the applied chains add */
    float rest_world[16];           /* M: rest-world from bind space (tl_scene_skin.rest_world) */
    float up[3], forward[3];        /* the character's axes, rest-world (tl_scene_skin) */
    tl_scene_primitive* primitives; /* the skin's primitives and their union ranges */
    uint32_t primitive_count;
    /* the guides the skin's hair chains were planned from (tl_hair_rig_plan), which the guide
       layer writes (tl_rig_apply); NULL: no hair chains */
    struct tl_hair_guides* hair_guides;
    /* play data (docs/schema.md) missing on the parts tailor rigged before (a file rigged
       before session 24, or 23 for the colliders), which tl_rig_apply writes as a fresh rig
       would: the skin's frame (any part, pendulums and aims too), its body colliders (tail,
       hair or cloth parts), its hair parts' hit_radius (how many), its sheet; a key present
       stays */
    bool play_frame;
    bool play_colliders;
    uint32_t play_hit_radii;
    bool play_sheet;
    /* the skin holds the record of an earlier `--hair-fit` (skins[s].extras.tailor.hair_fit):
       tl_rig_apply does not fit its weights again */
    bool hair_fitted;
} tl_rig_skin;

/* Stage times of one analysis, seconds (the benchmark reports them). */
typedef enum tl_rig_stage {
    TL_RIG_STAGE_WELD,      /* weld, edges, adjacency */
    TL_RIG_STAGE_FIELD,     /* segments, skeleton distance, weighted bone distance */
    TL_RIG_STAGE_PARTS,     /* components, collars, attachment, tests, re-splitting, growth */
    TL_RIG_STAGE_GEODESICS, /* geodesic coordinates (shape and chains) */
    TL_RIG_STAGE_WEIGHTS,   /* chain joints and weights */
    TL_RIG_STAGE_FIT,       /* the junction fit */
    TL_RIG_STAGE_COUNT
} tl_rig_stage;

/* A mesh with no skin under a torso joint of a skin (a cape modelled apart and parented to the
 * chest): a cloth candidate, reported; not yet converted into a skinned lattice. */
typedef struct tl_rig_unskinned {
    uint32_t node;       /* the mesh's node */
    uint32_t skin;       /* index into doc->skins of the joint's skin */
    uint32_t joint;      /* the torso joint it hangs under (index in that skin) */
    char name[64];       /* the node's name (truncated), "" when none */
    char joint_name[64]; /* the joint's */
    tl_role role;        /* the joint's role */
} tl_rig_unskinned;

typedef struct tl_rig_analysis {
    tl_rig_def def; /* the def it was made with (its hair pointer cleared: read in analysis only) */
    tl_chain_settings hair_chain; /* stored with each hair chain: def.hair's, else the hair
                                     default (tl_default_hair_chain_def) */
    tl_rig_skin* skins;           /* one per doc->skins */
    uint32_t skin_count;
    tl_rig_part* parts; /* every part of every skin, ids 0..part_count-1 */
    uint32_t part_count;
    uint32_t chain_count;      /* parts with action CHAIN */
    uint32_t changed_vertices; /* union vertices whose weights the plan changes */
    double seconds[TL_RIG_STAGE_COUNT];
    tl_rig_unskinned* unskinned; /* unskinned meshes under torso joints (reported only) */
    uint32_t unskinned_count;
} tl_rig_analysis;

/* Analyses every skin of the scene. Fails only on a def out of range (TL_ERROR_ARGUMENT) or
 * memory; a skin with no mesh or no deforming joint simply has no parts. */
tl_result tl_rig_analyze(const tl_scene* scene, const tl_rig_def* def, tl_rig_analysis** out,
                         tl_error* err);

/* The same analysis planned in several modes at once: the field, the parts and their
 * decisions are worked out once, then out[k] plans them as tl_rig_analyze would with
 * def->mode = modes[k] (a tail's chain or rigid weights, its root band). Each analysis is
 * freed on its own. On failure every out[k] is NULL. */
tl_result tl_rig_analyze_modes(const tl_scene* scene, const tl_rig_def* def,
                               const tl_rig_mode* modes, uint32_t count, tl_rig_analysis** out,
                               tl_error* err);

/* Frees an analysis. NULL is fine. */
void tl_rig_analysis_destroy(tl_rig_analysis* analysis);

/* Writes the plan into the document the analysis was made from (the scene's doc): new joint
 * nodes under each attachment joint with the chain's runtime parameters in
 * extras.tailor (docs/schema.md), the skins' joints extended, new inverse-bind-matrix
 * accessors, new JOINTS_n/WEIGHTS_n accessors for the primitives whose weights change. The
 * file's joints, their order and inverse binds, clips and every other vertex's weights stay
 * bit for bit. Ends with tl_gltf_reindex, so any tl_scene of the document is stale after
 * this call until tl_scene_refresh (or destroy it). The play data the skins' older tailor parts
 * lack (tl_rig_skin.play_frame, play_colliders, play_hit_radii, play_sheet) is written too, and
 * then only those keys change. Does nothing when no part changes and no such key is missing. */
tl_result tl_rig_apply(tl_gltf* doc, const tl_rig_analysis* analysis, tl_error* err);

/* Turns each of the analysis' unskinned meshes under a torso joint into a skinned mesh of that
 * joint's skin, every vertex bound wholly to the joint: POSITION, NORMAL and TANGENT are
 * rewritten into the skin's bind space (the node's stored transform folded in), JOINTS_0 and
 * WEIGHTS_0 are added, the node gets "skin", loses its own transform and becomes a scene root
 * (glTF ignores a skinned mesh node's transform and its parents'). The bind pose shows the mesh
 * where the stored pose did. A mesh another node shares, or one with weights or morph targets,
 * is left as it is; each rebound node is added to def->garment_nodes (up to
 * TL_RIG_MAX_GARMENTS) so the next analysis makes it a cloth part. `scene` is the document's (stale
 * afterwards: the call ends with tl_gltf_reindex when anything changed). *converted: how many
 * meshes were rebound. Analyse the new scene again to rig the rebound meshes (as cloth when wide).
 */
tl_result tl_rig_skin_unskinned(tl_gltf* doc, const tl_scene* scene,
                                const tl_rig_analysis* analysis, tl_rig_def* def,
                                uint32_t* converted, tl_error* err);

/* Makes an unskinned mesh node under a joint (a hood or a tassel modelled apart and parented to
 * the head) a joint of the skin of its nearest ancestor joint, so that a pendulum or an aim can
 * turn it (tailor rig --pendulum NODE): the node is appended to that skin's joints, its inverse
 * bind W(node)^-1 · W(joint) · IBM(joint) (stored transforms: in the stored pose the new joint
 * skins as its ancestor; it carries no weight), the skin's inverse binds rewritten into a new
 * accessor that takes the old one's place. The mesh stays unskinned and rides the node, where
 * the file showed it. *skin: the document's skin it joined. TL_ERROR_INVALID when the node has
 * no mesh, a skinned one, is a joint already or has no joint above it. `scene` is the
 * document's (stale afterwards: the call ends with tl_gltf_reindex). */
tl_result tl_rig_mesh_joint(tl_gltf* doc, const tl_scene* scene, uint32_t node, uint32_t* skin,
                            tl_error* err);

#ifdef __cplusplus
}
#endif

#endif
