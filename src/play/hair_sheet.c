/* The sheet's ties between neighbouring hair chains, found in the skin (hair_sheet.h); held by
 * sheet_hold.c. */
#include "play/hair_sheet.h"

#include "play/chain_colliders.h"

#include "base/order.h"
#include "scene/schema.h"

#include <tailor/gltf_json.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The ties found so far, between `count` chains. */
typedef struct tie_list {
    uint32_t count, tie_count;
    play_sheet_tie* ties;
} tie_list;

static float dist(const float* a, const float* b) {
    float x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return sqrtf(x * x + y * y + z * z);
}

/* Ties between the same two links compare equal. */
static int tie_links(const play_sheet_tie* p, const play_sheet_tie* q) {
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->ia != q->ia) return p->ia < q->ia ? -1 : 1;
    if (p->ib != q->ib) return p->ib < q->ib ? -1 : 1;
    if (p->along != q->along) return p->along < q->along ? -1 : 1;
    return 0;
}

/* By links, then points and seam: a total order, so the merged means do not depend on qsort */
static int tie_order(const void* x, const void* y) {
    const play_sheet_tie *p = x, *q = y;
    int o = tie_links(p, q);
    if (o) return o;
    if (p->ta != q->ta) return p->ta < q->ta ? -1 : 1;
    if (p->tb != q->tb) return p->tb < q->tb ? -1 : 1;
    if (p->seam != q->seam) return p->seam < q->seam ? -1 : 1;
    return 0;
}

/* Appends the tie (a, ia, ta)-(b, ib, tb), a < b. False: out of memory. */
static bool tie_add(tie_list* s, size_t* capacity, uint32_t a, uint32_t ia, float ta, uint32_t b,
                    uint32_t ib, float tb, uint32_t along, float seam) {
    if (s->tie_count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 256;
        play_sheet_tie* t = realloc(s->ties, grown * sizeof *t);
        if (!t) return false;
        s->ties = t, *capacity = grown;
    }
    s->ties[s->tie_count++] = a < b ? (play_sheet_tie){a, b, ia, ib, ta, tb, along, seam}
                                    : (play_sheet_tie){b, a, ib, ia, tb, ta, along, seam};
    return true;
}

/* Where the rest-world point p lies along bone b of a chain (0 its head, 1 its tip; its tip the
 * next bone's head, the end joint, or the last link's tangent continued). The first link's head
 * is the root, which no tie moves: its points are tied at its tip (1). */
static float link_param(const tl_scene_skin* sk, const tl_play_chain* c, uint32_t b,
                        const float* p) {
    if (b == 0) return 1;
    const float* h = sk->joints[c->bone_joints[b]].rest_world + 12;
    float t[3];
    if (b + 1 < c->bone_count || c->end_joint >= 0) {
        uint32_t j = b + 1 < c->bone_count ? c->bone_joints[b + 1] : (uint32_t)c->end_joint;
        memcpy(t, sk->joints[j].rest_world + 12, sizeof t);
    } else {
        const float* g = sk->joints[c->bone_joints[b - 1]].rest_world + 12;
        for (int k = 0; k < 3; ++k)
            t[k] = 2 * h[k] - g[k];
    }
    float d[3] = {t[0] - h[0], t[1] - h[1], t[2] - h[2]};
    float dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (!(dd > 0)) return 1;
    float u = ((p[0] - h[0]) * d[0] + (p[1] - h[1]) * d[1] + (p[2] - h[2]) * d[2]) / dd;
    return u < 0 ? 0 : u > 1 ? 1 : u;
}

/* The edges of one skin between links of two coupled chains, as ties (duplicates kept). A
 * vertex's link is its lock's (play_skin_locks), so a seam blended between two locks keeps its
 * ties. */
