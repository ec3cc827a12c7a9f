/* The lane kernels without AVX2 (SSE2, NEON, WebAssembly SIMD or scalar: a batch, half a
 * batch, a chain alone) and their dispatch; the contact pass: the plane behind the hips, the
 * floor and the body colliders (spring-chain.md §1, §3, §4, §7). */
#include "chain_parts.h"

#include <stddef.h>

/* ---- one internal step of LANES chains (spring-chain.md §1, §3, §4, §7) ---- */

/* The point of the sphere |p - h| = len with dot(n, p) >= c nearest the candidate p: the
 * circle where the sphere meets the plane. u is clamped, so the link never stretches. */
KERNEL v3 project_onto_circle(v3 h, float len, v3 p, v3 n, float c, v3 fallback) {
    float u = (c - v3_dot(n, h)) / len;
    u = u > 1 ? 1 : (u < -1 ? -1 : u);
    v3 d = v3_sub(p, h);
    v3 t = v3_madd(d, n, -v3_dot(d, n));
    /* v3_normalize_or(t, the fallback's part across n, normalised): the same values, the
     * fallback worked out only when used (every pass of the contact sweeps calls this) */
    float t2 = v3_dot(t, t);
    if (t2 > 1e-24f) {
        t = v3_scale(t, 1.0f / sqrtf(t2));
    } else {
        v3 tf = v3_madd(fallback, n, -v3_dot(fallback, n));
        t = v3_normalize_or(tf, v3_perpendicular(n));
    }
    return v3_add(h, v3_scale(v3_madd(v3_scale(t, sqrtf(1.0f - u * u)), n, u), len));
}

/* A collider as one contact call meets it (contact_collider_of): grown for the link, and for a
 * sphere or capsule the values each of its tests worked out again (the segment, its squared
 * length, the squared radius), worked out once: the same operations, so the same bits. */
typedef struct contact_collider {
    const tl_collider* c; /* planes, ellipsoids (grown: &grown) */
    tl_collider grown;
    int shape;
    v3 a, ab;                  /* a sphere's centre; a capsule's segment a..a+ab */
    float inv_ab2, radius, r2; /* 1 / |ab|^2 (0: a sphere), the radius grown, its square */
} contact_collider;

/* A sphere or capsule as the ball that matters for p (*centre, *radius); false when p is
 * outside. A capsule is the sphere around the segment's point nearest p. (Planes and
 * ellipsoids have their own tests below.) Inlined: the sweeps call it on every pass. */
KERNEL bool collider_inside(const contact_collider* c, v3 p, v3* centre, float* radius) {
    v3 a = c->a;
    if (c->shape == TL_COLLIDER_CAPSULE) {
        float t = v3_dot(v3_sub(p, a), c->ab) * c->inv_ab2;
        a = v3_madd(a, c->ab, t < 0 ? 0 : t > 1 ? 1 : t);
    }
    *centre = a, *radius = c->radius;
    v3 d = v3_sub(p, a);
    return v3_dot(d, d) < c->r2;
}

/* A plane of the contact pass: the plane behind the hips, the floor or a body plane collider.
 * It holds a tip p where dot(p - at, normal) < below (and, when bounded, only where
 * dot(p - bound_at, bound_normal) < 0: the hips plane acts below the tail root alone), and puts
 * it back onto the rope circle where dot(x, normal) = level. Each keeps the sums and the
 * velocity response it had as a pass of its own, so the floor and the hips plane give the bits
 * they gave before they were colliders. */
typedef enum plane_response {
    PLANE_HIPS,  /* the velocity into it removed */
    PLANE_FLOOR, /* the velocity along the link and down removed, the rest slipping */
    PLANE_BODY   /* the velocity into it removed, the rest slipping (a body collider) */
} plane_response;

typedef struct contact_plane {
    v3 at, normal, bound_at, bound_normal;
    float below, level;
    bool bounded;
    plane_response response;
} contact_plane;

static bool plane_holds(const contact_plane* pl, v3 p) {
    if (pl->bounded && !(v3_dot(v3_sub(p, pl->bound_at), pl->bound_normal) < 0)) return false;
    return v3_dot(v3_sub(p, pl->at), pl->normal) < pl->below;
}

/* The velocity of a tip on a contact surface of normal n (dir: the link's unit direction at the
 * tip's final place): the rope's part along the link removed, then the part into the surface
 * along n's component across the link (the rope lets the tip move only across it; removing the
 * inward part along n itself would give back a part along the link, and taking that away, as
 * the rope must, would turn the velocity into the surface again). What is left neither
 * stretches the rope nor enters the surface. */
static v3 contact_velocity(v3 v, v3 dir, v3 n) {
    v = v3_madd(v, dir, -v3_dot(v, dir));
    v3 across = v3_madd(n, dir, -v3_dot(n, dir));
    float across2 = v3_dot(across, across), into = v3_dot(v, across);
    if (into < 0 && across2 > 1e-12f) v = v3_madd(v, across, -into / across2);
    return v;
}

/* The velocity of a tip put onto the plane (dir: the link's unit direction). */
static v3 plane_velocity(const contact_plane* pl, v3 dir, float slip, v3 v) {
    v = contact_velocity(v, dir, pl->normal);
    return pl->response == PLANE_HIPS ? v : v3_scale(v, slip);
}

/* What one collider did to a tip (collide): held it (it was inside: its velocity into the
 * surface taken away), pushed it (moved it farther than rounding: the other colliders must be
 * tested again), left it settled on its surface (the last pass moved it by rounding only, or
 * nothing was pushed: testing it again would move it by rounding at most). */
enum { HELD = 1, PUSHED = 2, SETTLED = 4 };

