/* The lattice's links out of the colliders (issue #13). The final pass keeps every particle
 * outside the body, but the skin the lattice drives lies on the links between particles: a
 * collider bulging between two particles put the knight's cape 0.006-0.008 H inside with every
 * particle outside. Once a step, after the Verlet step and before the relaxation (which then
 * settles each pushed link with its neighbours), each link of rows >= 1 that sags into a
 * collider beyond its slack (its depth at rest, tl_cloth_def.link_slack) has its deepest point
 * pushed out by moving its two end particles, shared as the point's position is (the least-norm
 * move that carries it; a pinned end does not move). The final pass then puts every particle on
 * its tether and out of the colliders as before. Pushed after the relaxation instead (with the
 * chords between bone columns too) the skirt's rows stretched (Walk horizontal p99 1.26 ->
 * 1.59); skirts are no longer pushed (closed rings, below). The step calls this before each
 * relaxation iteration (cloth_relax_links_out), so the contact is one more
 * constraint of the Gauss-Seidel solve: the whole depth each time, no share left for later.
 * docs/cloth.md "The links out of the colliders". */
#include "cloth_internal.h"

#include <math.h>
#include <string.h>

static v3 nearest_on_axis(v3 a, v3 b, v3 p) {
    v3 ab = v3_sub(b, a);
    float l2 = v3_dot(ab, ab), t = l2 > 0 ? v3_dot(v3_sub(p, a), ab) / l2 : 0;
    return v3_madd(a, ab, t < 0 ? 0 : (t > 1 ? 1 : t));
}

/* The parameter on segment p0 + s (p1 - p0) nearest segment q0 + t (q1 - q0), both in [0, 1]. */
static void segments_nearest(v3 p0, v3 p1, v3 q0, v3 q1, float* s_out, float* t_out) {
    v3 d1 = v3_sub(p1, p0), d2 = v3_sub(q1, q0), r = v3_sub(p0, q0);
    float a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
    float s = 0, t = 0;
    if (a <= 1e-20f && e <= 1e-20f) {
        *s_out = 0, *t_out = 0;
        return;
    }
    if (a <= 1e-20f) {
        t = f / e;
    } else {
        float c = v3_dot(d1, r);
        if (e <= 1e-20f) {
            s = -c / a;
        } else {
            float b = v3_dot(d1, d2), den = a * e - b * b;
            s = den > 1e-12f * a * e ? (b * f - c * e) / den : 0;
            s = s < 0 ? 0 : (s > 1 ? 1 : s);
            t = (b * s + f) / e;
            if (t < 0 || t > 1) { /* the other segment's end: s again from it */
                t = t < 0 ? 0 : 1;
                s = (b * t - c) / a;
            }
        }
    }
    *s_out = s < 0 ? 0 : (s > 1 ? 1 : s);
    *t_out = t < 0 ? 0 : (t > 1 ? 1 : t);
}

/* Whether a link's ends lie within a right angle of each other around the collider's axis (ea,
 * eb: from the axis to each): such a link sags into the body as a chord of its curve and moves
 * out by a short push along e, from the axis to its deepest point. One whose ends lie further
 * round has come across the collider (a thigh between two columns): e turns with every small
 * move of it, and pushed along e it flipped from side to side and never came to rest (the skirt
 * held after its walk: 0.48 m/s 2 s later); only a ring stretched round the thigh clears it. */
static bool sags_into(v3 e, v3 ea, v3 eb) {
    return v3_dot(ea, eb) > 0 && v3_dot(e, ea) > 0 && v3_dot(e, eb) > 0;
}

/* The move `d` along `side` taking point `e` (from the centre, inside the sphere of `radius`)
 * onto its surface; false when `side` has no direction. A link lying across a collider (its ends
 * more than a right angle apart round it) has no side of its own: pushed from the centre it
 * flipped from side to side (sags_into). The side its previous position lay on (the step's
 * start, which the push kept outside) is stable: the link is carried back out that way, as a
 * garment is pushed aside by a leg swung into it rather than cut by it (CesiumMan's generated
 * cape: the thigh came between two hem particles, the skin 0.015 H inside). */
static bool exit_along(v3 e, v3 side, float radius, v3* d) {
    float l = v3_length(side);
    if (!(l > 1e-9f * radius)) return false;
    v3 n = v3_scale(side, 1.0f / l);
    float en = v3_dot(e, n), c = radius * radius - v3_dot(e, e);
    if (!(c > 0)) return false;
    *d = v3_scale(n, sqrtf(en * en + c) - en);
    return true;
}

/* The move `d` taking the point of segment a-b deepest in shape `sh` (at parameter *s) to its
 * surface; false when the segment is outside. Planes are left to the particles: a segment's
 * deepest point into a plane is one of its ends. */
