/* One frame of cloth (cloth.md §2-§9): fixed internal steps in the character frame with a share
 * of its world motion; Verlet with damping (more for edges, more on contact), gravity and wind;
 * the relaxation (cloth_kernels.c); then one pass from the top row down that puts every particle
 * on its tether (the vertical rest length from the particle above it, exactly), inside its safe
 * distance from its skinned rest position and outside the colliders. */
#include "cloth_internal.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* ---- frames: internal = rest-world - origin; world = P + S R (internal + origin) ---- */

static v3 to_internal(const tl_chain_pose* f, v3 origin, v3 w) {
    v3 l = qt_unrotate(qt_load(f->rotation), v3_sub(w, v3_load(f->position)));
    return v3_sub(v3_scale(l, 1.0f / f->scale), origin);
}

static v3 to_world(const tl_chain_pose* f, v3 origin, v3 q) {
    return v3_madd(v3_load(f->position), qt_rotate(qt_load(f->rotation), v3_add(q, origin)),
                   f->scale);
}

/* x -> m[0] x.x + m[1] x.y + m[2] x.z + t: a frame's map, for the per-particle loops */
typedef struct affine {
    v3 m[3], t;
} affine;

static inline v3 affine_apply(const affine* a, v3 x) {
    return v3_add(v3_add(v3_scale(a->m[0], x.x), v3_scale(a->m[1], x.y)),
                  v3_add(v3_scale(a->m[2], x.z), a->t));
}

static affine affine_to_world(const tl_chain_pose* f, v3 origin) {
    affine a;
    a.t = to_world(f, origin, v3_make(0, 0, 0));
    for (int k = 0; k < 3; ++k)
        a.m[k] = v3_sub(to_world(f, origin, v3_make(k == 0, k == 1, k == 2)), a.t);
    return a;
}

static tl_chain_pose pose_lerp(const tl_chain_pose* a, const tl_chain_pose* b, float u) {
    tl_chain_pose p;
    for (int k = 0; k < 3; ++k)
        p.position[k] = a->position[k] + (b->position[k] - a->position[k]) * u;
    qt_store(p.rotation, qt_nlerp(qt_load(a->rotation), qt_load(b->rotation), u));
    p.scale = a->scale + (b->scale - a->scale) * u;
    return p;
}

static bool pose_finite(const tl_chain_pose* p) {
    qt q = qt_load(p->rotation);
    return v3_finite(v3_load(p->position)) && qt_finite(q) && qt_dot(q, q) > 1e-12f &&
           isfinite(p->scale) && p->scale > 0;
}

static tl_chain_pose pose_normalized(const tl_chain_pose* p) {
    tl_chain_pose q = *p;
    qt_store(q.rotation, qt_normalize(qt_load(p->rotation)));
    return q;
}

/* ---- colliders in internal coordinates ---- */

static void gather_shapes(tl_cloth* c, const tl_cloth_input* in, const tl_chain_pose* f) {
    const tl_cloth_model* m = c->model;
    float s = 1.0f / f->scale, margin = c->settings.collision_margin * m->scale * s;
    qt r = qt_load(f->rotation);
    int k = 0;
    for (int i = 0; i < in->collider_count && in->colliders && k < TL_CLOTH_MAX_COLLIDERS; ++i) {
        const tl_collider* src = &in->colliders[i];
        cloth_shape* d = &c->shapes[k];
        d->a = to_internal(f, m->origin, v3_load(src->a));
        d->radius = src->radius * s + margin;
        switch (src->shape) {
        case TL_COLLIDER_SPHERE:
            d->kind = SHAPE_SPHERE;
            break;
        case TL_COLLIDER_CAPSULE:
            d->kind = SHAPE_CAPSULE;
            d->b = to_internal(f, m->origin, v3_load(src->b));
            break;
        case TL_COLLIDER_PLANE:
            d->kind = SHAPE_PLANE;
            d->b = v3_normalize_or(qt_unrotate(r, v3_load(src->b)), v3_make(0, 1, 0));
            d->radius = margin;
            break;
        case TL_COLLIDER_ELLIPSOID: { /* the body's fitted ellipsoids: axes to a frame and radii */
            v3 ax[3];
            float len[3];
            for (int j = 0; j < 3; ++j) {
                ax[j] = v3_load(src->axes[j]);
                len[j] = v3_length(ax[j]);
            }
            v3 x = v3_normalize_or(ax[0], v3_make(1, 0, 0));
            v3 y =
                v3_normalize_or(v3_sub(ax[1], v3_scale(x, v3_dot(ax[1], x))), v3_perpendicular(x));
            qt world = qt_from_basis(x, y, v3_cross(x, y));
            d->kind = SHAPE_ELLIPSOID;
            d->rotation = qt_normalize(qt_mul(qt_conj(r), world));
            d->radii = v3_make(len[0] * s + margin, len[1] * s + margin, len[2] * s + margin);
            break;
        }
        default: /* a kind this solver does not know: not collided with */
            continue;
        }
        k++;
    }
    for (int i = 0; i < in->ellipsoid_count && in->ellipsoids && k < TL_CLOTH_MAX_COLLIDERS; ++i) {
        const tl_cloth_ellipsoid* e = &in->ellipsoids[i];
        cloth_shape* d = &c->shapes[k++];
        d->kind = SHAPE_ELLIPSOID;
        d->a = to_internal(f, m->origin, v3_load(e->centre));
        d->rotation = qt_normalize(qt_mul(qt_conj(r), qt_normalize(qt_load(e->rotation))));
        d->radii =
            v3_make(e->radii[0] * s + margin, e->radii[1] * s + margin, e->radii[2] * s + margin);
    }
    c->shape_count = k;
}

