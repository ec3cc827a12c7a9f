/* tailor/measure.h — the numbers that say whether a rig works (spec: measure.md).
 *
 * Edge stretch: for every mesh edge of a region, at `samples` evenly spaced times of a clip
 * (t_j = j·D/samples, D the clip's duration), the ratio of its skinned length to its rest
 * length. 1 is undeformed skin; above 1.5 or below 0.67 the edge is torn. Reported over all
 * samples as count, p95, p99, max and torn %.
 *
 * Weighted bone distance: for each vertex of a region, Σ_j w_j · d(p, bone_j) in the
 * rest-world frame, with bone_j joint j's segment to the nearest of its child joints (a leaf
 * continues its parent's bone by half its length when the parent deforms, else it is a
 * point — tails.md §1). Reported as the mean over the region.
 *
 * Regions are vertex masks over a skin's union of primitives (tl_scene_skin): one byte per
 * vertex, non-zero inside. An edge belongs to a mask when both its ends are inside.
 *
 * Ownership: tl_stretch_create allocates everything a run needs (edges, rest lengths, a
 * pose, joint matrices, skinned positions, the ratio samples); tl_stretch_run allocates
 * nothing. The scene and the masks must outlive nothing: masks are copied into edge lists.
 *
 * Example:
 *     tl_measure_def def = tl_default_measure_def();
 *     const uint8_t* masks[2] = {tail_mask, body_mask};
 *     tl_stretch* st;
 *     if (tl_stretch_create(scene, 0, masks, 2, &def, &st, &err) != TL_OK) ...
 *     tl_stretch_stats stats[2];
 *     tl_stretch_run(st, clip, NULL, NULL, stats);
 *     printf("tail p99 %.2f, body p99 %.2f\n", stats[0].p99, stats[1].p99);
 *     tl_stretch_destroy(st);
 */
#ifndef TAILOR_MEASURE_H
#define TAILOR_MEASURE_H

#include <tailor/base.h>
#include <tailor/play.h>
#include <tailor/rig.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_measure_def {
    uint32_t samples; /* sample times per clip, t_j = j·D/samples, j = 0..samples-1; typical 24 */
    float torn_above; /* a ratio above this is torn; typical 1.5 */
    float torn_below; /* a ratio below this is torn; typical 0.67 */
} tl_measure_def;

tl_measure_def tl_default_measure_def(void);

/* Edge stretch over all samples of a clip. All ratios are skinned length / rest length. */
typedef struct tl_stretch_stats {
    uint64_t count; /* edge samples: edges × samples */
    float p95, p99; /* percentiles, linearly interpolated between ranks */
    float max;
    float torn_pct; /* percent of edge samples above torn_above or below torn_below */
} tl_stretch_stats;

/* Called at every sample time after the clip's pose is sampled and its world matrices
 * updated, in increasing time order, so a solver can advance to `time` and write its bones
 * into the pose (then it must call tl_pose_update_world). NULL: the clip alone. */
typedef void tl_measure_pose_fn(void* user, tl_pose* pose, float time);

typedef struct tl_stretch tl_stretch;

/* Prepares stretch measurement of `mask_count` regions of one skin: the unique edges of the
 * skin's triangles with both ends in each mask, and their rest lengths (rest-world, edges
 * shorter than 1e-6 × H are skipped as degenerate). Fails with TL_ERROR_MEMORY only. */
tl_result tl_stretch_create(const tl_scene* scene, uint32_t skin, const uint8_t* const* masks,
                            uint32_t mask_count, const tl_measure_def* def, tl_stretch** out,
                            tl_error* err);

/* Edges counted for mask m (after create). */
size_t tl_stretch_edge_count(const tl_stretch* stretch, uint32_t mask);

/* The edge pairs (union vertex indices) of mask m, 2 × edge count. */
const uint32_t* tl_stretch_edges(const tl_stretch* stretch, uint32_t mask);

/* Samples the clip and fills out[m] for every mask. Allocates nothing. A mask with no edge
 * gets count 0 and zeros. */