/* The tip's move from p to q is rounding, not a push: within `still` (squared; contact_sweeps:
 * 1e-6 of the link's length and of the head's coordinates, a few float roundings of them). A
 * tip put onto a curved surface tests inside it again by rounding about half the time
 * (docs/sim.md, session 14); such a re-seat neither repeats a sweep nor another pass. */
static bool v3_moved(v3 p, v3 q, float still) {
    v3 d = v3_sub(q, p);
    return v3_dot(d, d) > still;
}

/* One pass of a ball (a sphere, or a capsule's ball about the segment's point nearest the tip:
 * centre, radius r, r2 its square) on a tip p on the rope sphere |x - head| = len (len2 its
 * square): the point of the rope sphere's circle where it meets the ball's surface nearest p,
 * into *q; false when there is none (the ball's centre on the head, or the ball swallowing the
 * rope sphere). The circle lies in the plane (x - head).e = m |e|, e = centre - head, m =
 * (len2 + |e|^2 - r2) / (2 |e|); with w = p - head's part across e, scaled by |e|^2,
 *   q = head + e (m / |e|) + w sqrt(len2 - m^2) / |w|
 *     = head + e num / (2 D2) + w sqrt((4 D2 len2 - num^2) / (4 D2 |w|^2)),
 * num = len2 + D2 - r2, D2 = |e|^2: two independent divisions and one square root, where
 * project_onto_circle's form chains a square root, three divisions and another square root
 * (the passes are latency-bound: docs/sim.md, session 15). rest: the direction taken when p
 * lies on the line through head and the centre. */
KERNEL bool ball_push(v3 head, float len, float len2, v3 centre, float r, float r2, v3 p, v3 rest,
                      v3* q) {
    v3 e = v3_sub(centre, head), d = v3_sub(p, head);
    float D2 = v3_dot(e, e);
    if (!(D2 > 1e-18f) || (r > len && D2 <= (r - len) * (r - len))) return false;
    float num = len2 + D2 - r2, de = v3_dot(d, e);
    v3 w = v3_madd(v3_scale(d, D2), e, -de);
    float ww = v3_dot(w, w);
    if (!(ww > 1e-24f * D2 * D2)) { /* (rare) the rest direction across e, or any across e */
        w = v3_madd(v3_scale(rest, D2), e, -v3_dot(rest, e)), ww = v3_dot(w, w);
        if (!(ww > 1e-24f * D2 * D2))
            w = v3_scale(v3_perpendicular(v3_scale(e, 1.0f / sqrtf(D2))), D2), ww = D2 * D2;
    }
    float across = 4 * D2 * len2 - num * num; /* 4 D2 (len2 - m^2) */
    float along = num / (2 * D2), side = 0;
    if (across > 0) {
        side = sqrtf(across / (4 * D2 * ww));
    } else { /* (by rounding) the circle is a point: at len along e */
        float reach = len / sqrtf(D2);
        along = num < 0 ? -reach : reach;
    }
    *q = v3_add(head, v3_madd(v3_scale(e, along), w, side));
    return true;
}

/* Pushes a tip out of one collider along its rope circle (the nearest point of the sphere
 * |p - head| = len outside it) and takes its velocity into the collider away (friction:
 * contact_sweeps). A capsule or an ellipsoid is refined up to twice more (its nearest point
 * moves as the tip does) while a pass pushes; a collider swallowing the whole rope sphere leaves
 * the tip where it is. HELD, PUSHED, SETTLED as above; inv_len = 1 / len, still as v3_moved. */
static int collide(const contact_collider* cc, v3 head, float len, float inv_len, v3 rest,
                   float still, v3* pp, v3* vp) {
    const tl_collider* c = cc->c;
    v3 p = *pp, centre, normal;
    float radius;
    int did = 0, pass = 0;
    if (c->shape == TL_COLLIDER_PLANE) {
        v3 n = v3_load(c->b), a = v3_load(c->a), zero = {0, 0, 0};
        contact_plane pl = {a, n, zero, zero, 0, v3_dot(n, a), false, PLANE_BODY};
        if (!plane_holds(&pl, p)) return SETTLED;
        *pp = project_onto_circle(head, len, p, n, pl.level, rest);
        *vp = contact_velocity(*vp, v3_scale(v3_sub(*pp, head), inv_len), n);
        return HELD | SETTLED | (v3_moved(p, *pp, still) ? PUSHED : 0);
    }
    if (c->shape == TL_COLLIDER_ELLIPSOID) {
        /* beyond the tangent plane at the radial surface point: outside, the ellipsoid being
         * convex; again from there when the plane did not reach the rope sphere */
        v3 surface;
        float u[3]; /* |q| alone first: most tips are outside, and then nothing else is read */
        for (; pass < 3 && chain_ellipsoid_q(c, p, u) < 1; ++pass) {
            chain_ellipsoid_inside(c, p, &surface, &normal);
            v3 q = project_onto_circle(head, len, p, normal, v3_dot(normal, surface), rest);
            bool pushed = v3_moved(p, q, still);
            did |= HELD | (pushed ? PUSHED : 0), p = q;
            if (!pushed) break; /* (a re-seat by rounding: settled) */
        }
        if (!did) return SETTLED;
        chain_ellipsoid_inside(c, p, &surface, &normal);
        *vp = contact_velocity(*vp, v3_scale(v3_sub(p, head), inv_len), normal);
        *pp = p;
        return did | (pass < 3 ? SETTLED : 0);
    }
    const float len2 = len * len;
    bool stale = false; /* whether centre is not yet p's (collider_inside of p sets it) */
    bool inside = collider_inside(cc, p, &centre, &radius);
    for (int passes = cc->shape == TL_COLLIDER_CAPSULE ? 3 : 1; pass < passes && inside; ++pass) {
        v3 q, was = centre;
        if (!ball_push(head, len, len2, centre, radius, cc->r2, p, rest, &q)) break;
        bool pushed = v3_moved(p, q, still);
        did |= HELD | (pushed ? PUSHED : 0), p = q;
        if (!pushed) { /* (a re-seat by rounding: settled) */
            stale = true;
            break;
        }
        /* The pushed tip is on the ball's surface; a capsule's ball moves with the tip. One
         * that moved by rounding only would re-seat it by rounding: settled, no pass more. */
        inside = collider_inside(cc, p, &centre, &radius);
        if (!v3_moved(was, centre, still)) break;
    }
    if (!did) return SETTLED;
    if (stale) collider_inside(cc, p, &centre, &radius);
    normal = v3_normalize_or(v3_sub(p, centre), v3_sub(p, head));
    *vp = contact_velocity(*vp, v3_scale(v3_sub(p, head), inv_len), normal);
    *pp = p;
    return did | (pass < 3 ? SETTLED : 0); /* (a capsule's third push may leave it inside) */
}

