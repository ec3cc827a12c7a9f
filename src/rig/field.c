/* The skeleton distance field (tails.md §1) on welded geometry (§2): the bones are the
 * segments of the deforming joints, a vertex's skeleton distance is its distance to the
 * nearest bone, and its weighted bone distance is measured to the bones that move it. Also
 * the region (pelvis, spine, head, limb) of every joint (§3). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Processor time, so stage times do not count other programs on a shared machine. */
double rig_now(void) {
    return (double)clock() / CLOCKS_PER_SEC;
}

bool rig_list_push(rig_list* list, uint32_t value) {
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? 2 * list->capacity : 16;
        uint32_t* grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) return false;
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = value;
    return true;
}

void rig_list_free(rig_list* list) {
    free(list->items);
    *list = (rig_list){0};
}

uint32_t rig_stamp(rig_ctx* ctx) {
    if (++ctx->stamp_value == UINT32_MAX) {
        memset(ctx->stamp, 0, ctx->W * sizeof *ctx->stamp);
        ctx->stamp_value = 1;
    }
    return ctx->stamp_value;
}

static const float* joint_position(const tl_scene_skin* skin, uint32_t j) {
    return skin->joints[j].rest_world + 12;
}

bool rig_bones_build(rig_bones* bones, const tl_scene_skin* skin) {
    *bones = (rig_bones){0};
    uint32_t n = skin->joint_count;
    size_t bound = tl_scene_skin_bones_bound(skin);
    bones->first = calloc(n + 1, sizeof *bones->first);
    bones->ab = malloc((bound + 1) * 6 * sizeof *bones->ab);
    bones->joint = malloc((bound + 1) * sizeof *bones->joint);
    if (!bones->first || !bones->ab || !bones->joint) {
        rig_bones_free(bones);
        return false;
    }
    /* the deforming joints' bones: the weighted bone distance's, without the joints no skin
       follows */
    bones->count = (uint32_t)tl_scene_skin_bones(skin, true, bones->ab, bones->joint);
    for (uint32_t j = 0, s = 0; j <= n; ++j) {
        while (s < bones->count && bones->joint[s] < j)
            ++s;
        bones->first[j] = s;
    }
    bones->joint_count = n;
    return true;
}

void rig_bones_free(rig_bones* bones) {
    free(bones->ab);
    free(bones->joint);
    free(bones->first);
    *bones = (rig_bones){0};
}

float rig_joint_distance(const rig_bones* bones, uint32_t j, const float p[3]) {
    float best = INFINITY;
    for (uint32_t s = bones->first[j]; s < bones->first[j + 1]; ++s) {
        float d = tl_mesh_segment_distance(p, bones->ab + 6 * s, bones->ab + 6 * s + 3, NULL);
        if (d < best) best = d;
    }
    return best;
}

float rig_skeleton_distance(const rig_bones* bones, const float p[3]) {
    float d = INFINITY;
    if (bones->count) tl_mesh_nearest_segments(&d, NULL, p, 1, 12, bones->ab, bones->count);
    return d;
}

/* Squared distance from p to a box (lo xyz, hi xyz), in double. */
static double box_gap2(const float* x, const float p[3]) {
    double gap2 = 0;
    for (int k = 0; k < 3; ++k) {
        double below = (double)x[k] - p[k], above = (double)p[k] - x[3 + k];
        double g = below > 0 ? below : above > 0 ? above : 0;
        gap2 += g * g;
    }
    return gap2;
}

/* Bones per group of rig_skeleton_distances (consecutive joints lie near each other). */
#define FIELD_GROUP 8

/* The skeleton distance of `count` points (xyz), the value tl_mesh_nearest_segments gives
 * (bones->count > 0): a group of FIELD_GROUP bones, then a bone, is measured only when its box lies
 * within the nearest so far plus a slack of 1e-5 of the coordinates' size (the float test's
 * rounding is ~1e-6 of it), starting from the bone nearest the point before (welded vertices come
 * in mesh order, neighbours near). Only the value is kept, and sqrtf is monotone, so the least root
 * is the root of the least square. False: out of memory. */
