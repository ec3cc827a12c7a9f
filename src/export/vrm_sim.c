/* The VRM 1.0 spring-bone rule (VRMC_springBone), written from the specification's
 * algorithm, in the order a runtime runs it in one frame (three-vrm's VRMSpringBoneManager):
 * the scene's world matrices are brought up to date with last frame's joint rotations, then
 * the joints are updated root first, each under its parent's freshly updated world. A joint's
 * length is measured from its new position to its child as that child stood at the frame's
 * start (the child is updated later in the frame), which the runtime does too. Double
 * precision, as JavaScript's numbers. */
#include "export/vrm_internal.h"

#include "base/mat4.h"

#include <math.h>
#include <string.h>

static void trs_matrix(double out[16], const float t[3], const double q[4], const float s[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    double wx = w * x, wy = w * y, wz = w * z;
    double r[9] = {1 - 2 * (yy + zz), 2 * (xy + wz),     2 * (xz - wy),
                   2 * (xy - wz),     1 - 2 * (xx + zz), 2 * (yz + wx),
                   2 * (xz + wy),     2 * (yz - wx),     1 - 2 * (xx + yy)};
    for (int c = 0; c < 3; ++c) {
        for (int k = 0; k < 3; ++k)
            out[4 * c + k] = r[3 * c + k] * s[c];
        out[4 * c + 3] = 0;
    }
    out[12] = t[0], out[13] = t[1], out[14] = t[2], out[15] = 1;
}

static void point(double out[3], const double m[16], const double p[3]) {
    for (int k = 0; k < 3; ++k)
        out[k] = m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2] + m[12 + k];
}

static void normalise(double v[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0) v[0] /= n, v[1] /= n, v[2] /= n;
}

/* The upper 3x3 applied to v, normalised (three.js transformDirection). */
static void direction(double out[3], const double m[16], const double v[3]) {
    double r[3];
    for (int k = 0; k < 3; ++k)
        r[k] = m[k] * v[0] + m[4 + k] * v[1] + m[8 + k] * v[2];
    normalise(r);
    memcpy(out, r, sizeof r);
}

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The rotation taking unit a to unit b (half-way quaternion; a fixed orthogonal axis when
 * they are opposite). */
static void from_unit_vectors(double q[4], const double a[3], const double b[3]) {
    double r = dot3(a, b) + 1;
    if (r < 1e-8) {
        r = 0;
        if (fabs(a[0]) > fabs(a[2]))
            q[0] = -a[1], q[1] = a[0], q[2] = 0;
        else
            q[0] = 0, q[1] = -a[2], q[2] = a[1];
    } else {
        q[0] = a[1] * b[2] - a[2] * b[1];
        q[1] = a[2] * b[0] - a[0] * b[2];
        q[2] = a[0] * b[1] - a[1] * b[0];
    }
    q[3] = r;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k)
        q[k] /= n;
}

