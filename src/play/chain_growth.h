/* How far a chain's body colliders grow for its lock's thickness (chain_colliders.c). No scene:
 * compiled into tailor_sim.wasm too (web/tailor_sim_glue.c), so the web runtime grows them by the
 * same rule as the C player (docs/web.md "Session 24"). */
#ifndef TAILOR_PLAY_CHAIN_GROWTH_H
#define TAILOR_PLAY_CHAIN_GROWTH_H

#include <tailor/sim.h>

#include <stdbool.h>
#include <stdint.h>

/* Whether every one of points[0..count) lies outside c. */
bool play_collider_clears(const tl_collider* c, const float* points, uint32_t count);

/* Collider c (rest-world, as the chain's rest points) grown for each of a chain's `links` links
 * by hit (> 0), its lock's thickness: growth[i] the hit radius, or less (a shrink, however deep:
 * down to no size) as far as link i's rest tip (tips[i], tip_count of them, the last link's
 * missing one as the link before) stays outside, or -INFINITY where no shrink clears it (the tip
 * on the collider's centre or segment: the link is free of it). A plane: 0, or -INFINITY for
 * every link when a tip lies behind it. Returns whether any link meets it. */
bool play_collider_growth(const tl_collider* c, float hit, const float* tips, uint32_t tip_count,
                          uint32_t links, float* growth);

#endif
