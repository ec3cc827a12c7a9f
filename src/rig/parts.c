/* Far parts (tails.md §2–§6): connected far skin on welded geometry, overlapping shells
 * merged, the collar and the attachment joint, the limb, shape and length tests, the tube
 * ratio, re-splitting at rising thresholds, the class table, the already-rigged check and
 * growth over the misbound root. */
#include "internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rig_wpart_free(rig_wpart* part) {
    rig_list_free(&part->verts);
    rig_list_free(&part->collar);
    free(part->g);
    part->g = NULL;
}

/* A growable array of parts. */
typedef struct part_array {
    rig_wpart* items;
    uint32_t count, capacity;
} part_array;

static rig_wpart* part_array_add(part_array* a) {
    if (a->count == a->capacity) {
        uint32_t capacity = a->capacity ? 2 * a->capacity : 8;
        rig_wpart* grown = realloc(a->items, capacity * sizeof *grown);
        if (!grown) return NULL;
        a->items = grown;
        a->capacity = capacity;
    }
    rig_wpart* p = &a->items[a->count++];
    *p = (rig_wpart){0};
    p->attach = TL_NONE;
    return p;
}

static void part_array_free(part_array* a) {
    for (uint32_t i = 0; i < a->count; ++i)
        rig_wpart_free(&a->items[i]);
    free(a->items);
    *a = (part_array){0};
}

static float dist3(const float* a, const float* b) {
    float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static int compare_by_key(const void* a, const void* b) {
    const float* x = a;
    const float* y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* ---- collar and attachment ---------------------------------------------------------------- */

/* The ring of welded neighbours outside the part; when there is none (a shell modelled
 * apart), the part's own vertices nearest the skeleton. `keep` (optional) filters the
 * ring. */
bool rig_part_collar(rig_ctx* ctx, rig_wpart* p, const uint8_t* keep) {
    p->collar.count = 0;
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i)
        ctx->stamp[p->verts.items[i]] = in;
    uint32_t seen = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t v = p->verts.items[i];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            uint32_t u = ctx->adj[k];
            if (ctx->stamp[u] == in || ctx->stamp[u] == seen) continue;
            ctx->stamp[u] = seen;
            if (keep && !keep[u]) continue;
            if (!rig_list_push(&p->collar, u)) return false;
        }
    }
    p->own_collar = p->collar.count == 0;
    if (p->own_collar && p->verts.count) {
        uint32_t n = p->verts.count;
        float* keyed = malloc(2 * (size_t)n * sizeof *keyed);
        if (!keyed) return false;
        for (uint32_t i = 0; i < n; ++i) {
            keyed[2 * i] = ctx->dskel[p->verts.items[i]];
            keyed[2 * i + 1] = (float)p->verts.items[i]; /* exact below 2^24 vertices */
        }
        qsort(keyed, n, 2 * sizeof *keyed, compare_by_key);
        uint32_t take = (uint32_t)ceilf(ctx->def->collar_share * (float)n);
        if (take < 1) take = 1;
        for (uint32_t i = 0; i < take; ++i)
            if (!rig_list_push(&p->collar, (uint32_t)keyed[2 * i + 1])) {
                free(keyed);
                return false;
            }
        free(keyed);
    }
    return true;
}

static void centroid_of(const rig_ctx* ctx, const rig_list* list, float out[3]) {
    double s[3] = {0, 0, 0};
    for (uint32_t i = 0; i < list->count; ++i)
        for (int k = 0; k < 3; ++k)
            s[k] += ctx->wpos[3 * (size_t)list->items[i] + k];
    for (int k = 0; k < 3; ++k)
        out[k] = list->count ? (float)(s[k] / list->count) : 0.0f;
}

static bool is_torso(tl_role r) {
    return r == TL_ROLE_PELVIS || r == TL_ROLE_SPINE || r == TL_ROLE_CHEST;
}
static bool is_thigh(tl_role r) {
    return r == TL_ROLE_THIGH || r == TL_ROLE_HIP;
}

/* The nearest deforming joint to the collar centroid, with the bias of §3: a torso joint
 * within attach_bias × the nearest distance wins, then a thigh joint. Never the collar's
 * weights: a shell's collar carries the same wrong weights being fixed. */
