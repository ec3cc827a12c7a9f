/* Which body colliders a chain runs with, and how thick its skin is to them. */
#include "play/chain_colliders.h"

#include <tailor/colliders.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The chain's rest points: bone heads, then the end joint; the root first. */
static uint32_t rest_points(const tl_scene_skin* sk, const tl_play_chain* d, float* points) {
    uint32_t n = 0;
    for (uint32_t b = 0; b <= d->bone_count; ++b) {
        int32_t j = b < d->bone_count ? (int32_t)d->bone_joints[b] : d->end_joint;
        if (j == TL_NONE) continue;
        memcpy(points + 3 * n++, sk->joints[j].rest_world + 12, 3 * sizeof(float));
    }
    return n;
}

static float length3(const float v[3]) {
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* The collider grown by g (shrunk for g < 0): radius, or every semi-axis. False when a size
 * would not stay above 0. */
static bool grow(const tl_collider* c, float g, tl_collider* out) {
    *out = *c;
    if (c->shape == TL_COLLIDER_PLANE) return g == 0;
    if (c->shape != TL_COLLIDER_ELLIPSOID) {
        out->radius = c->radius + g;
        return out->radius > 0;
    }
    for (int k = 0; k < 3; ++k) {
        float len = length3(c->axes[k]);
        if (!(len > 0) || !(len + g > 0)) return false;
        for (int j = 0; j < 3; ++j)
            out->axes[k][j] = c->axes[k][j] * (len + g) / len;
    }
    return true;
}

static bool clears(const tl_collider* c, const float* points, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i)
        if (tl_collider_depth(c, points + 3 * i) > 0) return false;
    return true;
}

/* The smallest size of the collider (radius, or shortest semi-axis). */
static float size_of(const tl_collider* c) {
    if (c->shape != TL_COLLIDER_ELLIPSOID) return c->radius;
    float s = INFINITY;
    for (int k = 0; k < 3; ++k)
        s = fminf(s, length3(c->axes[k]));
    return s;
}

/* The largest growth in (-size, hit] that leaves the point outside c (clearing is monotone in
 * the growth: a grown collider holds the smaller one); -INFINITY when none does (the point on
 * the collider's centre or segment: the link is free of it). However deep the rest tip lies,
 * the link keeps a collider its own size: freed, it would go deeper than it rests. */
static float room_for(const tl_collider* c, float hit, const float* point) {
    tl_collider trial;
    if (grow(c, hit, &trial) && clears(&trial, point, 1)) return hit;
    const float none = -size_of(c); /* (no size left: nothing is inside) */
    float lo = none, hi = hit;
    for (int it = 0; it < 24; ++it) {
        float mid = 0.5f * (lo + hi);
        if (grow(c, mid, &trial) && clears(&trial, point, 1))
            lo = mid;
        else
            hi = mid;
    }
    return lo > none ? lo : -INFINITY;
}

uint32_t play_chain_colliders(const tl_scene* scene, const tl_play_chain* d,
                              const tl_body_collider* all, uint32_t n, tl_body_collider* out,
                              float* growth) {
    const tl_scene_skin* sk = &scene->skins[d->skin];
    float points[3 * (TL_CHAIN_MAX_BONES + 1)];
    uint32_t count = rest_points(sk, d, points), kept = 0, links = d->bone_count;
    for (uint32_t k = 0; k < n; ++k) {
        const tl_collider* c = &all[k].local;
        if (!(d->hit_radius > 0)) { /* points: the colliders holding the bind pose are out */
            if (clears(c, points, count)) out[kept++] = all[k];
            continue;
        }
        /* the root is held by the attachment: only the particles (link tips) must clear, each
           as far as its own rest leaves room (a lock lying on the back keeps the collider at
           its full growth for the links hanging free of it) */
        const float* tips = points + 3;
        uint32_t tip_count = count - 1;
        float* g = growth + (size_t)kept * links;
        bool any = false;
        for (uint32_t i = 0; i < links; ++i) {
            if (c->shape == TL_COLLIDER_PLANE)
                g[i] = clears(c, tips, tip_count) ? 0 : -INFINITY;
            else if (i < tip_count)
                g[i] = room_for(c, d->hit_radius, tips + 3 * i);
            else /* (no rest point for the last tip: as the link before) */
                g[i] = i > 0 ? g[i - 1] : d->hit_radius;
            any |= g[i] > -INFINITY;
        }
        if (any) out[kept++] = all[k];
    }
    return kept;
}

static float segment_distance(const float p[3], const float a[3], const float b[3]) {
    float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    float l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    float t = l2 > 0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    float q[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return length3(q);
}

static int compare_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

float play_chain_skin_thickness(const tl_scene* scene, const tl_play_chain* d) {
    const tl_scene_skin* sk = &scene->skins[d->skin];
    float points[3 * (TL_CHAIN_MAX_BONES + 1)];
    uint32_t count = rest_points(sk, d, points);
    if (count < 2 || sk->vertex_count == 0) return 0;
    float* dist = malloc(sk->vertex_count * sizeof *dist);
    if (!dist) return 0;
    uint32_t found = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        uint32_t dominant = tl_scene_skin_dominant_joint(sk, v);
        bool mine = false;
        for (uint32_t b = 0; b < d->bone_count && !mine; ++b)
            mine = d->bone_joints[b] == dominant;
        if (!mine) continue;
        const float* p = sk->rest_positions + 3 * (size_t)v;
        float near = INFINITY;
        for (uint32_t i = 0; i + 1 < count; ++i)
            near = fminf(near, segment_distance(p, points + 3 * i, points + 3 * i + 3));
        dist[found++] = near;
    }
    float t = 0;
    if (found) {
        qsort(dist, found, sizeof *dist, compare_float);
        t = dist[(size_t)(0.9 * (found - 1))];
    }
    free(dist);
    return t;
}
