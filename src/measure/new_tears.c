/* New tears (measure.md "New tears"): the edge samples of a region torn after a re-weighting
 * that were not torn as the file bound them, at the same sample times. */
#include <tailor/measure.h>
#include <tailor/mesh.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>

static float edge_length(const float* positions, uint32_t a, uint32_t b) {
    float dx = positions[3 * a] - positions[3 * b];
    float dy = positions[3 * a + 1] - positions[3 * b + 1];
    float dz = positions[3 * a + 2] - positions[3 * b + 2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

tl_result tl_measure_new_tears(const tl_scene* before, const tl_scene* after, uint32_t skin,
                               const uint8_t* mask, uint32_t clip, const tl_measure_def* def,
                               tl_measure_pose_fn* after_fn, void* user, tl_new_tears* out,
                               tl_error* err) {
    tl_new_tears_side b = {before, clip, NULL, NULL}, a = {after, clip, after_fn, user};
    return tl_measure_new_tears_between(&b, &a, skin, mask, def, out, err);
}

tl_result tl_measure_new_tears_between(const tl_new_tears_side* bside,
                                       const tl_new_tears_side* aside, uint32_t skin,
                                       const uint8_t* mask, const tl_measure_def* def,
                                       tl_new_tears* out, tl_error* err) {
    assert(bside && aside && mask && def && out && def->samples > 0);
    const tl_scene *before = bside->scene, *after = aside->scene;
    assert(before && after);
    assert(skin < before->skin_count && skin < after->skin_count);
    assert(bside->clip < before->clip_count && aside->clip < after->clip_count);
    *out = (tl_new_tears){0};
    const tl_scene_skin* sb = &before->skins[skin];
    const tl_scene_skin* sa = &after->skins[skin];
    if (sb->vertex_count != sa->vertex_count)
        return tl_error_set(err, TL_ERROR_ARGUMENT,
                            "new tears: the two skins have %u and %u vertices", sb->vertex_count,
                            sa->vertex_count);
    size_t index_count = (size_t)sb->triangle_count * 3;
    uint32_t* edges = malloc(sizeof(uint32_t) * 2 * (tl_mesh_edges_bound(index_count) + 1));
    size_t n = edges ? tl_mesh_edges(edges, sb->triangles, index_count, NULL) : 0;
    float* rest = malloc(sizeof(float) * (n + 1));
    tl_pose* pb = tl_pose_create(before);
    tl_pose* pa = tl_pose_create(after);
    float* jb = malloc(sizeof(float) * 16 * (sb->joint_count + 1));
    float* ja = malloc(sizeof(float) * 16 * (sa->joint_count + 1));
    float* xb = malloc(sizeof(float) * 3 * ((size_t)sb->vertex_count + 1));
    float* xa = malloc(sizeof(float) * 3 * ((size_t)sa->vertex_count + 1));
    tl_result r = TL_OK;
    if (!edges || n == TL_MESH_OUT_OF_MEMORY || !rest || !pb || !pa || !jb || !ja || !xb || !xa) {
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory measuring new tears");
        goto done;
    }
    /* the region's edges, as tl_stretch counts them */
    float min_rest = 1e-6f * (sb->height > 0 ? sb->height : 1.0f);
    size_t m = 0;
    for (size_t e = 0; e < n; ++e) {
        uint32_t a = edges[2 * e], b = edges[2 * e + 1];
        if (!mask[a] || !mask[b]) continue;
        float len = edge_length(sb->rest_positions, a, b);
        if (!(len > min_rest)) continue;
        edges[2 * m] = a, edges[2 * m + 1] = b, rest[m++] = len;
    }
    float duration = before->clips[bside->clip].duration;
    for (uint32_t j = 0; j < def->samples; ++j) {
        float t = (float)j * duration / (float)def->samples;
        tl_pose_sample(pb, before, bside->clip, t);
        if (bside->pose_fn) bside->pose_fn(bside->user, pb, t);
        tl_pose_joint_matrices(pb, before, skin, jb);
        tl_scene_skin_positions(before, skin, jb, xb);
        tl_pose_sample(pa, after, aside->clip, t);
        if (aside->pose_fn) aside->pose_fn(aside->user, pa, t);
        tl_pose_joint_matrices(pa, after, skin, ja);
        tl_scene_skin_positions(after, skin, ja, xa);
        for (size_t e = 0; e < m; ++e) {
            float rb = edge_length(xb, edges[2 * e], edges[2 * e + 1]) / rest[e];
            float ra = edge_length(xa, edges[2 * e], edges[2 * e + 1]) / rest[e];
            bool tb = rb > def->torn_above || rb < def->torn_below;
            bool ta = ra > def->torn_above || ra < def->torn_below;
            out->torn_before += tb;
            out->torn_after += ta;
            out->new_torn += ta && !tb;
        }
    }
    out->count = (uint64_t)m * def->samples;
    out->new_torn_pct =
        out->count ? (float)(100.0 * (double)out->new_torn / (double)out->count) : 0;
done:
    free(edges), free(rest), free(jb), free(ja), free(xb), free(xa);
    tl_pose_destroy(pb);
    tl_pose_destroy(pa);
    return r;
}
