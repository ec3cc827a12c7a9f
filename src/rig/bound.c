/* How a part is bound (tails.md §5), for the decisions of parts.c: the share of a tail's
 * well-bound weight on its own bones, the weight overlap of a part and its collar ring, and
 * each bone segment's nearest welded vertex. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

static float dist3(const float* a, const float* b) {
    float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* Share of the well-bound skin weight of the part that sits on its own bones: joints whose
 * bone lies inside the part (the welded vertex nearest a segment's midpoint is in it). The
 * joint it hangs from is never its own: on a short tail on a thick rump, the hips' segment
 * ends nearer the tail's root than any rump skin (the Quaternius stag bound to its hips). */
float rig_own_bone_share(rig_ctx* ctx, const rig_wpart* p, const uint32_t* segment_vertex) {
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i)
        ctx->stamp[p->verts.items[i]] = in;
    const rig_bones* bones = &ctx->bones;
    const tl_scene_skin* skin = ctx->skin;
    uint8_t* own = calloc(skin->joint_count + 1, 1);
    if (!own) return 0;
    bool any = false;
    for (uint32_t s = 0; s < bones->count; ++s)
        if (ctx->stamp[segment_vertex[s]] == in && (int32_t)bones->joint[s] != p->attach)
            own[bones->joint[s]] = 1, any = true;
    double on_own = 0, total = 0;
    if (any) {
        for (uint32_t i = 0; i < p->verts.count; ++i) {
            uint32_t w = p->verts.items[i];
            if (ctx->misbound[w]) continue;
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c) {
                uint32_t v = ctx->copies[c];
                for (uint32_t k = 0; k < skin->influence_count; ++k) {
                    float wt = skin->influence_weights[(size_t)v * skin->influence_count + k];
                    total += wt;
                    if (own[skin->influence_joints[(size_t)v * skin->influence_count + k]])
                        on_own += wt;
                }
            }
        }
    }
    free(own);
    return total > 0 ? (float)(on_own / total) : 0.0f;
}

/* Σ_j min(a_j, b_j) of the mean weight vectors of the part and of its collar ring. */
float rig_weight_overlap(rig_ctx* ctx, const rig_wpart* p) {
    const tl_scene_skin* skin = ctx->skin;
    double* a = calloc(2 * (size_t)(skin->joint_count + 1), sizeof *a);
    if (!a) return 1.0f;
    double* b = a + skin->joint_count + 1;
    const rig_list* lists[2] = {&p->verts, &p->collar};
    double* sums[2] = {a, b};
    for (int l = 0; l < 2; ++l) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < lists[l]->count; ++i) {
            uint32_t w = lists[l]->items[i];
            for (uint32_t c = ctx->copy_first[w]; c < ctx->copy_first[w + 1]; ++c, ++count) {
                size_t v = ctx->copies[c];
                for (uint32_t k = 0; k < skin->influence_count; ++k)
                    sums[l][skin->influence_joints[v * skin->influence_count + k]] +=
                        skin->influence_weights[v * skin->influence_count + k];
            }
        }
        for (uint32_t j = 0; j < skin->joint_count; ++j)
            sums[l][j] /= count ? count : 1;
    }
    double overlap = 0;
    for (uint32_t j = 0; j < skin->joint_count; ++j)
        overlap += a[j] < b[j] ? a[j] : b[j];
    free(a);
    return (float)overlap;
}

/* The welded vertex nearest the midpoint of each bone segment. */
uint32_t* rig_segment_vertices(rig_ctx* ctx) {
    uint32_t* segment_vertex = malloc((ctx->bones.count + 1) * sizeof *segment_vertex);
    if (!segment_vertex) return NULL;
    for (uint32_t s = 0; s < ctx->bones.count; ++s) {
        const float* ab = ctx->bones.ab + 6 * s;
        float mid[3] = {0.5f * (ab[0] + ab[3]), 0.5f * (ab[1] + ab[4]), 0.5f * (ab[2] + ab[5])};
        float best = INFINITY;
        segment_vertex[s] = 0;
        for (uint32_t w = 0; w < ctx->W; ++w) {
            float d = dist3(mid, ctx->wpos + 3 * (size_t)w);
            if (d < best) best = d, segment_vertex[s] = w;
        }
    }
    return segment_vertex;
}