/* Collider k as link `link` meets it, into *cc: grown by its growth
 * (tl_chain_input.collider_growth); false when the growth leaves no size (the link is free of
 * it). Without growth, or a growth of 0, the collider itself. */
static bool contact_collider_of(const tl_collider* colliders, const float* growth, int links, int k,
                                int link, contact_collider* cc) {
    const tl_collider* c = &colliders[k];
    float g = growth ? growth[(size_t)k * links + link] : 0;
    cc->c = c, cc->shape = c->shape;
    if (c->shape == TL_COLLIDER_PLANE) return true;
    if (c->shape != TL_COLLIDER_ELLIPSOID) { /* (a sphere or capsule) */
        cc->radius = g == 0 ? c->radius : c->radius + g;
        if (g != 0 && !(cc->radius > 0)) return false;
        cc->a = v3_load(c->a), cc->ab = (v3){0, 0, 0};
        if (c->shape == TL_COLLIDER_CAPSULE) cc->ab = v3_sub(v3_load(c->b), cc->a);
        float ab2 = v3_dot(cc->ab, cc->ab);
        float inv = ab2 > 0 ? 1.0f / ab2 : 0; /* (a subnormal |ab|^2: a sphere) */
        cc->inv_ab2 = isfinite(inv) ? inv : 0, cc->r2 = cc->radius * cc->radius;
        return true;
    }
    if (g == 0) return true;
    cc->grown = *c, cc->c = &cc->grown;
    return chain_ellipsoid_grow(c, g, cc->grown.axes);
}

/* contact_collider_of through the chain's memo entry i (chain_contact_memo_entry; < 0: none):
 * a grown ellipsoid's axes as they were kept, the rest as contact_collider_of sets it. */
static bool contact_collider_memo(const contact_memo* memo, int i, const tl_collider* colliders,
                                  const float* growth, int links, int k, int link,
                                  contact_collider* cc) {
    if (i < 0) return contact_collider_of(colliders, growth, links, k, link, cc);
    if (memo->state[i] == 2) return false;
    cc->grown = colliders[k], cc->c = &cc->grown, cc->shape = TL_COLLIDER_ELLIPSOID;
    memcpy(cc->grown.axes, memo->axes[i], sizeof memo->axes[i]);
    return true;
}

/* Slots [from, to) of lane l: unused (nothing is inside). */
static void cull_clear(lane_frame* f, int l, int from, int to) {
    for (int m = from; m < to; ++m) {
        f->cull_ax[m][l] = f->cull_ay[m][l] = f->cull_az[m][l] = 0;
        f->cull_bx[m][l] = f->cull_by[m][l] = f->cull_bz[m][l] = 0;
        f->cull_inv[m][l] = 0, f->cull_r2[m][l] = -1;
    }
}

/* The lanes' colliders as the cull's slots, once a frame for all of a group's lanes (the slots
 * below cull_count that a lane does not use are cleared, so a frame without colliders writes
 * none). A tip outside every slot's grown ball or capsule is outside every collider by
 * collider_inside's test too, so the contact pass would leave it as it is: skipping it changes
 * no bit. The margin (1e-3 of the radius and 1e-5 of the coordinates' size) dwarfs the few
 * roundings by which the cull's arithmetic (a reciprocal for the division) can differ from the
 * exact test's. */
/* One collider's cull bound: the segment a..a+ab (a sphere: ab 0), 1/|ab|^2 and the squared
 * radius grown by the largest growth the links meet it with (growth: its row of `links`, or NULL)
 * and a margin; r2 -1 when the radius is 0 (nothing is inside). False when the collider cannot
 * be culled (another shape, or a bound that is not finite): the contact pass must run. */
typedef struct cull_bound {
    v3 a, ab;
    float inv, r2;
} cull_bound;

KERNEL bool cull_bound_of(const tl_collider* c, const float* growth, int links, cull_bound* b) {
    if (c->shape != TL_COLLIDER_SPHERE && c->shape != TL_COLLIDER_CAPSULE) return false;
    v3 a = v3_load(c->a), ab = {0, 0, 0};
    if (c->shape == TL_COLLIDER_CAPSULE) ab = v3_sub(v3_load(c->b), a);
    float ab2 = v3_dot(ab, ab), r = c->radius;
    if (growth) { /* the largest the links meet it */
        float most = -INFINITY;
        for (int i = 0; i < links; ++i)
            most = fmaxf(most, growth[i]);
        r = most > -c->radius ? c->radius + most : 0;
    }
    float size =
        fabsf(a.x) + fabsf(a.y) + fabsf(a.z) + fabsf(ab.x) + fabsf(ab.y) + fabsf(ab.z) + fabsf(r);
    float grown = fabsf(r) * (1 + 1e-3f) + 1e-5f * size;
    float inv = ab2 > 0 ? 1.0f / ab2 : 0; /* (a subnormal |ab|^2: no cull) */
    if (!(isfinite(grown) && isfinite(inv) && grown * grown < INFINITY)) return false;
    *b = (cull_bound){a, ab, inv, r != 0 ? grown * grown : -1};
    return true;
}

