/* libFuzzer target for the scene build and the reader of extras.tailor (docs/schema.md): load
 * from memory, build the scene (which decodes every part), check what the reader promises
 * about each part, turn the parts into chains and build the player on them, rebuild the scene
 * in place, destroy. Seeded with rigged files (fuzz/make_seeds.py) besides the reader's. */
#include <tailor/play.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* What tl_scene_part promises: joints of its skin, 1..64 bones, radii >= 0, settings in the
 * solver's ranges. A part breaking it would reach the player unchecked. */
static void check_part(const tl_scene* scene, const tl_scene_part* p) {
    if (p->skin >= scene->skin_count || p->node >= scene->node_count) abort();
    const tl_scene_skin* sk = &scene->skins[p->skin];
    if (p->attach_joint >= sk->joint_count || p->end_joint >= sk->joint_count) abort();
    if (p->bone_count < 1 || p->bone_count > TL_CHAIN_MAX_BONES) abort();
    for (uint32_t b = 0; b < p->bone_count; ++b)
        if (p->bone_joints[b] >= sk->joint_count || !(p->radii[b] >= 0) || !isfinite(p->radii[b]))
            abort();
    const tl_chain_settings* s = &p->chain;
    if (p->kind != TL_PART_CLOTH &&
        !(s->root_frequency > 0 && s->tip_frequency > 0 && s->damping_ratio >= 0 &&
          s->gravity >= 0 && isfinite(s->gravity) && isfinite(s->carry_deg) && s->rest_curve >= 0 &&
          s->rest_curve <= 1 && s->coupling_rate >= 0 && s->bend_limit_deg > 0 &&
          s->ground_clearance >= 0 && s->slip_damping >= 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_error err;
    if (tl_gltf_load_memory(data, size, "fuzz.glb", NULL, &doc, &err) != TL_OK) return 0;
    if (tl_scene_create(doc, &scene, &err) == TL_OK) {
        for (uint32_t i = 0; i < scene->part_count; ++i)
            check_part(scene, &scene->parts[i]);
        tl_play_chain chains[8];
        uint32_t count = 0;
        if (tl_play_chains_find(scene, chains, 8, &count, &err) != TL_OK) abort();
        tl_player* player = NULL;
        tl_player_def def = tl_default_player_def();
        if (count > 8) count = 8;
        if (count && tl_player_create(scene, chains, count, &def, &player, &err) == TL_OK)
            tl_player_destroy(player);
        /* the same document gives the same parts when built again in place */
        uint32_t parts = scene->part_count;
        if (tl_scene_refresh(scene, &err) != TL_OK || scene->part_count != parts) abort();
    }
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return 0;
}
