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

/* The bones of a skin's joints as rest-world segments (6 floats each: a then b) with the
 * joint each belongs to: one segment from a joint to each of its child joints; a leaf gets
 * its parent's bone continued by half that bone's length when the parent deforms, else a
 * zero-length segment (a point). tl_measure_segments_bound gives the most segments (joint
 * count × 2); returns the number written. */
size_t tl_measure_segments_bound(const tl_scene* scene, uint32_t skin);
size_t tl_measure_segments(const tl_scene* scene, uint32_t skin, float* segments,
                           uint32_t* segment_joint);

/* Mean weighted bone distance over the vertices of `mask` (NULL: all), with the skin's own
 * influences, or with `joints`/`weights` given per vertex (influence_count each; NULL: the
 * skin's). Rest-world units. Returns 0 for an empty mask. `scratch` holds
 * 7 × tl_measure_segments_bound floats (caller-owned). */
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

#ifdef __cplusplus
}
#endif

#endif
