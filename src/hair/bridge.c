/* PROTOTYPE, not for merging (issue #12, hairbridge14; reverted in the next commit; the figures
 * and the conclusion are in docs/hair.md "Bridge joints between neighbouring locks").
 *
 * Bridge joints between neighbouring hair chains, computed in the measure's skinning through a
 * throwaway hook in tl_scene_skin_positions (src/scene/pose.c) that src/hair/measure.c sets when
 * TL_PROTO_BRIDGE is in the environment. Switches (environment):
 *   TL_PROTO_SEAM=N        the rig's seam blend (tl_hair_chain_def.seam_steps) on
 *   TL_PROTO_NOGUARD       ... without its collider guard (rig.c fits no colliders)
 *   TL_PROTO_MBLEND=N      the seam blend done here on the file's own (main's) weights instead,
 *                          so the player runs main's rig (its hit radii and sheet ties)
 *   TL_PROTO_LINEAR        the blended weights skinned linearly (no bridge)
 *   TL_PROTO_ROWS=R        rows mode: a vertex's two-chain weight all on one row of bridges at
 *                          its share of the second chain rounded to 1/R (the ends: one chain)
 *   TL_PROTO_HEADROWS      the chains' attachment (the head) a side of the rows too
 *   TL_PROTO_SLIDE         each row's share moved per pose towards its nearer chain ...
 *   TL_PROTO_VCHECK        ... until none of its vertices lies deeper in a collider than at rest
 *   TL_PROTO_BOTH          ... then towards the far chain as well
 *   TL_PROTO_NOPUSH / NOAIM / TOP2  the midpoint bridges' push-out, aim, third-chain fold
 * Without ROWS a vertex's shared part 2 min(sA, sB) goes on midpoint bridges between A's and B's
 * bones: head the midpoint of the two joints' heads pushed out of the colliders as far as at rest
 * (or the locks' mean hit radius), turn the normalised mean of the two turns, aimed at the pushed
 * midpoint of the bones' tails. */
#include "internal.h"

#include <tailor/colliders.h>
#include <tailor/play.h>

#include "base/mat4.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BR_PER 12

typedef struct br_bridge {
    uint32_t a, b;                          /* joints */
    uint32_t ta, tb;                        /* the joints at their bones' tails */
    float tail_a[3], tail_b[3], bind_tail[3];
    float rest_tail_depth[TL_BODY_COLLIDERS_MAX];
    float rest_ha[3], rest_hb[3], rest_ta[3], rest_tb[3]; /* rest-world */
    float t;                                              /* this pose's share of b */
    uint32_t group, next;                                 /* rows mode: its pair and row */
    int has_tail;
    float clear;                            /* how far out to keep the head */
    float rest_depth[TL_BODY_COLLIDERS_MAX];/* of the rest head in each collider */
    float bind_head[3];                     /* the midpoint in bind space */
    float head_a[3], head_b[3];             /* each joint's head in bind space */
    float m[16];                            /* this pose's matrix */
} br_bridge;

typedef struct br_vertex {
    uint32_t v;
    float w[16];           /* the vertex's own influences, reweighted */
    uint32_t bridge[BR_PER];
    float bw[BR_PER];
    uint32_t n;
    uint32_t group, gnext;
    uint32_t js[16];
    float rest_depth[TL_BODY_COLLIDERS_MAX];
} br_vertex;

typedef struct tl_hair_bridges {
    const tl_scene* scene;
    uint32_t skin;
    br_bridge* bridges;
    uint32_t count, capacity;
    br_vertex* verts;
    uint32_t vert_count;
    float inv_m[16];
    int push, aim, slide, top2, rows;
    uint32_t head_joint; /* the chains' attachment, a side of the rows (TL_PROTO_HEADROWS) */
    uint32_t group_count;
    uint32_t groups[4096][3]; /* chain a, chain b, row */
    uint32_t first[4096];     /* each group's first bridge */
    float group_t[4096];
    uint32_t first_v[4096];
    int vcheck, both, all;
    uint32_t per;
    uint32_t* bj; /* TL_PROTO_MBLEND: the blended weights */
    float* bwt;
} tl_hair_bridges;