static void part_attach(rig_ctx* ctx, rig_wpart* p) {
    centroid_of(ctx, &p->collar, p->collar_c);
    const tl_scene_skin* skin = ctx->skin;
    int32_t nearest = TL_NONE;
    float best = INFINITY;
    for (uint32_t j = 0; j < skin->joint_count; ++j) {
        if (!skin->joints[j].deforming) continue;
        float d = dist3(p->collar_c, skin->joints[j].rest_world + 12);
        if (d < best) best = d, nearest = (int32_t)j;
    }
    p->attach = nearest;
    if (nearest == TL_NONE) return;
    float limit = ctx->def->attach_bias * best;
    for (int pass = 0; pass < 2; ++pass) {
        int32_t pick = TL_NONE;
        float pick_d = INFINITY;
        for (uint32_t j = 0; j < skin->joint_count; ++j) {
            if (!skin->joints[j].deforming) continue;
            tl_role r = skin->joints[j].role;
            if (pass == 0 ? !is_torso(r) : !is_thigh(r)) continue;
            float d = dist3(p->collar_c, skin->joints[j].rest_world + 12);
            if (d <= limit && d < pick_d) pick_d = d, pick = (int32_t)j;
        }
        if (pick != TL_NONE) {
            p->attach = pick;
            return;
        }
    }
}

/* ---- tests --------------------------------------------------------------------------------- */

/* The limb test (§4): thick body skin wraps its bone, so its centroid falls back near it. */
static bool part_limb_test(rig_ctx* ctx, rig_wpart* p) {
    float c[3];
    centroid_of(ctx, &p->verts, c);
    float reach = 0;
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        float d = dist3(ctx->wpos + 3 * (size_t)p->verts.items[i], p->collar_c);
        if (d > reach) reach = d;
    }
    p->reach = reach;
    p->centroid_ratio = reach > 0 ? rig_skeleton_distance(&ctx->bones, c) / reach : 0;
    return p->centroid_ratio >= ctx->def->limb_ratio;
}

/* Elongation sqrt(λ1/λ2) of the welded positions, and the tube ratio: length over the mean
 * diameter of six geodesic bands. A band's diameter is twice the mean distance of its
 * vertices from the line through its centroid along the local axis (the centroids of the
 * bands on either side), so a band's own length along a tube does not count as width. */
static void part_shape(rig_ctx* ctx, rig_wpart* p) {
    float cov[9], mean[3], values[3], vectors[9];
    tl_mesh_covariance(cov, mean, ctx->wpos, ctx->W, 12, p->verts.items, p->verts.count);
    tl_mesh_eigen_symmetric(values, vectors, cov);
    float l2 = values[1] > 0 ? values[1] : 0;
    /* λ2 below 1e-6 λ1 (a flat strip or a line) is float noise, different at every scale:
     * the ratio is then reported as its floor's, sqrt(1e6) = 1000, at any size. */
    p->elongation = !(values[0] > 0) ? 1.0f : l2 > 1e-6f * values[0] ? sqrtf(values[0] / l2) : 1e3f;

    enum { BANDS = 6 };
    double sum[BANDS][3] = {{0}};
    uint32_t count[BANDS] = {0};
    float L = p->length;
    if (!(L > 0) || !p->g) {
        p->tube_ratio = 0;
        return;
    }
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        int b = (int)(p->g[i] / L * BANDS);
        b = b < 0 ? 0 : b >= BANDS ? BANDS - 1 : b;
        const float* x = ctx->wpos + 3 * (size_t)p->verts.items[i];
        for (int k = 0; k < 3; ++k)
            sum[b][k] += x[k];
        count[b]++;
    }
    float c[BANDS][3];
    for (int b = 0; b < BANDS; ++b)
        for (int k = 0; k < 3; ++k)
            c[b][k] = count[b] ? (float)(sum[b][k] / count[b]) : 0;
    float axis[BANDS][3];
    for (int b = 0; b < BANDS; ++b) {
        int lo = b, hi = b;
        while (lo > 0 && (lo == b || !count[lo]))
            --lo;
        while (hi < BANDS - 1 && (hi == b || !count[hi]))
            ++hi;
        if (!count[lo]) lo = b;
        if (!count[hi]) hi = b;
        float a[3] = {c[hi][0] - c[lo][0], c[hi][1] - c[lo][1], c[hi][2] - c[lo][2]};
        float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        for (int k = 0; k < 3; ++k)
            axis[b][k] = len > 0 ? a[k] / len : 0;
    }
    double radial[BANDS] = {0};
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        int b = (int)(p->g[i] / L * BANDS);
        b = b < 0 ? 0 : b >= BANDS ? BANDS - 1 : b;
        const float* x = ctx->wpos + 3 * (size_t)p->verts.items[i];
        float d[3] = {x[0] - c[b][0], x[1] - c[b][1], x[2] - c[b][2]};
        float along = d[0] * axis[b][0] + d[1] * axis[b][1] + d[2] * axis[b][2];
        for (int k = 0; k < 3; ++k)
            d[k] -= along * axis[b][k];
        radial[b] += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    double diameter = 0;
    int bands = 0;
    for (int b = 0; b < BANDS; ++b) {
        if (!count[b]) continue;
        diameter += 2 * radial[b] / count[b];
        bands++;
    }
    diameter = bands ? diameter / bands : 0;
    p->tube_ratio = diameter > 0 ? (float)(L / diameter) : 0; /* a point or a line: no tube */
}

