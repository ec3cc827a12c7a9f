/* What the C player finds for hair from the skin, stored for a reader without the skin's
 * arithmetic (the web runtime, docs/web.md "Session 24"): each hair part's lock thickness
 * (extras.tailor.hit_radius, play_chain_skin_thickness) and each skin's sheet ties
 * (skins[s].extras.tailor.sheet, play_sheet_ties_find), found on the rigged document as
 * tl_play_chains_find and tl_player_create find them. */
#include "rig/internal.h"

#include "hair/seam_fit.h"
#include "play/hair_sheet.h"
#include "scene/schema.h"

#include <tailor/gltf_json.h>
#include <tailor/play.h>

#include <jansson.h>
#include <stdlib.h>

static json_t* pair_int(uint32_t a, uint32_t b) {
    return json_pack("[II]", (json_int_t)a, (json_int_t)b);
}

/* skins[skin].extras.tailor, or NULL when it has none (nothing is made). */
static json_t* skin_tailor(const tl_gltf* doc, uint32_t skin) {
    json_t* s = json_array_get(json_object_get(tl_gltf_json(doc), "skins"), skin);
    return json_object_get(json_object_get(s, "extras"), TL_SCHEMA_KEY);
}

/* The ties as skins[s].extras.tailor.sheet, each chain by its part's node; a sheet the skin
 * holds already stays. */
static void write_ties(tl_gltf* doc, const tl_scene* scene, const uint32_t* part_node,
                       const tl_play_chain* chains, const play_sheet_tie* ties, uint32_t count) {
    for (uint32_t s = 0; s < scene->skin_count; ++s) {
        if (json_object_get(skin_tailor(doc, scene->skins[s].skin), TL_SCHEMA_SHEET)) continue;
        json_t* list = NULL;
        for (uint32_t k = 0; k < count; ++k) {
            const play_sheet_tie* t = &ties[k];
            if (t->b == PLAY_SHEET_HEAD_TIE || chains[t->a].skin != s) continue;
            json_t* o = json_object();
            json_object_set_new(o, TL_SCHEMA_SHEET_PARTS,
                                pair_int(part_node[t->a], part_node[t->b]));
            json_object_set_new(o, TL_SCHEMA_SHEET_LINKS, pair_int(t->ia, t->ib));
            json_object_set_new(o, TL_SCHEMA_SHEET_AT,
                                json_pack("[ff]", (double)t->ta, (double)t->tb));
            json_object_set_new(o, TL_SCHEMA_SHEET_SEAM, json_real(t->seam));
            if (!list) list = json_array();
            json_array_append_new(list, o);
        }
        if (list)
            json_object_set_new(tl_schema_skin_record(doc, scene->skins[s].skin), TL_SCHEMA_SHEET,
                                list);
    }
}

/* rig_write_hair_play on `scene`, the document's. */
static tl_result hair_play(tl_gltf* doc, const tl_scene* scene, tl_error* err) {
    tl_result r = TL_OK;
    uint32_t count = 0;
    tl_play_chain* chains = calloc(scene->part_count + 1, sizeof *chains);
    uint32_t* part_node = calloc(scene->part_count + 1, sizeof *part_node);
    play_sheet_tie* ties = NULL;
    uint32_t tie_count = 0;
    if (!chains || !part_node) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = tl_play_chains_find(scene, chains, scene->part_count, &count, err);
    /* the chains in tl_play_chains_find's order: the tail and hair parts in node order */
    for (uint32_t i = 0, c = 0; r == TL_OK && i < scene->part_count; ++i) {
        const tl_scene_part* part = &scene->parts[i];
        if (part->kind != TL_PART_TAIL && part->kind != TL_PART_HAIR) continue;
        part_node[c] = part->node;
        if (part->kind == TL_PART_HAIR) {
            json_t* rec = json_object_get(
                json_object_get(json_array_get(json_object_get(doc->json, "nodes"), part->node),
                                "extras"),
                TL_SCHEMA_KEY);
            if (!json_object_get(rec, TL_SCHEMA_HIT_RADIUS)) /* (one present stays) */
                json_object_set_new(rec, TL_SCHEMA_HIT_RADIUS, json_real(chains[c].hit_radius));
        }
        ++c;
    }
    if (r == TL_OK && !play_sheet_ties_find(scene, chains, count, NULL, NULL, &ties, &tie_count))
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) write_ties(doc, scene, part_node, chains, ties, tie_count);
    free(ties), free(chains), free(part_node);
    return r;
}

tl_result rig_write_hair_play(tl_gltf* doc, const tl_scene* scene, tl_error* err) {
    return hair_play(doc, scene, err);
}