static uint32_t bridge_find(tl_hair_bridges* h, uint32_t a, uint32_t b, float clear,
                            const uint32_t* tail_of, uint32_t group) {
    if (a > b && group == UINT32_MAX) {
        uint32_t t = a;
        a = b, b = t;
    }
    for (uint32_t i = 0; i < h->count; ++i)
        if (h->bridges[i].a == a && h->bridges[i].b == b && h->bridges[i].group == group)
            return i;
    if (h->count == h->capacity) {
        h->capacity = h->capacity ? 2 * h->capacity : 64;
        h->bridges = realloc(h->bridges, h->capacity * sizeof *h->bridges);
    }
    br_bridge* br = &h->bridges[h->count];
    memset(br, 0, sizeof *br);
    br->a = a, br->b = b, br->clear = clear, br->group = group, br->t = 0.5f;
    if (group != UINT32_MAX) {
        br->next = h->first[group], h->first[group] = h->count;
        br->t = (float)h->groups[group][2] / (float)h->rows;
    }
    const tl_scene_skin* sk = &h->scene->skins[h->skin];
    /* the head's side of a bridge: the other side's bone as it lay at rest, carried by the head */
    uint32_t pa = a == h->head_joint ? b : a, pb = b == h->head_joint ? a : b;
    uint32_t qa = tail_of[pa], qb = tail_of[pb];
    br->has_tail = qa != pa && qb != pb;
    br->ta = a == h->head_joint ? a : qa, br->tb = b == h->head_joint ? b : qb;
    float ta[16], tb[16];
    tl_mat4_invert(ta, sk->joints[qa].inverse_bind);
    tl_mat4_invert(tb, sk->joints[qb].inverse_bind);
    float rest_tail[3];
    memcpy(br->rest_ha, sk->joints[pa].rest_world + 12, 3 * sizeof(float));
    memcpy(br->rest_hb, sk->joints[pb].rest_world + 12, 3 * sizeof(float));
    memcpy(br->rest_ta, sk->joints[qa].rest_world + 12, 3 * sizeof(float));
    memcpy(br->rest_tb, sk->joints[qb].rest_world + 12, 3 * sizeof(float));
    for (int k = 0; k < 3; ++k)
        br->tail_a[k] = ta[12 + k], br->tail_b[k] = tb[12 + k],
        br->bind_tail[k] = 0.5f * (ta[12 + k] + tb[12 + k]),
        rest_tail[k] = 0.5f * (br->rest_ta[k] + br->rest_tb[k]);
    for (uint32_t c = 0; c < sk->collider_count; ++c)
        br->rest_tail_depth[c] = tl_collider_depth(&sk->colliders[c].local, rest_tail);
    float ia[16], ib[16];
    tl_mat4_invert(ia, sk->joints[pa].inverse_bind);
    tl_mat4_invert(ib, sk->joints[pb].inverse_bind);
    for (int k = 0; k < 3; ++k)
        br->bind_head[k] = 0.5f * (ia[12 + k] + ib[12 + k]), br->head_a[k] = ia[12 + k],
        br->head_b[k] = ib[12 + k];
    float rest[3];
    for (int k = 0; k < 3; ++k)
        rest[k] = 0.5f * (br->rest_ha[k] + br->rest_hb[k]);
    for (uint32_t c = 0; c < sk->collider_count; ++c)
        br->rest_depth[c] = tl_collider_depth(&sk->colliders[c].local, rest);
    return h->count++;
}

static uint32_t group_find(tl_hair_bridges* h, uint32_t a, uint32_t b, uint32_t row) {
    for (uint32_t g = 0; g < h->group_count; ++g)
        if (h->groups[g][0] == a && h->groups[g][1] == b && h->groups[g][2] == row) return g;
    if (h->group_count == 4096) abort();
    uint32_t g = h->group_count++;
    h->groups[g][0] = a, h->groups[g][1] = b, h->groups[g][2] = row;
    h->first[g] = UINT32_MAX, h->first_v[g] = UINT32_MAX;
    return g;
}

/* Rows mode: the vertex's whole two-chain weight on one row of bridges (its share of B rounded
 * to 1/rows), or on A or B alone at the ends. */
static void rows_vertex(tl_hair_bridges* h, br_vertex* bv, int A, int B, float* share,
                        const float* ws, const uint32_t* js, uint32_t per, const int32_t* owner,
                        float clear, const uint32_t* tail_of) {
    if (A > B) {
        int t = A;
        A = B, B = t;
    }
    float sum = share[A] + share[B], u = share[B] / sum;
    uint32_t q = (uint32_t)lroundf(u * (float)h->rows);
    for (uint32_t k = 0; k < per && k < 16; ++k) {
        int o = owner[js[k]];
        bv->w[k] = ws[k];
        if (o == A) bv->w[k] = q == 0 ? ws[k] * sum / share[A] : 0;
        if (o == B) bv->w[k] = q == (uint32_t)h->rows ? ws[k] * sum / share[B] : 0;
    }
    bv->group = UINT32_MAX;
    if (q == 0 || q == (uint32_t)h->rows) return;
    uint32_t g = group_find(h, (uint32_t)A, (uint32_t)B, q);
    bv->group = g, bv->gnext = h->first_v[g], h->first_v[g] = (uint32_t)(bv - h->verts);
    const tl_scene_skin* sk = &h->scene->skins[h->skin];
    for (uint32_t c = 0; c < sk->collider_count; ++c)
        bv->rest_depth[c] =
            tl_collider_depth(&sk->colliders[c].local, sk->rest_positions + 3 * (size_t)bv->v);
    for (uint32_t i = 0; i < per; ++i) {
        if (!(ws[i] > 0) || owner[js[i]] != A) continue;
        for (uint32_t j = 0; j < per; ++j) {
            if (!(ws[j] > 0) || owner[js[j]] != B || bv->n == BR_PER) continue;
            bv->bridge[bv->n] = bridge_find(h, js[i], js[j], clear, tail_of, g);
            bv->bw[bv->n++] = sum * (ws[i] / share[A]) * (ws[j] / share[B]);
        }
    }
}