/* w turned toward `axis` just enough that dot(w, axis) >= c (w, axis unit). */
static v3 keep_in_cap(v3 w, v3 axis, float c) {
    if (c <= -1.0f) return w;
    if (c >= 1.0f) return axis;
    float d = v3_dot(w, axis);
    if (d >= c) return w;
    v3 perp = v3_normalize_or(v3_madd(w, axis, -d), v3_perpendicular(axis));
    return v3_add(v3_scale(axis, c), v3_scale(perp, sqrtf(1.0f - c * c)));
}

/* p on the tether sphere pushed out of a sphere (centre s, radius R) along the sphere: the
 * circle where the two meet. False when p is outside. */
static bool out_of_sphere(v3 q, float L, v3 s, float R, v3* p) {
    v3 e = v3_sub(*p, s);
    if (v3_dot(e, e) >= R * R) return false;
    v3 to = v3_sub(s, q);
    float D = v3_length(to);
    if (!(D > 1e-12f) || D + L <= R) return true; /* swallowed: nothing on the tether helps */
    v3 n = v3_scale(to, -1.0f / D);
    float m = (L * L + D * D - R * R) / (2.0f * D * L);
    v3 w = v3_normalize_or(v3_sub(*p, q), n);
    *p = v3_madd(q, keep_in_cap(w, n, -m), L);
    return true;
}

static v3 nearest_on_segment(v3 a, v3 b, v3 p) {
    v3 ab = v3_sub(b, a);
    float l2 = v3_dot(ab, ab), t = l2 > 0 ? v3_dot(v3_sub(p, a), ab) / l2 : 0;
    return v3_madd(a, ab, t < 0 ? 0 : (t > 1 ? 1 : t));
}

/* Pushes p (on the tether around q, or free when L <= 0) out of one shape. */
static bool collide_one(const cloth_shape* s, v3 q, float L, v3* p) {
    bool hit = false;
    switch (s->kind) {
    case SHAPE_SPHERE:
    case SHAPE_CAPSULE:
        for (int pass = 0; pass < (s->kind == SHAPE_CAPSULE ? 3 : 1); ++pass) {
            v3 centre = s->kind == SHAPE_CAPSULE ? nearest_on_segment(s->a, s->b, *p) : s->a;
            if (!out_of_sphere(q, L, centre, s->radius, p)) break;
            hit = true;
        }
        return hit;
    case SHAPE_PLANE: {
        float h = v3_dot(v3_sub(*p, s->a), s->b);
        if (h >= s->radius) return false;
        float c = (s->radius - v3_dot(v3_sub(q, s->a), s->b)) / L;
        *p = v3_madd(q, keep_in_cap(v3_normalize_or(v3_sub(*p, q), s->b), s->b, c), L);
        return true;
    }
    case SHAPE_ELLIPSOID:
        /* in the space where the ellipsoid is the unit sphere (cloth.md §4), then back on the
         * tether; twice, as the tether may lead back in */
        for (int pass = 0; pass < 2; ++pass) {
            v3 u = qt_unrotate(s->rotation, v3_sub(*p, s->a));
            u = v3_make(u.x / s->radii.x, u.y / s->radii.y, u.z / s->radii.z);
            float r2 = v3_dot(u, u);
            if (r2 >= 1.0f) break;
            u = v3_normalize_or(u, v3_make(0, 0, 1));
            v3 out = v3_make(u.x * s->radii.x, u.y * s->radii.y, u.z * s->radii.z);
            *p = v3_add(s->a, qt_rotate(s->rotation, out));
            *p = v3_madd(q, v3_normalize_or(v3_sub(*p, q), v3_make(0, -1, 0)), L);
            hit = true;
        }
        return hit;
    }
    return false;
}

/* Every shape, twice when one hit: out of one collider can be into the next (two thighs). */
static bool collide_all(const tl_cloth* c, v3 q, float L, v3* p) {
    bool hit = false;
    for (int round = 0; round < 2; ++round) {
        bool again = false;
        for (int k = 0; k < c->shape_count; ++k)
            again |= collide_one(&c->shapes[k], q, L, p);
        hit |= again;
        if (!again) break;
    }
    return hit;
}

/* A push out of a collider (from `free` to `p`) is a position correction, not a bounce: the
 * Verlet velocity (p - previous) would gain the whole push, so a particle resting on a collider
 * under gravity was kicked off it every step and fell back (the knight's cape still moving 2 s
 * after the run). The push may cancel the velocity into the collider (an inelastic contact);
 * what is left of it moves the previous position along, adding no outward velocity. */
static void limit_velocity(tl_cloth* c, int i, v3 free, v3 p) {
    v3 push = v3_sub(p, free);
    float len = v3_length(push);
    if (!(len > 0)) return;
    v3 n = v3_scale(push, 1.0f / len);
    float into = v3_dot(v3_sub(free, v3_make(c->px[i], c->py[i], c->pz[i])), n);
    float extra = len + (into < 0 ? into : 0);
    if (extra <= 0) return;
    c->px[i] += n.x * extra, c->py[i] += n.y * extra, c->pz[i] += n.z * extra;
}

