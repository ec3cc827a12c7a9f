/* Weighted bone distance (measure.md): how far skin sits from the bones that move it. */
#include <tailor/measure.h>
#include <tailor/mesh.h>

#include <assert.h>
#include <float.h>
#include <math.h>

double tl_measure_bone_distance(const tl_scene* scene, uint32_t skin, const uint8_t* mask,
                                const uint32_t* joints, const float* weights,
                                uint32_t influence_count, float* scratch) {
    const tl_scene_skin* sk = &scene->skins[skin];
    if (!joints) {
        joints = sk->influence_joints;
        weights = sk->influence_weights;
        influence_count = sk->influence_count;
    }
    size_t bound = tl_scene_skin_bones_bound(sk);
    float* segments = scratch;
    uint32_t* owner = (uint32_t*)(scratch + 6 * bound);
    size_t count = tl_scene_skin_bones(sk, false, segments, owner);
    double sum = 0;
    size_t vertices = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (mask && !mask[v]) continue;
        const float* p = sk->rest_positions + 3 * (size_t)v;
        double d = 0;
        for (uint32_t k = 0; k < influence_count; ++k) {
            float w = weights[(size_t)v * influence_count + k];
            if (w <= 0) continue;
            uint32_t joint = joints[(size_t)v * influence_count + k];
            float best = FLT_MAX;
            for (size_t s = 0; s < count; ++s) {
                if (owner[s] != joint) continue;
                float dist =
                    tl_mesh_segment_distance(p, segments + 6 * s, segments + 6 * s + 3, NULL);
                if (dist < best) best = dist;
            }
            if (best < FLT_MAX) d += w * best;
        }
        sum += d;
        ++vertices;
    }
    return vertices ? sum / (double)vertices : 0.0;
}
