/* Which body colliders a chain runs with, and how thick its skin is to them. */
#include "play/chain_colliders.h"

#include "play/chain_growth.h"

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

uint32_t play_chain_colliders(const tl_scene* scene, const tl_play_chain* d,
                              const tl_body_collider* all, uint32_t n, tl_body_collider* out,
                              float* growth) {
    const tl_scene_skin* sk = &scene->skins[d->skin];
    float points[3 * (TL_CHAIN_MAX_BONES + 1)];
    uint32_t count = rest_points(sk, d, points), kept = 0, links = d->bone_count;
    for (uint32_t k = 0; k < n; ++k) {
        const tl_collider* c = &all[k].local;
        if (!(d->hit_radius > 0)) { /* points: the colliders holding the bind pose are out */
            if (play_collider_clears(c, points, count)) out[kept++] = all[k];
            continue;
        }
        /* the root is held by the attachment: only the particles (link tips) must clear, each
           as far as its own rest leaves room (a lock lying on the back keeps the collider at
           its full growth for the links hanging free of it) */
        float* g = growth + (size_t)kept * links;
        if (play_collider_growth(c, d->hit_radius, points + 3, count - 1, links, g))
            out[kept++] = all[k];
    }
    return kept;
}

static int compare_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
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

/* The chain of every joint of the skin (an index into chains), -1 for the others. */
static void joint_chains(const tl_scene_skin* sk, uint32_t skin, const tl_play_chain* chains,
                         uint32_t count, int32_t* chain_of) {
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        chain_of[j] = -1;
    for (uint32_t c = 0; c < count; ++c)
        for (uint32_t b = 0; chains[c].skin == skin && b < chains[c].bone_count; ++b)
            if (chains[c].bone_joints[b] < sk->joint_count)
                chain_of[chains[c].bone_joints[b]] = (int32_t)c;
}

/* Vertex v's largest side (its weights on one chain's bones summed, on every other joint
 * alone): its chain, or -1; *joint its joint of most weight (first of equals); *blended
 * whether another chain weighs it too. */
static int32_t vertex_side(const tl_scene_skin* sk, const int32_t* chain_of, uint32_t count,
                           uint32_t v, uint32_t* joint, bool* blended) {
    const uint32_t IC = sk->influence_count;
    const uint32_t* joints = sk->influence_joints + (size_t)v * IC;
    const float* w = sk->influence_weights + (size_t)v * IC;
    /* a side's key: its chain, or count + the joint */
#define SIDE_KEY(k) (chain_of[joints[k]] >= 0 ? (uint32_t)chain_of[joints[k]] : count + joints[k])
    uint32_t best = 0;
    float best_sum = -INFINITY;
    for (uint32_t k = 0; k < IC; ++k) {
        float sum = 0;
        for (uint32_t i = 0; i < IC; ++i)
            if (SIDE_KEY(i) == SIDE_KEY(k)) sum += w[i];
        if (sum > best_sum) best = k, best_sum = sum;
    }
    uint32_t pick = best;
    *blended = false;
    for (uint32_t k = 0; k < IC; ++k) {
        if (SIDE_KEY(k) == SIDE_KEY(best) && w[k] > w[pick]) pick = k;
        *blended |= w[k] > 0 && chain_of[joints[k]] >= 0 && SIDE_KEY(k) != SIDE_KEY(best);
    }
#undef SIDE_KEY
    *joint = joints[pick];
    return chain_of[joints[best]];
}

/* The bone of the chains nearest the rest point p (the last of equals, as the hair adapter
 * picks), its chain into *chain and its distance into *near. */
static uint32_t nearest_bone(const tl_scene_skin* sk, uint32_t skin, const tl_play_chain* chains,
                             uint32_t count, const float* p, int32_t* chain, float* near) {
    uint32_t joint = UINT32_MAX;
    *near = INFINITY, *chain = -1;
    for (uint32_t c = 0; c < count; ++c) {
        if (chains[c].skin != skin) continue;
        float points[3 * (TL_CHAIN_MAX_BONES + 1)];
        uint32_t n = rest_points(sk, &chains[c], points);
        for (uint32_t b = 0; b + 1 < n; ++b) {
            float d = segment_distance(p, points + 3 * b, points + 3 * b + 3);
            if (d <= *near) *near = d, *chain = (int32_t)c, joint = chains[c].bone_joints[b];
        }
    }
    return joint;
}

