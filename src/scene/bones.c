/* The bones of a skin as rest-world segments: the one builder behind the weighted bone
 * distance (measure) and the skeleton distance field (rig). */
#include <tailor/scene.h>

#include <string.h>

size_t tl_scene_skin_bones_bound(const tl_scene_skin* skin) {
    return 2 * (size_t)skin->joint_count;
}

static const float* joint_position(const tl_scene_skin* skin, uint32_t j) {
    return skin->joints[j].rest_world + 12;
}

size_t tl_scene_skin_bones(const tl_scene_skin* skin, bool deforming_only, float* segments,
                           uint32_t* segment_joint) {
    size_t n = 0;
    for (uint32_t j = 0; j < skin->joint_count; ++j) {
        if (deforming_only && !skin->joints[j].deforming) continue;
        const float* a = joint_position(skin, j);
        bool has_child = false;
        for (uint32_t c = 0; c < skin->joint_count; ++c) {
            if (skin->joints[c].parent != (int32_t)j) continue;
            has_child = true;
            memcpy(segments + 6 * n, a, 3 * sizeof *segments);
            memcpy(segments + 6 * n + 3, joint_position(skin, c), 3 * sizeof *segments);
            segment_joint[n++] = j;
        }
        if (has_child) continue;
        /* a leaf continues its parent bone by half its length, so a nose or a hand is not far
           from its own bone; with no deforming parent it is a point */
        memcpy(segments + 6 * n, a, 3 * sizeof *segments);
        memcpy(segments + 6 * n + 3, a, 3 * sizeof *segments);
        int32_t p = skin->joints[j].parent;
        if (p != TL_NONE && skin->joints[p].deforming) {
            const float* pa = joint_position(skin, (uint32_t)p);
            for (int k = 0; k < 3; ++k)
                segments[6 * n + 3 + k] = a[k] + 0.5f * (a[k] - pa[k]);
        }
        segment_joint[n++] = j;
    }
    return n;
}
