/* The contact pass's memo of grown ellipsoids and their far bound (contact_memo.h). Built
 * with the kernels' options (CMakeLists.txt): the growth's square roots as theirs. */
#include "chain_parts.h"

void chain_contact_memo_attach(tl_chain* c, contact_memo* memo) {
    assert(c);
    c->memo = memo;
}

/* The bound of a grown ellipsoid (axes x_k, orthogonal): |p - a|^2 beyond 4 times its
 * longest squared axis. With unit axes off orthogonal by at most 1e-3 (cosines), |q|^2 >=
 * (1 - 2e-3) |p - a|^2 / max |x_k|^2 > 3.9 there, so chain_ellipsoid_q's float |q|^2 (a few
 * roundings off) is far above 1: collide leaves the tip as it is. Axes further off orthogonal,
 * or of no length: INFINITY (no bound). */
static float ellipsoid_far2(float axes[3][3]) {
    float r2[3], most = 0;
    for (int k = 0; k < 3; ++k) {
        r2[k] = axes[k][0] * axes[k][0] + axes[k][1] * axes[k][1] + axes[k][2] * axes[k][2];
        if (!(r2[k] > 1e-30f && r2[k] < 1e30f)) return INFINITY;
        most = r2[k] > most ? r2[k] : most;
    }
    for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b) {
            float dot = axes[a][0] * axes[b][0] + axes[a][1] * axes[b][1] + axes[a][2] * axes[b][2];
            if (!(dot * dot <= 1e-6f * r2[a] * r2[b])) return INFINITY;
        }
    return 4 * most;
}

int chain_contact_memo_entry(contact_memo* memo, const tl_collider* colliders, const float* growth,
                             int links, int k, int link) {
    const size_t i = (size_t)k * links + link;
    if (!memo || i >= CONTACT_MEMO || colliders[k].shape != TL_COLLIDER_ELLIPSOID || !growth ||
        growth[i] == 0)
        return -1;
    if (memo->state[i] == 0 || memcmp(&memo->growth[i], &growth[i], sizeof growth[i]) != 0 ||
        memcmp(memo->from[i], colliders[k].axes, sizeof memo->from[i]) != 0) {
        memcpy(&memo->growth[i], &growth[i], sizeof growth[i]);
        memcpy(memo->from[i], colliders[k].axes, sizeof memo->from[i]);
        bool sized = chain_ellipsoid_grow(&colliders[k], growth[i], memo->axes[i]);
        if (sized) memo->far2[i] = ellipsoid_far2(memo->axes[i]);
        memo->state[i] = sized ? 1 : 2;
    }
    return (int)i;
}

bool chain_contact_memo_far(const contact_memo* memo, int i, const tl_collider* collider, v3 p) {
    if (i < 0) return false;
    if (memo->state[i] == 2) return true;
    v3 d = v3_sub(p, v3_load(collider->a));
    return v3_dot(d, d) > memo->far2[i];
}

/* Collider c's ball for every link (growth: its row of `links`, or NULL): a sphere's or
 * capsule's segment midpoint, half the segment plus |radius| and the largest |growth| (the
 * pass's test squares the grown radius); an ellipsoid's centre, twice its longest axis plus
 * that growth (with unit axes within 1e-3 of orthogonal, as ellipsoid_far2: there the memo's
 * far bound, or without an entry chain_ellipsoid_q's |q|^2 > 3.9); each grown by 1e-3 and
 * 1e-5 of the coordinates' size, far above the roundings of the pass's tests. -1 (no ball: the
 * collider is always visited): a plane, axes further off orthogonal, of no length, or a ball
 * that is not finite. */