static const float* weld_pos;
static int weld_cmp(const void* a, const void* b) {
    const float *p = weld_pos + 3 * (size_t)*(const uint32_t*)a,
                *q = weld_pos + 3 * (size_t)*(const uint32_t*)b;
    for (int k = 0; k < 3; ++k)
        if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
    return 0;
}

/* PROTOTYPE: the seam blend of chains.c done here on the file's (unblended) weights, so that the
 * player runs main's rig: the band (a welded hair vertex with an edge to another chain's, the
 * head no chain, and one ring beside) takes `steps` Jacobi steps of the mean, head-only vertices
 * held; the 4 largest kept. out: V x 4 joints and weights. */
static void measure_blend(const tl_scene* scene, uint32_t skin, const int32_t* owner,
                          uint32_t head, int steps, uint32_t* oj, float* ow) {
    const tl_scene_skin* sk = &scene->skins[skin];
    uint32_t V = sk->vertex_count, J = sk->joint_count, per = sk->influence_count;
    uint8_t* flags = calloc(sk->primitive_count + 1, 1);
    tl_hair_find_primitives(scene, skin, flags);
    uint8_t* hair = calloc(V + 1, 1);
    for (uint32_t p = 0; p < sk->primitive_count; ++p)
        for (uint32_t v = 0; flags[p] && v < sk->primitives[p].vertex_count; ++v)
            hair[sk->primitives[p].first_vertex + v] = 1;
    uint32_t* order = malloc(sizeof(uint32_t) * (V + 1));
    uint32_t* rep = malloc(sizeof(uint32_t) * (V + 1));
    for (uint32_t v = 0; v < V; ++v)
        order[v] = v;
    weld_pos = sk->rest_positions;
    qsort(order, V, sizeof *order, weld_cmp);
    for (uint32_t i = 0; i < V; ++i)
        rep[order[i]] = i > 0 && weld_cmp(&order[i], &order[i - 1]) == 0 ? rep[order[i - 1]]
                                                                          : order[i];
    float* a = calloc((size_t)V * J, sizeof(float));
    float* b = calloc((size_t)V * J, sizeof(float));
    float* cnt = calloc(V, sizeof(float));
    uint8_t* band = calloc(V, 1);
    uint8_t* band0 = calloc(V, 1);
    int32_t* dom = malloc(sizeof(int32_t) * V);
    for (uint32_t v = 0; v < V; ++v) {
        if (rep[v] != v) continue;
        for (uint32_t k = 0; k < per; ++k)
            a[(size_t)v * J + sk->influence_joints[v * per + k]] += sk->influence_weights[v * per + k];
        uint32_t d = tl_scene_skin_dominant_joint(sk, v);
        dom[v] = owner[d] >= 0 && d != head ? owner[d] : -1;
    }
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t p = rep[sk->triangles[3 * t + e]], q = rep[sk->triangles[3 * t + (e + 1) % 3]];
            if (!hair[p] || !hair[q] || p == q) continue;
            if (dom[p] >= 0 && dom[q] >= 0 && dom[p] != dom[q]) band0[p] = band0[q] = 1;
        }
    memcpy(band, band0, V);
    for (uint32_t t = 0; t < sk->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t p = rep[sk->triangles[3 * t + e]], q = rep[sk->triangles[3 * t + (e + 1) % 3]];
            if (!hair[p] || !hair[q] || p == q) continue;
            if (band0[p] || band0[q]) band[p] = band[q] = 1;
        }
    for (uint32_t v = 0; v < V; ++v) /* the head's hair held */
        if (band[v] && a[(size_t)v * J + head] >= 0.999f) band[v] = 0;
    for (int it = 0; it < steps; ++it) {
        memcpy(b, a, sizeof(float) * (size_t)V * J);
        for (uint32_t v = 0; v < V; ++v)
            cnt[v] = 1;
        /* each triangle edge once per side (duplicates as chains.c's edge list would not have) */
        for (uint32_t t = 0; t < sk->triangle_count; ++t)
            for (int e = 0; e < 3; ++e) {
                uint32_t p = rep[sk->triangles[3 * t + e]],
                         q = rep[sk->triangles[3 * t + (e + 1) % 3]];
                if (!hair[p] || !hair[q] || p == q || p > q) continue;
                for (uint32_t j = 0; j < J; ++j)
                    b[(size_t)p * J + j] += a[(size_t)q * J + j],
                        b[(size_t)q * J + j] += a[(size_t)p * J + j];
                cnt[p]++, cnt[q]++;
            }
        for (uint32_t v = 0; v < V; ++v)
            if (band[v])
                for (uint32_t j = 0; j < J; ++j)
                    a[(size_t)v * J + j] = b[(size_t)v * J + j] / cnt[v];
    }
    for (uint32_t v = 0; v < V; ++v) {
        uint32_t r = rep[v];
        float w[4] = {0};
        uint32_t jj[4] = {0};
        for (uint32_t j = 0; j < J; ++j) {
            float x = a[(size_t)r * J + j];
            for (int k = 0; k < 4; ++k)
                if (x > w[k]) {
                    for (int m = 3; m > k; --m)
                        w[m] = w[m - 1], jj[m] = jj[m - 1];
                    w[k] = x, jj[k] = j;
                    break;
                }
        }
        float sum = w[0] + w[1] + w[2] + w[3];
        for (int k = 0; k < 4; ++k)
            oj[4 * v + k] = jj[k], ow[4 * v + k] = sum > 0 ? w[k] / sum : 0;
    }
    free(flags), free(hair), free(order), free(rep), free(a), free(b), free(cnt), free(band),
        free(band0), free(dom);
}

