/* The player's parts that turn an existing joint (kinds pendulum and aim, cloth.md §10,
 * docs/cloth.md "Pendulum and aim"): each pendulum stepped under its joint's animated world
 * pose, each aim solved on the pose the chains and pendulums left; their joints' rotations
 * written into the pose. Not part of the public API. */
#ifndef TL_PLAY_JOINT_PLAY_H
#define TL_PLAY_JOINT_PLAY_H

#include <tailor/pendulum.h>
#include <tailor/scene.h>

typedef struct play_joints play_joints;

/* Every pendulum and aim part of the scene (scene->joint_parts); *out is NULL when there is
 * none. TL_ERROR_INVALID when a pendulum's settings are refused by tl_pendulum_init. */
tl_result play_joints_create(const tl_scene* scene, play_joints** out, tl_error* err);
void play_joints_destroy(play_joints* pj);

/* Whether every part turns a joint of this skin (a pose may then keep only that skin). */
bool play_joints_skin_only(const play_joints* pj, uint32_t skin);

/* At rest under the pose (world matrices current). */
void play_joints_start(play_joints* pj, const tl_pose* pose);
/* A cut: every pendulum carried rigidly to its joint in the pose (tl_pendulum_carry). */
void play_joints_cut(play_joints* pj, const tl_pose* pose);
/* One frame of dt seconds ending at the pose (the body's, world current): the pendulums step
 * under their joints' world poses, the aims keep their joints' animated locals. */
void play_joints_step(play_joints* pj, const tl_pose* pose, float dt);
/* The pendulums' then the aims' rotations into the pose, world updated after each part that
 * a later one may hang below (the pose otherwise as the chains left it, world current). Writes
 * the same whenever called again for the same state. */
void play_joints_apply(const play_joints* pj, tl_pose* pose);

uint32_t play_joints_count(const play_joints* pj);
/* The part (index into scene->parts) joint part i plays, and its pendulum (NULL for an aim). */
uint32_t play_joints_part(const play_joints* pj, uint32_t i);
const tl_pendulum* play_joints_pendulum(const play_joints* pj, uint32_t i);

#endif