/* Slot m of lane l from its m-th collider (used: how many of its colliders it culls by).
 * Another shape or a bound that is not finite leaves the lane without slots (cull_all: the
 * contact pass runs). */
KERNEL void cull_slot(lane_frame* restrict f, int m, int l, int* restrict used) {
    cull_bound b;
    const float* growth = f->growth[l] ? f->growth[l] + (size_t)m * f->links : NULL;
    if (m >= used[l] || !cull_bound_of(&f->colliders[l][m], growth, f->links, &b)) {
        if (m < used[l]) { /* (another shape, or not finite) */
            f->cull_all[l] = 1, used[l] = 0;
            cull_clear(f, l, 0, m);
        }
        cull_clear(f, l, m, m + 1);
        return;
    }
    f->cull_ax[m][l] = b.a.x, f->cull_ay[m][l] = b.a.y, f->cull_az[m][l] = b.a.z;
    f->cull_bx[m][l] = b.ab.x, f->cull_by[m][l] = b.ab.y, f->cull_bz[m][l] = b.ab.z;
    f->cull_inv[m][l] = b.inv;
    f->cull_r2[m][l] = b.r2;
}

#if defined(__SSE2__)
/* cull_bound_of for slot m of lanes l..l+3 at once, none with growth: each lane's collider
 * (shape, a; b, radius: two vectors) a transpose, then the same operations in the same order,
 * so the same values. False (nothing written) for another shape or a bound that is not finite
 * (cull_slot then). */
static bool cull_slots4(lane_frame* f, int m, int l) {
    _Static_assert(sizeof(tl_collider_shape) == 4 && offsetof(tl_collider, a) == 4 &&
                       offsetof(tl_collider, b) == 16 && offsetof(tl_collider, radius) == 28,
                   "a collider's shape, a, b and radius: two vectors");
    const float* c[4];
    for (int j = 0; j < 4; ++j)
        c[j] = (const float*)&f->colliders[l + j][m];
    __m128 shape = _mm_loadu_ps(c[0]), ax = _mm_loadu_ps(c[1]), ay = _mm_loadu_ps(c[2]),
           az = _mm_loadu_ps(c[3]);
    __m128 bx = _mm_loadu_ps(c[0] + 4), by = _mm_loadu_ps(c[1] + 4), bz = _mm_loadu_ps(c[2] + 4),
           r = _mm_loadu_ps(c[3] + 4);
    _MM_TRANSPOSE4_PS(shape, ax, ay, az);
    _MM_TRANSPOSE4_PS(bx, by, bz, r);
    const __m128i kind = _mm_castps_si128(shape);
    const __m128 capsule =
        _mm_castsi128_ps(_mm_cmpeq_epi32(kind, _mm_set1_epi32(TL_COLLIDER_CAPSULE)));
    const __m128 sphere =
        _mm_castsi128_ps(_mm_cmpeq_epi32(kind, _mm_set1_epi32(TL_COLLIDER_SPHERE)));
    if (_mm_movemask_ps(_mm_or_ps(capsule, sphere)) != 15) return false; /* another shape */
    const __m128 zero = _mm_setzero_ps(), magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const __m128 infinity = _mm_set1_ps(INFINITY);
    __m128 abx = _mm_and_ps(capsule, _mm_sub_ps(bx, ax)),
           aby = _mm_and_ps(capsule, _mm_sub_ps(by, ay)),
           abz = _mm_and_ps(capsule, _mm_sub_ps(bz, az)); /* (a sphere: 0) */
    __m128 ab2 =
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(abx, abx), _mm_mul_ps(aby, aby)), _mm_mul_ps(abz, abz));
    __m128 r_abs = _mm_and_ps(magnitude, r), size = _mm_and_ps(magnitude, ax);
    size = _mm_add_ps(size, _mm_and_ps(magnitude, ay));
    size = _mm_add_ps(size, _mm_and_ps(magnitude, az));
    size = _mm_add_ps(size, _mm_and_ps(magnitude, abx));
    size = _mm_add_ps(size, _mm_and_ps(magnitude, aby));
    size = _mm_add_ps(size, _mm_and_ps(magnitude, abz));
    size = _mm_add_ps(size, r_abs);
    __m128 grown =
        _mm_add_ps(_mm_mul_ps(r_abs, _mm_set1_ps(1 + 1e-3f)), _mm_mul_ps(_mm_set1_ps(1e-5f), size));
    __m128 inv = _mm_and_ps(_mm_cmpgt_ps(ab2, zero), _mm_div_ps(_mm_set1_ps(1.0f), ab2));
    __m128 grown2 = _mm_mul_ps(grown, grown);
    __m128 finite = _mm_and_ps(_mm_cmplt_ps(_mm_and_ps(magnitude, grown), infinity),
                               _mm_cmplt_ps(_mm_and_ps(magnitude, inv), infinity));
    finite = _mm_and_ps(finite, _mm_cmplt_ps(grown2, infinity));
    if (_mm_movemask_ps(finite) != 15) return false;
    __m128 sized = _mm_cmpneq_ps(r, zero); /* r2 -1 where the radius is 0 */
    __m128 r2 = _mm_or_ps(_mm_and_ps(sized, grown2), _mm_andnot_ps(sized, _mm_set1_ps(-1.0f)));
    _mm_storeu_ps(&f->cull_ax[m][l], ax), _mm_storeu_ps(&f->cull_ay[m][l], ay);
    _mm_storeu_ps(&f->cull_az[m][l], az), _mm_storeu_ps(&f->cull_bx[m][l], abx);
    _mm_storeu_ps(&f->cull_by[m][l], aby), _mm_storeu_ps(&f->cull_bz[m][l], abz);
    _mm_storeu_ps(&f->cull_inv[m][l], inv), _mm_storeu_ps(&f->cull_r2[m][l], r2);
    return true;
}
#endif