tl_hair_bridges* tl_hair_bridges_create(const tl_scene* scene, uint32_t skin, int all) {
    const tl_scene_skin* sk = &scene->skins[skin];
    tl_hair_bridges* h = calloc(1, sizeof *h);
    h->all = all;
    h->scene = scene, h->skin = skin;
    h->push = getenv("TL_PROTO_NOPUSH") == NULL;
    h->aim = getenv("TL_PROTO_NOAIM") == NULL;
    h->slide = getenv("TL_PROTO_SLIDE") != NULL;
    h->top2 = getenv("TL_PROTO_TOP2") != NULL;
    h->rows = getenv("TL_PROTO_ROWS") ? atoi(getenv("TL_PROTO_ROWS")) : 0;
    h->vcheck = getenv("TL_PROTO_VCHECK") != NULL;
    h->both = getenv("TL_PROTO_BOTH") != NULL;
    if (h->rows) h->top2 = 1;
    tl_mat4_invert(h->inv_m, sk->rest_world);
    tl_play_chain chains[64];
    uint32_t n = 0;
    tl_error err;
    tl_play_chains_find(scene, chains, 64, &n, &err);
    if (n > 64) n = 64;
    int32_t* owner = malloc(sizeof(int32_t) * sk->joint_count);
    uint32_t* tail_of = malloc(sizeof(uint32_t) * sk->joint_count);
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        owner[j] = -1, tail_of[j] = j;
    for (uint32_t c = 0; c < n; ++c)
        for (uint32_t b = 0; b < chains[c].bone_count; ++b) {
            owner[chains[c].bone_joints[b]] = (int32_t)c;
            tail_of[chains[c].bone_joints[b]] =
                b + 1 < chains[c].bone_count ? chains[c].bone_joints[b + 1]
                : chains[c].end_joint >= 0 ? (uint32_t)chains[c].end_joint
                                           : chains[c].bone_joints[b];
        }
    h->head_joint = UINT32_MAX;
    if (n > 0 && n < 64 && h->rows && getenv("TL_PROTO_HEADROWS") &&
        owner[chains[0].attach_joint] < 0)
        h->head_joint = chains[0].attach_joint, owner[h->head_joint] = (int32_t)n,
        memset(&chains[n], 0, sizeof chains[n]), n++;
    uint32_t per = sk->influence_count;
    const uint32_t* JS = sk->influence_joints;
    const float* WS = sk->influence_weights;
    if (getenv("TL_PROTO_MBLEND") && n > 0) {
        uint32_t head = chains[0].attach_joint;
        int32_t* own2 = malloc(sizeof(int32_t) * sk->joint_count);
        memcpy(own2, owner, sizeof(int32_t) * sk->joint_count);
        if (h->head_joint != UINT32_MAX) own2[h->head_joint] = -1;
        h->bj = malloc(sizeof(uint32_t) * 4 * (sk->vertex_count + 1));
        h->bwt = malloc(sizeof(float) * 4 * (sk->vertex_count + 1));
        measure_blend(scene, skin, own2, head, atoi(getenv("TL_PROTO_MBLEND")), h->bj, h->bwt);
        free(own2);
        JS = h->bj, WS = h->bwt, per = 4, h->all = 1;
    }
    h->per = per;
    h->verts = calloc(sk->vertex_count + 1, sizeof *h->verts);
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        const uint32_t* js = JS + (size_t)v * per;
        const float* ws = WS + (size_t)v * per;
        float share[64] = {0};
        for (uint32_t k = 0; k < per; ++k)
            if (ws[k] > 0 && owner[js[k]] >= 0) share[owner[js[k]]] += ws[k];
        int A = -1, B = -1;
        for (uint32_t c = 0; c < n; ++c) {
            if (!(share[c] > 0)) continue;
            if (A < 0 || share[c] > share[A])
                B = A, A = (int)c;
            else if (B < 0 || share[c] > share[B])
                B = (int)c;
        }
        if ((A < 0 || B < 0 || getenv("TL_PROTO_LINEAR")) && h->all) { /* the weights from another rig: skinned here */
            br_vertex* bv = &h->verts[h->vert_count++];
            bv->v = v, bv->group = UINT32_MAX;
            memcpy(bv->js, js, sizeof(uint32_t) * (per < 16 ? per : 16));
            for (uint32_t k = 0; k < per && k < 16; ++k)
                bv->w[k] = ws[k];
            continue;
        }
        if (A < 0 || B < 0) continue;
        float m = share[A] < share[B] ? share[A] : share[B];
        br_vertex* bv = &h->verts[h->vert_count++];
        bv->v = v;
        memcpy(bv->js, js, sizeof(uint32_t) * (per < 16 ? per : 16));
        float clear = 0.5f * (chains[A].hit_radius + chains[B].hit_radius);
        /* other chains' weight handed to the two (TL_PROTO_TOP2) */
        float others = 0, sw[16];
        for (uint32_t k = 0; k < per && k < 16; ++k) {
            int o = owner[js[k]];
            sw[k] = ws[k];
            if (h->top2 && o >= 0 && o != A && o != B) others += ws[k], sw[k] = 0;
        }
        if (others > 0) {
            float g = (share[A] + share[B] + others) / (share[A] + share[B]);
            for (uint32_t k = 0; k < per && k < 16; ++k)
                if (owner[js[k]] == A || owner[js[k]] == B) sw[k] *= g;
            share[A] *= g, share[B] *= g;
            m = share[A] < share[B] ? share[A] : share[B];
        }
        ws = sw;
        if (h->rows) {
            rows_vertex(h, bv, A, B, share, ws, js, per, owner, clear, tail_of);
            continue;
        }
        for (uint32_t k = 0; k < per && k < 16; ++k) {
            int o = owner[js[k]];
            bv->w[k] = ws[k];
            if (o == A) bv->w[k] = ws[k] * (1 - m / share[A]);
            if (o == B) bv->w[k] = ws[k] * (1 - m / share[B]);
        }
        for (uint32_t i = 0; i < per; ++i) {
            if (!(ws[i] > 0) || owner[js[i]] != A) continue;
            for (uint32_t j = 0; j < per; ++j) {
                if (!(ws[j] > 0) || owner[js[j]] != B || bv->n == BR_PER) continue;
                bv->bridge[bv->n] = bridge_find(h, js[i], js[j], clear, tail_of, UINT32_MAX);
                bv->bw[bv->n++] = 2 * m * (ws[i] / share[A]) * (ws[j] / share[B]);
            }
        }
    }
    free(owner), free(tail_of);
    if (getenv("TL_PROTO_COUNT")) {
        uint32_t rowv = 0;
        for (uint32_t i = 0; i < h->vert_count; ++i)
            rowv += h->verts[i].n > 0;
        fprintf(stderr, "bridges %u rows %u vertices on rows %u of %u skinned here\n", h->count,
                h->group_count, rowv, h->vert_count);
    }
    return h;
}

