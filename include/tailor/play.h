/* tailor/play.h — clip playback with the spring chains simulated.
 *
 * A tl_player owns one tl_chain (sim.h) per bone chain of a scene and plays a clip through
 * them: it samples the clip at most def.frame_step apart, feeds each chain its
 * attachment joint's animated world pose, and writes the chains' local rotations into the
 * pose, so skinning shows the tail swinging. Clips have no keys for the chain bones; without
 * this the tail is a plank.
 *
 * Chains come from the document (tl_play_chains_find: the scene's parts, decoded from the
 * extras.tailor tailor rig writes, docs/schema.md) or from the caller (tl_play_chain filled by
 * hand). A chain's rest geometry comes from inverse bind matrices (spring-chain.md §5); its axes
 * from the skin's up/forward/lateral; its scale from the model height H (H / 1.8 m); its floor from
 * the body's lowest rest vertex, skin dominated by chain bones excluded (spring-chain.md §8).
 *
 * Ownership: tl_player_create allocates the player, its chains and a scratch pose;
 * tl_player_advance allocates nothing. The scene must outlive the player.
 *
 * Example:
 *     tl_play_chain chains[8]; uint32_t n;
 *     tl_play_chains_find(scene, chains, 8, &n, &err);
 *     tl_player_def def = tl_default_player_def();
 *     tl_player* player;
 *     tl_player_create(scene, chains, n, &def, &player, &err);
 *     tl_player_start(player, clip, 0.0f);
 *     for (float t = 0; t < duration; t += 1.0f / 30) {
 *         tl_player_advance(player, pose, clip, t); // pose: the clip at t with chains applied
 *         ...skin with tl_pose_joint_matrices...
 *     }
 *     tl_player_destroy(player);
 */
#ifndef TAILOR_PLAY_H
#define TAILOR_PLAY_H

#include <tailor/base.h>
#include <tailor/cloth.h>
#include <tailor/pendulum.h>
#include <tailor/scene.h>
#include <tailor/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One chain of a skin: bones Tail_1..Tail_K (skin joint indices, root first) hanging from
 * an attachment joint, an optional weightless end joint, and the solver settings (only the
 * settings fields of `settings` are used; geometry, up, scale and floor are derived). */
typedef struct tl_play_chain {
    uint32_t skin;
    uint32_t attach_joint;
    uint32_t bone_joints[TL_CHAIN_MAX_BONES];
    uint32_t bone_count;
    int32_t end_joint;                     /* TL_NONE: the last link continues its tangent */
    float joint_radii[TL_CHAIN_MAX_BONES]; /* skin radius per link head, bind units (as
                                              extras.tailor.radii); 0 unknown (limit 30°) */
    float hit_radius; /* bind units: how far the chain's skin reaches around its particles,
                         kept out of the body colliders (each collider grown by it as far as
                         the particles at rest stay outside; those they lie in are shrunk
                         until they do). tl_play_chains_find: 0 for tails (particles are
                         points, and the colliders the bind pose lies in are left out, such as
                         the pelvis around a tail's root); for hair the 90th percentile of its
                         skin's distance from the chain (a lock's thickness) */
    float sheet_rate; /* above 0: the chain is coupled to each coupled chain of its skin and
                         attachment whose skin meets its own (an edge of the skin from a vertex
                         one chain's bones dominate to one the other's do): the player holds
                         the points of the two links beside each such edge, and their tips,
                         within their rest offsets (the sheet's limit, docs/hair.md), so
                         neighbouring hair locks move as a sheet and the edges between them
                         tear less. Only its sign is read. tl_play_chains_find: 0 for tails,
                         TL_PLAY_HAIR_SHEET_RATE for hair */
    /* With sheet_rate > 0, head ties: each skin edge from a vertex this chain's bones dominate to
     * one its attachment dominates (hair left on the head beside the lock) also holds the link's
     * point beside it near its rest spot carried by the attachment (docs/hair.md "Head ties").
     * tl_play_chains_find: false (they cut short styles' tearing, bob01 HeadTurn p99 3.73 ->
     * 2.00, but sink long ones deeper) */
    bool sheet_head_ties;
    tl_chain_def settings;
} tl_play_chain;

/* tl_play_chain.sheet_rate for hair chains: above 0, coupled (the value itself, once a pull's
 * rate in 1/s, is not read). */
#define TL_PLAY_HAIR_SHEET_RATE 240.0f
/* The sleep window tl_play_chains_find gives every chain (tl_chain_def.sleep_seconds), s: a
 * chain on a still body sleeps once its output has kept under the rest bar this long (or,
 * against a contact, its mean pose has), and wakes as soon as anything moves */
#define TL_PLAY_SLEEP_SECONDS 1.0f

/* The chains of the scene's tail parts (tl_scene.parts: extras.tailor as decoded and checked
 * when the scene was built, docs/schema.md), in node order. Writes at most `capacity` and the
 * number found to *count. Returns TL_OK (the scene refused a bad part when it was built). */
tl_result tl_play_chains_find(const tl_scene* scene, tl_play_chain* out, uint32_t capacity,
                              uint32_t* count, tl_error* err);

