/* A point's depth in a collider (include/tailor/colliders.h), on its own: the web runtime's
 * glue builds it with the solver (web/tailor_sim_glue.c, src/play/cloth_lattice.c). */
#include <tailor/colliders.h>

#include <math.h>

static float ellipsoid_depth(const tl_collider* c, const float point[3]) {
    float q[3], q2 = 0, shortest = INFINITY;
    for (int k = 0; k < 3; ++k) {
        float r2 = 0, t = 0;
        for (int i = 0; i < 3; ++i)
            r2 += c->axes[k][i] * c->axes[k][i], t += (point[i] - c->a[i]) * c->axes[k][i];
        q[k] = r2 > 0 ? t / r2 : 0;
        q2 += q[k] * q[k];
        shortest = fminf(shortest, sqrtf(r2));
    }
    float rho = sqrtf(q2);
    if (!(rho > 1e-12f)) return shortest;
    float s[3] = {0, 0, 0}; /* the surface point minus the centre */
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            s[i] += q[k] / rho * c->axes[k][i];
    return (1 - rho) * sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
}

float tl_collider_depth(const tl_collider* c, const float point[3]) {
    if (c->shape == TL_COLLIDER_PLANE)
        return -((point[0] - c->a[0]) * c->b[0] + (point[1] - c->a[1]) * c->b[1] +
                 (point[2] - c->a[2]) * c->b[2]);
    if (c->shape == TL_COLLIDER_ELLIPSOID) return ellipsoid_depth(c, point);
    float ab[3], ap[3], t = 0, len2 = 0;
    for (int k = 0; k < 3; ++k) {
        ab[k] = c->shape == TL_COLLIDER_CAPSULE ? c->b[k] - c->a[k] : 0;
        ap[k] = point[k] - c->a[k];
        t += ab[k] * ap[k];
        len2 += ab[k] * ab[k];
    }
    t = len2 > 0 ? t / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    float d2 = 0;
    for (int k = 0; k < 3; ++k) {
        float d = ap[k] - t * ab[k];
        d2 += d * d;
    }
    return c->radius - sqrtf(d2);
}
