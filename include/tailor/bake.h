/* tailor/bake.h — the chains' motion written into the file, for viewers with no tailor code.
 *
 * tl_bake simulates clips with the player (play.h, looping, from rest at clip time 0) and
 * writes each chain joint's local rotation as a glTF rotation channel of that clip, so
 * three.js, Blender, Godot or <model-viewer> play the secondary motion. A looping clip's
 * chain motion is not periodic from rest: the player runs the clip again and again, and the
 * kept cycle is the first whose end meets its start within the tolerance (else the one
 * closest to it), so the baked loop has no pop. Keys are then reduced: a time is dropped
 * when slerp between its neighbours reproduces every chain joint within the tolerance. All
 * joints of a clip share one key-time accessor, so at every key time every joint is exact.
 * The joints of pendulum and aim parts (scene->joint_parts) are keyed too, their rotation
 * channels replaced, but only when every clip is baked: their parts then leave the file (the
 * motion is in the clips; a player would turn those joints again). With some clips only, they
 * stay parts and are not keyed.
 *
 * tl_bake_rest writes the settled rest (the chain hanging still under the file's stored
 * pose) into the chain joints' node rotations, so a viewer with no animation shows the tail
 * as it hangs. Neither changes the simulation: the player's neutral pose comes from the
 * inverse binds, never from node transforms (scene.h).
 *
 * Both edit the document (new accessors, samplers, channels; node rotations) and reindex it:
 * a scene built on the document is stale afterwards (tl_scene_refresh). docs/bake.md.
 *
 * Example:
 *     tl_bake_def def = tl_default_bake_def();
 *     tl_bake_clip_report reports[16];
 *     uint32_t clips[] = {walk};
 *     tl_bake(doc, scene, chains, n, clips, 1, &def, reports, &err);
 *     tl_scene_refresh(scene, &err);
 */
#ifndef TAILOR_BAKE_H
#define TAILOR_BAKE_H

#include <tailor/base.h>
#include <tailor/gltf.h>
#include <tailor/play.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_bake_def {
    float rate;          /* samples per second of clip time before reduction, Hz; 30 */
    float tolerance_deg; /* largest angle a dropped key may be off by, and the largest loop
                            error the cycle search accepts at once, degrees; 0.1 (0: keep
                            every sample) */
    uint32_t max_cycles; /* clip loops simulated at most while looking for a cycle that
                            closes; 12 */
} tl_bake_def;

tl_bake_def tl_default_bake_def(void);

typedef struct tl_bake_clip_report {
    uint32_t clip;         /* index into scene->clips */
    double cycle_start;    /* s: the played time (from rest at 0, looping, as tailor play)
                              where the kept cycle begins, a whole number of clip durations;
                              the baked clip at t is the player at cycle_start + t */
    uint32_t samples;      /* times simulated in the cycle (its last is the clip's end) */
    uint32_t keys;         /* times kept per joint after reduction */
    double max_error_deg;  /* the largest angle any joint is off at a dropped sample */
    double loop_error_deg; /* the largest angle between a joint at the cycle's end and at
                              its start */
    size_t bytes;          /* binary bytes added for this clip */
} tl_bake_clip_report;

/* Bakes `clip_count` clips (indices into scene->clips; clips of zero duration are skipped
 * with keys 0). reports[i] describes clips[i]. Chain joints that already have a rotation
 * channel in a clip (a file baked before) get their sampler replaced. TL_ERROR_MEMORY, or
 * the player's TL_ERROR_INVALID for a degenerate chain. */
tl_result tl_bake(tl_gltf* doc, const tl_scene* scene, const tl_play_chain* chains,
                  uint32_t chain_count, const uint32_t* clips, uint32_t clip_count,
                  const tl_bake_def* def, tl_bake_clip_report* reports, tl_error* err);

/* How long tl_bake_rest lets the chains hang still before it reads them at most, s. */
#define TL_BAKE_SETTLE_SECONDS 4.0f
/* It reads them sooner, once for TL_BAKE_STILL_FRAMES frames in a row no point of any chain
 * moved faster than TL_BAKE_STILL_SPEED skin heights per second (a bound from the joints'
 * turns): a hundredth of measure.md's rest bar (1 cm/s at a human's 1.8 m), 0.1 mm/s. What
 * the longer settle would still change is float noise (docs/hair.md, session 17). */
#define TL_BAKE_STILL_SPEED (0.01 / 1.8 / 100)
#define TL_BAKE_STILL_FRAMES 30

/* The chains' settled rest under the stored pose: a player stepped at 1/60 s with every joint
 * still (tl_pose_set_stored) until the chains are still (above) or TL_BAKE_SETTLE_SECONDS have
 * passed. Writes bone_count × 4 rotations (x, y, z, w) per chain, chain after chain, into
 * `rotations`, and the frames stepped into *frames (may be NULL). */
tl_result tl_bake_rest_rotations(const tl_scene* scene, const tl_play_chain* chains,
                                 uint32_t chain_count, float* rotations, uint32_t* frames,
                                 tl_error* err);

/* Writes tl_bake_rest_rotations into the chain joints' node "rotation" (translation and
 * scale as they were) and reindexes. */
tl_result tl_bake_rest(tl_gltf* doc, const tl_scene* scene, const tl_play_chain* chains,
                       uint32_t chain_count, tl_error* err);

/* tl_bake_rest on every chain the document holds (none: nothing changes): what `tailor rig`
 * and `tailor batch` do after tl_rig_apply, so a viewer without physics shows the rest. */
tl_result tl_bake_rest_document(tl_gltf* doc, tl_error* err);

#ifdef __cplusplus
}
#endif

#endif