void chain_cull_setup(lane_frame* f, int lanes) {
    int used[LANES]; /* the colliders each lane culls by: all, or none (cull_all) */
    f->cull_count = 0;
    for (int l = 0; l < lanes; ++l) { /* (another shape: cull_slot or cull_slots4 see it) */
        const int count = f->collider_count[l];
        f->cull_all[l] = count > CULL_COLLIDERS, used[l] = f->cull_all[l] ? 0 : count;
        if (used[l] > f->cull_count) f->cull_count = used[l];
    }
#if defined(__SSE2__) /* four lanes at a time for the slots each of them has without growth */
    int quad[LANES / 4];
    for (int q = 0; 4 * q + 4 <= lanes; ++q) {
        quad[q] = CULL_COLLIDERS;
        for (int l = 4 * q; l < 4 * q + 4; ++l)
            if (f->growth[l] || used[l] < quad[q]) quad[q] = f->growth[l] ? 0 : used[l];
    }
#endif
    int quads = 0; /* (lanes in fours) */
#if defined(__SSE2__)
    quads = lanes / 4 * 4;
    for (int m = 0; m < f->cull_count && quads > 0; ++m)
        for (int l = 0; l < quads; l += 4) {
            if (m < quad[l / 4] && cull_slots4(f, m, l)) continue;
            quad[l / 4] = 0; /* (a lane may have lost its slots) */
            for (int j = l; j < l + 4; ++j)
                cull_slot(f, m, j, used);
        }
#endif
    for (int l = quads; l < lanes; ++l) /* (a chain alone: one lane) */
        for (int m = 0, count = f->cull_count; m < count; ++m)
            cull_slot(f, m, l, used);
}

/* The colliders of lane l that a tip on the rope sphere |p - head| = len may be inside, in
 * order, into list (at most CULL_COLLIDERS); the count, or -1 when the lane has no cull slots
 * (every collider then). Every place the contact pass gives a tip is on that sphere (up to
 * rounding), so a slot's bound (grown by the largest growth and the cull's margin) farther from
 * head than len plus a margin never holds it: collide leaves the tip as it is, and skipping it
 * changes no bit. The sweeps repeat the other colliders up to eight times (a tip pushed onto a
 * surface may test inside by rounding and be pushed again), so this is tested once a call. */
static int contact_candidates(const lane_frame* f, int l, v3 head, float len, int* list) {
    if (f->cull_all[l]) return -1;
    int count = 0;
    const float reach = len * (1 + 1e-3f) + 1e-5f * (fabsf(head.x) + fabsf(head.y) + fabsf(head.z));
    /* (the count and each slot's r2 read once: list's stores may alias the lane's ints) */
    for (int m = 0, colliders = f->collider_count[l]; m < colliders; ++m) {
        const float r2 = f->cull_r2[m][l];
        if (!(r2 >= 0)) continue; /* nothing is inside */
        v3 ha = {head.x - f->cull_ax[m][l], head.y - f->cull_ay[m][l], head.z - f->cull_az[m][l]};
        v3 ab = {f->cull_bx[m][l], f->cull_by[m][l], f->cull_bz[m][l]};
        float t = v3_dot(ha, ab) * f->cull_inv[m][l];
        t = t < 0 ? 0.0f : (t > 1 ? 1.0f : t);
        v3 d = v3_madd(ha, ab, -t);
        float r = sqrtf(r2) + reach;
        list[count] = m, count += v3_dot(d, d) < r * r; /* (no branch: it mispredicts) */
    }
    return count;
}

/* A supporting plane of the collider cc holding p (none: false): dot(n, x) >= c outside it,
 * the collider lying wholly behind (the tangent plane at the ball's surface point nearest p,
 * at an ellipsoid's radial surface point, a plane collider's own): a point beyond it is outside
 * cc whatever cc's curvature. away: the normal when p is on a ball's centre. */
static bool collider_plane(const contact_collider* cc, v3 p, v3 away, v3* n, float* c) {
    v3 centre, surface;
    float radius;
    if (cc->shape == TL_COLLIDER_PLANE) {
        *n = v3_load(cc->c->b), *c = v3_dot(*n, v3_load(cc->c->a));
        return v3_dot(*n, p) < *c;
    }
    if (cc->shape == TL_COLLIDER_ELLIPSOID) {
        float u[3];
        if (!(chain_ellipsoid_q(cc->c, p, u) < 1)) return false;
        chain_ellipsoid_inside(cc->c, p, &surface, n);
        *c = v3_dot(*n, surface);
        return true;
    }
    if (!collider_inside(cc, p, &centre, &radius)) return false;
    *n = v3_normalize_or(v3_sub(p, centre), away);
    *c = v3_dot(*n, centre) + radius;
    return true;
}

enum { CREASE_PLANES = 8 };

/* x as the best so far (*best, its squared distance from `to` in *nearest) when it is nearer
 * `to` and beyond every plane (dot(n_k, x) >= c_k less `slack`). */