static const char* class_reason(tl_rig_class cls, tl_rig_region region, bool long_part,
                                bool short_chain) {
    switch (cls) {
    case TL_RIG_CLASS_BODY:
        return "its centroid lies near a bone (limb test): body skin around its bone";
    case TL_RIG_CLASS_TAIL:
        return "long, hangs from the pelvis region: a tail";
    case TL_RIG_CLASS_RIGID:
        if (region == TL_RIG_REGION_LIMB) return "hangs from a limb: moves with that bone";
        if (short_chain) return "long but too short for a chain: moves with its joint";
        return "long, hangs from the spine: a carried object, moves with that bone";
    case TL_RIG_CLASS_CLOTH:
        return region == TL_RIG_REGION_PELVIS
                   ? "wide, hangs from the pelvis region: cloth (a skirt)"
                   : "wide, hangs from the spine: cloth (a cape)";
    case TL_RIG_CLASS_NONE:
        if (region == TL_RIG_REGION_HEAD)
            return long_part ? "long, hangs from the head: moves with the head (ears)"
                             : "wide, hangs from the head: hair, left to the hair pipeline";
        return "hangs from a joint with no body role: left";
    default:
        return "";
    }
}

/* Everything after the limb test: shape, length, class (the table of §4). */
static bool part_classify(rig_ctx* ctx, rig_wpart* p, bool limb) {
    p->region = p->attach != TL_NONE ? (tl_rig_region)ctx->region[p->attach] : TL_RIG_REGION_OTHER;
    double t0 = rig_now();
    if (!rig_part_geodesic(ctx, p)) return false;
    ctx->seconds[TL_RIG_STAGE_GEODESICS] += rig_now() - t0;
    part_shape(ctx, p);
    if (!limb) {
        p->cls = TL_RIG_CLASS_BODY;
        p->reason = class_reason(p->cls, p->region, false, false);
        return true;
    }
    const tl_rig_def* def = ctx->def;
    bool long_part = p->elongation >= def->elongation || p->tube_ratio >= def->tube_ratio;
    bool short_chain = false;
    switch (p->region) {
    case TL_RIG_REGION_PELVIS:
        if (!long_part)
            p->cls = TL_RIG_CLASS_CLOTH;
        else if (p->length >= def->min_length * ctx->H)
            p->cls = TL_RIG_CLASS_TAIL;
        else
            p->cls = TL_RIG_CLASS_RIGID, short_chain = true;
        break;
    case TL_RIG_REGION_SPINE:
        p->cls = long_part ? TL_RIG_CLASS_RIGID : TL_RIG_CLASS_CLOTH;
        break;
    case TL_RIG_REGION_LIMB:
        p->cls = TL_RIG_CLASS_RIGID;
        break;
    default:
        p->cls = TL_RIG_CLASS_NONE;
        break;
    }
    p->reason = class_reason(p->cls, p->region, long_part, short_chain);
    return true;
}