/* The tether pass moves only the lower particle of each vertical link (cloth.md §6), and Verlet
 * turns that move into its velocity with no reaction on the particle above: a one-sided force.
 * Against the relaxation's bend links (rows r, r + 2), whose pull the pass undoes at the upper end
 * and keeps at the lower, it pumped energy into a swinging cape: CesiumMan's generated cape still
 * moved 4 m/s a second after the stress harness's shake stopped, and mh-body's, with no colliders,
 * never came to rest. The particle above (not on the pinned row) takes back, as velocity only
 * (its position stays final), the share of the move it would have made in an equal-mass
 * projection: half (the dynamic follow-the-leader correction of hair solvers). docs/cloth.md
 * "Coming to rest after a shake". */
static void tether_reaction(tl_cloth* c, int row) {
    int C = c->model->columns;
    const float *bx = c->row_before, *by = bx + C, *bz = by + C;
    for (int j = 0; j < C; ++j) {
        int i = row + j, up = i - C;
        c->px[up] += 0.5f * (c->x[i] - bx[j]);
        c->py[up] += 0.5f * (c->y[i] - by[j]);
        c->pz[up] += 0.5f * (c->z[i] - bz[j]);
    }
}

/* The final pass (cloth.md §4-§6, §9): rows top-down, each particle onto its tether from the
 * (already final) particle above, inside its safe distance (a row at a time, cloth_tether_row),
 * then outside the colliders. */
static void final_pass(tl_cloth* c, float u) {
    const tl_cloth_model* m = c->model;
    int C = m->columns;
    uint32_t contacts = 0, clamps = 0;
    for (int row = C; row < m->n; row += C) {
        size_t bytes = sizeof(float) * (size_t)C;
        if (row >= 2 * C) {
            memcpy(c->row_before, c->x + row, bytes);
            memcpy(c->row_before + C, c->y + row, bytes);
            memcpy(c->row_before + 2 * C, c->z + row, bytes);
        }
        clamps += (uint32_t)cloth_tether_row(c, row, C, u);
        if (row >= 2 * C) tether_reaction(c, row);
        if (c->shape_count == 0) {
            memset(c->contact + row, 0, (size_t)C);
            continue;
        }
        for (int i = row; i < row + C; ++i) {
            v3 q = v3_make(c->x[i - C], c->y[i - C], c->z[i - C]);
            v3 p = v3_make(c->x[i], c->y[i], c->z[i]), free = p;
            v3 t0 = v3_make(c->t0x[i], c->t0y[i], c->t0z[i]);
            v3 ref = v3_madd(t0, v3_sub(v3_make(c->t1x[i], c->t1y[i], c->t1z[i]), t0), u);
            float L = m->tether[i], d = c->max_distance[i];
            bool hit = collide_all(c, q, L, &p);
            if (hit) {
                v3 e = v3_sub(p, ref);
                if (v3_dot(e, e) > d * d) {
                    p = cloth_tether_point(q, L, p, ref, d);
                    collide_all(c, q, L, &p);
                }
                limit_velocity(c, i, free, p);
            }
            contacts += hit;
            c->contact[i] = hit;
            c->x[i] = p.x, c->y[i] = p.y, c->z[i] = p.z;
        }
    }
    c->stats.contacts = contacts;
    c->stats.max_distance_clamps = clamps;
}

/* ---- integration (cloth.md §2, §8) ---- */

/* The map taking internal coordinates under frame `from` to those of the same world point
 * under `to`. */
static affine world_motion_map(const tl_chain_pose* from, const tl_chain_pose* to, v3 origin) {
    affine a;
    a.t = to_internal(to, origin, to_world(from, origin, v3_make(0, 0, 0)));
    for (int k = 0; k < 3; ++k) {
        v3 e = v3_make(k == 0, k == 1, k == 2);
        a.m[k] = v3_sub(to_internal(to, origin, to_world(from, origin, e)), a.t);
    }
    return a;
}

/* The velocity (x - previous) a particle carried with the body has after a step whose world
 * motion is `A` (integrate's map): its share of that motion, share (x - A x). */
static v3 body_velocity(const affine* A, float share, v3 x) {
    return v3_scale(v3_sub(x, affine_apply(A, x)), share);
}

/* After a hitch the velocity holds the body's motion along the frame's straight path (a guess);
 * the first step after it sees the real one (`A`), which replaces it there. */
static void rebase_velocity(tl_cloth* c, const affine* A) {
    affine was = world_motion_map(&c->prior_step, &c->step_frame, c->model->origin);
    for (int i = c->model->columns; i < c->n; ++i) {
        v3 x = v3_make(c->x[i], c->y[i], c->z[i]);
        v3 d = v3_sub(body_velocity(&was, c->share[i], x), body_velocity(A, c->share[i], x));
        c->px[i] += d.x, c->py[i] += d.y, c->pz[i] += d.z;
    }
}