static bool skin_ties(tie_list* s, size_t* capacity, const tl_scene* scene, uint32_t skin,
                      const tl_play_chain* descs, const int32_t* known_lock,
                      const uint32_t* known_side) {
    const tl_scene_skin* sk = &scene->skins[skin];
    bool known = known_lock && known_side;
    int32_t* owner = malloc(sizeof(int32_t) * 2 * (sk->joint_count + 1));
    int32_t* own_lock = known ? NULL : malloc(sizeof(int32_t) * (sk->vertex_count + 1));
    uint32_t* own_side = known ? NULL : malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
    const int32_t* lock = known ? known_lock : own_lock;
    const uint32_t* side = known ? known_side : own_side;
    bool any = false, ok = owner && lock && side;
    int32_t* bone = ok ? owner + sk->joint_count + 1 : NULL;
    for (uint32_t j = 0; ok && j < sk->joint_count; ++j)
        owner[j] = bone[j] = -1;
    for (uint32_t i = 0; ok && i < s->count; ++i)
        for (uint32_t b = 0;
             descs[i].skin == skin && descs[i].sheet_rate > 0 && b < descs[i].bone_count; ++b)
            owner[descs[i].bone_joints[b]] = (int32_t)i, bone[descs[i].bone_joints[b]] = (int32_t)b,
            any = true;
    ok = ok &&
         (!any || known || play_skin_locks(scene, skin, descs, s->count, own_lock, own_side, NULL));
    for (uint32_t t = 0; any && ok && t < sk->triangle_count; ++t)
        for (int e = 0; e < 3 && ok; ++e) {
            uint32_t u = sk->triangles[3 * t + e], v = sk->triangles[3 * t + (e + 1) % 3];
            uint32_t ju = side[u], jv = side[v];
            int32_t a = owner[ju], b = owner[jv];
            if (a < 0 && b >= 0) { /* the chain's end first */
                uint32_t w = u;
                u = v, v = w, w = ju, ju = jv, jv = w, a = b, b = -1;
            }
            if (a >= 0 && b < 0 && descs[a].sheet_head_ties && jv == descs[a].attach_joint) {
                /* hair left on the head beside a lock: the link's point beside it is held near
                   its rest spot on the head, as that hair is */
                const float *pu = sk->rest_positions + 3 * (size_t)u,
                            *pv = sk->rest_positions + 3 * (size_t)v;
                uint32_t ba = (uint32_t)bone[ju];
                ok = tie_add(s, capacity, (uint32_t)a, ba, link_param(sk, &descs[a], ba, pu),
                             PLAY_SHEET_HEAD_TIE, 0, 0, 2, dist(pu, pv));
                continue;
            }
            if (a < 0 || b < 0 || a == b || descs[a].attach_joint != descs[b].attach_joint)
                continue;
            uint32_t ba = (uint32_t)bone[ju], bb = (uint32_t)bone[jv];
            const float *pu = sk->rest_positions + 3 * (size_t)u,
                        *pv = sk->rest_positions + 3 * (size_t)v;
            /* the points of the two links beside the seam's ends: a tie then spans the gap
               between the locks, not their links' tips at other heights */
            float seam = dist(pu, pv);
            ok = tie_add(s, capacity, (uint32_t)a, ba, link_param(sk, &descs[a], ba, pu),
                         (uint32_t)b, bb, link_param(sk, &descs[b], bb, pv), 1, seam);
            /* the two links' tips, and each tip to the other link's head (a ladder alone shears) */
            if (ok) ok = tie_add(s, capacity, (uint32_t)a, ba, 1, (uint32_t)b, bb, 1, 0, seam);
            if (ok && ba > 0)
                ok = tie_add(s, capacity, (uint32_t)a, ba - 1, 1, (uint32_t)b, bb, 1, 0, seam);
            if (ok && bb > 0)
                ok = tie_add(s, capacity, (uint32_t)a, ba, 1, (uint32_t)b, bb - 1, 1, 0, seam);
        }
    free(owner), free(own_lock), free(own_side);
    return ok;
}

enum { TIE_KEYS = 8 };

/* Puts the ties in tie_order's order by a radix sort of their keys (the same order: stable, and
 * ties equal under tie_order are equal in every field set so far, bar a zero's sign). False:
 * out of memory, or a NaN point or seam, which tie_order does not order either. */
