/* The body colliders one chain runs with (player.c). */
#ifndef TAILOR_PLAY_CHAIN_COLLIDERS_H
#define TAILOR_PLAY_CHAIN_COLLIDERS_H

#include <tailor/play.h>

/* Chain d's colliders out of all[0..n) into out (capacity n), their count. With a zero
 * hit_radius those its bind joints lie in are left out; with one, each is grown by the
 * hit radius or shrunk, as far as its particles at rest stay outside (a collider that would
 * keep less than half its size is left out). */
uint32_t play_chain_colliders(const tl_scene* scene, const tl_play_chain* d,
                              const tl_body_collider* all, uint32_t n, tl_body_collider* out);

/* The thickness of the skin chain d moves: the 90th percentile of the rest distances from
 * its bones' polyline of the vertices its bones dominate, bind units; 0 without any or when
 * scratch memory fails. */
float play_chain_skin_thickness(const tl_scene* scene, const tl_play_chain* d);

#endif
