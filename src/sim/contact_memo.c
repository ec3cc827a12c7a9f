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