/* ---- components, merging, re-splitting ----------------------------------------------------- */

/* Connected components of the vertices of `set` (all welded vertices when NULL) whose
 * skeleton distance exceeds `limit`, along edges with both ends in it. */
static bool far_components(rig_ctx* ctx, const rig_list* set, float limit, float threshold,
                           const uint8_t* pick, part_array* out) {
    uint32_t member = rig_stamp(ctx);
    uint32_t n = set ? set->count : ctx->W;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t v = set ? set->items[i] : i;
        /* limit < 0: the vertices of the set marked in `pick`, at any distance (split_by) */
        if (limit < 0 ? pick[v] != 0 : ctx->dskel[v] > limit) ctx->stamp[v] = member;
    }
    uint32_t done = rig_stamp(ctx);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t seed = set ? set->items[i] : i;
        if (ctx->stamp[seed] != member) continue;
        rig_wpart* p = part_array_add(out);
        if (!p) return false;
        p->threshold = threshold;
        p->shells = 1;
        uint32_t head = 0, tail = 0;
        ctx->queue[tail++] = seed;
        ctx->stamp[seed] = done;
        while (head < tail) {
            uint32_t v = ctx->queue[head++];
            if (!rig_list_push(&p->verts, v)) return false;
            for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
                uint32_t u = ctx->adj[k];
                if (ctx->stamp[u] != member) continue;
                ctx->stamp[u] = done;
                ctx->queue[tail++] = u;
            }
        }
    }
    return true;
}

static uint32_t find_root(uint32_t* parent, uint32_t x) {
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

static int compare_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* Collars and attachments of fresh components (and, when `garments`, the garment test), then
 * shells that overlap by more than half
 * and hang from the same joint become one part; its collar is the union of theirs. */
static bool attach_and_merge(rig_ctx* ctx, part_array* parts, bool garments) {
    uint32_t n = parts->count;
    for (uint32_t i = 0; i < n; ++i) {
        if (!rig_part_collar(ctx, &parts->items[i], NULL)) return false;
        part_attach(ctx, &parts->items[i]);
        if (garments && !rig_part_garment(ctx, &parts->items[i], &parts->items[i].garment))
            return false;
    }
    if (n < 2) return true;
    uint32_t* parent = malloc(n * sizeof *parent);
    tl_mesh_box* boxes = malloc(n * sizeof *boxes);
    if (!parent || !boxes) {
        free(parent);
        free(boxes);
        return false;
    }
    for (uint32_t i = 0; i < n; ++i) {
        parent[i] = i;
        boxes[i] = tl_mesh_box_of(ctx->wpos, ctx->W, 12, parts->items[i].verts.items,
                                  parts->items[i].verts.count);
    }
    bool merged = false;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j) {
            if (parts->items[i].attach != parts->items[j].attach) continue;
            /* a garment does not take in the body skin it covers */
            if (parts->items[i].garment != parts->items[j].garment) continue;
            if (tl_mesh_box_overlap(&boxes[i], &boxes[j]) <= ctx->def->overlap) continue;
            uint32_t a = find_root(parent, i), b = find_root(parent, j);
            if (a != b) parent[a > b ? a : b] = a < b ? a : b, merged = true;
        }
    free(boxes);
    if (!merged) {
        free(parent);
        return true;
    }
    bool ok = true;
    for (uint32_t j = 0; j < n && ok; ++j) {
        uint32_t r = find_root(parent, j);
        if (r == j) continue;
        rig_wpart* dst = &parts->items[r];
        rig_wpart* src = &parts->items[j];
        for (uint32_t k = 0; k < src->verts.count && ok; ++k)
            ok = rig_list_push(&dst->verts, src->verts.items[k]);
        for (uint32_t k = 0; k < src->collar.count && ok; ++k)
            ok = rig_list_push(&dst->collar, src->collar.items[k]);
        dst->own_collar = dst->own_collar && src->own_collar;
        dst->shells += src->shells;
        src->shells = 0; /* marks it merged away */
    }
    uint32_t kept = 0;
    for (uint32_t j = 0; j < n; ++j) {
        if (parts->items[j].shells == 0) {
            rig_wpart_free(&parts->items[j]);
            continue;
        }
        rig_wpart* p = &parts->items[j];
        if (p->shells > 1) {
            qsort(p->verts.items, p->verts.count, sizeof(uint32_t), compare_u32);
            qsort(p->collar.items, p->collar.count, sizeof(uint32_t), compare_u32);
            uint32_t m = 0; /* drop duplicate collar vertices */
            for (uint32_t k = 0; k < p->collar.count; ++k)
                if (m == 0 || p->collar.items[m - 1] != p->collar.items[k])
                    p->collar.items[m++] = p->collar.items[k];
            p->collar.count = m;
            centroid_of(ctx, &p->collar, p->collar_c);
        }
        parts->items[kept++] = *p;
    }
    parts->count = kept;
    free(parent);
    return ok;
}

