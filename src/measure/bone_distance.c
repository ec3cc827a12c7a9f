/* Weighted bone distance (measure.md): how far skin sits from the bones that move it. */
#include <tailor/measure.h>
#include <tailor/mesh.h>

#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

size_t tl_measure_segments_bound(const tl_scene* scene, uint32_t skin) {
    assert(skin < scene->skin_count);
    return 2 * (size_t)scene->skins[skin].joint_count;
}

static void joint_position(const tl_scene_joint* j, float out[3]) {
    out[0] = j->rest_world[12];
    out[1] = j->rest_world[13];
    out[2] = j->rest_world[14];
}

size_t tl_measure_segments(const tl_scene* scene, uint32_t skin, float* segments,
                           uint32_t* segment_joint) {
    const tl_scene_skin* sk = &scene->skins[skin];
    size_t n = 0;
    for (uint32_t j = 0; j < sk->joint_count; ++j) {
        float a[3];
        joint_position(&sk->joints[j], a);
        bool has_child = false;
        for (uint32_t c = 0; c < sk->joint_count; ++c) {
            if (sk->joints[c].parent != (int32_t)j) continue;
            has_child = true;
            memcpy(segments + 6 * n, a, sizeof a);
            joint_position(&sk->joints[c], segments + 6 * n + 3);
            segment_joint[n++] = j;
        }
        if (has_child) continue;
        memcpy(segments + 6 * n, a, sizeof a);
        memcpy(segments + 6 * n + 3, a, sizeof a);
        int32_t p = sk->joints[j].parent;
        if (p != TL_NONE && sk->joints[p].deforming) {
            float pa[3];
            joint_position(&sk->joints[p], pa);
            for (int k = 0; k < 3; ++k)
                segments[6 * n + 3 + k] = a[k] + 0.5f * (a[k] - pa[k]);
        }
        segment_joint[n++] = j;
    }
    return n;
}

double tl_measure_bone_distance(const tl_scene* scene, uint32_t skin, const uint8_t* mask,
                                const uint32_t* joints, const float* weights,
                                uint32_t influence_count, float* scratch) {
    const tl_scene_skin* sk = &scene->skins[skin];
    if (!joints) {
        joints = sk->influence_joints;
        weights = sk->influence_weights;
        influence_count = sk->influence_count;
    }
    size_t bound = tl_measure_segments_bound(scene, skin);
    float* segments = scratch;
    uint32_t* owner = (uint32_t*)(scratch + 6 * bound);
    size_t count = tl_measure_segments(scene, skin, segments, owner);
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