static bool segment_out(const cloth_shape* sh, v3 a, v3 b, v3 pa, v3 pb, float slack, float* s,
                        v3* d) {
    v3 p, centre;
    float radius;
    switch (sh->kind) {
    case SHAPE_SPHERE:
    case SHAPE_CAPSULE: {
        float t = 0;
        segments_nearest(a, b, sh->a, sh->kind == SHAPE_CAPSULE ? sh->b : sh->a, s, &t);
        p = v3_madd(a, v3_sub(b, a), *s);
        centre = sh->kind == SHAPE_CAPSULE ? v3_madd(sh->a, v3_sub(sh->b, sh->a), t) : sh->a;
        radius = sh->radius - slack;
        v3 e = v3_sub(p, centre);
        float l = v3_length(e);
        v3 ea = v3_sub(a, sh->kind == SHAPE_CAPSULE ? nearest_on_axis(sh->a, sh->b, a) : sh->a);
        v3 eb = v3_sub(b, sh->kind == SHAPE_CAPSULE ? nearest_on_axis(sh->a, sh->b, b) : sh->a);
        if (!(radius > 0) || l >= radius) return false; /* outside */
        if (!sags_into(e, ea, eb)) {                    /* across: out on the side it came from */
            float sp, tp;
            segments_nearest(pa, pb, sh->a, sh->kind == SHAPE_CAPSULE ? sh->b : sh->a, &sp, &tp);
            v3 q = v3_madd(pa, v3_sub(pb, pa), sp);
            v3 side =
                v3_sub(q, sh->kind == SHAPE_CAPSULE ? nearest_on_axis(sh->a, sh->b, q) : sh->a);
            return exit_along(e, side, radius, d);
        }
        if (!(l > 1e-9f * radius)) return false; /* on the axis */
        *d = v3_scale(e, (radius - l) / l);
        return true;
    }
    case SHAPE_ELLIPSOID: { /* in the space where it is the unit sphere: a segment stays one */
        v3 ua = qt_unrotate(sh->rotation, v3_sub(a, sh->a));
        v3 ub = qt_unrotate(sh->rotation, v3_sub(b, sh->a));
        v3 radii = v3_make(fmaxf(sh->radii.x - slack, 0.5f * sh->radii.x),
                           fmaxf(sh->radii.y - slack, 0.5f * sh->radii.y),
                           fmaxf(sh->radii.z - slack, 0.5f * sh->radii.z));
        ua = v3_make(ua.x / radii.x, ua.y / radii.y, ua.z / radii.z);
        ub = v3_make(ub.x / radii.x, ub.y / radii.y, ub.z / radii.z);
        v3 ab = v3_sub(ub, ua);
        float l2 = v3_dot(ab, ab), t = l2 > 0 ? -v3_dot(ua, ab) / l2 : 0;
        *s = t < 0 ? 0 : (t > 1 ? 1 : t);
        v3 u = v3_madd(ua, ab, *s);
        float l = v3_length(u);
        if (l >= 1.0f) return false;
        v3 out;
        if (!sags_into(u, ua, ub)) { /* across: out on the side it came from */
            v3 pu = qt_unrotate(sh->rotation, v3_sub(pa, sh->a));
            v3 pv = qt_unrotate(sh->rotation, v3_sub(pb, sh->a));
            pu = v3_make(pu.x / radii.x, pu.y / radii.y, pu.z / radii.z);
            pv = v3_make(pv.x / radii.x, pv.y / radii.y, pv.z / radii.z);
            v3 pd = v3_sub(pv, pu);
            float p2 = v3_dot(pd, pd), pt = p2 > 0 ? -v3_dot(pu, pd) / p2 : 0;
            v3 side = v3_madd(pu, pd, pt < 0 ? 0 : (pt > 1 ? 1 : pt));
            if (!exit_along(u, side, 1.0f, &out)) return false;
        } else {
            if (!(l > 1e-6f)) return false;
            out = v3_scale(u, 1.0f / l - 1.0f);
        }
        out = v3_make(out.x * radii.x, out.y * radii.y, out.z * radii.z);
        *d = qt_rotate(sh->rotation, out);
        return true;
    }
    case SHAPE_PLANE:
        return false;
    }
    return false;
}

/* Particle i moved by d as the final pass moves one out of a collider (limit_velocity): its
 * velocity into the collider cancelled (an inelastic contact), no outward velocity added. With
 * the previous position moved by all of d (no velocity change) the skirt held after its walk
 * still moved 0.016 m/s 2 s later (the bar 0.0017). */