void tl_hair_bridges_destroy(tl_hair_bridges* h) {
    if (!h) return;
    free(h->bridges), free(h->verts), free(h->bj), free(h->bwt), free(h);
}

static void quat_to_matrix(const float q[4], float s, float m[16]) {
    float x = q[0], y = q[1], z = q[2], w = q[3];
    m[0] = s * (1 - 2 * (y * y + z * z)), m[1] = s * 2 * (x * y + z * w),
    m[2] = s * 2 * (x * z - y * w), m[3] = 0;
    m[4] = s * 2 * (x * y - z * w), m[5] = s * (1 - 2 * (x * x + z * z)),
    m[6] = s * 2 * (y * z + x * w), m[7] = 0;
    m[8] = s * 2 * (x * z + y * w), m[9] = s * 2 * (y * z - x * w),
    m[10] = s * (1 - 2 * (x * x + y * y)), m[11] = 0;
    m[15] = 1;
}

static void push_out(const tl_collider* col, uint32_t n, const float* allowed, float h,
                     float p[3]) {
    for (int it = 0; it < 8; ++it) {
        uint32_t worst = n;
        float excess = 0;
        for (uint32_t c = 0; c < n; ++c) {
            float e = tl_collider_depth(&col[c], p) - allowed[c];
            if (e > excess) excess = e, worst = c;
        }
        if (worst == n) return;
        float g[3];
        for (int k = 0; k < 3; ++k) {
            float a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
            a[k] += h, b[k] -= h;
            g[k] = tl_collider_depth(&col[worst], b) - tl_collider_depth(&col[worst], a);
        }
        float lg = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        if (!(lg > 0)) return;
        for (int k = 0; k < 3; ++k)
            p[k] += (excess + 0.01f * h) * g[k] / lg;
    }
}

/* m's 3x3 turned by the smallest rotation taking direction a to direction b. */
static void swing(const float a[3], const float b[3], float m[16]) {
    float la = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    float lb = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(la > 0) || !(lb > 0)) return;
    float u[3] = {a[0] / la, a[1] / la, a[2] / la}, v[3] = {b[0] / lb, b[1] / lb, b[2] / lb};
    float c = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    if (c < -0.999f) return;
    float x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    float q[4] = {x[0], x[1], x[2], 1 + c}, len = 0;
    for (int k = 0; k < 4; ++k)
        len += q[k] * q[k];
    len = sqrtf(len);
    for (int k = 0; k < 4; ++k)
        q[k] /= len;
    float r[16], out[16];
    memset(r, 0, sizeof r);
    quat_to_matrix(q, 1, r);
    float mm[16];
    memcpy(mm, m, sizeof mm);
    mm[12] = mm[13] = mm[14] = 0;
    tl_mat4_mul(out, r, mm);
    memcpy(m, out, 12 * sizeof(float));
}

static void lerp3(const float* a, const float* b, float t, float* out) {
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] + t * (b[k] - a[k]);
}

/* How far the bridge at share t of b goes deeper than it may: its head, tail and middle against
 * their rest depths at the same share (or the locks' clearance where they lay farther out). */
