/* tailor/colliders.h — body colliders fitted to the skin each body bone dominates, for the
 * chain solver's collider pass (sim.h tl_collider; shared by cloth and the VRM export).
 *
 * For every main body joint of the roles pelvis, spine, chest, neck, head, thigh, shin and
 * upper arm, the rest-world positions of the vertices whose largest weight is that joint give
 * one collider on their principal axes (the eigenvectors of their covariance; see
 * tl_body_colliders_fit_bones for a fit that also tries the bone's direction):
 *   - a capsule for a round limb: the 5th to 95th percentile of the positions along the first
 *     axis, and the 75th percentile of their distances from it as the radius (the skin is a
 *     surface around the bone: the segment spans the skin's extent and the caps reach past
 *     it);
 *   - an ellipsoid where a capsule fits badly: a flat cross-section (its two half extents, 5th
 *     to 95th percentile, differ by more than 1.25x: a pelvis, a chest) or a blob shorter than
 *     the capsule's diameter (a head): semi-axes along the frame in proportion to the half
 *     extents, scaled so that three quarters of the skin lie inside, as in the capsule.
 * A bone whose skin is longer than 6 capsule radii is split into two, each fitted to its half.
 * The hair is left out: the primitives tl_hair_find_primitives finds (hair.h; one rule for the
 * fit and the hair) are not body skin.
 * Colliders are kept in the rest-world frame (`local`) and posed with the joint:
 * world = pose world(joint) · rest_world(joint)^-1 · local. `tailor rig` stores them in the
 * file (docs/schema.md, extras.tailor.colliders of the skin): the scene reads them into
 * tl_scene_skin.colliders, and the player runs every chain with them.
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

/* How far, over H, a fitted body collider may reach past the exposed skin of the other joints
 * around it: half the penetration bar (measure.md), so that what rests on that skin reads
 * inside by at most half the bar. */
#define TL_BODY_COLLIDER_SLACK 0.001f

/* (TL_BODY_COLLIDERS_MAX and tl_body_collider are in scene.h: the scene holds the stored
 * ones.) */

/* One or two colliders (an elongated set split in two, see above) fitted to points sampled
 * on a surface (count x 3 floats) on their principal axes (no bone), into out[0..*fitted): none
 * with fewer than 8 points or none off a plane. TL_ERROR_MEMORY when scratch memory fails. */
tl_result tl_colliders_fit_points(const float* points, uint32_t count, tl_collider out[2],
                                  uint32_t* fitted, tl_error* err);

/* A collider moved by an affine matrix with uniform scale (column-major): points a (and a
 * capsule's b) and the ellipsoid's axes by the matrix, a plane's normal turned and kept
 * unit, the radius times the scale. */
void tl_collider_transform(const tl_collider* in, const double matrix[16], tl_collider* out);

/* Holds fitted colliders (of skin `skin`, in the rest-world frame as tl_body_colliders_fit
 * gives them) inside the skin around them: every exposed vertex (tl_skin_exposed; the hair left
 * out, tl_body_skin_mask) that a joint other than a collider's own dominates ends no deeper than
 * TL_BODY_COLLIDER_SLACK x H in it. Each such vertex, the deepest first, shrinks the collider
 * along the direction it lies in only, by whichever keeps the most volume: a capsule's end
 * pulled back along its axis or its radius; one of an ellipsoid's semi-axes (both its poles).
 * The collider's own joint's skin is no bound (the fit leaves a quarter of it outside). A call
 * for hosts that want colliders inside the skin; tl_body_colliders_fit does not apply it
 * (docs/sim.md "Colliders inside the skin": what it changes). TL_ERROR_MEMORY when scratch memory
 * fails. */
tl_result tl_body_colliders_bound(const tl_scene* scene, uint32_t skin, tl_body_collider* colliders,
                                  uint32_t count, tl_error* err);

/* Fits the skin's body colliders (above). Writes at most `capacity`, the number to *count.
 * A skin without mesh or roles gets none. TL_ERROR_MEMORY when scratch memory fails. */
