/* The body colliders one chain runs with (player.c). */
#ifndef TAILOR_PLAY_CHAIN_COLLIDERS_H
#define TAILOR_PLAY_CHAIN_COLLIDERS_H

#include <tailor/play.h>

/* Chain d's colliders out of all[0..n) into out (capacity n), their count. With a zero
 * hit_radius those its bind joints lie in are left out (growth untouched); with one, growth
 * (capacity n * bone_count) gets, per kept collider k and link i, growth[k * bone_count + i]:
 * the hit radius, or less (a shrink, however deep: down to no size) as far as that link's tip
 * at rest stays outside, or -INFINITY where no shrink clears it (the tip on the collider's
 * centre or segment; tl_chain_input.collider_growth: that link is free of it); a collider no
 * link meets is left out. */
uint32_t play_chain_colliders(const tl_scene* scene, const tl_play_chain* d,
                              const tl_body_collider* all, uint32_t n, tl_body_collider* out,
                              float* growth);

/* Per vertex of the skin, the lock it belongs to, read so that blending the weights between
 * neighbouring locks does not move it (docs/hair.md "The player's inputs from the locks"): a
 * vertex whose largest side is a chain's (each chain's bones summed, every other joint alone)
 * belongs to the chain whose rest bones lie nearest, as the hair adapter weighed it before any
 * diffusion; lock[v] that chain (an index into chains[0..count)) and joint[v] its nearest bone,
 * near[v] (may be NULL) the distance. Others: -1, their dominant joint, INFINITY. False: out of
 * memory. */
bool play_skin_locks(const tl_scene* scene, uint32_t skin, const tl_play_chain* chains,
                     uint32_t count, int32_t* lock, uint32_t* joint, float* near);

/* The thickness of the skin chain d (chains[index] of play_skin_locks' lock and near) moves: the
 * 90th percentile of its lock's vertices' rest distances from its bones, bind units; 0 without
 * any or when scratch memory fails. */
float play_chain_skin_thickness(const tl_scene* scene, const tl_play_chain* d, uint32_t index,
                                const int32_t* lock, const float* near);

/* Node `node`'s world matrix in `pose` less `home`, composed in double from the pose's locals
 * (root first): 100 m out a float world matrix rounds at 4e-6 m, 1e-4 of a short hair chain,
 * new each frame (docs/stress.md "Session 20"). False when the node lies deeper than
 * PLAY_PLAN_NODES. */
bool play_node_world(const tl_scene* scene, const tl_pose* pose, uint32_t node, const float home[3],
                     double m[16]);

/* The nodes from the scene's roots to a chain's collider joints, each once, parents first, so
 * their world matrices are composed sharing the common ancestors (play_node_plan_compose: the
 * same doubles as play_node_world's). */
enum { PLAY_PLAN_NODES = 64 };
typedef struct play_node_plan {
    uint32_t count; /* 0: a path deeper than the plan holds */
    uint32_t node[PLAY_PLAN_NODES];
    int32_t parent[PLAY_PLAN_NODES];      /* the slot of the node's parent; -1 at a root */
    uint32_t slot[TL_BODY_COLLIDERS_MAX]; /* per collider: its joint's slot */
} play_node_plan;

/* The plan of colliders[0..n) of skin `skin`; false (count 0) when it does not fit. */
bool play_node_plan_build(const tl_scene* scene, uint32_t skin, const tl_body_collider* colliders,
                          uint32_t n, play_node_plan* plan);

/* world[s]: the plan's node s's world matrix in `pose` (home not taken off). */
void play_node_plan_compose(const tl_pose* pose, const play_node_plan* plan, double (*world)[16]);

/* Whether the player poses a chain's colliders again only when one of their joints moved (true,
 * the default) or every frame (the same colliders: for tests). */
void play_player_pose_memo(tl_player* player, bool memo);

#endif
