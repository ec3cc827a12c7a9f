/* A chain's body colliders grown for its lock's thickness (chain_growth.h). */
#include "play/chain_growth.h"

#include <tailor/colliders.h>

#include <math.h>

static float length3(const float v[3]) {
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* The collider grown by g (shrunk for g < 0): radius, or every semi-axis. False when a size
 * would not stay above 0, or for a plane grown at all (a plane has no size). */
static bool grow(const tl_collider* c, float g, tl_collider* out) {
    return (c->shape != TL_COLLIDER_PLANE || g == 0) && tl_collider_grown(c, g, out);
}

bool play_collider_clears(const tl_collider* c, const float* points, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i)
        if (tl_collider_depth(c, points + 3 * i) > 0) return false;
    return true;
}

/* The smallest size of the collider (radius, or shortest semi-axis). */
static float size_of(const tl_collider* c) {
    if (c->shape != TL_COLLIDER_ELLIPSOID) return c->radius;
    float s = INFINITY;
    for (int k = 0; k < 3; ++k)
        s = fminf(s, length3(c->axes[k]));
    return s;
}

/* The largest growth in (-size, hit] that leaves the point outside c (clearing is monotone in
 * the growth: a grown collider holds the smaller one); -INFINITY when none does (the point on
 * the collider's centre or segment: the link is free of it). However deep the rest tip lies,
 * the link keeps a collider its own size: freed, it would go deeper than it rests. */
static float room_for(const tl_collider* c, float hit, const float* point) {
    tl_collider trial;
    if (grow(c, hit, &trial) && play_collider_clears(&trial, point, 1)) return hit;
    const float none = -size_of(c); /* (no size left: nothing is inside) */
    float lo = none, hi = hit;
    for (int it = 0; it < 24; ++it) {
        float mid = 0.5f * (lo + hi);
        if (grow(c, mid, &trial) && play_collider_clears(&trial, point, 1))
            lo = mid;
        else
            hi = mid;
    }
    return lo > none ? lo : -INFINITY;
}

bool play_collider_growth(const tl_collider* c, float hit, const float* tips, uint32_t tip_count,
                          uint32_t links, float* g) {
    bool any = false;
    for (uint32_t i = 0; i < links; ++i) {
        if (c->shape == TL_COLLIDER_PLANE)
            g[i] = play_collider_clears(c, tips, tip_count) ? 0 : -INFINITY;
        else if (i < tip_count)
            g[i] = room_for(c, hit, tips + 3 * i);
        else /* (no rest point for the last tip: as the link before) */
            g[i] = i > 0 ? g[i - 1] : hit;
        any |= g[i] > -INFINITY;
    }
    return any;
}
