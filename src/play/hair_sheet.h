/* The sheet's limit between neighbouring hair chains (player.c, docs/hair.md "The sheet's
 * limit"): its ties found in the skin; held by sheet_hold.c. */
#ifndef TAILOR_PLAY_HAIR_SHEET_H
#define TAILOR_PLAY_HAIR_SHEET_H

#include "play/sheet_hold.h"

#include <tailor/play.h>

/* The ties between coupled chains (sheet_rate > 0, one skin, one attachment): for every skin
 * edge from a vertex one chain's bone dominates to one another chain's bone dominates, the
 * points of the two links nearest its two ends at rest (merged per pair of links), the
 * particles at the two links' tips, and (against shear) each tip to the other link's head
 * particle. locks and joints (may be NULL; per skin, NULL: not known) hold a skin's
 * play_skin_locks for these chains where the caller found them already. *ties (free it) NULL
 * when no chain pair meets. False: out of memory. */
bool play_sheet_ties_find(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                          const int32_t* const* locks, const uint32_t* const* joints,
                          play_sheet_tie** ties, uint32_t* tie_count);

/* The sheet of those ties (play_sheet_from_ties); *out NULL when there is none. False: out of
 * memory. */
bool play_sheet_create(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                       const int32_t* const* locks, const uint32_t* const* joints,
                       play_sheet** out);

#endif
