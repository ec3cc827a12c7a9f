/* The C player's pendulum and aim joints, frame by frame, for tests/web/sim_joints.mjs:
 * `tailor play`'s loop (the file's chains, looping, the clip at fmod(f / fps, duration)) with
 * each joint part's joint world rotation (x, y, z, w) printed as one JSON array per frame
 * (tailor play --json prints only the swing and the aim error); SECONDS as tailor play's
 * --seconds (default: the clip's duration).
 *   web_joint_rotations FILE.glb CLIP [FPS [SECONDS]] */
#include <tailor/tailor.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    if (argc < 3)
        return fprintf(stderr, "usage: web_joint_rotations FILE.glb CLIP [FPS [SECONDS]]\n"), 2;
    double fps = argc > 3 ? atof(argv[3]) : 60;
    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_player* player = NULL;
    tl_play_chain chains[64];
    uint32_t count = 0, clip;
    if (tl_gltf_load(argv[1], &doc, &err) || tl_scene_create(doc, &scene, &err) ||
        tl_scene_find_clip(scene, argv[2], &clip, &err) ||
        tl_play_chains_find(scene, chains, 64, &count, &err))
        return fprintf(stderr, "web_joint_rotations: %s\n", err.message), 1;
    tl_player_def def = tl_default_player_def();
    def.loop = true;
    if (tl_player_create(scene, chains, count > 64 ? 64 : count, &def, &player, &err))
        return fprintf(stderr, "web_joint_rotations: %s\n", err.message), 1;
    tl_pose* pose = tl_pose_create(scene);
    double duration = scene->clips[clip].duration;
    double seconds = argc > 4 ? atof(argv[4]) : duration;
    long frames = (long)floor(seconds * fps + 1e-6) + 1;
    for (long f = 0; f < frames && pose; ++f) {
        tl_player_advance(player, pose, clip,
                          duration > 0 ? (float)fmod((double)f / fps, duration) : 0.0f);
        printf("[");
        for (uint32_t i = 0; i < tl_player_joint_part_count(player); ++i) {
            const tl_scene_part* sp = &scene->parts[tl_player_joint_part(player, i)];
            uint32_t node = scene->skins[sp->skin].joints[sp->bone_joints[0]].node;
            tl_chain_pose w = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)node);
            printf("%s[%.9g,%.9g,%.9g,%.9g]", i ? "," : "", w.rotation[0], w.rotation[1],
                   w.rotation[2], w.rotation[3]);
        }
        printf("]\n");
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return pose ? 0 : 1;
}