void tl_stretch_run(tl_stretch* stretch, uint32_t clip, tl_measure_pose_fn* pose_fn, void* user,
                    tl_stretch_stats* out);

void tl_stretch_destroy(tl_stretch* stretch);

/* Mean weighted bone distance over the vertices of `mask` (NULL: all), with the skin's own
 * influences, or with `joints`/`weights` given per vertex (influence_count each; NULL: the
 * skin's). Rest-world units. Returns 0 for an empty mask. `scratch` holds
 * 7 × tl_scene_skin_bones_bound floats (caller-owned); the bones are tl_scene_skin_bones'. */
double tl_measure_bone_distance(const tl_scene* scene, uint32_t skin, const uint8_t* mask,
                                const uint32_t* joints, const float* weights,
                                uint32_t influence_count, float* scratch);

/* New tears (measure.md "New tears"): of the edge samples of a region (edges with both ends
 * in `mask`, as tl_stretch counts them, at the same sample times), those torn in `after` that
 * were not torn in `before`. `before` is the file as bound, `after` the same file re-weighted
 * (same skin union and clips); `after_fn` (NULL: the clip alone) moves its chains, as in
 * tl_stretch_run. For a rig the region is every vertex it re-weighted (a part and its band).
 * Allocates working memory; TL_ERROR_MEMORY when that fails, TL_ERROR_ARGUMENT when the two
 * skins differ in vertex count. */
typedef struct tl_new_tears {
    uint64_t count;       /* edge samples: edges × samples */
    uint64_t torn_before; /* torn as the file bound them */
    uint64_t torn_after;  /* torn after the re-weighting */
    uint64_t new_torn;    /* torn after and not before */
    float new_torn_pct;   /* 100 × new_torn / count */
} tl_new_tears;

tl_result tl_measure_new_tears(const tl_scene* before, const tl_scene* after, uint32_t skin,
                               const uint8_t* mask, uint32_t clip, const tl_measure_def* def,
                               tl_measure_pose_fn* after_fn, void* user, tl_new_tears* out,
                               tl_error* err);

/* One side of tl_measure_new_tears_between: a scene, its clip, and what moves its chains. */
typedef struct tl_new_tears_side {
    const tl_scene* scene;
    uint32_t clip;
    tl_measure_pose_fn* pose_fn; /* NULL: the clip alone */
    void* user;
} tl_new_tears_side;

/* The same between two files that both may move (`tailor measure AFTER --before BEFORE`: a
 * re-weighting of a rigged file, each side played with its own chains): the same skin union,
 * the samples over `before`'s clip, the edges with both ends in `mask`. */
tl_result tl_measure_new_tears_between(const tl_new_tears_side* before,
                                       const tl_new_tears_side* after, uint32_t skin,
                                       const uint8_t* mask, const tl_measure_def* def,
                                       tl_new_tears* out, tl_error* err);

/* Liveliness of a simulated chain (measure.md): is the tail alive?
 *   swing_deg      RMS over links and samples of the angle between a link's direction (in the
 *                  attachment joint's frame) and that link's mean direction over the clip: a
 *                  tail held still scores 0, however much it sags;
 *   rest_rms_deg   RMS angle between each link and its rest target (tl_chain_rest_directions);
 *   tip_path_ratio the chain tip's path length over the rigid tail's (the bind-pose tip carried
 *                  by the attachment joint), over the same samples. */
typedef struct tl_liveliness {
    float swing_deg;
    float rest_rms_deg;
    float tip_path_ratio;
    /* the deepest a particle of the chain lies inside one of the body colliders it runs with
       (tl_player_colliders), over the samples, world units (0: none inside, or no colliders) */
    float collider_penetration;
    uint32_t colliders; /* how many body colliders the chain runs with */
} tl_liveliness;

typedef struct tl_liveliness_acc tl_liveliness_acc;

/* Room for `max_samples` samples of chain `chain` of a player. NULL when out of memory. */
tl_liveliness_acc* tl_liveliness_create(const tl_player* player, uint32_t chain,
                                        uint32_t max_samples);
