/* The C player's cloth bones, frame by frame, for tests/web/sim_cloth.mjs: `tailor play`'s loop
 * (looping, the clip at fmod(f / fps, duration)) on a file whose cloth parts tailor play --json
 * does not print. The first line: [{"bones": [names], "colliders": N, "height": H}] per cloth
 * part (N: the colliders its player kept, H: its skin's rest height); then per frame one JSON array
 * per cloth of every bone's world position (x, y, z). web_cloth_bones FILE.glb CLIP [FPS [SECONDS]]
 */
#include <tailor/tailor.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    if (argc < 3)
        return fprintf(stderr, "usage: web_cloth_bones FILE.glb CLIP [FPS [SECONDS]]\n"), 2;
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
        return fprintf(stderr, "web_cloth_bones: %s\n", err.message), 1;
    tl_player_def def = tl_default_player_def();
    def.loop = true;
    if (tl_player_create(scene, chains, count > 64 ? 64 : count, &def, &player, &err))
        return fprintf(stderr, "web_cloth_bones: %s\n", err.message), 1;
    tl_pose* pose = tl_pose_create(scene);
    printf("[");
    for (uint32_t i = 0; i < tl_player_cloth_count(player); ++i) {
        const tl_scene_part* sp = &scene->parts[tl_player_cloth_part(player, i)];
        const tl_scene_skin* sk = &scene->skins[sp->skin];
        printf("%s{\"bones\":[", i ? "," : "");
        for (uint32_t b = 0; b <= sp->bone_count; ++b)
            printf("%s\"%s\"", b ? "," : "",
                   sk->joints[b < sp->bone_count ? sp->bone_joints[b] : sp->end_joint].name);
        printf("],\"colliders\":%u,\"height\":%.9g}", tl_player_cloth_colliders(player, i, NULL),
               sk->height);
    }
    printf("]\n");
    double duration = scene->clips[clip].duration;
    double seconds = argc > 4 ? atof(argv[4]) : duration;
    long frames = (long)floor(seconds * fps + 1e-6) + 1;
    for (long f = 0; f < frames && pose; ++f) {
        tl_player_advance(player, pose, clip,
                          duration > 0 ? (float)fmod((double)f / fps, duration) : 0.0f);
        printf("[");
        for (uint32_t i = 0; i < tl_player_cloth_count(player); ++i) {
            const tl_scene_part* sp = &scene->parts[tl_player_cloth_part(player, i)];
            const tl_scene_skin* sk = &scene->skins[sp->skin];
            printf("%s[", i ? "," : "");
            for (uint32_t b = 0; b <= sp->bone_count; ++b) {
                uint32_t j = b < sp->bone_count ? sp->bone_joints[b] : sp->end_joint;
                const float* w = pose->world + 16 * (size_t)sk->joints[j].node + 12;
                printf("%s[%.9g,%.9g,%.9g]", b ? "," : "", w[0], w[1], w[2]);
            }
            printf("]");
        }
        printf("]\n");
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return pose ? 0 : 1;
}