static void integrate(tl_cloth* c, const tl_chain_pose* frame, const float force[3], float u) {
    const tl_cloth_model* m = c->model;
    const tl_cloth_settings* s = &c->settings;
    float h = m->fixed_step;
    affine A = world_motion_map(&c->step_frame, frame, m->origin);
    qt r = qt_load(frame->rotation);
    float inv_s = 1.0f / frame->scale;
    v3 up = v3_normalize_or(v3_load(m->up), v3_make(0, 1, 0));
    v3 g = v3_scale(qt_unrotate(r, up), -s->gravity * m->scale * inv_s * h * h);
    v3 w = v3_scale(qt_unrotate(r, v3_load(force)), inv_s * h * h);
    float map[12];
    for (int k = 0; k < 3; ++k)
        v3_store(map + 3 * k, A.m[k]);
    v3_store(map + 9, A.t);
    int C = m->columns;
    if (c->guessed) rebase_velocity(c, &A);
    c->guessed = false;
    cloth_integrate(c, map, g, w, 1.0f - s->contact_damping, C, m->n);
    for (int i = 0; i < C; ++i) { /* row 0 follows the body */
        c->px[i] = c->x[i], c->py[i] = c->y[i], c->pz[i] = c->z[i];
        c->x[i] = c->t0x[i] + (c->t1x[i] - c->t0x[i]) * u;
        c->y[i] = c->t0y[i] + (c->t1y[i] - c->t0y[i]) * u;
        c->z[i] = c->t0z[i] + (c->t1z[i] - c->t0z[i]) * u;
    }
    c->prior_step = c->step_frame;
    c->step_frame = *frame;
}

/* ---- the frame ---- */

static void write_outputs(tl_cloth* c) {
    affine a = affine_to_world(&c->frame, c->model->origin);
    float map[12];
    for (int k = 0; k < 3; ++k)
        v3_store(map + 3 * k, a.m[k]);
    v3_store(map + 9, a.t);
    cloth_write_outputs(c, map);
}

/* In double: world targets metres from the origin (a run) lose digits to the subtraction of the
 * frame's position, 9 float steps at 10 m, 1.7e-4 of a 5 cm safe distance. */
static void load_targets(tl_cloth* c, const tl_chain_pose* f, const float* targets) {
    double m[9], t[3], o[3] = {c->model->origin.x, c->model->origin.y, c->model->origin.z};
    qt r = qt_load(f->rotation);
    for (int k = 0; k < 3; ++k) { /* row k of R^T / s (m row-major) */
        v3 e = qt_unrotate(r, v3_make(k == 0, k == 1, k == 2));
        m[k] = e.x / f->scale, m[3 + k] = e.y / f->scale, m[6 + k] = e.z / f->scale;
    }
    for (int k = 0; k < 3; ++k)
        t[k] = m[3 * k] * f->position[0] + m[3 * k + 1] * f->position[1] +
               m[3 * k + 2] * f->position[2];
    cloth_map_targets(c, m, t, o, targets);
}

static void place_at_targets(tl_cloth* c, const tl_chain_pose* f) {
    size_t bytes = sizeof(float) * (size_t)c->n;
    memcpy(c->t0x, c->t1x, bytes), memcpy(c->t0y, c->t1y, bytes), memcpy(c->t0z, c->t1z, bytes);
    memcpy(c->x, c->t1x, bytes), memcpy(c->y, c->t1y, bytes), memcpy(c->z, c->t1z, bytes);
    memcpy(c->px, c->t1x, bytes), memcpy(c->py, c->t1y, bytes), memcpy(c->pz, c->t1z, bytes);
    memset(c->contact, 0, (size_t)c->n);
    c->frame = c->step_frame = c->prior_step = *f, c->guessed = false;
    c->accumulator = 0;
    c->started = true;
    c->older_count = -1;
    /* the targets are skinned, not lattice-true: start on the tethers, within max distance,
     * outside the colliders of the last input (none after tl_cloth_reset) */
    final_pass(c, 1.0f);
    if (cloth_links_out_at_start(c)) final_pass(c, 1.0f); /* and its links out */
    memcpy(c->px, c->x, bytes), memcpy(c->py, c->y, bytes), memcpy(c->pz, c->z, bytes);
    write_outputs(c);
}

void tl_cloth_reset(tl_cloth* cloth, const tl_chain_pose* frame, const float* targets) {
    if (!pose_finite(frame)) {
        cloth->stats.nonfinite_inputs++;
        return;
    }
    tl_chain_pose f = pose_normalized(frame);
    load_targets(cloth, &f, targets);
    cloth->shape_count = 0;
    place_at_targets(cloth, &f);
}

static bool input_finite(const tl_cloth* c, const tl_cloth_input* in, float dt) {
    return isfinite(dt) && pose_finite(&in->frame) && v3_finite(v3_load(in->force)) &&
           cloth_floats_finite(in->targets, 3 * c->n);
}

/* A jump beyond teleport_distance inside a frame (no cut) from `from` to `to`, `seconds` apart:
 * the body's own motion is taken as the last step's velocity, the rest moves the frames the
 * world motion is measured from (as the chain takes a jump), so the steps keep their share of
 * it; a turn over 45 degrees is part of the jump (the chain's test). */
