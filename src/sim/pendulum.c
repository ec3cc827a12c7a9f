/* A one-particle Verlet pendulum with a look-at, and an aim constraint (pendulum.h,
 * cloth.md §10). */
#include <tailor/pendulum.h>

#include "sim_math.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#define DEG_TO_RAD 0.017453292519943295f

tl_pendulum_def tl_default_pendulum_def(void) {
    tl_pendulum_def d;
    memset(&d, 0, sizeof d);
    d.length = 0.2f;
    d.rest_direction[1] = -1;
    d.up[1] = 1;
    d.scale = 1;
    d.gravity = 9.81f;
    d.damping = 0.05f;
    d.stiffness = 0.02f;
    d.max_angle_deg = 60;
    d.fixed_step = 1.0f / 120.0f;
    d.max_substeps = 8;
    d.teleport_distance = 1;
    return d;
}

tl_result tl_pendulum_init(tl_pendulum* p, const tl_pendulum_def* def, tl_error* err) {
    assert(p && def);
    memset(p, 0, sizeof *p);
    const char* bad = NULL;
    v3 rest = v3_load(def->rest_direction), up = v3_load(def->up);
    if (!(def->length > 0) || !isfinite(def->length))
        bad = "length (> 0)";
    else if (!v3_finite(rest) || !(v3_length(rest) > 1e-6f))
        bad = "rest_direction (non-zero)";
    else if (!v3_finite(up) || !(v3_length(up) > 1e-6f))
        bad = "up (non-zero)";
    else if (!(def->scale > 0) || !isfinite(def->scale))
        bad = "scale (> 0)";
    else if (!isfinite(def->gravity))
        bad = "gravity (finite)";
    else if (!(def->damping >= 0 && def->damping < 1))
        bad = "damping ([0, 1))";
    else if (!(def->stiffness >= 0 && def->stiffness <= 1))
        bad = "stiffness ([0, 1])";
    else if (!(def->max_angle_deg > 0 && def->max_angle_deg <= 180))
        bad = "max_angle_deg ((0, 180])";
    else if (!(def->fixed_step > 0 && def->fixed_step <= 1))
        bad = "fixed_step ((0, 1] s)";
    else if (!(def->max_substeps >= 1 && def->max_substeps <= 1000))
        bad = "max_substeps (1..1000)";
    else if (!(def->teleport_distance > 0))
        bad = "teleport_distance (> 0)";
    if (bad) return tl_error_set(err, TL_ERROR_INVALID, "pendulum: bad %s", bad);
    p->def = *def;
    v3_store(p->def.rest_direction, v3_normalize_or(rest, v3_make(0, -1, 0)));
    v3_store(p->def.up, v3_normalize_or(up, v3_make(0, 1, 0)));
    p->pivot.rotation[3] = 1, p->pivot.scale = 1;
    p->stepped = p->pivot;
    return TL_OK;
}

static bool pose_ok(const tl_chain_pose* f) {
    qt q = qt_load(f->rotation);
    return v3_finite(v3_load(f->position)) && qt_finite(q) && qt_dot(q, q) > 1e-12f &&
           isfinite(f->scale) && f->scale > 0;
}

void tl_pendulum_carry(tl_pendulum* p, const tl_chain_pose* pivot) {
    assert(p && pivot);
    if (!p->started || !pose_ok(pivot)) {
        tl_pendulum_reset(p, pivot);
        return;
    }
    /* the particle keeps its place and velocity in the frame it was last stepped in */
    qt from = qt_normalize(qt_load(p->stepped.rotation));
    qt to = qt_normalize(qt_load(pivot->rotation));
    v3 a = v3_load(p->stepped.position), b = v3_load(pivot->position);
    v3 x = qt_rotate(to, qt_unrotate(from, v3_sub(v3_load(p->position), a)));
    v3 y = qt_rotate(to, qt_unrotate(from, v3_sub(v3_load(p->previous), a)));
    v3_store(p->position, v3_add(b, x));
    v3_store(p->previous, v3_add(b, y));
    p->pivot = p->stepped = *pivot;
}

static v3 rest_point(const tl_pendulum* p, const tl_chain_pose* f) {
    qt r = qt_normalize(qt_load(f->rotation));
    return v3_madd(v3_load(f->position), qt_rotate(r, v3_load(p->def.rest_direction)),
                   p->def.length);
}

void tl_pendulum_reset(tl_pendulum* p, const tl_chain_pose* pivot) {
    if (!pose_ok(pivot)) {
        p->nonfinite++;
        return;
    }
    p->pivot = p->stepped = *pivot;
    v3 x = rest_point(p, pivot);
    v3_store(p->position, x);
    v3_store(p->previous, x);
    p->accumulator = 0;
    p->started = true;
}

/* The particle back on the sphere about the pivot and inside the cone about the rest
 * direction (pivot frame). */
static v3 constrain(const tl_pendulum* p, v3 pivot, qt r, v3 x) {
    v3 rest = v3_load(p->def.rest_direction);
    v3 d = v3_normalize_or(qt_unrotate(r, v3_sub(x, pivot)), rest);
    float c = cosf(p->def.max_angle_deg * DEG_TO_RAD), dot = v3_dot(d, rest);
    if (dot < c) {
        v3 perp = v3_normalize_or(v3_madd(d, rest, -dot), v3_perpendicular(rest));
        d = v3_add(v3_scale(rest, c), v3_scale(perp, sqrtf(fmaxf(0.0f, 1.0f - c * c))));
    }
    return v3_madd(pivot, qt_rotate(r, d), p->def.length);
}