static void move_part(part_array* to, rig_wpart* p, bool* ok) {
    rig_wpart* slot = part_array_add(to);
    if (!slot) {
        *ok = false;
        rig_wpart_free(p);
        return;
    }
    *slot = *p;
    *p = (rig_wpart){0};
}

/* Re-splits a part that failed the limb test at rising thresholds (§2), recursively;
 * only sub-parts classified as tails are kept (appended to `tails`). */
static bool resplit(rig_ctx* ctx, const rig_wpart* whole, uint32_t level, part_array* tails) {
    const tl_rig_def* def = ctx->def;
    part_array subs = {0};
    for (;; ++level) {
        float t = def->far + (float)level * def->resplit_step;
        if (t > def->resplit_max + 1e-6f || def->resplit_step <= 0) {
            part_array_free(&subs);
            return true;
        }
        for (uint32_t i = 0; i < subs.count; ++i)
            rig_wpart_free(&subs.items[i]);
        subs.count = 0;
        if (!far_components(ctx, &whole->verts, t * ctx->H, t, NULL, &subs)) goto fail;
        /* nothing dropped at this threshold: the same part, the same answer */
        if (subs.count == 1 && subs.items[0].verts.count == whole->verts.count) continue;
        break;
    }
    if (!attach_and_merge(ctx, &subs, false)) goto fail;
    bool ok = true;
    for (uint32_t i = 0; i < subs.count && ok; ++i) {
        rig_wpart* p = &subs.items[i];
        bool limb = part_limb_test(ctx, p);
        if (!limb) {
            ok = resplit(ctx, p, level + 1, tails);
            continue;
        }
        if (!part_classify(ctx, p, true)) goto fail;
        if (p->cls == TL_RIG_CLASS_TAIL) move_part(tails, p, &ok);
    }
    part_array_free(&subs);
    return ok;
fail:
    part_array_free(&subs);
    return false;
}

/* A body component in which re-splitting found no tail (§2): a short tail on a thick rump (the
 * Quaternius stag's) never comes apart from it by skeleton distance, since the rump is as far
 * from the bones as the tail. What sets such a tail apart is its binding (an auto-rigger bound
 * it to bones far from it: the component's misbound vertices) or, when it is bound to the
 * hips, its shape (protrude.c: skin under which no bone runs). The vertices marked in `pick`,
 * connected along mesh edges, are parts too, tested and classified as any part; only tails
 * are kept (to `tails`). */
static bool split_by(rig_ctx* ctx, const rig_wpart* whole, const uint8_t* pick, part_array* tails) {
    part_array subs = {0};
    bool ok = far_components(ctx, &whole->verts, -1.0f, whole->threshold, pick, &subs) &&
              attach_and_merge(ctx, &subs, false);
    for (uint32_t i = 0; i < subs.count && ok; ++i) {
        rig_wpart* p = &subs.items[i];
        if (!part_limb_test(ctx, p)) continue;
        ok = part_classify(ctx, p, true);
        if (ok && p->cls == TL_RIG_CLASS_TAIL) move_part(tails, p, &ok);
    }
    part_array_free(&subs);
    return ok;
}