static void shift_by_jump(tl_cloth* c, const tl_chain_pose* from, const tl_chain_pose* to,
                          float seconds) {
    if (fabsf(qt_dot(qt_load(from->rotation), qt_load(to->rotation))) <= 0.9238795f) {
        c->frame = c->step_frame = c->prior_step = *to, c->guessed = false; /* cos(45/2) */
        return;
    }
    v3 last = v3_load(c->step_frame.position), prior = v3_load(c->prior_step.position);
    v3 own = v3_scale(v3_sub(last, prior), seconds / c->model->fixed_step);
    v3 shift = v3_sub(v3_sub(v3_load(to->position), v3_load(from->position)), own);
    tl_chain_pose* poses[] = {&c->frame, &c->step_frame, &c->prior_step};
    for (int k = 0; k < 3; ++k)
        v3_store(poses[k]->position, v3_add(v3_load(poses[k]->position), shift));
}

/* Every particle carried by its own target's jump, with no world motion (a cut). */
static void carry(tl_cloth* c, const tl_chain_pose* f) {
    for (int i = 0; i < c->n; ++i) {
        float dx = c->t1x[i] - c->t0x[i], dy = c->t1y[i] - c->t0y[i], dz = c->t1z[i] - c->t0z[i];
        c->x[i] += dx, c->y[i] += dy, c->z[i] += dz;
        c->px[i] += dx, c->py[i] += dy, c->pz[i] += dz;
    }
    size_t bytes = sizeof(float) * (size_t)c->n;
    memcpy(c->t0x, c->t1x, bytes), memcpy(c->t0y, c->t1y, bytes), memcpy(c->t0z, c->t1z, bytes);
    c->frame = c->step_frame = c->prior_step = *f, c->guessed = false;
}

static bool state_finite(const tl_cloth* c) {
    return cloth_floats_finite(c->x, c->n) && cloth_floats_finite(c->y, c->n) &&
           cloth_floats_finite(c->z, c->n);
}

/* A collider part way from where it was (`a`, the last frame's end) to where it is now (`b`),
 * both in the character frame. */
static cloth_shape shape_lerp(const cloth_shape* a, const cloth_shape* b, float s) {
    cloth_shape r = *b;
    r.a = v3_madd(a->a, v3_sub(b->a, a->a), s);
    r.b = v3_madd(a->b, v3_sub(b->b, a->b), s);
    if (b->kind == SHAPE_PLANE) r.b = v3_normalize_or(r.b, b->b);
    r.radius = a->radius + (b->radius - a->radius) * s;
    r.rotation = qt_nlerp(a->rotation, b->rotation, s);
    r.radii = v3_madd(a->radii, v3_sub(b->radii, a->radii), s);
    return r;
}

/* A collider on the parabola through its poses a frame ago (`o`, at -r frame lengths), at this
 * frame's start (`a`) and end (`b`), at s of the frame (the chain's curve of the attachment's
 * path, chain_frame.c): linear keys between render frames cut a swinging thigh's arc. */
static v3 v3_curve(v3 o, v3 a, v3 b, float s, float r) {
    v3 c = v3_scale(v3_add(v3_sub(o, a), v3_scale(v3_sub(b, a), r)), 1.0f / (r * (r + 1)));
    return v3_add(v3_madd(a, v3_sub(b, a), s), v3_scale(c, s * (s - 1)));
}

static cloth_shape shape_curve(const cloth_shape* o, const cloth_shape* a, const cloth_shape* b,
                               float s, float r) {
    cloth_shape out = shape_lerp(a, b, s);
    out.a = v3_curve(o->a, a->a, b->a, s, r);
    if (b->kind == SHAPE_SPHERE || b->kind == SHAPE_CAPSULE)
        out.b = v3_curve(o->b, a->b, b->b, s, r);
    if (b->kind == SHAPE_ELLIPSOID) {
        qt q0 = o->rotation, q1 = a->rotation, q2 = b->rotation;
        if (qt_dot(q1, q2) < 0) q2 = qt_neg(q2);
        if (qt_dot(q1, q0) < 0) q0 = qt_neg(q0);
        v3 v = v3_curve(v3_make(q0.x, q0.y, q0.z), v3_make(q1.x, q1.y, q1.z),
                        v3_make(q2.x, q2.y, q2.z), s, r);
        float w = v3_curve(v3_make(q0.w, 0, 0), v3_make(q1.w, 0, 0), v3_make(q2.w, 0, 0), s, r).x;
        out.rotation = qt_normalize((qt){v.x, v.y, v.z, w});
    }
    return out;
}

/* A frame longer than the steps it may run (a hitch): only its last `window` seconds are
 * simulated at the fixed step. Over the head the state is carried with the body, as the chain
 * carries its particles with the root: each particle by its own target's move in the character
 * frame, its velocity relative to the body decayed by the skipped steps' damping. The colliders
 * are swept from the last frame's poses to where the body is at the head's end in increments,
 * each followed by the final pass, so a thigh that swings under a skirt pushes it along rather
 * than leaving it caught on its far side; `before` is left on them for the window's steps (NULL
 * when the colliders are not the last frame's: the sweep uses this frame's). `after` is scratch
 * for this frame's colliders. The variants measured (a restart at rest, one increment, no
 * sweep, the frame compressed into the window): docs/cloth.md "Hitches and render poses". */