static bool ties_sort(tie_list* s) {
    uint32_t n = s->tie_count;
    uint32_t* keys = malloc(sizeof(uint32_t) * (TIE_KEYS + 2) * (size_t)n);
    play_sheet_tie* sorted = malloc(sizeof *sorted * n);
    bool ok = keys && sorted;
    for (uint32_t i = 0; ok && i < n; ++i) {
        const play_sheet_tie* t = &s->ties[i];
        ok = !isnan(t->ta) && !isnan(t->tb) && !isnan(t->seam);
        uint32_t* k = keys + (size_t)TIE_KEYS * i;
        k[0] = t->a, k[1] = t->b, k[2] = t->ia, k[3] = t->ib, k[4] = t->along;
        k[5] = tl_order_float_key(t->ta), k[6] = tl_order_float_key(t->tb);
        k[7] = tl_order_float_key(t->seam);
    }
    if (ok) {
        uint32_t* order = keys + (size_t)TIE_KEYS * n;
        tl_order_rows(keys, TIE_KEYS, n, order, order + n);
        for (uint32_t i = 0; i < n; ++i)
            sorted[i] = s->ties[order[i]];
        memcpy(s->ties, sorted, sizeof *sorted * n);
    }
    free(keys), free(sorted);
    return ok;
}

/* Sorts the ties and merges those between the same two links, their points and seam the mean
 * of theirs. */
static void ties_merge(tie_list* s) {
    if (s->tie_count == 0) return;
    if (!ties_sort(s)) qsort(s->ties, s->tie_count, sizeof *s->ties, tie_order);
    uint32_t kept = 0, run = 0;
    for (uint32_t k = 0; k < s->tie_count; ++k) {
        if (kept > 0 && tie_links(&s->ties[kept - 1], &s->ties[k]) == 0) {
            play_sheet_tie* t = &s->ties[kept - 1];
            float w = 1.0f / (float)(++run + 1);
            t->seam += (s->ties[k].seam - t->seam) * w;
            t->ta += (s->ties[k].ta - t->ta) * w, t->tb += (s->ties[k].tb - t->tb) * w;
            continue;
        }
        s->ties[kept++] = s->ties[k], run = 0;
    }
    s->tie_count = kept;
}

/* The chain of descs on the hair part at node n of skin s (its first bone), or -1. */
static int32_t node_chain(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                          uint32_t s, json_int_t n) {
    for (uint32_t i = 0; i < scene->part_count; ++i) {
        const tl_scene_part* part = &scene->parts[i];
        if (part->kind != TL_PART_HAIR || part->skin != s || (json_int_t)part->node != n) continue;
        for (uint32_t c = 0; c < count; ++c)
            if (descs[c].skin == s && descs[c].bone_count > 0 &&
                descs[c].bone_joints[0] == part->bone_joints[0])
                return (int32_t)c;
    }
    return -1;
}

/* By chains and links only, then the stored order: the found ties' order (stored so) kept. */
static int stored_order(const void* x, const void* y) {
    const play_sheet_tie *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->ia != q->ia) return p->ia < q->ia ? -1 : 1;
    if (p->ib != q->ib) return p->ib < q->ib ? -1 : 1;
    return (p->along > q->along) - (p->along < q->along); /* (the stored index, for now) */
}

/* The ties tailor rig stored (skins[s].extras.tailor.sheet, checked when the scene was read),
 * when every skin with coupled chains holds them: the player then plays what was stored, not
 * what the skin's weights say now, so weights changed after the play data was written (the seam
 * fit, src/hair/seam_fit.c) do not move the chains. False: not stored (or not usable: renumbered
 * nodes, head ties asked for), or out of memory; *ties NULL then. */