/* The protrusions of a body component (protrude.c), split off as split_by does. */
static bool protrusion_split(rig_ctx* ctx, const rig_wpart* whole, part_array* tails) {
    uint8_t* grown = ctx->mask; /* borrowed, cleared below */
    bool ok = rig_protrusions(ctx, &whole->verts, grown) && split_by(ctx, whole, grown, tails);
    for (uint32_t i = 0; i < whole->verts.count; ++i)
        grown[whole->verts.items[i]] = 0;
    return ok;
}

/* ---- already rigged, growth ------------------------------------------------------------------ */

/* Grows a tail breadth-first over welded neighbours that are misbound and either not far or
 * unclassified body skin, and in no other classified part (§6); then the collar becomes
 * the ring of well-bound neighbours. */
static bool part_grow(rig_ctx* ctx, rig_wpart* p, int32_t self) {
    float far = ctx->def->far * ctx->H;
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i)
        ctx->stamp[p->verts.items[i]] = in;
    uint32_t head = 0, before = p->verts.count;
    while (head < p->verts.count) {
        uint32_t v = p->verts.items[head++];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            uint32_t u = ctx->adj[k];
            if (ctx->stamp[u] == in) continue;
            if (!ctx->misbound[u]) continue;
            if (!(ctx->dskel[u] <= far || ctx->body[u])) continue;
            if (ctx->owner[u] != -1 && ctx->owner[u] != self) continue;
            ctx->stamp[u] = in;
            if (!rig_list_push(&p->verts, u)) return false;
        }
    }
    p->grown = p->verts.count - before;
    if (p->grown == 0) return true;
    for (uint32_t i = before; i < p->verts.count; ++i)
        ctx->owner[p->verts.items[i]] = self;
    qsort(p->verts.items, p->verts.count, sizeof(uint32_t), compare_u32);
    /* the new collar: well-bound neighbours (a shell with none keeps its old collar) */
    rig_list old = p->collar;
    bool own = p->own_collar;
    p->collar = (rig_list){0};
    uint8_t* keep = ctx->mask; /* borrowed: well-bound marks, cleared below */
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t v = p->verts.items[i];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k)
            keep[ctx->adj[k]] = !ctx->misbound[ctx->adj[k]];
    }
    bool ok = rig_part_collar(ctx, p, keep);
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t v = p->verts.items[i];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k)
            keep[ctx->adj[k]] = 0;
    }
    if (!ok) {
        rig_list_free(&old);
        return false;
    }
    if (p->own_collar) { /* no well-bound ring: keep the collar it had */
        rig_list_free(&p->collar);
        p->collar = old;
        p->own_collar = own;
    } else {
        rig_list_free(&old);
    }
    float attach_c[3];
    memcpy(attach_c, p->collar_c, sizeof attach_c);
    centroid_of(ctx, &p->collar, p->collar_c);
    (void)attach_c; /* the attachment joint stays */
    free(p->g);
    p->g = NULL;
    double t0 = rig_now();
    if (!rig_part_geodesic(ctx, p)) return false;
    ctx->seconds[TL_RIG_STAGE_GEODESICS] += rig_now() - t0;
    part_limb_test(ctx, p); /* refresh reach and centroid ratio for the report */
    part_shape(ctx, p);
    return true;
}

/* ---- the whole search ---------------------------------------------------------------------- */

static bool add_part(rig_ctx* ctx, rig_wpart* p) {
    if (ctx->part_count == ctx->part_capacity) {
        uint32_t capacity = ctx->part_capacity ? 2 * ctx->part_capacity : 8;
        rig_wpart* grown = realloc(ctx->parts, capacity * sizeof *grown);
        if (!grown) return false;
        ctx->parts = grown;
        ctx->part_capacity = capacity;
    }
    ctx->parts[ctx->part_count++] = *p;
    *p = (rig_wpart){0};
    return true;
}

/* Removes from `p` the vertices of the found parts first..ctx->part_count-1. */
static void subtract_parts(rig_ctx* ctx, rig_wpart* p, uint32_t first) {
    uint32_t mark = rig_stamp(ctx);
    for (uint32_t i = first; i < ctx->part_count; ++i)
        for (uint32_t k = 0; k < ctx->parts[i].verts.count; ++k)
            ctx->stamp[ctx->parts[i].verts.items[k]] = mark;
    uint32_t m = 0;
    for (uint32_t i = 0; i < p->verts.count; ++i)
        if (ctx->stamp[p->verts.items[i]] != mark) p->verts.items[m++] = p->verts.items[i];
    p->verts.count = m;
}