static void carry_head(tl_cloth* c, const tl_chain_pose* end, float dt, float window, float skipped,
                       cloth_shape* before, cloth_shape* after) {
    const tl_cloth_model* m = c->model;
    float u = (dt - window) / dt;
    int n = c->n, C = m->columns;
    int shapes = c->shape_count;
    memcpy(after, c->shapes, sizeof(cloth_shape) * (size_t)shapes);
    /* increments in which no collider moves more than half its radius, at most 8 x
     * max_substeps (each is one relaxation iteration and a final pass; on a synthetic walking
     * skirt 16 left 1.25x the peak before, 32 1.01x) */
    int sweeps = 1;
    for (int k = 0; before && k < shapes; ++k) {
        const cloth_shape* a = &after[k];
        float r = a->kind == SHAPE_ELLIPSOID ? fminf(a->radii.x, fminf(a->radii.y, a->radii.z))
                                             : a->radius;
        float move = v3_length(v3_sub(a->a, before[k].a));
        if (a->kind == SHAPE_CAPSULE) move = fmaxf(move, v3_length(v3_sub(a->b, before[k].b)));
        if (a->kind == SHAPE_ELLIPSOID) /* a turn moves its far ends the most */
            for (int e = 0; e < 3; ++e) {
                float l = e == 0 ? a->radii.x : (e == 1 ? a->radii.y : a->radii.z);
                v3 axis = v3_make(e == 0, e == 1, e == 2);
                v3 now = qt_rotate(a->rotation, axis), then = qt_rotate(before[k].rotation, axis);
                move = fmaxf(move, v3_length(v3_sub(a->a, before[k].a)) +
                                       l * v3_length(v3_sub(now, then)));
            }
        int need = r > 0 ? (int)ceilf(move / (0.5f * r)) : 1;
        if (need > sweeps) sweeps = need;
    }
    if (sweeps > 8 * m->max_substeps) sweeps = 8 * m->max_substeps;
    float done = 0;
    for (int j = 1; j <= sweeps; ++j) {
        float s = (float)j / (float)sweeps, w = s * u;
        for (int k = 0; k < shapes; ++k)
            c->shapes[k] = before ? shape_lerp(&before[k], &after[k], w) : after[k];
        for (int i = 0; i < n; ++i) { /* each particle and its velocity by its target's move */
            float dx = (c->t1x[i] - c->t0x[i]) * (w - done);
            float dy = (c->t1y[i] - c->t0y[i]) * (w - done);
            float dz = (c->t1z[i] - c->t0z[i]) * (w - done);
            c->x[i] += dx, c->y[i] += dy, c->z[i] += dz;
            c->px[i] += dx, c->py[i] += dy, c->pz[i] += dz;
        }
        for (int i = 0; i < C; ++i) { /* row 0 exactly on its targets */
            c->x[i] = c->t0x[i] + (c->t1x[i] - c->t0x[i]) * w;
            c->y[i] = c->t0y[i] + (c->t1y[i] - c->t0y[i]) * w;
            c->z[i] = c->t0z[i] + (c->t1z[i] - c->t0z[i]) * w;
        }
        done = w;
        /* one relaxation iteration: a push must not leave the row's links stretched for
           the next step to snap back (without it the skirt's hitch read 2.79) */
        cloth_relax(m, c->x, c->y, c->z, c->settings.stretch_stiffness, c->settings.shear_stiffness,
                    1);
        final_pass(c, w); /* a push moves px along: it adds no velocity */
    }
    if (before) memcpy(before, c->shapes, sizeof(cloth_shape) * (size_t)shapes);
    memcpy(c->shapes, after, sizeof(cloth_shape) * (size_t)shapes);
    tl_chain_pose head = pose_lerp(&c->frame, end, u);
    tl_chain_pose next = pose_lerp(&head, end, m->fixed_step / window); /* its first step */
    affine will = world_motion_map(&head, &next, m->origin);
    for (int i = 0; i < n; ++i) {
        /* the velocity relative to the body's share in the window decays, not the velocity
         * (which held the hem still in the world as the window began: docs/cloth.md "A
         * near-still skirt after a hitch"); row 0 at rest with its targets */
        v3 x = v3_make(c->x[i], c->y[i], c->z[i]), p = x;
        if (i >= C) {
            float keep = powf(1.0f - c->damping[i], skipped / m->fixed_step);
            v3 body = body_velocity(&will, c->share[i], x);
            v3 relative = v3_sub(v3_sub(x, v3_make(c->px[i], c->py[i], c->pz[i])), body);
            p = v3_sub(x, v3_madd(body, relative, keep));
        }
        c->px[i] = p.x, c->py[i] = p.y, c->pz[i] = p.z;
        c->t0x[i] += (c->t1x[i] - c->t0x[i]) * u;
        c->t0y[i] += (c->t1y[i] - c->t0y[i]) * u;
        c->t0z[i] += (c->t1z[i] - c->t0z[i]) * u;
    }
    c->frame = c->step_frame = c->prior_step = head, c->guessed = false;
}

static void write_projected_outputs(tl_cloth* c);