static bool stored_ties(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                        play_sheet_tie** ties, uint32_t* tie_count) {
    *ties = NULL, *tie_count = 0;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        if (scene->parts[i].resolved_by_name) return false;
    json_t* skins = json_object_get(tl_gltf_json(scene->doc), "skins");
    size_t total = 0;
    bool coupled = false;
    for (uint32_t c = 0; c < count; ++c) {
        if (descs[c].sheet_rate > 0 && descs[c].sheet_head_ties) return false;
        coupled |= descs[c].sheet_rate > 0;
    }
    for (uint32_t s = 0; s < scene->skin_count; ++s) {
        bool any = false;
        for (uint32_t c = 0; c < count; ++c)
            any |= descs[c].skin == s && descs[c].sheet_rate > 0;
        json_t* skin = json_array_get(skins, scene->skins[s].skin);
        json_t* list = json_object_get(
            json_object_get(json_object_get(skin, "extras"), TL_SCHEMA_KEY), TL_SCHEMA_SHEET);
        if (any && !json_is_array(list)) return false;
        total += any ? json_array_size(list) : 0;
    }
    if (!coupled) return false;
    play_sheet_tie* out = malloc(sizeof *out * (total + 1));
    if (!out) return false;
    uint32_t n = 0;
    for (uint32_t s = 0; s < scene->skin_count; ++s) {
        json_t* list = json_object_get(
            json_object_get(json_object_get(json_array_get(skins, scene->skins[s].skin), "extras"),
                            TL_SCHEMA_KEY),
            TL_SCHEMA_SHEET);
        for (size_t k = 0; json_is_array(list) && k < json_array_size(list); ++k) {
            json_t* o = json_array_get(list, k);
            json_t *parts = json_object_get(o, TL_SCHEMA_SHEET_PARTS),
                   *links = json_object_get(o, TL_SCHEMA_SHEET_LINKS),
                   *at = json_object_get(o, TL_SCHEMA_SHEET_AT);
            int32_t a =
                node_chain(scene, descs, count, s, json_integer_value(json_array_get(parts, 0)));
            int32_t b =
                node_chain(scene, descs, count, s, json_integer_value(json_array_get(parts, 1)));
            /* (a tie of a chain the caller left out or uncoupled is not held, as when found) */
            if (a < 0 || b < 0 || a == b || !(descs[a].sheet_rate > 0) ||
                !(descs[b].sheet_rate > 0) || descs[a].attach_joint != descs[b].attach_joint)
                continue;
            uint32_t ia = (uint32_t)json_integer_value(json_array_get(links, 0)),
                     ib = (uint32_t)json_integer_value(json_array_get(links, 1));
            if (ia >= descs[a].bone_count || ib >= descs[b].bone_count) continue;
            float ta = (float)json_number_value(json_array_get(at, 0)),
                  tb = (float)json_number_value(json_array_get(at, 1)),
                  seam = (float)json_number_value(json_object_get(o, TL_SCHEMA_SHEET_SEAM));
            /* along carries the stored index for the sort; the hold reads only a head tie's */
            uint32_t at_k = n++;
            out[at_k] =
                a < b ? (play_sheet_tie){(uint32_t)a, (uint32_t)b, ia, ib, ta, tb, at_k, seam}
                      : (play_sheet_tie){(uint32_t)b, (uint32_t)a, ib, ia, tb, ta, at_k, seam};
        }
    }
    qsort(out, n, sizeof *out, stored_order);
    for (uint32_t k = 0; k < n; ++k)
        out[k].along = 1; /* (as the web runtime holds stored ties) */
    if (n == 0) free(out), out = NULL;
    *ties = out, *tie_count = n;
    return true;
}

bool play_sheet_ties_find(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                          const int32_t* const* locks, const uint32_t* const* joints,
                          play_sheet_tie** ties, uint32_t* tie_count) {
    tie_list s = {count, 0, NULL};
    size_t capacity = 0;
    *ties = NULL, *tie_count = 0;
    for (uint32_t skin = 0; skin < scene->skin_count; ++skin)
        if (!skin_ties(&s, &capacity, scene, skin, descs, locks ? locks[skin] : NULL,
                       joints ? joints[skin] : NULL))
            return free(s.ties), false;
    ties_merge(&s);
    *ties = s.ties, *tie_count = s.tie_count;
    return true;
}

bool play_sheet_create(const tl_scene* scene, const tl_play_chain* descs, uint32_t count,
                       const int32_t* const* locks, const uint32_t* const* joints,
                       play_sheet** out) {
    *out = NULL;
    play_sheet_tie* ties;
    uint32_t tie_count;
    if (!stored_ties(scene, descs, count, &ties, &tie_count) &&
        !play_sheet_ties_find(scene, descs, count, locks, joints, &ties, &tie_count))
        return false;
    uint32_t* bones = malloc(sizeof *bones * (count + 1));
    for (uint32_t i = 0; bones && i < count; ++i)
        bones[i] = descs[i].bone_count;
    bool ok = bones && play_sheet_from_ties(ties, tie_count, count, bones, out);
    free(ties), free(bones);
    return ok;
}