bool rig_skeleton_distances(const rig_bones* bones, const float* points, uint32_t count,
                            float* out) {
    uint32_t n = bones->count, groups = (n + FIELD_GROUP - 1) / FIELD_GROUP;
    /* per bone, then per group: lo xyz, hi xyz, the largest |a|₁ + |b|₁ */
    float* box = malloc(7 * sizeof(float) * ((size_t)n + groups));
    if (!box) return false;
    float* group = box + 7 * (size_t)n;
    for (uint32_t s = 0; s < n; ++s) {
        const float *a = bones->ab + 6 * (size_t)s, *b = a + 3;
        float *x = box + 7 * (size_t)s, *gx = group + 7 * (size_t)(s / FIELD_GROUP);
        x[6] = 0;
        for (int k = 0; k < 3; ++k)
            x[k] = fminf(a[k], b[k]), x[3 + k] = fmaxf(a[k], b[k]),
            x[6] += fabsf(a[k]) + fabsf(b[k]);
        for (int k = 0; k < 7; ++k)
            gx[k] = s % FIELD_GROUP == 0 ? x[k] : k < 3 ? fminf(gx[k], x[k]) : fmaxf(gx[k], x[k]);
    }
    uint32_t seed = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const float* p = points + 3 * (size_t)i;
        double size = fabs((double)p[0]) + fabs((double)p[1]) + fabs((double)p[2]);
        float best = tl_mesh_segment_distance(p, bones->ab + 6 * (size_t)seed,
                                              bones->ab + 6 * (size_t)seed + 3, NULL);
        if (!(best <= INFINITY)) best = INFINITY; /* NaN is never taken */
        uint32_t nearest = seed;
        for (uint32_t gi = 0; gi < groups; ++gi) {
            const float* gx = group + 7 * (size_t)gi;
            double reach = best + 1e-5 * (size + gx[6]);
            if (box_gap2(gx, p) > reach * reach) continue; /* all its bones surely farther */
            uint32_t end = (gi + 1) * FIELD_GROUP < n ? (gi + 1) * FIELD_GROUP : n;
            for (uint32_t s = gi * FIELD_GROUP; s < end; ++s) {
                const float* x = box + 7 * (size_t)s;
                reach = best + 1e-5 * (size + x[6]);
                if (s == seed || box_gap2(x, p) > reach * reach) continue;
                float d = tl_mesh_segment_distance(p, bones->ab + 6 * (size_t)s,
                                                   bones->ab + 6 * (size_t)s + 3, NULL);
                if (d < best) best = d, nearest = s;
            }
        }
        out[i] = best;
        seed = nearest;
    }
    free(box);
    return true;
}

float rig_vertex_bone_distance(const rig_bones* bones, const tl_scene_skin* skin, uint32_t v) {
    const float* p = skin->rest_positions + 3 * (size_t)v;
    const uint32_t* joints = skin->influence_joints + (size_t)v * skin->influence_count;
    const float* weights = skin->influence_weights + (size_t)v * skin->influence_count;
    float sum = 0;
    for (uint32_t k = 0; k < skin->influence_count; ++k) {
        if (weights[k] <= 0) continue;
        float d = rig_joint_distance(bones, joints[k], p);
        if (isfinite(d)) sum += weights[k] * d;
    }
    return sum;
}