static void crease_keep(v3 x, v3 to, const v3* n, const float* c, int m, float slack,
                        float* nearest, v3* best) {
    for (int k = 0; k < m; ++k)
        if (!(v3_dot(n[k], x) >= c[k] - slack)) return;
    v3 d = v3_sub(x, to);
    if (v3_dot(d, d) < *nearest) *nearest = v3_dot(d, d), *best = x;
}

/* The point of the rope sphere |x - head| = len nearest `to` beyond every plane, into *best:
 * `to` itself, the nearest point of one plane's circle, or one of the two points where two
 * planes' circles cross (on a sphere at most two constraints bind); false when no such point
 * is beyond them all. */
static bool crease_point(v3 head, float len, v3 to, const v3* n, const float* c, int m, float slack,
                         v3 rest, v3* best) {
    float nearest = INFINITY;
    crease_keep(v3_madd(head, v3_normalize_or(v3_sub(to, head), rest), len), to, n, c, m, slack,
                &nearest, best);
    for (int a = 0; a < m; ++a) {
        crease_keep(project_onto_circle(head, len, to, n[a], c[a], rest), to, n, c, m, slack,
                    &nearest, best);
        for (int b = a + 1; b < m; ++b) { /* x - head = s n_a + t n_b + u (n_a x n_b) on both */
            float g = v3_dot(n[a], n[b]), det = 1 - g * g;
            if (!(det > 1e-6f)) continue; /* (parallel: the single planes cover it) */
            float ca = c[a] - v3_dot(n[a], head), cb = c[b] - v3_dot(n[b], head);
            float s = (ca - g * cb) / det, t = (cb - g * ca) / det;
            v3 base = v3_madd(v3_scale(n[a], s), n[b], t), line = v3_cross(n[a], n[b]);
            float off2 = (len * len - v3_dot(base, base)) / det;
            if (!(off2 >= 0)) continue; /* (the line misses the sphere) */
            float off = sqrtf(off2);
            crease_keep(v3_add(head, v3_madd(base, line, off)), to, n, c, m, slack, &nearest, best);
            crease_keep(v3_add(head, v3_madd(base, line, -off)), to, n, c, m, slack, &nearest,
                        best);
        }
    }
    return nearest < INFINITY;
}

/* The sweeps that did not settle (a crease whose pushes undo each other, alternating
 * projections creeping along it): the tip put at the point of its rope sphere nearest where
 * it came in (to) beyond the supporting planes of every collider found holding it, gathered
 * round by round (a plane's far side is outside its collider, so a point beyond them all is
 * outside them all); its velocity kept out of each plane (contact_velocity), none left when
 * that cannot be. No point beyond them: the sweeps' tip stays. */
static void crease_settle(const contact_collider* ready, int count, const tl_collider* colliders,
                          const float* growth, int links, int link, contact_memo* memo, v3 head,
                          float len, v3 rest, float slack, v3 to, v3* p, v3* v) {
    v3 n[CREASE_PLANES], x = *p;
    float c[CREASE_PLANES];
    int m = 0;
    bool moved = false;
    for (int round = 0; round < 4; ++round) {
        bool held = false;
        for (int j = 0; j < count && m < CREASE_PLANES; ++j) {
            contact_collider cc;
            const contact_collider* at = ready ? &ready[j] : &cc;
            if (!ready &&
                !contact_collider_memo(
                    memo, chain_contact_memo_entry(memo, colliders, growth, links, j, link),
                    colliders, growth, links, j, link, &cc))
                continue;
            if (collider_plane(at, x, v3_sub(x, head), &n[m], &c[m])) ++m, held = true;
        }
        if (!held || !crease_point(head, len, to, n, c, m, slack, rest, &x)) break;
        *p = x, moved = true;
    }
    if (!moved) return;
    v3 dir = v3_scale(v3_sub(*p, head), 1.0f / len), u = *v;
    for (int k = 0; k < m; ++k)
        u = contact_velocity(u, dir, n[k]);
    for (int k = 0; k < m; ++k) { /* (a corner: what one plane's rule gave back into another) */
        v3 across = v3_madd(n[k], dir, -v3_dot(n[k], dir));
        if (v3_dot(u, across) < -1e-6f * v3_length(u) * v3_length(across)) u = (v3){0, 0, 0};
    }
    *v = u;
}

/* The crease sweeps: a tip pushed out of one collider into an overlapping one is pushed again:
 * the colliders are visited in turn, up to eight sweeps, until every one has been met since the
 * last push without pushing (the pusher itself counts when its passes settled the tip on its
 * surface: testing it again would re-seat the tip by rounding). Whether any held the tip; its
 * velocity is damped by slip once for all of them (spring-chain.md §7: e^(-gamma dt) a step).
 * candidates: how many of the colliders list holds (contact_candidates), each prepared once for
 * all the sweeps; -1: every collider, each prepared as it is met. A collider never met leaves
 * the tip as it is, so both give the same bits. */
