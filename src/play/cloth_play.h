/* The player's cloth parts (cloth.md, docs/cloth.md): one tl_cloth per part of kind cloth, fed
 * from the pose (targets: each particle's rest position skinned to its joint; the character
 * frame: the attachment joint's motion from rest), its bones written back into the pose. Not
 * part of the public API. */
#ifndef TL_PLAY_CLOTH_PLAY_H
#define TL_PLAY_CLOTH_PLAY_H

#include <tailor/cloth.h>
#include <tailor/scene.h>

typedef struct play_cloths play_cloths;

/* Every cloth part of the scene; *out is NULL when there is none. With `colliders`, each
 * collides with its skin's body colliders (those its rest particles lie outside). */
tl_result play_cloths_create(const tl_scene* scene, bool colliders, play_cloths** out,
                             tl_error* err);
void play_cloths_destroy(play_cloths* pc);

/* At rest under the pose (world matrices current). */
void play_cloths_start(play_cloths* pc, const tl_pose* pose);
/* A cut (a loop's wrap, tl_player_cut): every cloth carried rigidly to the pose (world
 * matrices current), where the next frame starts. */
void play_cloths_cut(play_cloths* pc, const tl_pose* pose);
/* The pose at `t` seconds into the frame (world matrices current), valid until the next call. */
typedef const tl_pose* (*play_pose_at)(void* user, float t);
/* One frame of dt seconds, each internal step under the pose at its own time
 * (tl_cloth_step_sampled). */
void play_cloths_step_sampled(play_cloths* pc, play_pose_at pose_at, void* user, float dt);
/* One frame of dt seconds ending at the pose. */
void play_cloths_step(play_cloths* pc, const tl_pose* pose, float dt);
/* The cloth bones' locals into the pose (world not updated). */
void play_cloths_apply(const play_cloths* pc, tl_pose* pose);

uint32_t play_cloths_count(const play_cloths* pc);
const tl_cloth* play_cloths_get(const play_cloths* pc, uint32_t i);
/* The part (index into scene->parts) cloth i plays. */
uint32_t play_cloths_part(const play_cloths* pc, uint32_t i);
/* The particles' targets of cloth i at the last step (world). */
const float* play_cloths_targets(const play_cloths* pc, uint32_t i);
/* Its colliders at the last step (world) and their count. */
uint32_t play_cloths_colliders(const play_cloths* pc, uint32_t i, const tl_collider** world);

#endif
