/* The sheet's limit between neighbouring hair chains, held from its ties (hair_sheet.c finds them
 * in a scene). No scene: compiled into tailor_sim.wasm too (web/tailor_sim_glue.c), so the web
 * runtime holds a file's stored ties as the C player holds its own (docs/web.md "Session 24"). */
#ifndef TAILOR_PLAY_SHEET_HOLD_H
#define TAILOR_PLAY_SHEET_HOLD_H

#include <tailor/sim.h>

#include <stdbool.h>
#include <stdint.h>

typedef struct play_sheet play_sheet;

/* b of a head tie: a chain's link point held near its rest spot carried by the attachment */
#define PLAY_SHEET_HEAD_TIE UINT32_MAX

/* One tie between two chains' links (a < b), as found in the skin. */
typedef struct play_sheet_tie {
    uint32_t a, b;   /* chains (b PLAY_SHEET_HEAD_TIE: a head tie) */
    uint32_t ia, ib; /* their links (link i: particle i-1, or the root, to particle i) */
    float ta, tb;    /* the tied point along each link, 0 its head to 1 its tip */
    uint32_t along;  /* 0: the links' tips (ta = tb = 1); 1: the points beside the seam; 2: a head
                        tie: a's point and its rest spot on the attachment */
    float seam;      /* the mean rest length of the skin edges that made it, world units */
} play_sheet_tie;

/* A chain's body colliders at the frame's end, as its last step saw them (growth per collider
 * and link as tl_chain_input.collider_growth, or NULL); at most PLAY_SHEET_COLLIDERS_MAX. */
#define PLAY_SHEET_COLLIDERS_MAX 32
typedef struct play_sheet_body {
    const tl_collider* colliders;
    uint32_t count;
    const float* growth;
} play_sheet_body;

/* The sheet of ties[0..tie_count) between `count` chains of bones[i] bones. *out NULL when there
 * is no tie. False: out of memory, or a tie out of range (a chain or link past its count). */
bool play_sheet_from_ties(const play_sheet_tie* ties, uint32_t tie_count, uint32_t count,
                          const uint32_t* bones, play_sheet** out);
void play_sheet_destroy(play_sheet* sheet);

/* The ties' rest offsets and directions, from the chains at rest under inputs[i].start (over its
 * scale). */
void play_sheet_rest(play_sheet* sheet, tl_chain* const* chains, const tl_chain_input* inputs);

/* No tie farther from its rest offset (carried by the attachment, turned as its two links
 * turned together) than its seam's allowance: a position correction of the
 * chains' particles (tl_chain_particles_move), no allocation. A side the correction would take
 * deeper into one of its chain's colliders (bodies[chain]) stays, the other takes it all; a
 * tie whose two sides would both go deeper is left. */
void play_sheet_hold(play_sheet* sheet, tl_chain* const* chains, const tl_chain_input* inputs,
                     const play_sheet_body* bodies);

/* Whether the hold keeps each link's direction until its chain moves, stops after a sweep
 * that moved nothing and reads only the colliders near a point (true, the default), or finds
 * every direction anew, runs every sweep and reads every collider (the same result: for
 * tests). */
void play_sheet_memo(play_sheet* sheet, bool memo);
/* How many sweeps over the ties the last hold ran, and how many ties it passed over as they lay
 * within their allowance with their chains and attachment as they are. */
uint32_t play_sheet_sweeps(const play_sheet* sheet);
uint32_t play_sheet_skipped(const play_sheet* sheet);
/* The sheet's tie count (0 for NULL). */
uint32_t play_sheet_tie_count(const play_sheet* sheet);

/* v rotated by the quaternion q (x, y, z, w; normalised here), or by its inverse. */
void play_rotate(const float* q, const float* v, float* out, bool inverse);

#endif