static bool contact_sweeps(const tl_collider* colliders, int collider_count, const float* growth,
                           int links, int link, contact_memo* memo, const int* list, int candidates,
                           v3 head, float len, v3 rest, float slip, v3* p, v3* v) {
    contact_collider ready[CULL_COLLIDERS];
    int count = 0;
    for (int j = 0; j < candidates; ++j) /* (those the growth leaves no size are left out) */
        count += contact_collider_memo(
            memo, chain_contact_memo_entry(memo, colliders, growth, links, list[j], link),
            colliders, growth, links, list[j], link, &ready[count]);
    /* without cull slots, the colliders whose frame ball the rope sphere meets (bits of near;
     * none found: all). A collider outside it would leave the tip as it is: its visits only
     * count as met (the sweeps end where they ended with it), so the same bits */
    uint32_t near = ~0u;
    const bool culled = candidates < 0 && chain_contact_memo_near(memo, colliders, collider_count,
                                                                  head, len, *p, &near);
    if (candidates < 0) count = collider_count;
    const float scale = len + fabsf(head.x) + fabsf(head.y) + fabsf(head.z);
    const float still = (1e-6f * scale) * (1e-6f * scale), inv_len = 1.0f / len;
    int held = 0, met = 0;
    const v3 to = *p;
    for (int visit = 0; visit < 8 * count && met < count; ++visit) {
        const int j = visit % count;
        contact_collider cc;
        int did = SETTLED, entry;
        v3 centre;
        float radius;
        if (culled && !(near >> j & 1)) {
            /* (beyond its ball: the tip stays; SETTLED) */
        } else if (candidates >= 0) {
            /* a tip outside a ball (most visits: the colliders beside the one holding it) is
             * collide's first test, made here without the call */
            const int shape = ready[j].shape;
            if (shape == TL_COLLIDER_PLANE || shape == TL_COLLIDER_ELLIPSOID ||
                collider_inside(&ready[j], *p, &centre, &radius))
                did = collide(&ready[j], head, len, inv_len, rest, still, p, v);
        } else if ((entry = chain_contact_memo_entry(memo, colliders, growth, links, j, link),
                    !chain_contact_memo_far(memo, entry, &colliders[j], *p)) &&
                   contact_collider_memo(memo, entry, colliders, growth, links, j, link, &cc)) {
            /* (outside a ball: collide's first test, as above) */
            if (cc.shape == TL_COLLIDER_PLANE || cc.shape == TL_COLLIDER_ELLIPSOID ||
                collider_inside(&cc, *p, &centre, &radius))
                did = collide(&cc, head, len, inv_len, rest, still, p, v);
        }
        held |= did;
        met = did & PUSHED ? (did & SETTLED ? 1 : 0) : met + 1;
    }
    if (met < count) /* (every collider: its points may leave the sphere) */
        crease_settle(candidates >= 0 ? ready : NULL, count, colliders, growth, links, link, memo,
                      head, len, rest, sqrtf(still), to, p, v);
#ifndef NDEBUG /* a collider passed over leaves the tip as it is */
    for (int k = 0, j = 0; k < collider_count && (candidates >= 0 || culled); ++k) {
        if (candidates >= 0 ? j < candidates && list[j] == k : (near >> k & 1)) {
            ++j;
            continue;
        }
        contact_collider cc;
        v3 q = *p, u = *v;
        assert(!(contact_collider_of(colliders, growth, links, k, link, &cc) &&
                 collide(&cc, head, len, inv_len, rest, still, &q, &u) & HELD));
    }
#endif
    if (held & HELD) *v = v3_scale(*v, slip);
    return held & HELD;
}

/* The contact pass for one lane's tip (rare: scalar): the plane behind the hips, the floor,
 * then the body's colliders, each a collider of the pass. Returns whether the tip moved; *touch
 * whether it is on the floor or a body collider. */
bool chain_contact(const lane_frame* f, int l, int link, v3 head, float len, v3 rest, v3* pp,
                   v3* vp, bool* touch) {
    v3 p = *pp, v = *vp;
    const v3 root = LANE_V3(f, r, l), forward = LANE_V3(f, f, l), hips_up = LANE_V3(f, e, l);
    const v3 up = LANE_V3(f, up, l), back = v3_scale(forward, -1.0f), zero = {0, 0, 0};
    /* no tip below the root ahead of the plane through it facing forward */
    const contact_plane hips = {root, back, root, hips_up, 0, v3_dot(back, root), true, PLANE_HIPS};
    /* the floor: the centre line F = floor + clearance above it along up */
    const contact_plane ground = {
        zero, up, zero, zero, f->floor_level[l], f->floor_level[l], false, PLANE_FLOOR};
    bool moved = false;
    *touch = false;
    if (f->plane[l] && plane_holds(&hips, p)) {
        p = project_onto_circle(head, len, p, hips.normal, hips.level, rest);
        v = plane_velocity(&hips, v3_scale(v3_sub(p, head), 1.0f / len), f->slip[l], v);
        moved = true;
    }
    /* ground contact wins over the bend limit */
    if (f->floor[l] && plane_holds(&ground, p)) {
        p = project_onto_circle(head, len, p, ground.normal, ground.level, rest);
        if (f->plane[l] && plane_holds(&hips, p)) {
            /* keep to the part of the contact circle behind the hips */
            v3 ahead = v3_normalize_or(v3_madd(forward, up, -v3_dot(forward, up)), forward);
            v3 beside = v3_madd(p, ahead, -v3_dot(v3_sub(p, head), ahead));
            p = project_onto_circle(head, len, beside, up, ground.level, v3_scale(ahead, -1.0f));
        }
        v = plane_velocity(&ground, v3_scale(v3_sub(p, head), 1.0f / len), f->floor_slip[l], v);
        moved = true;
        *touch = true;
    }
    /* the body's colliders, those within the rope's reach (a crease of the body: sweeps) */
    int list[CULL_COLLIDERS];
    const int candidates = contact_candidates(f, l, head, len, list);
    if (contact_sweeps(f->colliders[l], f->collider_count[l], f->growth[l], f->links, link,
                       f->memo[l], list, candidates, head, len, rest, f->slip[l], &p, &v))
        moved = *touch = true;
    *pp = p, *vp = v;
    return moved;
}

/* Which of the n output tips (3n floats) may be inside one of the frame's colliders, in near[]:
 * the test of chain_cull_setup / lanes_cull (the segment's point nearest the tip within the
 * radius grown by the largest growth and a margin), for every sphere and capsule; any other
 * shape, or a non-finite one, leaves every tip near. A tip found outside is one that
 * chain_contact_output leaves as it is, so skipping it changes no bit. (For a lane without
 * cull slots; the others' output kernel makes the same test from the slots.) */