static float bridge_excess(const tl_hair_bridges* h, const br_bridge* br, const tl_collider* world,
                           uint32_t nc, const float* ha, const float* hb, const float* ea,
                           const float* eb, float t) {
    const tl_scene_skin* sk = &h->scene->skins[h->skin];
    float now[3][3], rest[3][3];
    lerp3(ha, hb, t, now[0]), lerp3(ea, eb, t, now[1]);
    lerp3(br->rest_ha, br->rest_hb, t, rest[0]), lerp3(br->rest_ta, br->rest_tb, t, rest[1]);
    lerp3(now[0], now[1], 0.5f, now[2]), lerp3(rest[0], rest[1], 0.5f, rest[2]);
    float worst = -INFINITY;
    for (uint32_t c = 0; c < nc; ++c)
        for (int k = 0; k < 3; ++k) {
            float r = tl_collider_depth(&sk->colliders[c].local, rest[k]);
            float e = tl_collider_depth(&world[c], now[k]) - (r > -br->clear ? r : -br->clear);
            worst = e > worst ? e : worst;
        }
    return worst;
}

static void bridge_points(const br_bridge* br, const float* joints, float* ha, float* hb,
                          float* ea, float* eb) {
    tl_mat4_transform_point(ha, joints + 16 * (size_t)br->a, br->head_a);
    tl_mat4_transform_point(hb, joints + 16 * (size_t)br->b, br->head_b);
    tl_mat4_transform_point(ea, joints + 16 * (size_t)br->ta, br->tail_a);
    tl_mat4_transform_point(eb, joints + 16 * (size_t)br->tb, br->tail_b);
}

/* A row's share of B this pose: from its own share towards the nearer chain in eighths, the
 * first at which none of its bridges goes deeper than it may (else the least deep). */
static float group_share(const tl_hair_bridges* h, uint32_t g, const float* joints,
                         const tl_collider* world, uint32_t nc) {
    float u = (float)h->groups[g][2] / (float)h->rows, best = INFINITY, t_best = u;
    float cand[24];
    int n = 0;
    if (u < 0.5f)
        for (float t = u; t > -0.01f; t -= 0.125f)
            cand[n++] = t < 0 ? 0 : t;
    else if (u > 0.5f)
        for (float t = u; t < 1.01f; t += 0.125f)
            cand[n++] = t > 1 ? 1 : t;
    else {
        static const float ts[] = {0.5f, 0.375f, 0.625f, 0.25f, 0.75f, 0.125f, 0.875f, 0, 1};
        for (int k = 0; k < 9; ++k)
            cand[n++] = ts[k];
    }
    if (!h->slide) return u;
    for (int k = 0; k < n; ++k) {
        float e = -INFINITY;
        for (uint32_t i = h->first[g]; i != UINT32_MAX; i = h->bridges[i].next) {
            float ha[3], hb[3], ea[3], eb[3];
            bridge_points(&h->bridges[i], joints, ha, hb, ea, eb);
            float x = bridge_excess(h, &h->bridges[i], world, nc, ha, hb, ea, eb, cand[k]);
            e = x > e ? x : e;
        }
        if (e < best) best = e, t_best = cand[k];
        if (e <= 1e-5f * h->scene->skins[h->skin].height) break;
    }
    return t_best;
}

static void bridge_pose(tl_hair_bridges* h, br_bridge* br, const float* joints,
                        const tl_collider* world, uint32_t nc, float step) {
    const float* ma = joints + 16 * (size_t)br->a;
    const float* mb = joints + 16 * (size_t)br->b;
    float ha[3], hb[3], ea[3], eb[3];
    tl_mat4_transform_point(ha, ma, br->head_a);
    tl_mat4_transform_point(hb, mb, br->head_b);
    tl_mat4_transform_point(ea, joints + 16 * (size_t)br->ta, br->tail_a);
    tl_mat4_transform_point(eb, joints + 16 * (size_t)br->tb, br->tail_b);
    float t = br->group != UINT32_MAX ? br->t : 0.5f;
    if (h->slide && br->group == UINT32_MAX) { /* the share nearest a half that keeps the bridge out of the body */
        static const float ts[] = {0.5f, 0.375f, 0.625f, 0.25f, 0.75f, 0.125f, 0.875f, 0, 1};
        float best = INFINITY;
        for (size_t k = 0; k < sizeof ts / sizeof *ts; ++k) {
            float e = bridge_excess(h, br, world, nc, ha, hb, ea, eb, ts[k]);
            if (e < best) best = e, t = ts[k];
            if (e <= 0) break;
        }
    }
    br->t = t;
    tl_chain_pose pa = tl_chain_pose_from_matrix(ma), pb = tl_chain_pose_from_matrix(mb);
    float q[4], d = tl_quat_dot(pa.rotation, pb.rotation) < 0 ? -1.0f : 1.0f, len = 0;
    for (int k = 0; k < 4; ++k)
        q[k] = (1 - t) * pa.rotation[k] + t * d * pb.rotation[k], len += q[k] * q[k];
    len = sqrtf(len);
    for (int k = 0; k < 4; ++k)
        q[k] /= len;
    quat_to_matrix(q, (1 - t) * pa.scale + t * pb.scale, br->m);
    float head[3], tail[3], bind_head[3], bind_tail[3];
    lerp3(ha, hb, t, head), lerp3(ea, eb, t, tail);
    lerp3(br->head_a, br->head_b, t, bind_head), lerp3(br->tail_a, br->tail_b, t, bind_tail);
    if (h->push) {
        float allowed[TL_BODY_COLLIDERS_MAX];
        for (uint32_t c = 0; c < nc; ++c)
            allowed[c] = br->rest_depth[c] > -br->clear ? br->rest_depth[c] : -br->clear;
        push_out(world, nc, allowed, step, head);
        for (uint32_t c = 0; c < nc; ++c)
            allowed[c] = br->rest_tail_depth[c] > -br->clear ? br->rest_tail_depth[c] : -br->clear;
        push_out(world, nc, allowed, step, tail);
    }
    if (h->aim && br->has_tail) { /* the turn swung so the bone runs head to tail */
        float d0[3], d1[3], r0[3];
        for (int k = 0; k < 3; ++k)
            d0[k] = bind_tail[k] - bind_head[k], d1[k] = tail[k] - head[k];
        for (int k = 0; k < 3; ++k)
            r0[k] = br->m[k] * d0[0] + br->m[4 + k] * d0[1] + br->m[8 + k] * d0[2];
        swing(r0, d1, br->m);
    }
    /* m p = head + R (p - bind_head) */
    for (int k = 0; k < 3; ++k)
        br->m[12 + k] = head[k] - (br->m[k] * bind_head[0] + br->m[4 + k] * bind_head[1] +
                                   br->m[8 + k] * bind_head[2]);
}