static float collider_ball(const tl_collider* c, const float* growth, int links, float centre[3]) {
    float most = 0, size = 0, r = -1;
    for (int i = 0; growth && i < links; ++i)
        most = fmaxf(most, fabsf(growth[i])); /* (NaN: that link's collider has no size) */
    if (c->shape == TL_COLLIDER_SPHERE || c->shape == TL_COLLIDER_CAPSULE) {
        v3 a = v3_load(c->a), ab = {0, 0, 0};
        if (c->shape == TL_COLLIDER_CAPSULE) ab = v3_sub(v3_load(c->b), a);
        v3 m = v3_madd(a, ab, 0.5f);
        centre[0] = m.x, centre[1] = m.y, centre[2] = m.z;
        size = fabsf(a.x) + fabsf(a.y) + fabsf(a.z) + fabsf(ab.x) + fabsf(ab.y) + fabsf(ab.z);
        r = 0.5f * sqrtf(v3_dot(ab, ab)) + fabsf(c->radius) + most;
    } else if (c->shape == TL_COLLIDER_ELLIPSOID) {
        float r2[3], longest = 0;
        for (int k = 0; k < 3; ++k) {
            const float* x = c->axes[k];
            r2[k] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
            if (!(r2[k] > 1e-30f && r2[k] < 1e30f)) return -1;
            longest = fmaxf(longest, sqrtf(r2[k]));
        }
        for (int a = 0; a < 3; ++a)
            for (int b = a + 1; b < 3; ++b) {
                const float *x = c->axes[a], *y = c->axes[b];
                float dot = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
                if (!(dot * dot <= 0.9e-6f * r2[a] * r2[b])) return -1;
            }
        memcpy(centre, c->a, 3 * sizeof(float));
        size = longest;
        r = 2 * (longest + most);
    } else
        return -1;
    size += fabsf(centre[0]) + fabsf(centre[1]) + fabsf(centre[2]) + r;
    r = r * (1 + 1e-3f) + 1e-5f * size;
    return isfinite(r) && isfinite(centre[0] + centre[1] + centre[2]) ? r : -1;
}

void chain_contact_memo_balls(contact_memo* memo, const tl_collider* colliders, int count,
                              const float* growth, int links) {
    memo->balls_of = NULL, memo->ball_count = 0;
    if (!colliders || count <= 0 || count > CONTACT_BALLS) return;
    size_t grown = growth && links > 0 ? (size_t)count * (size_t)links : 0;
    bool kept = memo->key_count == count && memo->key_links == links &&
                memo->key_grown == (grown > 0) &&
                memcmp(memo->key, colliders, sizeof *colliders * (size_t)count) == 0 &&
                (grown == 0 || memcmp(memo->key_growth, growth, sizeof(float) * grown) == 0);
    if (!kept) { /* (collider_ball reads the collider and its growth alone: same bits, same ball) */
        for (int k = 0; k < count; ++k)
            memo->ball[k][3] = collider_ball(
                &colliders[k], grown ? growth + (size_t)k * links : NULL, links, memo->ball[k]);
        memo->key_count = 0;
        if (grown <= CONTACT_BALL_GROWTH) {
            memcpy(memo->key, colliders, sizeof *colliders * (size_t)count);
            if (grown) memcpy(memo->key_growth, growth, sizeof(float) * grown);
            memo->key_count = count, memo->key_links = links, memo->key_grown = grown > 0;
        }
    }
    memo->balls_of = colliders, memo->ball_count = count;
}

bool chain_contact_memo_near(const contact_memo* memo, const tl_collider* colliders, int count,
                             v3 head, float len, v3 p, uint32_t* near) {
    if (!memo || !colliders || memo->balls_of != colliders || memo->ball_count != count)
        return false;
    const float reach = len * (1 + 1e-3f) + 1e-5f * (fabsf(head.x) + fabsf(head.y) + fabsf(head.z));
    v3 d = v3_sub(p, head);
    if (!(isfinite(reach) && v3_dot(d, d) <= reach * reach)) return false; /* (off its sphere) */
    uint32_t bits = 0;
    for (int k = 0; k < count; ++k) {
        const float* b = memo->ball[k];
        v3 e = {head.x - b[0], head.y - b[1], head.z - b[2]};
        float r = b[3] + reach;
        bits |= (uint32_t)(!(b[3] >= 0) || v3_dot(e, e) < r * r) << k; /* (no branch) */
    }
    *near = bits;
    return true;
}
