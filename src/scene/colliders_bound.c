/* A fitted body collider held inside the skin around it (include/tailor/colliders.h): shrunk
 * along the direction a point of that skin lies in, until no point is deeper than the slack. */
#include <tailor/colliders.h>

#include <assert.h>
#include <math.h>
#include <string.h>

#include "scene/internal.h"

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double capsule_volume(double length, double radius) {
    return radius * radius * (length + 4.0 / 3.0 * radius);
}

/* A capsule (or sphere) cleared of point p to within `slack` by whichever keeps the most volume:
 * its radius down to p's distance from the segment, or one end pulled back along the axis
 * until that end's cap clears p. */
static void capsule_clear(tl_collider* c, const float p[3], float slack) {
    double ab[3], ap[3];
    for (int k = 0; k < 3; ++k)
        ab[k] = c->shape == TL_COLLIDER_CAPSULE ? c->b[k] - c->a[k] : 0, ap[k] = p[k] - c->a[k];
    double length = sqrt(dot3(ab, ab)), keep = c->radius - slack;
    double axis[3] = {0, 0, 0}, s = 0;
    if (length > 0) {
        for (int k = 0; k < 3; ++k)
            axis[k] = ab[k] / length;
        s = dot3(ap, axis);
    }
    double across2 = fmax(dot3(ap, ap) - s * s, 0);
    double t = fmin(fmax(s, 0), length), d2 = 0;
    for (int k = 0; k < 3; ++k) {
        double d = ap[k] - t * axis[k];
        d2 += d * d;
    }
    double radius = sqrt(d2) + slack, best = capsule_volume(length, radius);
    int choice = 0; /* 0: the radius, 1: end a moved towards b, 2: end b towards a */
    double shift[3] = {0, 0, 0};
    if (length > 0 && across2 < keep * keep) {
        double reach = sqrt(keep * keep - across2); /* a cap's centre this far along from p */
        shift[1] = s + reach, shift[2] = length - (s - reach);
        for (int end = 1; end <= 2; ++end)
            if (shift[end] > 0 && shift[end] < length &&
                capsule_volume(length - shift[end], c->radius) > best)
                best = capsule_volume(length - shift[end], c->radius), choice = end;
    }
    if (choice == 0) {
        c->radius = (float)radius;
        return;
    }
    float* moved = choice == 1 ? c->a : c->b;
    double sign = choice == 1 ? 1 : -1;
    for (int k = 0; k < 3; ++k)
        moved[k] = (float)(moved[k] + sign * shift[choice] * axis[k]);
}

/* An ellipsoid cleared of point p to within `slack` by scaling one semi-axis: of the three, the
 * one that needs the least (the largest scale that clears p, by bisection: depth grows with
 * the scale), so the most volume stays. */
static void ellipsoid_clear(tl_collider* c, const float p[3], float slack) {
    float axes[3][3];
    memcpy(axes, c->axes, sizeof axes);
    double best = -1;
    int k = 0;
    for (int e = 0; e < 3; ++e) {
        double lo = 0, hi = 1;
        for (int step = 0; step < 40; ++step) {
            double mid = (lo + hi) / 2;
            for (int i = 0; i < 3; ++i)
                c->axes[e][i] = (float)(mid * axes[e][i]);
            if (tl_collider_depth(c, p) > slack)
                hi = mid;
            else
                lo = mid;
        }
        memcpy(c->axes[e], axes[e], sizeof axes[e]);
        if (lo > best) best = lo, k = e;
    }
    for (int i = 0; i < 3; ++i)
        c->axes[k][i] = (float)(best * axes[k][i]);
}

void tl_collider_bound(tl_collider* c, const float* points, uint32_t count, float slack) {
    assert(c && (points || count == 0) && slack >= 0);
    if (c->shape == TL_COLLIDER_PLANE) return;
    /* the deepest point first: each clearing only shrinks, so the others may already be out;
     * every round clears one point for good, so count rounds end it */
    for (uint32_t round = 0; round < count; ++round) {
        float deepest = slack;
        uint32_t at = count;
        for (uint32_t i = 0; i < count; ++i) {
            float d = tl_collider_depth(c, points + 3 * (size_t)i);
            if (d > deepest) deepest = d, at = i;
        }
        if (at == count) return;
        if (c->shape == TL_COLLIDER_ELLIPSOID)
            ellipsoid_clear(c, points + 3 * (size_t)at, slack);
        else
            capsule_clear(c, points + 3 * (size_t)at, slack);
    }
}
