/* tailor measure --before FILE: each region's new tears against another weighting of the same
 * mesh, both files played as tailor play plays them (tl_measure_new_tears_between), and the
 * --region-reweighted mask. */
#include "measure_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void side_advance(void* user, tl_pose* pose, float time) {
    tl_cli_play_side* s = user;
    tl_player_advance(s->player, pose, s->clip, time);
}

static tl_result side_player(tl_cli_play_side* s, tl_error* err) {
    tl_play_chain chains[64];
    uint32_t n = 0;
    tl_result r = tl_play_chains_find(s->scene, chains, 64, &n, err);
    tl_player_def def = tl_default_player_def();
    return r == TL_OK ? tl_player_create(s->scene, chains, n < 64 ? n : 64, &def, &s->player, err)
                      : r;
}

static void side_close(tl_cli_play_side* s) {
    tl_player_destroy(s->player);
    if (s->doc) tl_scene_destroy(s->scene), tl_gltf_destroy(s->doc);
    memset(s, 0, sizeof *s);
}

int tl_cli_sides_open(const char* file, const char* before, tl_scene* scene, uint32_t skin,
                      tl_cli_play_side* sides) {
    tl_error err;
    memset(sides, 0, 2 * sizeof *sides);
    sides[1].scene = scene;
    if (tl_gltf_load(before, &sides[0].doc, &err) != TL_OK ||
        tl_scene_create(sides[0].doc, &sides[0].scene, &err) != TL_OK)
        return tl_cli_fail("measure", "--before %s: %s", before, err.message);
    const tl_scene* b = sides[0].scene;
    if (skin >= b->skin_count || b->skins[skin].vertex_count != scene->skins[skin].vertex_count)
        return tl_cli_fail("measure",
                           "--before %s: skin %u has %u vertices, %s's has %u: not the same mesh",
                           before, skin, skin < b->skin_count ? b->skins[skin].vertex_count : 0,
                           file, scene->skins[skin].vertex_count);
    if (side_player(&sides[0], &err) != TL_OK || side_player(&sides[1], &err) != TL_OK)
        return tl_cli_fail("measure", "--before %s: %s", before, err.message);
    return 0;
}

/* The weight skin vertex v of sk puts on node `node` (0 when none). */
static float weight_on_node(const tl_scene_skin* sk, uint32_t v, uint32_t node) {
    float w = 0;
    for (uint32_t k = 0; k < sk->influence_count; ++k) {
        size_t at = (size_t)v * sk->influence_count + k;
        if (sk->joints[sk->influence_joints[at]].node == node) w += sk->influence_weights[at];
    }
    return w;
}

uint32_t tl_cli_sides_reweighted(const tl_cli_play_side* sides, uint32_t skin, uint8_t* mask) {
    const tl_scene_skin *b = &sides[0].scene->skins[skin], *a = &sides[1].scene->skins[skin];
    uint32_t n = 0;
    for (uint32_t v = 0; v < a->vertex_count; ++v) {
        bool differ = false;
        for (int side = 0; side < 2 && !differ; ++side) {
            const tl_scene_skin* sk = side ? a : b;
            for (uint32_t k = 0; k < sk->influence_count && !differ; ++k) {
                size_t at = (size_t)v * sk->influence_count + k;
                uint32_t node = sk->joints[sk->influence_joints[at]].node;
                differ = fabsf(weight_on_node(a, v, node) - weight_on_node(b, v, node)) > 1e-6f;
            }
        }
        n += mask[v] = differ;
    }
    return n;
}

int tl_cli_sides_tears(const char* before, const tl_measure_run* run, tl_cli_play_side* sides,
                       uint32_t clip, tl_new_tears* out) {
    tl_error err;
    const char* name = sides[1].scene->clips[clip].name;
    if (tl_scene_find_clip(sides[0].scene, name, &sides[0].clip, &err) != TL_OK)
        return tl_cli_fail("measure", "--before %s: %s", before, err.message);
    sides[1].clip = clip;
    tl_measure_def def = tl_default_measure_def();
    def.samples = run->samples;
    for (uint32_t i = 0; i <= run->region_count; ++i) {
        tl_new_tears_side b = {sides[0].scene, sides[0].clip, side_advance, &sides[0]};
        tl_new_tears_side a = {sides[1].scene, clip, side_advance, &sides[1]};
        tl_player_start(sides[0].player, sides[0].clip, 0);
        tl_player_start(sides[1].player, clip, 0);
        if (tl_measure_new_tears_between(&b, &a, run->skin, run->regions[i].mask, &def, &out[i],
                                         &err) != TL_OK)
            return tl_cli_fail("measure", "--before %s: %s", before, err.message);
    }
    return 0;
}

void tl_cli_sides_close(tl_cli_play_side* sides) {
    side_close(&sides[0]);
    side_close(&sides[1]);
}

json_t* tl_cli_before_json(const char* file, const tl_new_tears* t) {
    return json_pack("{s:s,s:I,s:I,s:I,s:I,s:f}", "file", file, "count", (json_int_t)t->count,
                     "torn_before", (json_int_t)t->torn_before, "torn_after",
                     (json_int_t)t->torn_after, "new_torn", (json_int_t)t->new_torn, "new_torn_pct",
                     (double)t->new_torn_pct);
}

void tl_cli_before_print(const char* before, const tl_new_tears* t) {
    printf("    against %s: new tears %.3f%%, %llu of %llu edge samples torn here, not there (torn "
           "there %.3f%%, here %.3f%%)\n",
           before, t->new_torn_pct, (unsigned long long)t->new_torn, (unsigned long long)t->count,
           t->count ? 100.0 * (double)t->torn_before / (double)t->count : 0.0,
           t->count ? 100.0 * (double)t->torn_after / (double)t->count : 0.0);
}