void tl_liveliness_destroy(tl_liveliness_acc* acc);
/* Forgets the samples (a new clip). */
void tl_liveliness_clear(tl_liveliness_acc* acc);
/* Records the chain as it is in `pose` (the player applied, world updated). Samples beyond
 * max_samples are ignored. */
void tl_liveliness_add(tl_liveliness_acc* acc, const tl_pose* pose);
tl_liveliness tl_liveliness_result(const tl_liveliness_acc* acc);

/* ---- The rigs `tailor measure` compares (measure.md) ----
 *
 * A file with chains (or cloth, pendulum or aim parts) is measured as it is, static
 * (TL_MEASURE_CHAIN_STATIC) and with its chains and parts played (TL_MEASURE_CHAIN). An un-rigged
 * file is measured as it is (TL_MEASURE_ORIGINAL) and, when tailor would give it a chain, rigged in
 * memory rigid (TL_MEASURE_RIGID) and with chains, static and simulated: one analysis planned in
 * both modes (tl_rig_analyze_modes), applied to two copies of the document (tl_gltf_clone), one
 * scene each; the two chain configurations share theirs.
 *
 * Example:
 *     tl_measure_rigs_def rdef = tl_default_measure_rigs_def();
 *     tl_measure_rigs* rigs;
 *     if (tl_measure_rigs_create(scene, &rdef, &rigs, &err) != TL_OK) ...
 *     tl_measure_run_def def = tl_default_measure_run_def();
 *     tl_measure_run* run;
 *     if (tl_measure_run_create(rigs, &def, &run, &err) != TL_OK) ...
 *     tl_measure_clip clip;
 *     for (uint32_t c = 0; c < scene->clip_count; ++c) tl_measure_run_clip(run, c, &clip, &err);
 *     tl_measure_run_destroy(run);
 *     tl_measure_rigs_destroy(rigs);
 */

typedef enum tl_measure_rig_kind {
    TL_MEASURE_ORIGINAL,     /* the un-rigged file as it is */
    TL_MEASURE_RIGID,        /* rigged in memory, tails rigid on their attachment joint */
    TL_MEASURE_CHAIN_STATIC, /* with chains, not simulated (the bind pose of the chain) */
    TL_MEASURE_CHAIN,        /* with chains, simulated from rest at t = 0 */
    TL_MEASURE_RIG_COUNT
} tl_measure_rig_kind;

/* "original", "rigid", "chain_static", "chain". Never NULL. */
const char* tl_measure_rig_string(tl_measure_rig_kind kind);

/* Chains of one configuration at most (24 hair guide chains and tails); more are ignored. */
#define TL_MEASURE_MAX_CHAINS 32
/* Regions of one run at most (the caller's); detected parts and chains: at most 32. */
#define TL_MEASURE_MAX_REGIONS 64

typedef struct tl_measure_rig {
    bool used;
    const tl_scene* scene; /* the rig's scene (CHAIN and CHAIN_STATIC share one) */
    tl_player* player;     /* TL_MEASURE_CHAIN: its chains simulated; else NULL */
    tl_play_chain chains[TL_MEASURE_MAX_CHAINS];
    uint32_t chain_count;
    tl_liveliness_acc* live[TL_MEASURE_MAX_CHAINS]; /* per chain, TL_MEASURE_CHAIN only */
} tl_measure_rig;

typedef struct tl_measure_rigs_def {
    uint32_t samples; /* sample times per clip the liveliness holds; typical 24 */
    tl_rig_def rig;   /* how an un-rigged file is rigged in memory (mode ignored: both);
                         tl_default_rig_def */
} tl_measure_rigs_def;

tl_measure_rigs_def tl_default_measure_rigs_def(void);

typedef struct tl_measure_rigs {
    tl_measure_rig rigs[TL_MEASURE_RIG_COUNT];
    bool rigged;                     /* the file has chains (or parts) of its own */
    const tl_rig_analysis* analysis; /* an un-rigged file's analysis (chain mode); NULL when
                                        rigged */
    void* internal;                  /* the copies, their scenes, the rigid analysis */
} tl_measure_rigs;