/* Weld by position, then the welded graph: copies of each welded vertex, edges, adjacency. */
static bool build_graph(rig_ctx* ctx) {
    const tl_scene_skin* skin = ctx->skin;
    uint32_t V = ctx->V;
    ctx->remap = malloc((size_t)V * sizeof *ctx->remap);
    if (!ctx->remap) return false;
    float tolerance = ctx->def->weld * ctx->H;
    size_t W =
        tl_mesh_weld(ctx->remap, skin->rest_positions, V, 12, tolerance > 0 ? tolerance : 1e-30f);
    if (W == TL_MESH_OUT_OF_MEMORY) return false;
    ctx->W = (uint32_t)W;
    ctx->wpos = malloc(3 * W * sizeof *ctx->wpos);
    ctx->copy_first = calloc(W + 1, sizeof *ctx->copy_first);
    ctx->copies = malloc((size_t)V * sizeof *ctx->copies);
    size_t index_count = 3 * (size_t)skin->triangle_count;
    uint32_t* edges =
        malloc(2 * tl_mesh_edges_bound(index_count ? index_count : 1) * sizeof *edges);
    if (!ctx->wpos || !ctx->copy_first || !ctx->copies || !edges) {
        free(edges);
        return false;
    }
    tl_mesh_weld_positions(ctx->wpos, ctx->remap, skin->rest_positions, V, 12);
    for (uint32_t v = 0; v < V; ++v)
        ctx->copy_first[ctx->remap[v] + 1]++;
    for (uint32_t w = 0; w < W; ++w)
        ctx->copy_first[w + 1] += ctx->copy_first[w];
    for (uint32_t v = 0; v < V; ++v)
        ctx->copies[ctx->copy_first[ctx->remap[v]]++] = v;
    for (uint32_t w = (uint32_t)W; w > 0; --w)
        ctx->copy_first[w] = ctx->copy_first[w - 1];
    ctx->copy_first[0] = 0;
    size_t edge_count = tl_mesh_edges(edges, skin->triangles, index_count, ctx->remap);
    if (edge_count == TL_MESH_OUT_OF_MEMORY) {
        free(edges);
        return false;
    }
    ctx->adj_off = malloc((W + 1) * sizeof *ctx->adj_off);
    ctx->adj = malloc((2 * edge_count + 1) * sizeof *ctx->adj);
    ctx->adj_len = malloc((2 * edge_count + 1) * sizeof *ctx->adj_len);
    if (!ctx->adj_off || !ctx->adj || !ctx->adj_len) {
        free(edges);
        return false;
    }
    tl_mesh_adjacency(ctx->adj_off, ctx->adj, ctx->adj_len, edges, edge_count, W, ctx->wpos, 12);
    free(edges);
    return true;
}

/* Regions of the joints (tails.md §3). The pelvis region is the lowest common ancestor of
 * the two thigh chains and the torso joints at or behind it, counting away from the head. */
static void build_regions(rig_ctx* ctx) {
    const tl_scene_skin* skin = ctx->skin;
    const tl_scene_body* body = &skin->body;
    uint32_t n = skin->joint_count;
    int32_t pelvis = body->pelvis;
    if (body->thigh[0] != TL_NONE && body->thigh[1] != TL_NONE) {
        for (int32_t a = body->thigh[0]; a != TL_NONE; a = skin->joints[a].parent) {
            int32_t b = body->thigh[1];
            while (b != TL_NONE && b != a)
                b = skin->joints[b].parent;
            if (b == a) {
                pelvis = a;
                break;
            }
        }
    }
    ctx->pelvis = pelvis;
    float toward_head[3] = {skin->up[0], skin->up[1], skin->up[2]};
    int32_t head = body->head != TL_NONE   ? body->head
                   : body->neck != TL_NONE ? body->neck
                                           : body->chest;
    if (pelvis != TL_NONE && head != TL_NONE) {
        const float* a = joint_position(skin, (uint32_t)pelvis);
        const float* b = joint_position(skin, (uint32_t)head);
        float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 0)
            for (int k = 0; k < 3; ++k)
                toward_head[k] = d[k] / len;
    }
    /* roles first; a joint with no role belongs to the head or limb it hangs below (ears,
       fingers), and otherwise to no region: a tail or root joint is neither pelvis nor spine */
    for (uint32_t j = 0; j < n; ++j) {
        int32_t r = -1;
        switch (skin->joints[j].role) {
        case TL_ROLE_PELVIS:
        case TL_ROLE_SPINE:
        case TL_ROLE_CHEST: {
            r = TL_RIG_REGION_SPINE;
            if (pelvis != TL_NONE) {
                const float* a = joint_position(skin, (uint32_t)pelvis);
                const float* p = joint_position(skin, j);
                float ahead = (p[0] - a[0]) * toward_head[0] + (p[1] - a[1]) * toward_head[1] +
                              (p[2] - a[2]) * toward_head[2];
                if (ahead <= ctx->def->pelvis_tolerance * ctx->H) r = TL_RIG_REGION_PELVIS;
            }
            break;
        }
        case TL_ROLE_NECK:
            r = TL_RIG_REGION_SPINE;
            break;
        case TL_ROLE_HEAD:
            r = TL_RIG_REGION_HEAD;
            break;
        case TL_ROLE_NONE:
            break;
        default:
            r = TL_RIG_REGION_LIMB;
            break;
        }
        if ((int32_t)j == pelvis) r = TL_RIG_REGION_PELVIS;
        ctx->region[j] = r;
    }
    for (uint32_t j = 0; j < n; ++j) {
        if (ctx->region[j] != -1) continue;
        int32_t a = skin->joints[j].parent;
        uint32_t guard = 0;
        while (a != TL_NONE && ctx->region[a] == -1 && guard++ < n)
            a = skin->joints[a].parent;
        bool inherit = a != TL_NONE && (ctx->region[a] == TL_RIG_REGION_HEAD ||
                                        ctx->region[a] == TL_RIG_REGION_LIMB);
        ctx->region[j] = inherit ? ctx->region[a] : -2;
    }
    for (uint32_t j = 0; j < n; ++j)
        if (ctx->region[j] < 0) ctx->region[j] = TL_RIG_REGION_OTHER;
}