tl_result tl_body_colliders_fit(const tl_scene* scene, uint32_t skin, tl_body_collider* out,
                                uint32_t capacity, uint32_t* count, tl_error* err);

/* tl_body_colliders_fit with each joint's collider fitted on whichever of two frames gives the
 * smaller one (both hold three quarters of the skin, so the smaller reaches less past it): the
 * skin's principal axes, or the bone's direction (to the child on the way to the head, the shin,
 * the foot or the forearm; a head's from its parent) with the principal axes of the skin across
 * it. On round skin (a head, a chest) the largest variance points anywhere (the knight's spine
 * capsule lies 56 degrees off its bone); on skin that does not follow its bone (a tail a file binds
 * to a shin) the spread's frame is the tighter. A call for hosts; tailor rig, the player and the
 * measures use tl_body_colliders_fit (docs/sim.md "Colliders along their bones": the knight's and
 * CesiumMan's capes fail their settle and hitch bars with it). */
tl_result tl_body_colliders_fit_bones(const tl_scene* scene, uint32_t skin, tl_body_collider* out,
                                      uint32_t capacity, uint32_t* count, tl_error* err);

/* The skin the body colliders are fitted to and bounded by: body[v] = 0 for the hair left out
 * (the vertices of the primitives tl_hair_find_primitives finds), 1 for every other vertex.
 * TL_ERROR_MEMORY when scratch memory fails. */
tl_result tl_body_skin_mask(const tl_scene* scene, uint32_t skin, uint8_t* body, tl_error* err);

/* Which vertices of the skin an outside observer can see at rest: exposed[v] = 1 when a ray
 * from v in one of the 26 directions (the axes, the face and the corner diagonals of a cube)
 * that lie within 90 degrees of v's normal meets no triangle of the skin (the inside of a
 * mouth, teeth, a limb's end sunk into the torso are not exposed). Vertices with ignore[v]
 * (NULL: none), and the triangles that use them, are left out; only vertices with query[v]
 * are tested (others get 0). TL_ERROR_MEMORY when scratch memory fails. */
tl_result tl_skin_exposed(const tl_scene* scene, uint32_t skin, const uint8_t* ignore,
                          const uint8_t* query, uint8_t* exposed, tl_error* err);

/* The colliders in the pose's world (its world matrices updated). */
void tl_body_colliders_pose(const tl_scene* scene, uint32_t skin, const tl_body_collider* in,
                            uint32_t count, const tl_pose* pose, tl_collider* out);

/* The smallest capsule along an ellipsoid's longest axis that holds it (for hosts that know
 * spheres and capsules alone, such as VRM spring bones): radius the middle semi-axis, the
 * segment the longest semi-axis less that radius either side of the centre. Other shapes are
 * copied as they are. */
void tl_collider_capsule_around(const tl_collider* in, tl_collider* out);

/* The collider grown by `growth` (shrunk below 0): a sphere's or capsule's radius, or every
 * semi-axis of an ellipsoid, as the chain solver runs it for a link with that growth
 * (tl_chain_input.collider_growth); a plane as it is (the solver grows none). False when a
 * size would not stay above 0 (the link is free of it). */
bool tl_collider_grown(const tl_collider* collider, float growth, tl_collider* out);

/* How deep a point is inside a world collider (world units; <= 0 outside). An ellipsoid's
 * is the distance to its surface point radially out in its unit-sphere space (never less
 * than the true depth). */
float tl_collider_depth(const tl_collider* collider, const float point[3]);

/* A sphere around the collider for a cheap early out: every point whose depth is above -g lies
 * closer than sphere[3] + g to (sphere[0], sphere[1], sphere[2]) (for the depth's own rounding
 * too: the radius has a margin). False for a plane, which no sphere holds. */
bool tl_collider_sphere(const tl_collider* collider, float sphere[4]);

#ifdef __cplusplus
}
#endif

#endif
