/* Shared between the files of the scene module; not part of the public API. */
#ifndef TL_SCENE_INTERNAL_H
#define TL_SCENE_INTERNAL_H

#include <tailor/scene.h>
#include <tailor/sim.h>

#include "base/mat4.h"

/* Assigns roles, landmarks, axes, height and floor of one skin whose joints (parents,
 * names, rest_world, deforming) and rest_positions are filled in. */
void tl_scene_skin_classify(tl_scene_skin* skin, tl_scene_joint* joints);

/* The floor signal of tl_scene_skin_classify (roles.c): of the signed axes 0..5 (+x, -x, +y,
 * ...) but lateral_axis's two (-1: none), the one along which the lowest of the rest vertices
 * whose dominant joint is `below` lies lowest within all of them (-2: none). plain: each signed
 * axis on its own pass, as before the one pass (the same axis; for the test that compares). */
int tl_scene_floor_axis(const float* rest, uint32_t count, const uint32_t* dominant,
                        const bool* below, int lateral_axis, bool plain);

/* Zeroed storage that lives as long as the scene; NULL when out of memory. */
void* tl_scene_storage(tl_scene* scene, size_t size);

/* tl_body_colliders_fit (colliders.c) given the skin's tl_hair_find_primitives flags (hair,
 * primitive_count bytes; NULL: found there), for a caller that has them for another step on
 * the same scene (tl_rig_apply: the colliders and the guide layer). */
tl_result tl_body_colliders_fit_hair(const tl_scene* scene, uint32_t skin, const uint8_t* hair,
                                     tl_body_collider* out, uint32_t capacity, uint32_t* count,
                                     tl_error* err);
/* Decodes every extras.tailor of the scene's document into scene->parts and scene->notes
 * (src/scene/parts.c, docs/schema.md); needs the skins built. */
tl_result tl_scene_parts_read(tl_scene* scene, const char* label, tl_error* err);

/* Shrinks a sphere, capsule or ellipsoid until none of the points (count x 3 floats) lies
 * deeper than `slack` inside it (src/scene/colliders_bound.c): along the direction each point
 * lies in only (a capsule's end pulled back for a point past it, else its radius; the
 * ellipsoid's semi-axis the point lies most along). Planes stay. */
void tl_collider_bound(tl_collider* c, const float* points, uint32_t count, float slack);

/* The direction of joint's bone in the rest-world frame, unit: to its child on the way to the
 * main joint its role leads to (a torso joint to the head, a thigh to its shin, a shin to its
 * foot, an upper arm to its forearm), else (a head, a chain's end) from its parent to it. False
 * when neither exists or the joints coincide. */
bool tl_scene_skin_bone_direction(const tl_scene_skin* sk, uint32_t joint, double dir[3]);

/* The body collider fit (src/scene/colliders.c) of one joint's skin points: with choose, as
 * tl_body_colliders_fit does (the smaller of the bone's frame and the spread's); without, on the
 * bone's frame alone (bone NULL: the spread's). Returns how many (0-2); 0 when memory fails. */
uint32_t tl_colliders_fit_frame(const float* points, uint32_t count, const double* bone,
                                bool choose, tl_collider out[2]);

/* The volume over pi of a sphere, capsule or ellipsoid. */
double tl_collider_volume(const tl_collider* c);

/* Centroid, principal axes (rows, the largest variance first) and variances (per point) of
 * points (count x 3 floats, count > 0). */
void tl_points_principal_frame(const float* points, uint32_t count, double centre[3],
                               double axes[3][3], double variance[3]);

#endif