bool rig_field_build(rig_ctx* ctx) {
    double t0 = rig_now();
    if (!build_graph(ctx)) return false;
    uint32_t W = ctx->W, V = ctx->V;
    ctx->stamp = calloc(W ? W : 1, sizeof *ctx->stamp);
    ctx->mask = calloc(W ? W : 1, 1);
    ctx->body = calloc(W ? W : 1, 1);
    ctx->queue = malloc((W ? W : 1) * sizeof *ctx->queue);
    ctx->owner = malloc((W ? W : 1) * sizeof *ctx->owner);
    if (!ctx->stamp || !ctx->mask || !ctx->body || !ctx->queue || !ctx->owner) return false;
    for (uint32_t w = 0; w < W; ++w)
        ctx->owner[w] = -1;
    double t1 = rig_now();
    ctx->seconds[TL_RIG_STAGE_WELD] += t1 - t0;

    ctx->region = malloc((ctx->skin->joint_count + 1) * sizeof *ctx->region);
    ctx->dskel = malloc((W ? W : 1) * sizeof *ctx->dskel);
    ctx->wbd = calloc(W ? W : 1, sizeof *ctx->wbd);
    ctx->wbd_union = malloc((V ? V : 1) * sizeof *ctx->wbd_union);
    ctx->misbound = calloc(W ? W : 1, 1);
    if (!ctx->region || !ctx->dskel || !ctx->wbd || !ctx->wbd_union || !ctx->misbound) return false;
    if (!rig_bones_build(&ctx->bones, ctx->skin)) return false;
    build_regions(ctx);
    if (ctx->bones.count) {
        if (!rig_skeleton_distances(&ctx->bones, ctx->wpos, W, ctx->dskel)) return false;
    } else
        for (uint32_t w = 0; w < W; ++w)
            ctx->dskel[w] = INFINITY;
    for (uint32_t v = 0; v < V; ++v) {
        ctx->wbd_union[v] = rig_vertex_bone_distance(&ctx->bones, ctx->skin, v);
        ctx->wbd[ctx->remap[v]] += ctx->wbd_union[v];
    }
    /* misbound: bound to bones much farther than the nearest (welded: mean over copies) */
    const tl_rig_def* def = ctx->def;
    for (uint32_t w = 0; w < W; ++w) {
        ctx->wbd[w] /= (float)(ctx->copy_first[w + 1] - ctx->copy_first[w]);
        ctx->misbound[w] =
            ctx->wbd[w] > def->misbound_ratio * ctx->dskel[w] + def->misbound_slack * ctx->H;
    }
    ctx->seconds[TL_RIG_STAGE_FIELD] += rig_now() - t1;
    return true;
}