static void move_particle(tl_cloth* c, int i, v3 d) {
    float len = v3_length(d);
    if (!(len > 0)) return;
    v3 n = v3_scale(d, 1.0f / len);
    float into = v3_dot(v3_make(c->x[i] - c->px[i], c->y[i] - c->py[i], c->z[i] - c->pz[i]), n);
    float extra = len + (into < 0 ? into : 0);
    c->x[i] += d.x, c->y[i] += d.y, c->z[i] += d.z;
    if (extra <= 0) return;
    c->px[i] += n.x * extra, c->py[i] += n.y * extra, c->pz[i] += n.z * extra;
}

/* Segment i-j out of every collider but its slack; i or j on row 0 (pinned) does not move. */
static void push_segment(tl_cloth* c, int i, int j, float slack) {
    int C = c->model->columns;
    float wi = i < C ? 0.0f : 1.0f, wj = j < C ? 0.0f : 1.0f;
    for (int k = 0; k < c->shape_count; ++k) {
        v3 a = v3_make(c->x[i], c->y[i], c->z[i]), b = v3_make(c->x[j], c->y[j], c->z[j]);
        v3 pa = v3_make(c->px[i], c->py[i], c->pz[i]), pb = v3_make(c->px[j], c->py[j], c->pz[j]);
        float s;
        v3 d;
        if (!segment_out(&c->shapes[k], a, b, pa, pb, slack, &s, &d)) continue;
        /* the ends' moves (1 - s) g wi, s g wj carry the point by d: g = d / sum */
        float ci = (1 - s) * wi, cj = s * wj, sum = (1 - s) * ci + s * cj;
        /* near a pinned end the free one would have to move far: at most twice the depth */
        if (sum < 0.5f) sum = 0.5f;
        if (ci > 0) move_particle(c, i, v3_scale(d, ci / sum));
        if (cj > 0) move_particle(c, j, v3_scale(d, cj / sum));
    }
}

/* The move `d` taking point p to the surface of shape `sh` less `slack`; false when outside
 * (planes are left to the particles, as for links). */
static bool point_out(const cloth_shape* sh, v3 p, float slack, v3* d) {
    if (sh->kind == SHAPE_SPHERE || sh->kind == SHAPE_CAPSULE) {
        v3 e = v3_sub(p, sh->kind == SHAPE_CAPSULE ? nearest_on_axis(sh->a, sh->b, p) : sh->a);
        float l = v3_length(e), radius = sh->radius - slack;
        if (!(radius > 0) || l >= radius || !(l > 1e-9f * radius)) return false;
        *d = v3_scale(e, (radius - l) / l);
        return true;
    }
    if (sh->kind != SHAPE_ELLIPSOID) return false;
    v3 e = v3_sub(p, sh->a);
    float most = fmaxf(sh->radii.x, fmaxf(sh->radii.y, sh->radii.z));
    if (v3_dot(e, e) >= most * most) return false; /* outside its bounding sphere */
    v3 radii = v3_make(fmaxf(sh->radii.x - slack, 0.5f * sh->radii.x),
                       fmaxf(sh->radii.y - slack, 0.5f * sh->radii.y),
                       fmaxf(sh->radii.z - slack, 0.5f * sh->radii.z));
    v3 u = qt_unrotate(sh->rotation, e);
    u = v3_make(u.x / radii.x, u.y / radii.y, u.z / radii.z);
    float l = v3_length(u);
    if (l >= 1.0f || !(l > 1e-6f)) return false;
    v3 out = v3_scale(u, 1.0f / l - 1.0f);
    *d = qt_rotate(sh->rotation, v3_make(out.x * radii.x, out.y * radii.y, out.z * radii.z));
    return true;
}

/* Skin point `s` out of every collider but its slack: its cell's particles moved by the
 * least-norm share that carries the bilinear point (a pinned particle takes none). The links
 * leave the cells' insides and the half cell beyond the edge particles uncovered: on CesiumMan's
 * generated cape a thigh ellipsoid 3.5 cm thick came into a 10 x 8 cm cell with its four
 * particles and links outside (the cell's own surface 0.0070 H inside), and the skin beyond the
 * edge column went 0.005-0.006 H into the other thigh with the lattice outside. */
static v3 skin_point_at(const tl_cloth* c, const int idx[4], const float w[4],
                        const tl_cloth_skin_point* s) {
    v3 x[4], p = v3_make(0, 0, 0);
    for (int k = 0; k < 4; ++k)
        x[k] = v3_make(c->x[idx[k]], c->y[idx[k]], c->z[idx[k]]), p = v3_madd(p, x[k], w[k]);
    /* the lift along the normal down x along: d/du and d/dv of the bilinear surface */
    v3 du = v3_add(v3_scale(v3_sub(x[2], x[0]), 1 - s->v), v3_scale(v3_sub(x[3], x[1]), s->v));
    v3 dv = v3_add(v3_scale(v3_sub(x[1], x[0]), 1 - s->u), v3_scale(v3_sub(x[3], x[2]), s->u));
    v3 n = v3_cross(du, dv);
    float nl = v3_length(n);
    return nl > 0 ? v3_madd(p, n, s->lift / nl) : p;
}