static void quat_mul(double out[4], const double a[4], const double b[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

static void stored_rotation(double q[4], const tl_trs* t) {
    for (int k = 0; k < 4; ++k)
        q[k] = t->rotation[k];
}

/* The joint's local matrix with rotation q. */
static void local_matrix(double out[16], const tl_trs* t, const double q[4]) {
    trs_matrix(out, t->translation, q, t->scale);
}

static void axis_of(const vrm_spring_def* def, uint32_t j, double axis[3]) {
    const float* c = def->locals[j + 1].translation;
    axis[0] = c[0], axis[1] = c[1], axis[2] = c[2];
    normalise(axis);
}

void vrm_reset(const vrm_spring_def* def, vrm_state* s, const double parent_world[16]) {
    const double* parent = parent_world;
    for (uint32_t j = 0; j < def->count; ++j) {
        double local[16];
        stored_rotation(s->rotation[j], &def->locals[j]);
        local_matrix(local, &def->locals[j], s->rotation[j]);
        tl_mat4d_mul(s->world[j], parent, local);
        parent = s->world[j];
    }
    for (uint32_t j = 0; j + 1 < def->count; ++j) {
        double child[3];
        for (int k = 0; k < 3; ++k)
            child[k] = def->locals[j + 1].translation[k];
        point(s->tail[j], s->world[j], child);
        memcpy(s->prev[j], s->tail[j], sizeof s->tail[j]);
    }
}

/* The collider's push on a tail at p (radius r): the distance (negative inside) and the
 * outward direction in *dir when inside. */
static double collide(const vrm_collider* c, const double world[16], const double p[3], double r,
                      double dir[3]) {
    double centre[3], t[3];
    point(centre, world, c->offset);
    for (int k = 0; k < 3; ++k)
        t[k] = p[k] - centre[k];
    if (c->capsule) {
        double d[3] = {c->tail[0] - c->offset[0], c->tail[1] - c->offset[1],
                       c->tail[2] - c->offset[2]},
               seg[3];
        for (int k = 0; k < 3; ++k)
            seg[k] = world[k] * d[0] + world[4 + k] * d[1] + world[8 + k] * d[2];
        double len2 = dot3(seg, seg), along = dot3(seg, t);
        if (along > 0) {
            double f = len2 <= along ? 1 : along / len2;
            for (int k = 0; k < 3; ++k)
                t[k] -= seg[k] * f;
        }
    }
    double length = sqrt(dot3(t, t));
    double distance = length - r - c->radius;
    if (distance < 0 && length > 0)
        for (int k = 0; k < 3; ++k)
            dir[k] = t[k] / length;
    else if (distance < 0)
        dir[0] = dir[1] = dir[2] = 0;
    return distance;
}

/* The tail at `length` from the joint's position `head`. */
static void to_length(double tail[3], const double head[3], double length) {
    double d[3] = {tail[0] - head[0], tail[1] - head[1], tail[2] - head[2]};
    normalise(d);
    for (int k = 0; k < 3; ++k)
        tail[k] = head[k] + d[k] * length;
}

static void update_joint(const vrm_spring_def* def, vrm_state* s, uint32_t j, const double* parent,
                         const double stale_child[3], const double* collider_worlds, double dt) {
    const vrm_settings* set = &def->settings[j];
    double local[16], initial[16], init_q[4], axis[3], world_axis[3], head[3], next[3];
    local_matrix(local, &def->locals[j], s->rotation[j]);
    tl_mat4d_mul(s->world[j], parent, local);
    memcpy(head, s->world[j] + 12, sizeof head);
    double length = sqrt((stale_child[0] - head[0]) * (stale_child[0] - head[0]) +
                         (stale_child[1] - head[1]) * (stale_child[1] - head[1]) +
                         (stale_child[2] - head[2]) * (stale_child[2] - head[2]));
    stored_rotation(init_q, &def->locals[j]);
    local_matrix(initial, &def->locals[j], init_q);
    axis_of(def, j, axis);
    direction(world_axis, initial, axis);
    direction(world_axis, parent, world_axis);
    for (int k = 0; k < 3; ++k)
        next[k] = s->tail[j][k] + (s->tail[j][k] - s->prev[j][k]) * (1 - set->drag) +
                  world_axis[k] * set->stiffness * dt +
                  set->gravity_dir[k] * set->gravity_power * dt;
    to_length(next, head, length);
    for (uint32_t c = 0; c < def->collider_count; ++c) {
        double dir[3];
        double d = collide(&def->colliders[c], collider_worlds + 16 * (size_t)c, next,
                           set->hit_radius, dir);
        if (d < 0) {
            for (int k = 0; k < 3; ++k)
                next[k] -= dir[k] * d;
            to_length(next, head, length);
        }
    }
    memcpy(s->prev[j], s->tail[j], sizeof next);
    memcpy(s->tail[j], next, sizeof next);
    double frame[16], inverse[16], to[3], turn[4];
    tl_mat4d_mul(frame, parent, initial);
    if (!tl_mat4d_invert(inverse, frame)) return;
    point(to, inverse, next);
    normalise(to);
    from_unit_vectors(turn, axis, to);
    quat_mul(s->rotation[j], init_q, turn);
    local_matrix(local, &def->locals[j], s->rotation[j]);
    tl_mat4d_mul(s->world[j], parent, local);
}

void vrm_update(const vrm_spring_def* def, vrm_state* s, const double parent_world[16],
                const double* collider_worlds, double dt) {
    if (dt <= 0) return;
    /* the frame's start: every world from last frame's rotations */
    const double* parent = parent_world;
    for (uint32_t j = 0; j < def->count; ++j) {
        double local[16];
        local_matrix(local, &def->locals[j], s->rotation[j]);
        tl_mat4d_mul(s->world[j], parent, local);
        parent = s->world[j];
    }
    double stale[VRM_MAX_JOINTS][3];
    for (uint32_t j = 1; j < def->count; ++j)
        memcpy(stale[j], s->world[j] + 12, sizeof stale[j]);
    parent = parent_world;
    for (uint32_t j = 0; j + 1 < def->count; ++j) {
        update_joint(def, s, j, parent, stale[j + 1], collider_worlds, dt);
        parent = s->world[j];
    }
    /* the end joint follows the last bone */
    double local[16];
    uint32_t e = def->count - 1;
    local_matrix(local, &def->locals[e], s->rotation[e]);
    tl_mat4d_mul(s->world[e], s->world[e - 1], local);
}