bool play_skin_locks(const tl_scene* scene, uint32_t skin, const tl_play_chain* chains,
                     uint32_t count, int32_t* lock, uint32_t* joint, float* near) {
    const tl_scene_skin* sk = &scene->skins[skin];
    int32_t* chain_of = malloc((sk->joint_count + 1) * sizeof *chain_of);
    if (!chain_of) return false;
    joint_chains(sk, skin, chains, count, chain_of);
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        const float* p = sk->rest_positions + 3 * (size_t)v;
        uint32_t j, nearest;
        bool blended;
        int32_t c = vertex_side(sk, chain_of, count, v, &j, &blended), n = -1;
        float d = INFINITY;
        if (c < 0) {
            j = tl_scene_skin_dominant_joint(sk, v);
        } else if (!blended) { /* one lock weighs it: that lock's, as weighed */
            float points[3 * (TL_CHAIN_MAX_BONES + 1)];
            uint32_t m = rest_points(sk, &chains[c], points);
            for (uint32_t i = 0; i + 1 < m; ++i)
                d = fminf(d, segment_distance(p, points + 3 * i, points + 3 * i + 3));
        } else { /* several: the lock whose bones lie nearest, as the hair adapter weighed it
                    before the seams were blended (hair/chains.c weigh) */
            nearest = nearest_bone(sk, skin, chains, count, p, &n, &d);
            if (n >= 0) c = n, j = nearest;
        }
        lock[v] = c, joint[v] = j;
        if (near) near[v] = d;
    }
    free(chain_of);
    return true;
}

float play_chain_skin_thickness(const tl_scene* scene, const tl_play_chain* d, uint32_t index,
                                const int32_t* lock, const float* near) {
    const tl_scene_skin* sk = &scene->skins[d->skin];
    float points[3 * (TL_CHAIN_MAX_BONES + 1)];
    if (rest_points(sk, d, points) < 2 || sk->vertex_count == 0) return 0; /* no segment */
    float* dist = malloc(sk->vertex_count * sizeof *dist);
    if (!dist) return 0;
    uint32_t found = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        if (lock[v] == (int32_t)index && isfinite(near[v])) dist[found++] = near[v];
    float t = 0;
    if (found) {
        qsort(dist, found, sizeof *dist, compare_float);
        t = dist[(size_t)(0.9 * (found - 1))];
    }
    free(dist);
    return t;
}

/* out = m · local (local a node's float matrix), the product play_node_world and the plan share
 * so both give the same doubles. */
static void compose_local(const double m[16], const tl_trs* trs, double out[16]) {
    float local[16];
    tl_trs_to_matrix(trs, local);
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            out[4 * c + r] = m[r] * local[4 * c] + m[4 + r] * local[4 * c + 1] +
                             m[8 + r] * local[4 * c + 2] + m[12 + r] * local[4 * c + 3];
}

static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

bool play_node_world(const tl_scene* scene, const tl_pose* pose, uint32_t node, const float home[3],
                     double m[16]) {
    uint32_t path[PLAY_PLAN_NODES], k = 0;
    for (int32_t n = (int32_t)node; n != TL_NONE; n = scene->doc->nodes[n].parent)
        if (k == PLAY_PLAN_NODES)
            return false;
        else
            path[k++] = (uint32_t)n;
    memcpy(m, identity, sizeof identity);
    while (k > 0) {
        double next[16];
        compose_local(m, &pose->locals[path[--k]], next);
        memcpy(m, next, sizeof next);
    }
    for (int c = 0; c < 3; ++c)
        m[12 + c] -= home[c];
    return true;
}

bool play_node_plan_build(const tl_scene* scene, uint32_t skin, const tl_body_collider* colliders,
                          uint32_t n, play_node_plan* plan) {
    plan->count = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t path[PLAY_PLAN_NODES], depth = 0;
        for (int32_t v = (int32_t)scene->skins[skin].joints[colliders[k].joint].node; v != TL_NONE;
             v = scene->doc->nodes[v].parent) {
            if (depth == PLAY_PLAN_NODES) return plan->count = 0, false;
            path[depth++] = (uint32_t)v;
        }
        int32_t parent = -1; /* walk down from the root, adding the nodes not yet planned */
        while (depth > 0) {
            uint32_t v = path[--depth], s = 0;
            while (s < plan->count && plan->node[s] != v)
                s++;
            if (s == plan->count) {
                if (s == PLAY_PLAN_NODES) return plan->count = 0, false;
                plan->node[s] = v, plan->parent[s] = parent, plan->count++;
            }
            parent = (int32_t)s;
        }
        plan->slot[k] = (uint32_t)parent;
    }
    return true;
}

void play_node_plan_compose(const tl_pose* pose, const play_node_plan* plan, double (*world)[16]) {
    for (uint32_t s = 0; s < plan->count; ++s)
        compose_local(plan->parent[s] < 0 ? identity : world[plan->parent[s]],
                      &pose->locals[plan->node[s]], world[s]);
}
