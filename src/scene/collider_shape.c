/* A collider's shape arithmetic (include/tailor/colliders.h): moved, grown, a point's depth. No
 * scene: compiled into tailor_sim.wasm too, so the web runtime's hair keeps out of the body by
 * the same arithmetic as the C player's (docs/web.md "Session 24"). */
#include <tailor/colliders.h>

#include <math.h>
#include <string.h>

void tl_collider_transform(const tl_collider* in, const double m[16], tl_collider* out) {
    tl_collider c = *in;
    for (int k = 0; k < 3; ++k) {
        double p = m[12 + k], q = m[12 + k];
        for (int i = 0; i < 3; ++i)
            p += m[4 * i + k] * in->a[i], q += m[4 * i + k] * in->b[i];
        c.a[k] = (float)p;
        c.b[k] = (float)q;
        for (int e = 0; e < 3; ++e) {
            double x = 0;
            for (int i = 0; i < 3; ++i)
                x += m[4 * i + k] * in->axes[e][i];
            c.axes[e][k] = (float)x;
        }
    }
    /* uniform scale of the move (a scaled character) */
    double det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                 m[8] * (m[1] * m[6] - m[2] * m[5]);
    double s = cbrt(fabs(det));
    if (!(s > 0)) s = 1;
    c.radius = (float)(in->radius * s);
    if (in->shape == TL_COLLIDER_PLANE) { /* b is a normal: turned, kept unit */
        double n[3] = {0, 0, 0}, len = 0;
        for (int k = 0; k < 3; ++k) {
            for (int i = 0; i < 3; ++i)
                n[k] += m[4 * i + k] * in->b[i];
            len += n[k] * n[k];
        }
        len = sqrt(len);
        for (int k = 0; k < 3; ++k)
            c.b[k] = (float)(len > 0 ? n[k] / len : in->b[k]);
    }
    *out = c;
}

void tl_collider_capsule_around(const tl_collider* in, tl_collider* out) {
    if (in->shape != TL_COLLIDER_ELLIPSOID) {
        *out = *in;
        return;
    }
    float r[3];
    int order[3] = {0, 1, 2};
    for (int k = 0; k < 3; ++k)
        r[k] = sqrtf(in->axes[k][0] * in->axes[k][0] + in->axes[k][1] * in->axes[k][1] +
                     in->axes[k][2] * in->axes[k][2]);
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (r[order[j]] > r[order[i]]) {
                int t = order[i];
                order[i] = order[j], order[j] = t;
            }
    const float* longest = in->axes[order[0]];
    float half = r[order[0]] > 0 ? (r[order[0]] - r[order[1]]) / r[order[0]] : 0;
    tl_collider c;
    memset(&c, 0, sizeof c);
    c.shape = TL_COLLIDER_CAPSULE;
    for (int k = 0; k < 3; ++k) {
        c.a[k] = in->a[k] - half * longest[k];
        c.b[k] = in->a[k] + half * longest[k];
    }
    c.radius = r[order[1]];
    *out = c;
}

/* An ellipsoid's point in its unit-sphere space: the depth of p below the surface point
 * radially out from the centre there (an upper bound on the depth; <= 0 outside). */
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

bool tl_collider_grown(const tl_collider* c, float g, tl_collider* out) {
    *out = *c;
    if (c->shape == TL_COLLIDER_PLANE) return true;
    if (c->shape != TL_COLLIDER_ELLIPSOID) {
        out->radius = c->radius + g;
        return out->radius > 0;
    }
    for (int k = 0; k < 3; ++k) { /* (the solver's arithmetic: the same bits) */
        const float* x = c->axes[k];
        float len = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (!(len > 0) || !(len + g > 0)) return false;
        for (int j = 0; j < 3; ++j)
            out->axes[k][j] = x[j] * (len + g) / len;
    }
    return true;
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

bool tl_collider_sphere(const tl_collider* c, float sphere[4]) {
    if (c->shape == TL_COLLIDER_PLANE) return false;
    float reach = 0;
    if (c->shape == TL_COLLIDER_ELLIPSOID) {
        /* the depth is the radial surface point's distance less the point's: at most the
           longest semi-axis less the distance from the centre */
        for (int k = 0; k < 3; ++k)
            reach =
                fmaxf(reach, sqrtf(c->axes[k][0] * c->axes[k][0] + c->axes[k][1] * c->axes[k][1] +
                                   c->axes[k][2] * c->axes[k][2]));
        memcpy(sphere, c->a, 3 * sizeof(float));
    } else {
        float half = 0;
        for (int k = 0; k < 3; ++k) {
            float e = c->shape == TL_COLLIDER_CAPSULE ? c->b[k] - c->a[k] : 0;
            sphere[k] = c->a[k] + 0.5f * e;
            half += e * e;
        }
        reach = c->radius + 0.5f * sqrtf(half);
    }
    sphere[3] = reach * 1.001f; /* (the depth's float rounding: well under a thousandth) */
    return true;
}