typedef struct tl_player_def {
    float frame_step;   /* longest time between two clip samples fed to the chains, s; 1/120
                           (the solver's fixed step: every internal step sees the clip's exact
                           pose, so playback does not depend on the render rate). A game that
                           has poses only at render frames behaves like frame_step = 1/fps. */
    bool loop;          /* a time before the previous one wraps the clip without a reset (the
                           wrap is a cut: the chains reach it with the clip's last pose and
                           are carried to its first, docs/play.md); false:
                           it restarts the chains at rest */
    bool colliders;     /* the body colliders the file stores for the chain's skin
                           (tl_scene_skin.colliders, written by tailor rig) keep every chain
                           out of the body; those a chain's bind pose already lies in are left
                           out for it; true */
    bool fit_colliders; /* with colliders, a skin the file stores none for gets them fitted
                           at create (tl_body_colliders_fit); false (a file rigged before
                           colliders were stored then plays as it did) */
    bool sample_chains; /* tl_player_advance hands the chains a pose sampler
                           (tl_chain_step_sampled): every internal step sees the clip at its own
                           time, whatever frame_step; true. false: each chain gets the two poses
                           of each fed frame (tl_chain_step), as a host with poses only at
                           render frames does (frame_step = 1/fps); tl_player_step_pose always
                           does */
} tl_player_def;

tl_player_def tl_default_player_def(void);

typedef struct tl_player tl_player;

/* Builds a chain per entry. TL_ERROR_INVALID when a chain's joints are out of range or its
 * rest geometry is degenerate (a zero-length link). */
tl_result tl_player_create(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                           const tl_player_def* def, tl_player** out, tl_error* err);

void tl_player_destroy(tl_player* player);

/* Puts every chain at rest under the clip's pose at `time`: the next advance starts there. */
void tl_player_start(tl_player* player, uint32_t clip, float time);

/* Plays the clip from the last time to `time` in render frames of at most def.frame_step,
 * then leaves `pose` sampled at `time` with every chain's bones applied and world updated. */
void tl_player_advance(tl_player* player, tl_pose* pose, uint32_t clip, float time);

/* Drives the chains by one frame of dt seconds towards `pose` (already sampled and world
 * updated by the caller, with any motion of its own: a stress test, a game), then writes the
 * chains into it and updates world. */
void tl_player_step_pose(tl_player* player, tl_pose* pose, float dt);

/* The host moved the character discontinuously (a respawn, a camera cut) to `pose` (sampled,
 * world updated): the next frame starts there, and each chain is carried rigidly across the
 * jump (a cut, sim.h tl_chain_input.start). */
void tl_player_cut(tl_player* player, const tl_pose* pose);

/* The world point the chains are simulated relative to (a floating origin): tl_chain_tip_positions
 * and tl_chain_particle_positions of tl_player_chain are relative to it, world units, world
 * axes. 0 for a character near the world's origin; moved at tl_player_start and tl_player_cut
 * to where the character is, in steps of a power of two of at least 8 character heights, so the
 * state keeps a float's precision at the character's own size wherever it is. */
void tl_player_origin(const tl_player* player, float out[3]);

/* The body colliders chain `index` runs with (0 without def.colliders, or when its skin has
 * none stored and def.fit_colliders is off) and, after a frame,
 * where they were at its end (world). */
uint32_t tl_player_colliders(const tl_player* player, uint32_t index, const tl_collider** world);
/* How much chain `index` grows each of those colliders per link (tl_chain_input.collider_growth:
 * growth[k * bone_count + i] for collider k and link i's tip, -INFINITY: the link is free of
 * it), or NULL when the chain runs them at their size (no hit radius). */
const float* tl_player_collider_growth(const tl_player* player, uint32_t index);

/* Writes the chains' current rotations into a pose (and updates world). */
void tl_player_apply(const tl_player* player, tl_pose* pose);

const tl_scene* tl_player_scene(const tl_player* player);
uint32_t tl_player_chain_count(const tl_player* player);
const tl_chain* tl_player_chain(const tl_player* player, uint32_t index);
const tl_play_chain* tl_player_chain_desc(const tl_player* player, uint32_t index);

/* The scene's cloth parts (kind cloth), each a tl_cloth the player steps with the chains and
 * whose bones it writes into the pose (docs/cloth.md). */
uint32_t tl_player_cloth_count(const tl_player* player);
const tl_cloth* tl_player_cloth(const tl_player* player, uint32_t index);
/* The part (index into scene->parts) cloth `index` plays. */
uint32_t tl_player_cloth_part(const tl_player* player, uint32_t index);
/* Its particles' targets (each rest position skinned to its joint) at the last step, world. */
const float* tl_player_cloth_targets(const tl_player* player, uint32_t index);
/* Its body colliders at the last step (world), with def.colliders; their count. */
uint32_t tl_player_cloth_colliders(const tl_player* player, uint32_t index,
                                   const tl_collider** world);

/* The scene's pendulum and aim parts (scene->joint_parts, in that order): each pendulum stepped
 * under its joint's animated world pose, each aim solved on the pose the chains and pendulums
 * left; their joints' rotations written into the pose after the chains' (docs/cloth.md
 * "Pendulum and aim"). The part (index into scene->parts) joint part `index` plays, and its
 * pendulum (NULL for an aim). */
uint32_t tl_player_joint_part_count(const tl_player* player);
uint32_t tl_player_joint_part(const tl_player* player, uint32_t index);
const tl_pendulum* tl_player_pendulum(const tl_player* player, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif
