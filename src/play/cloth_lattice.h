/* The cloth player's lattice set-up and bone write on plain arrays (cloth_play.c), shared with
 * the web runtime's glue (web/tailor_sim_glue.c) so both play a cloth part alike: the colliders
 * shrunk to clear the rest lattice, the links' and the skin points' rest depth, the step the
 * player runs at, and each bone's rigid motion from its patch of particles. Not public API. */
#ifndef TAILOR_PLAY_CLOTH_LATTICE_H
#define TAILOR_PLAY_CLOTH_LATTICE_H

#include <tailor/cloth.h>

/* The player's step (1/120 s, each pose fed is stepped at once: the cloth never lags the legs it
 * collides with), twice the sub-steps, and the dampings tuned per 1/60 s kept per second. */
void play_lattice_player_step(tl_cloth_def* def);

/* Collider c (rest-world) as the cloth meets it against the rest lattice `rest` (R x C x 3,
 * rest-world): false when left out (a plane, or the body inside the pinned row 0, which is the
 * garment's hold); else shrunk until rows 1.. (and 1.01 margin) clear it, false when that would
 * keep less than half its size. The lattice's particles are centroids of curved patches and sit
 * a little inside the fitted body at rest: so the cloth starts at rest. */
bool play_lattice_fit_collider(tl_collider* c, const float* rest, uint32_t R, uint32_t C,
                               float margin);

/* tl_cloth_def.link_slack (R x C x 2) against the fitted colliders. */
void play_lattice_link_slack(const tl_collider* colliders, uint32_t count, const float* rest,
                             uint32_t R, uint32_t C, bool closed, float margin, float* slack);

/* The ints play_lattice_skin_points needs as scratch for an R x C lattice. */
size_t play_lattice_skin_bins(uint32_t R, uint32_t C);
/* tl_cloth_def.skin_points of an open lattice from the skin it drives (mesh: count x 3
 * rest-world points) into out (count entries at most); how many were kept. */
int play_lattice_skin_points(const tl_collider* colliders, uint32_t collider_count,
                             const float* rest, uint32_t R, uint32_t C, float margin,
                             const float* mesh, uint32_t count, int* bins,
                             tl_cloth_skin_point* out);

/* The rigid motion D (column-major 4x4) of bone (r, c)'s patch of particles from `rest` to
 * `now` (R x C x 3): the bone's world is D x its rest-world matrix. */
void play_lattice_bone_motion(const float* rest, const float* now, uint32_t R, uint32_t C,
                              bool closed, uint32_t r, uint32_t c, double D[16]);

/* The bones' local matrices (count x 16, column-major) from the lattice now: bone k sits at
 * particle (k / BC, 2 (k % BC)) at rest (rest_world: count x 16); its world is its patch's
 * motion x its rest-world matrix, its local that under its parent's: the attachment's world
 * (attach_world) for row 0, else bone k - BC's. count <= TL_CHAIN_MAX_BONES + 1. */
void play_lattice_bone_locals(const float* rest, const float* now, uint32_t R, uint32_t C,
                              bool closed, uint32_t BC, uint32_t count, const float* rest_world,
                              const float* attach_world, float* local);

#endif
