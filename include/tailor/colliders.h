/* tailor/colliders.h — body colliders fitted to the skin each body bone dominates, for the
 * chain solver's collider pass (sim.h tl_collider; shared later by cloth).
 *
 * For every main body joint of the roles pelvis, spine, chest, neck, head, thigh, shin and
 * upper arm, the rest-world positions of the vertices whose largest weight is that joint give
 * a capsule: their principal axis (covariance, power iteration), the 5th to 95th percentile
 * of their positions along it, and the 75th percentile of their distances from it as the
 * radius (the skin is a surface around the bone: the segment spans the skin's extent and the
 * caps reach past it), and a bone whose skin is longer than 6 radii is split into two
 * capsules, each fitted to its half. Colliders
 * are kept in the joint's rest frame (`local`, world units of the rest-world frame) and posed
 * with the joint: world = pose world(joint) · rest_world(joint)^-1 · local.
 *
 * Example:
 *     tl_body_collider body[TL_BODY_COLLIDERS_MAX];
 *     uint32_t n;
 *     tl_body_colliders_fit(scene, 0, body, TL_BODY_COLLIDERS_MAX, &n, &err);
 *     tl_collider world[TL_BODY_COLLIDERS_MAX];
 *     tl_body_colliders_pose(scene, 0, body, n, pose, world);  // every frame
 *     input.colliders = world, input.collider_count = (int)n;
 */
#ifndef TAILOR_COLLIDERS_H
#define TAILOR_COLLIDERS_H

#include <tailor/base.h>
#include <tailor/scene.h>
#include <tailor/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most colliders one skin gets (13 bones, some split in two). */
#define TL_BODY_COLLIDERS_MAX 26

typedef struct tl_body_collider {
    uint32_t joint; /* the skin joint it rides */
    tl_role role;   /* of that joint */
    tl_side side;
    tl_collider local; /* in the rest-world frame of the rest pose (see above) */
    uint32_t vertices; /* skin vertices it was fitted to */
} tl_body_collider;

/* Fits the skin's body colliders (above). Writes at most `capacity`, the number to *count.
 * A skin without mesh or roles gets none. TL_ERROR_MEMORY when scratch memory fails. */
tl_result tl_body_colliders_fit(const tl_scene* scene, uint32_t skin, tl_body_collider* out,
                                uint32_t capacity, uint32_t* count, tl_error* err);

/* The colliders in the pose's world (its world matrices updated). */
void tl_body_colliders_pose(const tl_scene* scene, uint32_t skin, const tl_body_collider* in,
                            uint32_t count, const tl_pose* pose, tl_collider* out);

/* How deep a point is inside a world collider (world units; <= 0 outside). */
float tl_collider_depth(const tl_collider* collider, const float point[3]);

#ifdef __cplusplus
}
#endif

#endif
