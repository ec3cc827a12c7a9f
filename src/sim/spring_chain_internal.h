/* Test hooks of the spring chain, not part of the public API. */
#ifndef TL_SPRING_CHAIN_INTERNAL_H
#define TL_SPRING_CHAIN_INTERNAL_H

#include <tailor/sim.h>

/* The article's bug 2 (spring-chain.md §2): every position correction (rope, coupling,
 * limit, contact) fed back into the velocity as correction / dt, position-based-dynamics
 * style, instead of dropping the radial and into-the-limit velocity. Kept only so that a
 * test can show its metric catches the bug. */
void tl_chain_debug_velocity_feedback(tl_chain* chain, bool on);

#endif