void tl_cloth_step(tl_cloth* c, const tl_cloth_input* in, float dt) {
    const tl_cloth_model* m = c->model;
    if (!(dt >= 0) || !in->targets || !input_finite(c, in, dt)) {
        c->stats.nonfinite_inputs++;
        c->started = false; /* the next good frame starts at rest from its targets */
        return;
    }
    tl_chain_pose end = pose_normalized(&in->frame);
    load_targets(c, &end, in->targets);
    if (!c->started) {
        gather_shapes(c, in, &end);
        place_at_targets(c, &end);
        return;
    }
    v3 jump = v3_sub(v3_load(end.position), v3_load(c->frame.position));
    bool teleport = !in->cut && v3_length(jump) > m->teleport_distance * m->scale;
    if (in->cut || teleport) c->stats.cuts++;
    if (teleport) {
        c->stats.teleports++;
        tl_chain_pose from = c->frame;
        shift_by_jump(c, &from, &end, dt);
    } else if (in->cut) {
        carry(c, &end);
    }
    float h = m->fixed_step, before = c->accumulator, total = before + dt;
    int steps = (int)((total + 1e-4f * h) / h);
    c->accumulator = total - (float)steps * h;
    if (c->accumulator < 0) c->accumulator = 0;
    bool clamped = steps > m->max_substeps;
    /* the colliders as the last frame left them (the same list: count and kinds), so the steps
     * see them move across the frame as the targets do, not at the frame's end throughout */
    cloth_shape last[TL_CLOTH_MAX_COLLIDERS], after[TL_CLOTH_MAX_COLLIDERS];
    int last_count = c->shape_count;
    memcpy(last, c->shapes, sizeof(cloth_shape) * (size_t)last_count);
    gather_shapes(c, in, &end);
    bool same = last_count == c->shape_count;
    for (int k = 0; same && k < last_count; ++k)
        same = last[k].kind == c->shapes[k].kind;
    bool hitch = clamped;
    if (clamped) {
        c->stats.clamped_frames++;
        steps = m->max_substeps, c->accumulator = 0;
        float window = (float)steps * h;
        /* the sweep leaves `last` at the head's end: the window's steps go on from there */
        carry_head(c, &end, dt, window, before + dt - window, same ? last : NULL, after);
        dt = window, before = 0, clamped = false;
    }
    if (same) memcpy(after, c->shapes, sizeof(cloth_shape) * (size_t)last_count);
    /* the curve when the frame before was about as long (the chain's test); not across a hitch,
     * whose head's end is a guess on the line between the frame's two poses */
    float r = c->older_count == last_count && dt > 0 ? c->older_dt / dt : 0;
    bool curve = same && !hitch && !in->cut && !teleport && r >= 0.25f && r <= 4;
    for (int k = 0; curve && k < last_count; ++k)
        curve = c->older[k].kind == last[k].kind;
    for (int k = 1; k <= steps; ++k) {
        float at = clamped ? dt * (float)k / (float)steps : (float)k * h - before;
        float u = dt > 0 ? at / dt : 1.0f;
        u = u < 0 ? 0 : (u > 1 ? 1 : u);
        tl_chain_pose f = pose_lerp(&c->frame, &end, u);
        for (int j = 0; same && j < last_count; ++j)
            c->shapes[j] = curve ? shape_curve(&c->older[j], &last[j], &after[j], u, r)
                                 : shape_lerp(&last[j], &after[j], u);
        integrate(c, &f, in->force, u);
        cloth_relax_links_out(c);
        final_pass(c, u);
        c->stats.steps++;
    }
    if (same) memcpy(c->shapes, after, sizeof(cloth_shape) * (size_t)last_count);
    c->guessed = hitch; /* the window's body motion was a guess: the next step rebases */
    /* this frame's start colliders, for the next frame's curve */
    c->older_count = same && !hitch && !in->cut && !teleport ? last_count : -1;
    if (same) memcpy(c->older, last, sizeof(cloth_shape) * (size_t)last_count);
    c->older_dt = dt;
    /* the render time is past the last step: the body (and its colliders) moved on since, so
     * the outputs are the particles put back on their tethers, within reach and out of the
     * colliders at the frame's end; the state is left as the last step made it, so the next
     * step is the same at every render rate (projecting the state itself, as before, made the
     * skirt's render-pose figure 1.79% against 0.60%: 144 fps ends between steps, 15-120 do not) */
    bool project = c->accumulator > 0 && c->shape_count > 0;
    size_t bytes = sizeof(float) * (size_t)c->n;
    memcpy(c->t0x, c->t1x, bytes), memcpy(c->t0y, c->t1y, bytes), memcpy(c->t0z, c->t1z, bytes);
    c->frame = end;
    if (!state_finite(c)) {
        c->stats.nonfinite_states++;
        c->shape_count = 0;
        place_at_targets(c, &end);
        return;
    }
    if (project)
        write_projected_outputs(c);
    else
        write_outputs(c);
}

/* ---- frames from a host's pose sampler (tl_cloth_step_sampled) ---- */

/* The outputs after the frame's end when it lies past the last internal step: the particles
 * projected onto their tethers, within reach and out of the colliders at the frame's end
 * (tl_cloth_step does the same), written to the outputs only, so the state, and with it the
 * next step, is the same at every render rate. */