tl_result rig_write_play_missing(tl_gltf* doc, const tl_rig_analysis* a, tl_error* err) {
    bool any = false, hair = false;
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        any |= a->skins[s].play_frame || a->skins[s].play_colliders;
        hair |= a->skins[s].play_hit_radii > 0 || a->skins[s].play_sheet;
    }
    if (!any && !hair) return TL_OK;
    tl_scene* scene = NULL;
    tl_result r = tl_scene_create(doc, &scene, err);
    for (uint32_t k = 0; r == TL_OK && k < scene->skin_count; ++k)
        for (uint32_t s = 0; s < a->skin_count && r == TL_OK; ++s) {
            if (a->skins[s].skin != scene->skins[k].skin) continue;
            bool frame = a->skins[s].play_frame && !scene->skins[k].frame_stored;
            if (a->skins[s].play_colliders) /* (as a fresh rig: the frame, then the colliders) */
                r = rig_write_skin_colliders(doc, scene, k, frame, err);
            else if (frame)
                r = tl_skin_write_frame(doc, scene, k, err);
        }
    if (r == TL_OK && hair) r = hair_play(doc, scene, err);
    tl_scene_destroy(scene);
    return r;
}

tl_result rig_refit_skin(tl_gltf* doc, const tl_scene* scene, uint32_t skin, rig_skin_refit fit,
                         const void* def, rig_refit_record record, const void* user,
                         tl_error* err) {
    uint32_t n = scene->skins[skin].vertex_count;
    uint32_t* joints = malloc(sizeof *joints * 4 * ((size_t)n + 1));
    float* weights = malloc(sizeof *weights * 4 * ((size_t)n + 1));
    uint8_t* changed = malloc((size_t)n + 1);
    hair_seam_fit_report report;
    tl_result r = TL_OK;
    if (!joints || !weights || !changed) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = fit(scene, skin, def, joints, weights, changed, &report, err);
    /* (the record first: it names the clips from this scene, which the weights' write leaves
       behind the reindexed document) */
    if (r == TL_OK && record) record(doc, scene, &report, user);
    if (r == TL_OK && report.changed > 0)
        r = rig_write_skin_weights(doc, scene, skin, joints, weights, changed, err);
    free(joints), free(weights), free(changed);
    return r;
}

static tl_result hair_refit(const tl_scene* scene, uint32_t skin, const void* def, uint32_t* joints,
                            float* weights, uint8_t* changed, hair_seam_fit_report* report,
                            tl_error* err) {
    return hair_seam_fit(scene, skin, def, joints, weights, changed, report, err);
}

/* Skin s gets the fit: it has new hair chains, or hair tailor rigged before that no earlier
 * --hair-fit has fitted (its record absent). */
static bool hair_fit_wanted(const tl_rig_analysis* a, uint32_t s) {
    if (rig_skin_hair_chained(a, s)) return true;
    for (uint32_t i = 0; i < a->part_count && !a->skins[s].hair_fitted; ++i)
        if (a->parts[i].skin == s && a->parts[i].cls == TL_RIG_CLASS_HAIR &&
            a->parts[i].action == TL_RIG_ACTION_ALREADY_RIGGED)
            return true;
    return false;
}

typedef struct hair_record_ctx {
    uint32_t skin; /* the document's skin */
    bool half_spaces;
} hair_record_ctx;

/* skins[skin].extras.tailor.hair_fit: what the fit saw and did (docs/schema.md). */
static void hair_record(tl_gltf* doc, const tl_scene* scene, const hair_seam_fit_report* f,
                        const void* user) {
    const hair_record_ctx* c = user;
    json_t* clips = json_array();
    for (uint32_t k = 0; k < f->clip_count; ++k)
        json_array_append_new(clips, json_string(scene->clips[f->clips[k]].name));
    json_t* o =
        json_pack("{s:o, s:I, s:I, s:I, s:I, s:b}", "clips", clips, "poses", (json_int_t)f->poses,
                  "free_vertices", (json_int_t)f->free_vertices, "changed", (json_int_t)f->changed,
                  "planes", (json_int_t)f->planes, "half_spaces", c->half_spaces);
    json_object_set_new(tl_schema_skin_record(doc, c->skin), TL_SCHEMA_HAIR_FIT, o);
}

tl_result rig_write_hair_fit(tl_gltf* doc, const tl_rig_analysis* a, tl_error* err) {
    tl_result r = TL_OK;
    hair_seam_fit_def def = hair_default_seam_fit_def();
    def.colliders = !a->def.hair_fit_no_colliders;
    def.clips = a->def.hair_fit_clips;
    for (uint32_t s = 0; s < a->skin_count && r == TL_OK; ++s) {
        if (!hair_fit_wanted(a, s)) continue;
        tl_scene* scene = NULL; /* (again for each skin: the last one's write reindexed) */
        if ((r = tl_scene_create(doc, &scene, err)) != TL_OK) break;
        for (uint32_t k = 0; k < scene->skin_count && r == TL_OK; ++k) {
            if (scene->skins[k].skin != a->skins[s].skin) continue;
            hair_record_ctx ctx = {a->skins[s].skin, def.colliders};
            r = rig_refit_skin(doc, scene, k, hair_refit, &def, hair_record, &ctx, err);
            break;
        }
        tl_scene_destroy(scene);
    }
    return r;
}
