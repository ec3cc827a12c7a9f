/* tailor/seating.h — ground seating that ignores the tail (spring-chain.md §8).
 *
 * Clip playback often lifts the pelvis so the body does not sink below the floor: a clip made
 * for another skeleton, a crouch retargeted onto shorter legs. The pass must look at the body
 * only. A chain's skin (a tail drooping below the soles, dragging on the floor) is moved by
 * the chain solver, which has its own ground contact; counting it lifts the whole character
 * (the source article: 11-15 cm during a back flip).
 *
 * A tl_seating samples the skin once, at create: per deforming joint, its few lowest rest
 * vertices among the vertices that joint dominates (largest weight). Points dominated by a
 * chain's bones (T) are left out unless def.count_chains asks for the article's bug. Then,
 * with heights along the skin's up axis in the rest-world frame:
 *
 *     f_body = min over the points of the rest height                (at create)
 *     c(t)   = min over the points of height(t) - f_body             (tl_seating_clearance)
 *     a(t)   = min(0, c measured on the clip's own pose, chains at rest)   (tl_seating_tolerance)
 *     L(t)   = max(0, a(t) - c(t))                                   (tl_seating_lift)
 *
 * and tl_seating_apply lifts the skin's root joints by L(t) along up. a(t) lets a clip sink
 * into the floor exactly as far as it was authored to (a crouch, a roll) and no further.
 *
 * Ownership: tl_seating_create allocates the seating and a scratch pose and copies what it
 * needs from the chains; the scene must outlive it. Clearance, lift and apply allocate
 * nothing.
 *
 * Example (a player that seats the body every frame):
 *     tl_seating_def def = tl_default_seating_def();
 *     tl_seating* seat;
 *     tl_seating_create(scene, skin, chains, chain_count, &def, &seat, &err);
 *     for (each frame at time t) {
 *         tl_player_advance(player, pose, clip, t);          // chains simulated
 *         tl_seating_apply(seat, pose, tl_seating_tolerance(seat, clip, t));
 *         ...skin...
 *     }
 *     tl_seating_destroy(seat);
 */
#ifndef TAILOR_SEATING_H
#define TAILOR_SEATING_H

#include <tailor/base.h>
#include <tailor/play.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_seating_def {
    uint32_t points_per_joint; /* lowest rest vertices sampled per dominant joint; 8 */
    bool count_chains;         /* false: points dominated by chain bones are not support (the fix);
                                  true: they are (the article's bug, kept to measure it); false */
} tl_seating_def;

tl_seating_def tl_default_seating_def(void);

typedef struct tl_seating tl_seating;

/* Samples the support points of `skin`. Chains of other skins are ignored. TL_ERROR_INVALID
 * when a chain's joints are out of range or no vertex is left to stand on; TL_ERROR_MEMORY. */
tl_result tl_seating_create(const tl_scene* scene, uint32_t skin, const tl_play_chain* chains,
                            uint32_t chain_count, const tl_seating_def* def, tl_seating** out,
                            tl_error* err);

void tl_seating_destroy(tl_seating* seating);

/* Support points sampled, and f_body (rest-world height along up). */
uint32_t tl_seating_point_count(const tl_seating* seating);
float tl_seating_floor(const tl_seating* seating);

/* c: the lowest support point's height in `pose` (world updated) above f_body, world units;
 * negative when the body sinks below its rest floor. */
float tl_seating_clearance(tl_seating* seating, const tl_pose* pose);

/* a(t) = min(0, c) on the clip's own pose at `time` with the chain bones at their rest
 * locals (sampled into the seating's scratch pose). */
float tl_seating_tolerance(tl_seating* seating, uint32_t clip, float time);

/* L = max(0, tolerance - c(pose)): how far apply would lift, world units. */
float tl_seating_lift(tl_seating* seating, const tl_pose* pose, float tolerance);

/* Lifts the skin's root joints by tl_seating_lift along the skin's up axis, updates world and
 * returns the lift. The chains' bones ride along (they are below the root). */
float tl_seating_apply(tl_seating* seating, tl_pose* pose, float tolerance);

/* The extra pelvis lift the article's bug adds: plays `clip` with the chains simulated
 * (tl_player_advance from time 0 in frames of a default player, looping), seats the same pose
 * with the chains' skin excluded and counted (def.count_chains is ignored) and writes, for each of
 * `count` increasing `times` (seconds, may exceed the clip's duration: the clip loops), dy[i] =
 * lift_counted - lift_excluded (= Δy_hips). The skin is chains[0].skin. lift_counted and
 * lift_excluded may be NULL; when given they receive the two lifts. Errors of tl_player_create /
 * tl_seating_create are passed on. */
tl_result tl_seating_compare(const tl_scene* scene, const tl_play_chain* chains,
                             uint32_t chain_count, uint32_t clip, const float* times,
                             uint32_t count, const tl_seating_def* def, float* dy,
                             float* lift_counted, float* lift_excluded, tl_error* err);

/* Moves the whole skeleton of `skin` by a world (rest-world) transform applied at each of its
 * root joints: local' = W_parent^-1 · transform · W_parent · local; then updates world. The
 * seating's lift and the stress test's hip shake and teleport use it. */
void tl_pose_move_skin(tl_pose* pose, const tl_scene* scene, uint32_t skin,
                       const float transform[16]);

#ifdef __cplusplus
}
#endif

#endif
