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

/* The thickness of the skin chain d moves: the 90th percentile of the rest distances from
 * its bones' polyline of the vertices its bones dominate, bind units; 0 without any or when
 * scratch memory fails. */
float play_chain_skin_thickness(const tl_scene* scene, const tl_play_chain* d);

#endif
