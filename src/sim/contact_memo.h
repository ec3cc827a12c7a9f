/* A chain's memo of the body colliders its contact pass grows (contact_memo.c): an
 * ellipsoid grown for a link (contact_collider_of: 3 square roots and 9 divisions) is kept
 * with the axes and growth it was grown from, so a later call with the same ones (a still
 * body: every frame of the rest settle) reads it back: the same bits. And a squared distance
 * from the centre beyond which a tip is surely outside, so the pass skips its test there.
 * Pairs of collider k and link (k * links + link) past CONTACT_MEMO are grown as they are met.
 * The player owns one per chain (src/play/player.c); a chain without one grows as it meets. */
#ifndef TL_SIM_CONTACT_MEMO_H
#define TL_SIM_CONTACT_MEMO_H

#include <tailor/sim.h>

enum { CONTACT_MEMO = 128, CONTACT_BALLS = 32, CONTACT_BALL_GROWTH = 512 };

typedef struct contact_memo {
    unsigned char state[CONTACT_MEMO]; /* 0: empty, 1: grown (axes, far2), 2: no size */
    float growth[CONTACT_MEMO];        /* the key: the growth, and ... */
    float from[CONTACT_MEMO][3][3];    /* ... the collider's axes it was grown from */
    float far2[CONTACT_MEMO];          /* INFINITY: no such bound */
    float axes[CONTACT_MEMO][3][3];    /* grown */
    /* One frame's balls (chain_contact_memo_balls, step_alone): per collider of balls_of (its
     * ball_count colliders; NULL: none) a centre and radius (-1: none) beyond which no link's
     * grown collider holds a tip, so a call whose rope sphere lies beyond visits it not. */
    const tl_collider* balls_of;
    int ball_count;
    float ball[CONTACT_BALLS][4];
    /* The colliders and growth the balls were found from (key_count 0: none; kept across
     * frames, compared as bits), so a still body's balls are found once: the same bits. Growth
     * of more than CONTACT_BALL_GROWTH floats is not kept (the balls found every frame). */
    int key_count, key_links;
    bool key_grown;
    tl_collider key[CONTACT_BALLS];
    float key_growth[CONTACT_BALL_GROWTH];
} contact_memo;

/* Gives chain c the memo (zeroed when new; NULL: none), which the caller keeps while c steps
 * and frees after it. Entries are checked against their key at every read, so one memo may
 * serve a chain across any frames, colliders and settings. */
#if defined(__GNUC__)
__attribute__((visibility("hidden")))
#endif
void chain_contact_memo_attach(tl_chain* c, contact_memo* memo);

#endif