static void vertex_skin(const tl_hair_bridges* h, const br_vertex* bv, const float* joints,
                        float acc[3]) {
    const tl_scene_skin* sk = &h->scene->skins[h->skin];
    uint32_t per = h->per;
    const float* p = sk->bind_positions + 3 * (size_t)bv->v;
    const uint32_t* js = bv->js;
    acc[0] = acc[1] = acc[2] = 0;
    for (uint32_t k = 0; k < per && k < 16; ++k) {
        if (bv->w[k] == 0) continue;
        const float* m = joints + 16 * (size_t)js[k];
        for (int c = 0; c < 3; ++c)
            acc[c] += bv->w[k] * (m[c] * p[0] + m[4 + c] * p[1] + m[8 + c] * p[2] + m[12 + c]);
    }
    for (uint32_t k = 0; k < bv->n; ++k) {
        const float* m = h->bridges[bv->bridge[k]].m;
        for (int c = 0; c < 3; ++c)
            acc[c] += bv->bw[k] * (m[c] * p[0] + m[4 + c] * p[1] + m[8 + c] * p[2] + m[12 + c]);
    }
}

/* The row's share by its vertices: from its own share towards the nearer chain in eighths, the
 * first at which none of the row's vertices lies deeper in a collider than at rest. */
static float group_share_vertices(tl_hair_bridges* h, uint32_t g, const float* joints,
                                  const tl_collider* world, uint32_t nc, float step) {
    float u = (float)h->groups[g][2] / (float)h->rows, best = INFINITY, t_best = u;
    float cand[24];
    int n = 0;
    if (u < 0.5f)
        for (float t = u; t > -0.01f; t -= 0.125f)
            cand[n++] = t < 0 ? 0 : t;
    else if (u > 0.5f)
        for (float t = u; t < 1.01f; t += 0.125f)
            cand[n++] = t > 1 ? 1 : t;
    else {
        static const float ts[] = {0.5f, 0.375f, 0.625f, 0.25f, 0.75f, 0.125f, 0.875f, 0, 1};
        for (int k = 0; k < 9; ++k)
            cand[n++] = ts[k];
    }
    if (h->both && u != 0.5f) /* then the far side */
        for (float t = u + (u < 0.5f ? 0.125f : -0.125f); t > -0.01f && t < 1.01f;
             t += u < 0.5f ? 0.125f : -0.125f)
            cand[n++] = t;
    for (int k = 0; k < n; ++k) {
        for (uint32_t i = h->first[g]; i != UINT32_MAX; i = h->bridges[i].next) {
            h->bridges[i].t = cand[k];
            bridge_pose(h, &h->bridges[i], joints, world, nc, step);
        }
        float e = -INFINITY;
        for (uint32_t i = h->first_v[g]; i != UINT32_MAX; i = h->verts[i].gnext) {
            float x[3];
            vertex_skin(h, &h->verts[i], joints, x);
            for (uint32_t c = 0; c < nc; ++c) {
                float r = h->verts[i].rest_depth[c];
                float d = tl_collider_depth(&world[c], x) - (r > 0 ? r : 0);
                e = d > e ? d : e;
            }
        }
        if (e < best) best = e, t_best = cand[k];
        if (e <= 1e-5f * h->scene->skins[h->skin].height) break;
    }
    return t_best;
}