static void write_projected_outputs(tl_cloth* c) {
    const tl_cloth_model* m = c->model;
    int C = m->columns;
    for (int i = 0; i < c->n; ++i) {
        v3 p = v3_make(c->x[i], c->y[i], c->z[i]);
        if (i >= C) {
            v3 q = v3_load(c->out_local + 3 * (i - C));
            v3 ref = v3_make(c->t1x[i], c->t1y[i], c->t1z[i]);
            float L = m->tether[i], d = c->max_distance[i];
            p = cloth_tether_point(q, L, p, ref, d);
            if (collide_all(c, q, L, &p)) {
                v3 e = v3_sub(p, ref);
                if (v3_dot(e, e) > d * d) {
                    p = cloth_tether_point(q, L, p, ref, d);
                    collide_all(c, q, L, &p);
                }
            }
        }
        v3_store(c->out_local + 3 * i, p);
    }
    affine a = affine_to_world(&c->frame, m->origin);
    for (int i = 0; i < c->n; ++i)
        v3_store(c->out_world + 3 * i, affine_apply(&a, v3_load(c->out_local + 3 * i)));
}

static bool sample_cloth(const tl_cloth* c, tl_cloth_sampler sampler, void* user, float t,
                         tl_cloth_input* in, tl_chain_pose* frame) {
    *in = tl_default_cloth_input();
    sampler(user, t, in);
    if (!in->targets || !input_finite(c, in, 0.0f)) return false;
    *frame = pose_normalized(&in->frame);
    return true;
}

/* One internal step at a sampled pose: row 0 on its targets, the world motion from the last
 * step's frame (none across an unreported jump beyond teleport_distance). */
static void step_at_sample(tl_cloth* c, const tl_cloth_input* in, const tl_chain_pose* f) {
    const tl_cloth_model* m = c->model;
    load_targets(c, f, in->targets);
    v3 jump = v3_sub(v3_load(f->position), v3_load(c->step_frame.position));
    if (v3_length(jump) > m->teleport_distance * m->scale) {
        /* the state is in the character frame: only the world-motion share sees the jump,
           which leaves it the step's own motion guessed from the last step's */
        c->stats.cuts++;
        c->stats.teleports++;
        tl_chain_pose from = c->step_frame;
        shift_by_jump(c, &from, f, c->model->fixed_step);
    }
    size_t bytes = sizeof(float) * (size_t)c->n; /* row 0 and the references exactly on t1 */
    memcpy(c->t0x, c->t1x, bytes), memcpy(c->t0y, c->t1y, bytes), memcpy(c->t0z, c->t1z, bytes);
    gather_shapes(c, in, f);
    integrate(c, f, in->force, 1.0f);
    cloth_relax_links_out(c);
    final_pass(c, 1.0f);
    c->frame = *f;
    c->stats.steps++;
}

static void sampled_failed(tl_cloth* c) {
    c->stats.nonfinite_inputs++;
    c->started = false; /* the next good frame starts at rest from its targets */
}

void tl_cloth_step_sampled(tl_cloth* c, tl_cloth_sampler sampler, void* user, float dt, bool cut) {
    assert(c && sampler);
    c->older_count = -1; /* its steps see the colliders at their own times: no curve after */
    const tl_cloth_model* m = c->model;
    tl_cloth_input in;
    tl_chain_pose f;
    if (!(dt >= 0) || !isfinite(dt)) {
        sampled_failed(c);
        return;
    }
    if (!c->started || cut) { /* the frame's start: placed there, or carried to it */
        if (!sample_cloth(c, sampler, user, 0.0f, &in, &f)) {
            sampled_failed(c);
            return;
        }
        if (!c->started) {
            tl_cloth_step(c, &in, 0.0f);
            if (!(dt > 0)) return;
        } else {
            load_targets(c, &f, in.targets);
            c->stats.cuts++;
            carry(c, &f);
        }
    }
    double h = m->fixed_step, last = -(double)c->accumulator; /* the last internal step's time */
    /* a hitch: its head as one long frame, as tl_cloth_step runs it */
    double window = (double)m->max_substeps * h;
    if ((double)dt - c->accumulator > window + 1e-9) {
        double head = (double)dt - window;
        if (!sample_cloth(c, sampler, user, (float)head, &in, &f)) {
            sampled_failed(c);
            return;
        }
        tl_cloth_step(c, &in, (float)head);
        last = head - c->accumulator;
    }
    for (double at = last + h; at <= (double)dt + 1e-4 * h; at += h) { /* (as tl_cloth_step) */
        if (!sample_cloth(c, sampler, user, at < dt ? (float)at : dt, &in, &f)) {
            sampled_failed(c);
            return;
        }
        step_at_sample(c, &in, &f);
        last = at;
    }
    c->accumulator = (float)((double)dt - last);
    if (c->accumulator < 1e-4f * (float)h) c->accumulator = 0;
    if (!state_finite(c)) {
        c->stats.nonfinite_states++;
        c->shape_count = 0;
        place_at_targets(c, &c->frame);
        return;
    }
    if (c->accumulator == 0) {
        write_outputs(c);
        return;
    }
    if (!sample_cloth(c, sampler, user, dt, &in, &f)) { /* the frame's end */
        sampled_failed(c);
        return;
    }
    load_targets(c, &f, in.targets);
    gather_shapes(c, &in, &f);
    size_t bytes = sizeof(float) * (size_t)c->n;
    memcpy(c->t0x, c->t1x, bytes), memcpy(c->t0y, c->t1y, bytes), memcpy(c->t0z, c->t1z, bytes);
    c->frame = f;
    if (c->shape_count > 0)
        write_projected_outputs(c);
    else
        write_outputs(c);
}
