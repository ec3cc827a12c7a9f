/* Body colliders fitted to the skin each body bone dominates (include/tailor/colliders.h). */
#include <tailor/colliders.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mat4.h"

static int compare_floats(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* The q-quantile of count values (sorted in place). */
static float quantile(float* values, uint32_t count, float q) {
    qsort(values, count, sizeof *values, compare_floats);
    uint32_t k = (uint32_t)(q * (float)(count - 1) + 0.5f);
    return values[k < count ? k : count - 1];
}

/* Centroid and principal axis of points (count x 3 floats) by power iteration. */
static void principal_axis(const float* points, uint32_t count, double centre[3], double axis[3]) {
    centre[0] = centre[1] = centre[2] = 0;
    for (uint32_t v = 0; v < count; ++v)
        for (int c = 0; c < 3; ++c)
            centre[c] += points[3 * v + c] / count;
    double cov[9] = {0};
    for (uint32_t v = 0; v < count; ++v) {
        double d[3] = {points[3 * v] - centre[0], points[3 * v + 1] - centre[1],
                       points[3 * v + 2] - centre[2]};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                cov[3 * r + c] += d[r] * d[c];
    }
    axis[0] = 0.577, axis[1] = 0.578, axis[2] = 0.576;
    for (int it = 0; it < 50; ++it) {
        double next[3] = {0, 0, 0}, n = 0;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                next[r] += cov[3 * r + c] * axis[c];
        n = sqrt(next[0] * next[0] + next[1] * next[1] + next[2] * next[2]);
        if (!(n > 0)) return;
        for (int c = 0; c < 3; ++c)
            axis[c] = next[c] / n;
    }
}

/* One capsule (or sphere) around points; false with fewer than 8. */
static bool fit_capsule(const float* points, uint32_t count, float* scratch, tl_collider* out) {
    if (count < 8) return false;
    double centre[3], axis[3];
    principal_axis(points, count, centre, axis);
    for (uint32_t v = 0; v < count; ++v) {
        double t = 0;
        for (int c = 0; c < 3; ++c)
            t += (points[3 * v + c] - centre[c]) * axis[c];
        scratch[v] = (float)t;
    }
    float lo = quantile(scratch, count, 0.05f), hi = quantile(scratch, count, 0.95f);
    for (uint32_t v = 0; v < count; ++v) {
        double t = 0, d2 = 0;
        for (int c = 0; c < 3; ++c)
            t += (points[3 * v + c] - centre[c]) * axis[c];
        for (int c = 0; c < 3; ++c) {
            double d = points[3 * v + c] - centre[c] - t * axis[c];
            d2 += d * d;
        }
        scratch[v] = (float)sqrt(d2);
    }
    float radius = quantile(scratch, count, 0.75f);
    if (!(radius > 0)) return false; /* (a flat patch of skin) */
    float a = lo, b = hi;            /* (skin is a surface: caps past its ends, not inside them) */
    memset(out, 0, sizeof *out);
    out->shape = a < b ? TL_COLLIDER_CAPSULE : TL_COLLIDER_SPHERE;
    for (int c = 0; c < 3; ++c) {
        out->a[c] = (float)(centre[c] + a * axis[c]);
        out->b[c] = (float)(centre[c] + b * axis[c]);
    }
    out->radius = radius;
    return true;
}

static uint32_t dominant_joint(const tl_scene_skin* sk, uint32_t v) {
    const float* w = sk->influence_weights + (size_t)v * sk->influence_count;
    uint32_t best = 0;
    for (uint32_t k = 1; k < sk->influence_count; ++k)
        if (w[k] > w[best]) best = k;
    return sk->influence_joints[(size_t)v * sk->influence_count + best];
}

static bool body_role(tl_role role) {
    return role == TL_ROLE_PELVIS || role == TL_ROLE_SPINE || role == TL_ROLE_CHEST ||
           role == TL_ROLE_NECK || role == TL_ROLE_HEAD || role == TL_ROLE_THIGH ||
           role == TL_ROLE_SHIN || role == TL_ROLE_UPPER_ARM;
}

tl_result tl_body_colliders_fit(const tl_scene* scene, uint32_t skin, tl_body_collider* out,
                                uint32_t capacity, uint32_t* count, tl_error* err) {
    assert(scene && skin < scene->skin_count && count && (out || capacity == 0));
    const tl_scene_skin* sk = &scene->skins[skin];
    *count = 0;
    if (sk->vertex_count == 0) return TL_OK;
    float* points = malloc(sizeof(float) * 3 * sk->vertex_count);
    float* scratch = malloc(sizeof(float) * sk->vertex_count);
    uint32_t* owner = malloc(sizeof(uint32_t) * sk->vertex_count);
    if (!points || !scratch || !owner) {
        free(points), free(scratch), free(owner);
        return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    }
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        owner[v] = dominant_joint(sk, v);
    for (uint32_t j = 0; j < sk->joint_count && *count < capacity; ++j) {
        if (!body_role(sk->joints[j].role)) continue;
        uint32_t n = 0;
        for (uint32_t v = 0; v < sk->vertex_count; ++v)
            if (owner[v] == j) memcpy(points + 3 * n++, sk->rest_positions + 3 * (size_t)v, 12);
        tl_collider whole;
        if (!fit_capsule(points, n, scratch, &whole)) continue;
        float length = 0;
        for (int c = 0; c < 3; ++c)
            length += (whole.b[c] - whole.a[c]) * (whole.b[c] - whole.a[c]);
        length = sqrtf(length) + 2 * whole.radius;
        tl_collider parts[2];
        int part_count = 0;
        if (length > 6 * whole.radius && *count + 2 <= capacity) {
            /* strongly elongated: two capsules, each fitted to the skin on its side of the middle
             */
            double centre[3], axis[3];
            principal_axis(points, n, centre, axis);
            for (int half = 0; half < 2; ++half) {
                float* kept = malloc(sizeof(float) * 3 * n);
                uint32_t m = 0;
                if (!kept) break;
                for (uint32_t v = 0; v < n; ++v) {
                    double t = 0;
                    for (int c = 0; c < 3; ++c)
                        t += (points[3 * v + c] - centre[c]) * axis[c];
                    if ((t < 0) == (half == 0)) memcpy(kept + 3 * m++, points + 3 * v, 12);
                }
                if (fit_capsule(kept, m, scratch, &parts[part_count])) ++part_count;
                free(kept);
            }
        }
        if (part_count < 2) parts[0] = whole, part_count = 1;
        for (int k = 0; k < part_count; ++k) {
            tl_body_collider* b = &out[(*count)++];
            b->joint = j;
            b->role = sk->joints[j].role;
            b->side = sk->joints[j].side;
            b->local = parts[k];
            b->vertices = n;
        }
    }
    free(points), free(scratch), free(owner);
    return TL_OK;
}

void tl_body_colliders_pose(const tl_scene* scene, uint32_t skin, const tl_body_collider* in,
                            uint32_t count, const tl_pose* pose, tl_collider* out) {
    assert(scene && skin < scene->skin_count && pose && (count == 0 || (in && out)));
    const tl_scene_skin* sk = &scene->skins[skin];
    for (uint32_t k = 0; k < count; ++k) {
        const tl_scene_joint* j = &sk->joints[in[k].joint];
        /* world(joint) · rest_world(joint)^-1 */
        double rest[16], inverse[16], now[16], move[16];
        tl_mat4d_from_float(rest, j->rest_world);
        tl_mat4d_invert(inverse, rest);
        tl_mat4d_from_float(now, pose->world + 16 * (size_t)j->node);
        tl_mat4d_mul(move, now, inverse);
        float m[16];
        tl_mat4d_to_float(m, move);
        out[k] = in[k].local;
        tl_mat4_transform_point(out[k].a, m, in[k].local.a);
        tl_mat4_transform_point(out[k].b, m, in[k].local.b);
        /* uniform scale of the move (a scaled character) */
        float s =
            cbrtf(fabsf(m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                        m[8] * (m[1] * m[6] - m[2] * m[5])));
        out[k].radius = in[k].local.radius * (s > 0 ? s : 1);
    }
}

float tl_collider_depth(const tl_collider* c, const float point[3]) {
    if (c->shape == TL_COLLIDER_PLANE)
        return -((point[0] - c->a[0]) * c->b[0] + (point[1] - c->a[1]) * c->b[1] +
                 (point[2] - c->a[2]) * c->b[2]);
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