void tl_hair_bridges_skin(tl_hair_bridges* h, const float* joints, float* out) {
    const tl_scene_skin* sk = &h->scene->skins[h->skin];
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    uint32_t nc = sk->collider_count;
    for (uint32_t c = 0; c < nc; ++c) {
        float mv[16];
        tl_mat4_mul(mv, joints + 16 * (size_t)sk->colliders[c].joint, h->inv_m);
        double md[16];
        tl_mat4d_from_float(md, mv);
        tl_collider_transform(&sk->colliders[c].local, md, &world[c]);
    }
    float step = 0.001f * (sk->height > 0 ? sk->height : 1);
    for (uint32_t g = 0; g < h->group_count; ++g)
        h->group_t[g] = h->vcheck ? group_share_vertices(h, g, joints, world, nc, step)
                                  : group_share(h, g, joints, world, nc);
    for (uint32_t i = 0; i < h->count; ++i) {
        if (h->bridges[i].group != UINT32_MAX) h->bridges[i].t = h->group_t[h->bridges[i].group];
        bridge_pose(h, &h->bridges[i], joints, world, nc, step);
    }
    uint32_t per = h->per;
    for (uint32_t i = 0; i < h->vert_count; ++i) {
        const br_vertex* bv = &h->verts[i];
        const float* p = sk->bind_positions + 3 * (size_t)bv->v;
        const uint32_t* js = bv->js;
        float acc[3] = {0, 0, 0};
        for (uint32_t k = 0; k < per && k < 16; ++k) {
            if (bv->w[k] == 0) continue;
            const float* m = joints + 16 * (size_t)js[k];
            for (int c = 0; c < 3; ++c)
                acc[c] += bv->w[k] * (m[c] * p[0] + m[4 + c] * p[1] + m[8 + c] * p[2] + m[12 + c]);
        }
        for (uint32_t k = 0; k < bv->n; ++k) {
            const float* m = h->bridges[bv->bridge[k]].m;
            for (int c = 0; c < 3; ++c)
                acc[c] += bv->bw[k] * (m[c] * p[0] + m[4 + c] * p[1] + m[8 + c] * p[2] + m[12 + c]);
        }
        memcpy(out + 3 * (size_t)bv->v, acc, sizeof acc);
        if (getenv("TL_PROTO_BTRACE") && (uint32_t)atoi(getenv("TL_PROTO_BTRACE")) == bv->v) {
            float worst = 0;
            uint32_t wc = 0;
            for (uint32_t c = 0; c < nc; ++c) {
                float d = tl_collider_depth(&world[c], acc);
                if (d > worst) worst = d, wc = c;
            }
            fprintf(stderr, "v %u at (%.3f %.3f %.3f) depth %.4f in %u; bind (%.3f %.3f %.3f)\n",
                    bv->v, acc[0], acc[1], acc[2], worst / sk->height, wc, p[0], p[1], p[2]);
            for (uint32_t k = 0; k < per; ++k) {
                if (sk->influence_weights[(size_t)bv->v * per + k] == 0) continue;
                float x[3];
                tl_mat4_transform_point(x, joints + 16 * (size_t)js[k], p);
                fprintf(stderr, "  alone on %s (w %.2f -> %.2f): (%.3f %.3f %.3f) depth %.4f\n",
                        sk->joints[js[k]].name, sk->influence_weights[(size_t)bv->v * per + k],
                        bv->w[k], x[0], x[1], x[2], tl_collider_depth(&world[wc], x) / sk->height);
            }
            for (uint32_t k = 0; k < bv->n; ++k) {
                const br_bridge* br = &h->bridges[bv->bridge[k]];
                float x[3];
                tl_mat4_transform_point(x, br->m, p);
                fprintf(stderr, "  alone on the bridge t %.3f: (%.3f %.3f %.3f) depth %.4f\n", br->t,
                        x[0], x[1], x[2], tl_collider_depth(&world[wc], x) / sk->height);
                float hd[3], tl[3], rest_h[3], rest_t[3];
                tl_mat4_transform_point(hd, br->m, br->bind_head);
                tl_mat4_transform_point(tl, br->m, br->bind_tail);
                float ja[3], jb[3], ea[3], eb[3];
                tl_mat4_transform_point(ja, joints + 16 * (size_t)br->a, br->head_a);
                tl_mat4_transform_point(jb, joints + 16 * (size_t)br->b, br->head_b);
                tl_mat4_transform_point(ea, joints + 16 * (size_t)br->ta, br->tail_a);
                tl_mat4_transform_point(eb, joints + 16 * (size_t)br->tb, br->tail_b);
                (void)rest_h, (void)rest_t;
                fprintf(stderr,
                        "  bridge %s/%s w %.2f clear %.4f: head depth %.4f (rest %.4f) tail %.4f "
                        "(rest %.4f); A head %.4f tail %.4f, B head %.4f tail %.4f (H)\n",
                        sk->joints[br->a].name, sk->joints[br->b].name, bv->bw[k],
                        br->clear / sk->height, tl_collider_depth(&world[wc], hd) / sk->height,
                        br->rest_depth[wc] / sk->height,
                        tl_collider_depth(&world[wc], tl) / sk->height,
                        br->rest_tail_depth[wc] / sk->height,
                        tl_collider_depth(&world[wc], ja) / sk->height,
                        tl_collider_depth(&world[wc], ea) / sk->height,
                        tl_collider_depth(&world[wc], jb) / sk->height,
                        tl_collider_depth(&world[wc], eb) / sk->height);
            }
        }
    }
}