/* The garments modelled apart (def->garment_nodes): each one cloth part (unskinned.c), taken
 * out of the parts found before; a part left empty is dropped. */
static bool garment_parts(rig_ctx* ctx) {
    for (uint32_t g = 0; g < ctx->def->garment_node_count; ++g) {
        rig_wpart p = {0};
        if (!rig_garment_part(ctx, ctx->def->garment_nodes[g], &p)) return false;
        if (!p.verts.count) continue;
        uint32_t first = ctx->part_count;
        if (!add_part(ctx, &p)) return rig_wpart_free(&p), false;
        for (uint32_t i = 0; i < first; ++i)
            subtract_parts(ctx, &ctx->parts[i], first);
        rig_wpart* q = &ctx->parts[first];
        centroid_of(ctx, &q->collar, q->collar_c);
        part_limb_test(ctx, q); /* reach and centroid ratio for the report: cloth either way */
        part_shape(ctx, q);
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < ctx->part_count; ++i) {
        if (ctx->parts[i].verts.count)
            ctx->parts[m++] = ctx->parts[i];
        else
            rig_wpart_free(&ctx->parts[i]);
    }
    ctx->part_count = m;
    return true;
}

bool rig_parts_find(rig_ctx* ctx) {
    const tl_rig_def* def = ctx->def;
    double t0 = rig_now();
    double geodesic_before = ctx->seconds[TL_RIG_STAGE_GEODESICS];
    part_array top = {0}, tails = {0};
    bool ok = rig_shells_build(ctx) &&
              far_components(ctx, NULL, def->far * ctx->H, def->far, NULL, &top) &&
              attach_and_merge(ctx, &top, true);
    for (uint32_t i = 0; i < top.count && ok; ++i) {
        rig_wpart* p = &top.items[i];
        bool limb = part_limb_test(ctx, p);
        if (limb || p->garment) {
            ok = part_classify(ctx, p, true);
            if (!limb && p->cls == TL_RIG_CLASS_CLOTH)
                p->reason = "a garment on its own shell, standing off the body: cloth";
            ok = ok && add_part(ctx, p);
            continue;
        }
        ok = part_classify(ctx, p, false);
        for (uint32_t k = 0; k < tails.count; ++k)
            rig_wpart_free(&tails.items[k]);
        tails.count = 0;
        if (ok) ok = resplit(ctx, p, 1, &tails);
        if (ok && tails.count == 0) ok = split_by(ctx, p, ctx->misbound, &tails);
        if (ok && tails.count == 0) ok = protrusion_split(ctx, p, &tails);
        if (!ok) break;
        /* a tail hanging between the legs fails the limb test only because the thighs are
           near: when one tail sub-part holds half the component, the component is the tail */
        int32_t whole = -1;
        for (uint32_t k = 0; k < tails.count; ++k)
            if (2 * tails.items[k].verts.count >= p->verts.count) whole = (int32_t)k;
        if (whole >= 0) {
            p->attach = tails.items[whole].attach;
            p->cls = TL_RIG_CLASS_TAIL;
            p->region = TL_RIG_REGION_PELVIS;
            p->reason = "a tail sub-part holds at least half of it: the whole part is that tail "
                        "(between the legs)";
            free(p->g);
            p->g = NULL;
            double tg = rig_now();
            ok = rig_part_geodesic(ctx, p);
            ctx->seconds[TL_RIG_STAGE_GEODESICS] += rig_now() - tg;
            if (ok) part_shape(ctx, p), ok = add_part(ctx, p);
            continue;
        }
        uint32_t first = ctx->part_count;
        for (uint32_t k = 0; k < tails.count && ok; ++k)
            ok = add_part(ctx, &tails.items[k]);
        tails.count = 0;
        /* the rest stays body skin: reported, and open to growth */
        if (ok) {
            subtract_parts(ctx, p, first);
            for (uint32_t v = 0; v < p->verts.count; ++v)
                ctx->body[p->verts.items[v]] = 1;
            if (p->verts.count) ok = add_part(ctx, p);
        }
    }
    part_array_free(&top);
    part_array_free(&tails);
    if (ok) ok = garment_parts(ctx);
    if (!ok) return false;

    /* owners: every classified part's vertices (growth may not enter them) */
    for (uint32_t i = 0; i < ctx->part_count; ++i) {
        const rig_wpart* p = &ctx->parts[i];
        if (p->cls == TL_RIG_CLASS_BODY) continue;
        for (uint32_t k = 0; k < p->verts.count; ++k)
            ctx->owner[p->verts.items[k]] = (int32_t)i;
    }
    double t1 = rig_now();
    ctx->seconds[TL_RIG_STAGE_PARTS] +=
        (t1 - t0) - (ctx->seconds[TL_RIG_STAGE_GEODESICS] - geodesic_before);
    return true;
}

