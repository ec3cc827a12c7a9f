/* The sheet's limit between neighbouring hair chains (player.c, docs/hair.md "The sheet's
 * limit"). */
#ifndef TAILOR_PLAY_HAIR_SHEET_H
#define TAILOR_PLAY_HAIR_SHEET_H

#include <tailor/play.h>

typedef struct play_sheet play_sheet;

/* A chain's body colliders at the frame's end, as its last step saw them (growth per collider
 * and link as tl_chain_input.collider_growth, or NULL). */
typedef struct play_sheet_body {
    const tl_collider* colliders;
    uint32_t count;
    const float* growth;
} play_sheet_body;

/* The ties between coupled chains (sheet_rate > 0, one skin, one attachment): for every skin
 * edge from a vertex one chain's bone dominates to one another chain's bone dominates, the
 * points of the two links nearest its two ends at rest (merged per pair of links), the
 * particles at the two links' tips, and (against shear) each tip to the other link's head
 * particle. locks and joints (may be NULL; per skin, NULL: not known) hold a skin's
 * play_skin_locks for these chains where the caller found them already. *out NULL when no chain
 * pair meets. False: out of memory. */
bool play_sheet_create(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                       const int32_t* const* locks, const uint32_t* const* joints,
                       play_sheet** out);
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

/* Whether the hold keeps each link's direction until its chain moves and stops after a sweep
 * that moved nothing (true, the default), or finds every direction anew and runs every sweep
 * (the same result: for tests). */
void play_sheet_memo(play_sheet* sheet, bool memo);
/* How many sweeps over the ties the last hold ran, and how many ties it passed over as they lay
 * within their allowance with their chains and attachment as they are. */
uint32_t play_sheet_sweeps(const play_sheet* sheet);
uint32_t play_sheet_skipped(const play_sheet* sheet);

/* v rotated by the quaternion q (x, y, z, w; normalised here), or by its inverse. */
void play_rotate(const float* q, const float* v, float* out, bool inverse);

#endif