static void one_step(tl_pendulum* p, const tl_chain_pose* f) {
    const tl_pendulum_def* d = &p->def;
    float h = d->fixed_step;
    qt r = qt_normalize(qt_load(f->rotation));
    v3 pivot = v3_load(f->position);
    v3 x = v3_load(p->position), prev = v3_load(p->previous);
    v3 g = v3_scale(v3_load(d->up), -d->gravity * d->scale * h * h);
    v3 next = v3_add(v3_madd(x, v3_sub(x, prev), 1.0f - d->damping), g);
    next = v3_madd(next, v3_sub(rest_point(p, f), next), d->stiffness);
    next = constrain(p, pivot, r, next);
    v3_store(p->previous, x);
    v3_store(p->position, next);
    p->steps++;
}

static tl_chain_pose pose_lerp(const tl_chain_pose* a, const tl_chain_pose* b, float u) {
    tl_chain_pose out;
    for (int k = 0; k < 3; ++k)
        out.position[k] = a->position[k] + (b->position[k] - a->position[k]) * u;
    qt_store(out.rotation, qt_nlerp(qt_load(a->rotation), qt_load(b->rotation), u));
    out.scale = a->scale + (b->scale - a->scale) * u;
    return out;
}

void tl_pendulum_step(tl_pendulum* p, const tl_chain_pose* pivot, float dt) {
    assert(p && pivot);
    if (!(dt >= 0) || !isfinite(dt) || !pose_ok(pivot)) {
        p->nonfinite++;
        p->started = false;
        return;
    }
    if (!p->started) {
        tl_pendulum_reset(p, pivot);
        return;
    }
    const tl_pendulum_def* d = &p->def;
    v3 jump = v3_sub(v3_load(pivot->position), v3_load(p->pivot.position));
    if (v3_length(jump) > d->teleport_distance * d->scale) {
        tl_pendulum_carry(p, pivot);
        p->teleports++;
    }
    float h = d->fixed_step, before = p->accumulator, total = before + dt;
    int steps = (int)((total + 1e-4f * h) / h);
    p->accumulator = fmaxf(0.0f, total - (float)steps * h);
    bool clamped = steps > d->max_substeps;
    if (clamped) steps = d->max_substeps, p->accumulator = 0;
    tl_chain_pose start = p->pivot;
    for (int k = 1; k <= steps; ++k) {
        float at = clamped ? dt * (float)k / (float)steps : (float)k * h - before;
        float u = dt > 0 ? fminf(1.0f, fmaxf(0.0f, at / dt)) : 1.0f;
        p->stepped = pose_lerp(&start, pivot, u);
        one_step(p, &p->stepped);
    }
    p->pivot = *pivot;
}

/* The particle's direction in the pivot's frame at its last internal step. */
static v3 particle_direction(const tl_pendulum* p) {
    qt r = qt_normalize(qt_load(p->stepped.rotation));
    v3 rest = v3_load(p->def.rest_direction);
    return v3_normalize_or(
        qt_unrotate(r, v3_sub(v3_load(p->position), v3_load(p->stepped.position))), rest);
}

void tl_pendulum_rotation(const tl_pendulum* p, float rotation[4]) {
    qt r = qt_normalize(qt_load(p->pivot.rotation));
    qt_store(rotation, qt_normalize(qt_mul(
                           r, qt_swing(v3_load(p->def.rest_direction), particle_direction(p)))));
}

float tl_pendulum_swing_deg(const tl_pendulum* p) {
    v3 rest = v3_load(p->def.rest_direction);
    v3 d = particle_direction(p);
    float c = fminf(1.0f, fmaxf(-1.0f, v3_dot(d, rest)));
    return acosf(c) / DEG_TO_RAD;
}

tl_aim_def tl_default_aim_def(void) {
    tl_aim_def d;
    d.aim_axis[0] = 1, d.aim_axis[1] = 0, d.aim_axis[2] = 0;
    d.weight = 1;
    d.max_angle_deg = 45;
    return d;
}

void tl_aim_solve(const tl_aim_def* def, const float rotation[4], const float position[3],
                  const float target[3], float out[4]) {
    assert(def && rotation && position && target && out);
    assert(def->weight >= 0 && def->weight <= 1);
    assert(def->max_angle_deg >= 0 && def->max_angle_deg <= 180);
    qt r = qt_normalize(qt_load(rotation));
    v3 to = v3_sub(v3_load(target), v3_load(position));
    v3 axis = qt_rotate(r, v3_normalize_or(v3_load(def->aim_axis), v3_make(1, 0, 0)));
    if (!(v3_length(to) > 1e-12f) || !v3_finite(to)) {
        qt_store(out, r);
        return;
    }
    qt swing = qt_swing(axis, v3_scale(to, 1.0f / v3_length(to)));
    float angle = qt_angle(swing);
    float limited = fminf(angle, def->max_angle_deg * DEG_TO_RAD) * def->weight;
    if (angle > 1e-7f) {
        v3 k = v3_normalize_or(v3_make(swing.x, swing.y, swing.z), v3_perpendicular(axis));
        if (swing.w < 0) k = v3_scale(k, -1.0f);
        swing = qt_axis_angle(k, limited);
    } else {
        swing = qt_identity();
    }
    qt_store(out, qt_normalize(qt_mul(swing, r)));
}