/* Decides what happens to each part (after overrides), checks tails for their own bones and
 * grows the tails that will be re-weighted. `first_id` is the id of this skin's first part. */
bool rig_parts_decide(rig_ctx* ctx, uint32_t first_id) {
    const tl_rig_def* def = ctx->def;
    double t0 = rig_now();
    double geodesic_before = ctx->seconds[TL_RIG_STAGE_GEODESICS];
    /* each segment's nearest welded vertex, for the own-bones test (only when a tail needs it) */
    uint32_t* segment_vertex = NULL;
    bool ok = true;
    for (uint32_t i = 0; i < ctx->part_count && ok; ++i) {
        rig_wpart* p = &ctx->parts[i];
        uint32_t misbound = 0;
        for (uint32_t k = 0; k < p->verts.count; ++k)
            misbound += ctx->misbound[p->verts.items[k]];
        p->misbound = p->verts.count ? (float)misbound / (float)p->verts.count : 0;
        for (uint32_t o = 0; o < def->override_count; ++o) {
            if (def->overrides[o].part != first_id + i) continue;
            p->cls = def->overrides[o].cls;
            p->overridden = true;
        }
        p->action = TL_RIG_ACTION_REPORTED;
        if (p->attach == TL_NONE) continue;
        if (p->cls == TL_RIG_CLASS_TAIL) {
            if (p->overridden && !p->g) {
                double tg = rig_now();
                ok = rig_part_geodesic(ctx, p);
                ctx->seconds[TL_RIG_STAGE_GEODESICS] += rig_now() - tg;
                if (!ok) break;
                part_shape(ctx, p);
            }
            if (!segment_vertex) {
                segment_vertex = rig_segment_vertices(ctx);
                if (!segment_vertex) {
                    ok = false;
                    break;
                }
            }
            p->own_bones = rig_own_bone_share(ctx, p, segment_vertex);
            if (!p->overridden && p->own_bones >= def->own_bone_share) {
                p->action = TL_RIG_ACTION_ALREADY_RIGGED;
                p->reason = "a tail already bound to its own bones: left as the artist made it";
                continue;
            }
            p->action = def->mode == TL_RIG_MODE_CHAIN ? TL_RIG_ACTION_CHAIN : TL_RIG_ACTION_RIGID;
            if (def->grow) ok = part_grow(ctx, p, (int32_t)i);
        } else if (p->cls == TL_RIG_CLASS_RIGID || p->cls == TL_RIG_CLASS_CLOTH) {
            if (p->overridden && p->cls == TL_RIG_CLASS_RIGID) {
                p->action = TL_RIG_ACTION_RIGID;
            } else if (p->cls == TL_RIG_CLASS_CLOTH && def->cloth) {
                p->action = TL_RIG_ACTION_CLOTH; /* when its lattice can be built (cloth.c) */
            } else if (def->fix_rigid && p->misbound > 0.5f && !p->own_collar &&
                       rig_weight_overlap(ctx, p) < def->bound_like_collar) {
                p->action = TL_RIG_ACTION_RIGID;
            }
        }
        if (p->overridden) p->reason = "class set by the user";
    }
    free(segment_vertex);
    ctx->seconds[TL_RIG_STAGE_PARTS] +=
        (rig_now() - t0) - (ctx->seconds[TL_RIG_STAGE_GEODESICS] - geodesic_before);
    return ok;
}