/* The configurations of the scene's document. The scene (and its document) must outlive the
 * rigs; it is the ORIGINAL (or, rigged, the CHAIN) configuration's. Errors: a chain the player
 * refuses, rigging in memory failing (the message ends "(rigging in memory)"), memory. */
tl_result tl_measure_rigs_create(const tl_scene* scene, const tl_measure_rigs_def* def,
                                 tl_measure_rigs** out, tl_error* err);
void tl_measure_rigs_destroy(tl_measure_rigs* rigs);

/* The skin with the most vertices (the first of equals); 0 when there is none. */
uint32_t tl_measure_default_skin(const tl_scene* scene);

/* A region of the caller's: a vertex mask over the measured skin's union. */
typedef struct tl_measure_region_def {
    const char* name;
    const uint8_t* mask; /* vertex_count bytes, copied */
} tl_measure_region_def;

typedef struct tl_measure_run_def {
    uint32_t samples;                     /* sample times per clip; typical 24 */
    uint32_t skin;                        /* the measured skin (tl_measure_default_skin) */
    const tl_measure_region_def* regions; /* the caller's regions, or none: then the parts
                                             tailor detects (un-rigged) or the skin each chain
                                             moves (rigged) */
    uint32_t region_count;                /* ≤ TL_MEASURE_MAX_REGIONS */
} tl_measure_run_def;

tl_measure_run_def tl_default_measure_run_def(void);

typedef struct tl_measure_region {
    char name[256];        /* the caller's, "partN", the chain's first bone or the turned joint */
    const char* cls;       /* a detected part's class ("tail", …), "chain", "cloth", "pendulum",
                              "aim", or NULL (the caller's) */
    int32_t part;          /* index into the analysis' parts, or -1 */
    int32_t chain;         /* the chain of rigs[TL_MEASURE_CHAIN] that moves it, or -1 */
    int32_t cloth;         /* the cloth of rigs[TL_MEASURE_CHAIN]'s player that moves it, or -1 */
    int32_t joint;         /* the pendulum or aim part (tl_player_joint_part index) of
                              rigs[TL_MEASURE_CHAIN]'s player that turns it, or -1 */
    bool changed;          /* the rigs differ on it (not a detected part left as it is) */
    size_t vertices;       /* vertices inside */
    size_t edges;          /* edges measured (both ends inside) */
    double distance;       /* mean weighted bone distance as the file is (ORIGINAL, else
                              CHAIN_STATIC), rest-world units */
    double distance_chain; /* … with the chain rigged in memory; -1 without chains */
    uint8_t* mask;         /* owned */
} tl_measure_region;

typedef struct tl_measure_run {
    const tl_measure_rigs* rigs;
    uint32_t skin;
    float height; /* H of the skin */
    uint32_t samples;
    tl_measure_rig_kind first; /* the first configuration used: the file as it is */
    tl_measure_region regions[TL_MEASURE_MAX_REGIONS + 1]; /* then the body at region_count:
                                                              every vertex outside every region
                                                              but parts of class "body" */
    uint32_t region_count;
    void* internal;
} tl_measure_run;

/* Regions, the body, edges and bone distances, ready to sample clips. The rigs must outlive
 * the run. Errors: memory. */
tl_result tl_measure_run_create(const tl_measure_rigs* rigs, const tl_measure_run_def* def,
                                tl_measure_run** out, tl_error* err);
void tl_measure_run_destroy(tl_measure_run* run);