static void push_skin_point(tl_cloth* c, const tl_cloth_skin_point* s) {
    int C = c->model->columns, r = s->cell / C, j = s->cell % C;
    int idx[4] = {s->cell, r * C + (j + 1) % C, s->cell + C, (r + 1) * C + (j + 1) % C};
    float w[4] = {(1 - s->u) * (1 - s->v), (1 - s->u) * s->v, s->u * (1 - s->v), s->u * s->v};
    float mob[4], sum = 0;
    for (int k = 0; k < 4; ++k)
        mob[k] = idx[k] < C ? 0.0f : w[k], sum += mob[k] * w[k];
    /* near the pinned row the free corners would have to move far: at most four times */
    if (sum < 0.25f) sum = 0.25f;
    v3 p = skin_point_at(c, idx, w, s);
    for (int q = 0; q < c->shape_count; ++q) {
        v3 d;
        if (!point_out(&c->shapes[q], p, s->slack, &d)) continue;
        for (int k = 0; k < 4; ++k)
            if (mob[k] != 0) move_particle(c, idx[k], v3_scale(d, mob[k] / sum));
        p = skin_point_at(c, idx, w, s); /* only a push moves it */
    }
}

void cloth_push_segments(tl_cloth* c) {
    const tl_cloth_model* m = c->model;
    int R = m->rows, C = m->columns;
    /* A closed ring (a skirt) has no free side: its links cut by a thigh come clear only by
     * stretching the ring round it, and pushed out they stretched it and made its motion follow
     * the legs' interpolated path between frames (mh-suit-skirt Walk: mesh 0.0336 -> 0.0339 H,
     * cloth p99 1.155 -> 1.172; render poses between frame rates 0.63% -> 1.14% of a column, over
     * the 1% bar; session 14 again with 14 columns: Walk torn 0.9%). Open lattices only. A ring's
     * skin points, which its host chose to pass, are pushed as an open lattice's. */
    if (c->shape_count == 0) return;
    for (int r = 1; r < R && !m->closed; ++r) {
        int row = r * C;
        const float* slack = m->slack + 2 * row;
        for (int j = 0; j < C; ++j) /* the links up */
            push_segment(c, row + j - C, row + j, slack[2 * j]);
        for (int j = 0; j + 1 < C; ++j) /* along the row (open: no link back to column 0) */
            push_segment(c, row + j, row + j + 1, slack[2 * j + 1]);
    }
    for (int k = 0; k < m->skin_count; ++k)
        push_skin_point(c, &m->skin[k]);
}

/* The relaxation with the links' push (below) as one more constraint of its
 * Gauss-Seidel solve: pushed out before every iteration, the whole depth. Pushed once before
 * all the iterations, the links' stretch corrections put part of the depth back and the push
 * needed a share tuned on the bars (0.75: the whole depth read CesiumMan's generated cape's
 * hitch later ratio 1.064, three quarters 1.048, bar 1.02); solved together it reads 1.002 (1.003
 * with three quarters; docs/cloth.md "The links' push inside the relaxation"). A closed ring
 * with no skin points or a lattice with no collider, which push nothing, run the iterations in
 * one call. */
void cloth_relax_links_out(tl_cloth* c) {
    const tl_cloth_model* m = c->model;
    const tl_cloth_settings* s = &c->settings;
    if (c->shape_count == 0 || (m->closed && m->skin_count == 0)) {
        cloth_relax(m, c->x, c->y, c->z, s->stretch_stiffness, s->shear_stiffness, s->iterations);
        return;
    }
    for (int it = 0; it < s->iterations; ++it) {
        cloth_push_segments(c);
        cloth_relax(m, c->x, c->y, c->z, s->stretch_stiffness, s->shear_stiffness, 1);
    }
}

/* The start (the state placed on the targets and out of the colliders by the final pass) with
 * the links out as every step leaves them: the relaxation with the push from there; the caller
 * runs the final pass again when this returns true. Placed by the particles alone, the links and
 * the skin on them stayed in until the first step (mh-body's generated cape, Walk at 0 s: its
 * skin 0.0038 H inside the right thigh, every later sample under 0.0019 H). A closed ring with
 * no skin points and a lattice with no collider push nothing and are left as placed. */
bool cloth_links_out_at_start(tl_cloth* c) {
    if (c->shape_count == 0 || (c->model->closed && c->model->skin_count == 0)) return false;
    size_t bytes = sizeof(float) * (size_t)c->n;
    memcpy(c->px, c->x, bytes), memcpy(c->py, c->y, bytes), memcpy(c->pz, c->z, bytes);
    cloth_relax_links_out(c);
    return true;
}