void chain_output_near(const frame_plan* fp, const float* tips, int n, bool* near) {
    for (int i = 0; i < n; ++i)
        near[i] = false;
    for (int k = 0; k < fp->collider_count; ++k) {
        cull_bound b;
        const float* growth = fp->collider_growth ? fp->collider_growth + (size_t)k * n : NULL;
        if (!cull_bound_of(&fp->colliders[k], growth, n, &b)) {
            for (int i = 0; i < n; ++i)
                near[i] = true;
            return;
        }
        for (int i = 0; i < n && b.r2 >= 0; ++i) {
            v3 pa = v3_sub(v3_load(tips + 3 * i), b.a);
            float t = v3_dot(pa, b.ab) * b.inv;
            t = t < 0 ? 0.0f : t;
            t = t > 1 ? 1.0f : t;
            v3 d = v3_sub(pa, v3_scale(b.ab, t));
            near[i] |= v3_dot(d, d) < b.r2;
        }
    }
}

/* The render-time contact of one output tip: p pushed out of the colliders along its rope
 * circle about head (the crease sweeps of chain_contact); whether it moved. With lane l of f
 * (its cull slots being the plan's colliders), only the colliders within the rope's reach
 * (contact_candidates); f NULL: every collider. */
bool chain_contact_output(const frame_plan* fp, const lane_frame* f, int l, int link, v3 head,
                          float len, contact_memo* memo, v3* p) {
    v3 v = {0, 0, 0}, rest = v3_scale(v3_sub(*p, head), 1.0f / len);
    int list[CULL_COLLIDERS];
    const int candidates = f ? contact_candidates(f, l, head, len, list) : -1;
    return contact_sweeps(fp->colliders, fp->collider_count, fp->collider_growth, fp->chain->n,
                          link, memo, list, candidates, head, len, rest, 1.0f, p, &v);
}

#define LANE_COUNT LANES
#define LANE_FULL 1
#include "spring_chain_lanes.h"
#undef LANE_FULL
#undef LANE_COUNT
#if TL_LANES_AVX2
#define LANE_COUNT HALF_LANES
#include "spring_chain_lanes.h"
#undef LANE_COUNT
#endif
#define LANE_COUNT 1
#include "spring_chain_lanes.h"
#undef LANE_COUNT
/* The article's bug 2 for a chain alone (spring_chain_internal.h): kept out of the kernels
 * every other chain runs. */
#define LANE_COUNT 1
#define LANE_ISA _feedback
#define LANE_TARGET
#define LANE_FEEDBACK 1
#include "spring_chain_lanes.h"
#undef LANE_FEEDBACK
#undef LANE_COUNT

/* The kernels for a batch and half a batch. */
#define BATCH(x) BATCH_(x, LANES, )
#define BATCH_(x, n, isa) BATCH__(x, n, isa)
#define BATCH__(x, n, isa) x##_##n##isa
#define HALF(x) BATCH_(x, HALF_LANES, )

/* How many chains a batch takes. */
int chain_batch_lanes(void) {
#if TL_LANES_AVX2
    return chain_has_avx2() ? LANES : HALF_LANES;
#else
    return LANES;
#endif
}

/* The lanes that step `count` chains: LANES, HALF_LANES or 1. */
int chain_lanes_for(int count) {
#if TL_LANES_AVX2
    if (count > 1 && count <= HALF_LANES) return HALF_LANES;
#endif
    return count == 1 ? 1 : LANES;
}

void chain_lanes_steps(void* links, int n, lane_frame* f, int lanes, bool feedback) {
#if TL_LANES_AVX2
    if (lanes > 1 && chain_has_avx2()) {
        chain_lanes_steps_avx2(links, n, f, lanes);
        return;
    }
#endif
    if (lanes == LANES) {
        BATCH(lanes_pose)(f);
        BATCH(lanes_links)(links, n, f);
#if TL_LANES_AVX2
    } else if (lanes == HALF_LANES) {
        HALF(lanes_pose)(f);
        HALF(lanes_links)(links, n, f);
#endif
    } else if (feedback) {
        lanes_pose_1_feedback(f);
        lanes_links_1_feedback(links, n, f);
    } else {
        lanes_pose_1(f);
        lanes_links_1(links, n, f);
    }
}

void chain_lanes_steps2(void* la, lane_frame* fa, void* lb, lane_frame* fb, int n) {
#if TL_LANES_AVX2
    if (chain_has_avx2()) {
        chain_lanes_steps2_avx2(la, fa, lb, fb, n);
        return;
    }
#endif
    BATCH(lanes_pose)(fa);
    BATCH(lanes_pose)(fb);
    BATCH(lanes_links2)(la, fa, lb, fb, n);
}

void chain_lanes_finite(const void* links, int n, bool* finite) {
#if TL_LANES_AVX2
    if (chain_has_avx2()) {
        chain_lanes_finite_avx2(links, n, finite);
        return;
    }
#endif
    BATCH(lanes_finite)(links, n, finite);
}

void chain_lanes_outputs(const void* links, void* out, int n, float* t, float* gx, float* gy,
                         float* gz, float* gw, float* hx, float* hy, float* hz, float* s,
                         const lane_frame* f, int lanes) {
#if TL_LANES_AVX2
    if (lanes > 1 && chain_has_avx2()) {
        chain_lanes_outputs_avx2(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f, lanes);
        return;
    }
#endif
    if (lanes == LANES) BATCH(lanes_output)(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
#if TL_LANES_AVX2
    else if (lanes == HALF_LANES)
        HALF(lanes_output)(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
#endif
    else
        lanes_output_1(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, f);
}