/* One clip measured in every configuration. */
/* A cloth region's lattice over a clip's samples (docs/cloth.md), after every sample time. */
typedef struct tl_measure_cloth {
    uint32_t particles, bones;         /* 0: the region has no cloth */
    double tether_violation_max;       /* the largest |length - rest| / rest of a vertical link */
    double max_distance_violation_max; /* the largest excess over a particle's safe distance,
                                          relative to it (0: none) */
    uint32_t colliders;                /* the most body colliders the cloth met in a sample */
    double collider_penetration; /* the deepest free particle (rows 1..) inside a body collider the
                                    cloth collides with (the player's), x H (0: none) */
    double mesh_penetration;     /* the deepest of the region's mesh vertices, as the rig skins
                                    them, inside those colliders at the same times, x H */
    double mesh_penetration_input;       /* the same vertices as the file bound them (a skirt on the
                                            thighs), the same colliders and times, x H; < 0: not
                                            measured (a file rigged before has no such binding) */
    tl_stretch_stats stretch_vertical;   /* the chain configuration's stretch over the region's
                                            mesh edges nearer the lattice's columns (down the
                                            garment) at their nearest rest particle */
    tl_stretch_stats stretch_horizontal; /* ... and over those nearer its rows (around it) */
} tl_measure_cloth;

/* Pendulum and aim parts of one configuration at most (one figure each); more are ignored. */
#define TL_MEASURE_MAX_JOINT_PARTS 32

/* A pendulum or aim part over a clip's sample times (docs/measure.md "Pendulum and aim"). */
typedef struct tl_measure_joint {
    tl_part_kind kind;       /* TL_PART_PENDULUM or TL_PART_AIM */
    float swing_max_deg;     /* pendulum: the largest angle between its particle's direction and
                                its rest direction (tl_pendulum_swing_deg) at a sample time */
    float swing_rms_deg;     /* pendulum: the RMS of that angle over the sample times */
    float aim_error_max_deg; /* aim: the largest angle between its axis and its target
                                (tl_measure_aim_error_deg) at a sample time */
    uint32_t samples;        /* sample times taken */
    uint32_t nonfinite;      /* sample times with a non-finite swing or aim error */
} tl_measure_joint;

typedef struct tl_measure_clip {
    uint32_t clip;
    /* [configuration][region], the body at [region_count]; only used configurations filled */
    tl_stretch_stats stats[TL_MEASURE_RIG_COUNT][TL_MEASURE_MAX_REGIONS + 1];
    tl_liveliness liveliness[TL_MEASURE_MAX_CHAINS]; /* per chain of rigs[TL_MEASURE_CHAIN] */
    double lift; /* seating: the most the chains' skin lifts the hips (counting it minus
                    excluding it), or < 0 when not measured (no chain, or seating failed) */
    /* per region: new tears of a chained part's re-weighted skin (the part and its band) on an
       un-rigged file rigged in memory, chain simulated, against the file as bound; count 0 for
       every other region */
    tl_new_tears new_tears[TL_MEASURE_MAX_REGIONS];
    tl_measure_cloth cloth[TL_MEASURE_MAX_REGIONS]; /* per region moved by a cloth */
    /* [configuration][region]: the deepest of the region's vertices inside the body's posed
       skin (the triangles of the vertices in no region, the hair left out) over the sample
       times, x H: what a viewer sees of a thigh through a skirt, a tail through a leg, hair
       through a neck, where the colliders stand off the skin; only vertices outside that skin at
       rest, found within 0.05 H of it (docs/measure.md "Skin depth"); 0: none inside; < 0: not
       measured (a region the configurations do not move differently: the file's own) */
    float skin_depth[TL_MEASURE_RIG_COUNT][TL_MEASURE_MAX_REGIONS];
    /* per pendulum and aim part of rigs[TL_MEASURE_CHAIN]'s player (tl_player_joint_part
       order), joint_count of them */
    tl_measure_joint joints[TL_MEASURE_MAX_JOINT_PARTS];
    uint32_t joint_count;
} tl_measure_clip;

/* Samples one clip (rigs[TL_MEASURE_CHAIN] simulated from rest at t = 0). Errors: memory. */
tl_result tl_measure_run_clip(tl_measure_run* run, uint32_t clip, tl_measure_clip* out,
                              tl_error* err);

#ifdef __cplusplus
}
#endif

#endif
