/* A hair part's stored lock thickness and a skin's stored sheet ties (docs/schema.md): what
 * tailor rig stores of the C player's hair for a reader without the skin's arithmetic (the web
 * runtime). Checked here; the C player plays them too (tl_play_chains_find, play_sheet_create),
 * so weights changed after they were written do not change the motion. */
#include "scene/parts_internal.h"

#include <math.h>
#include <stdio.h>

tl_result tl_parts_read_hit_radius(reader* r, const char* base, json_t* tailor,
                                   tl_scene_part* part) {
    part->hit_radius = -1;
    json_t* v = json_object_get(tailor, TL_SCHEMA_HIT_RADIUS);
    if (!v) return TL_OK;
    char ptr[256];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_HIT_RADIUS);
    if (part->kind != TL_PART_HAIR) return tl_parts_refuse(r, ptr, "only a hair part has one");
    if (!json_is_number(v))
        return tl_parts_refuse(r, ptr, "must be a number, is %s", tl_parts_type_name(v));
    double x = json_number_value(v);
    if (!(x >= 0 && isfinite((float)x))) return tl_parts_refuse(r, ptr, "must be >= 0, is %g", x);
    part->hit_radius = (float)x;
    return TL_OK;
}

/* Two integers v into out; false when v is not such a pair. */
static bool read_pair(json_t* v, json_int_t out[2]) {
    if (!(json_is_array(v) && json_array_size(v) == 2 && json_is_integer(json_array_get(v, 0)) &&
          json_is_integer(json_array_get(v, 1))))
        return false;
    out[0] = json_integer_value(json_array_get(v, 0));
    out[1] = json_integer_value(json_array_get(v, 1));
    return true;
}

/* The hair part of skin s on node n, or NULL. */
static const tl_scene_part* hair_part(const tl_scene_part* parts, uint32_t count, uint32_t s,
                                      json_int_t n) {
    for (uint32_t i = 0; i < count; ++i)
        if (parts[i].kind == TL_PART_HAIR && parts[i].skin == s && (json_int_t)parts[i].node == n)
            return &parts[i];
    return NULL;
}

/* The JSON path of tie k of the sheet at list (and its key; NULL: the tie), into ptr. Built
 * only for a refusal or a note: a rigged hair style stores thousands of ties. */
static const char* tie_path(char ptr[256], const char* list, size_t k, const char* key) {
    if (key)
        snprintf(ptr, 256, "%s/%zu/%s", list, k, key);
    else
        snprintf(ptr, 256, "%s/%zu", list, k);
    return ptr;
}

/* Tie k of skin s's sheet at list. */
static tl_result check_tie(reader* r, const char* list, size_t k, json_t* o,
                           const tl_scene_part* parts, uint32_t count, uint32_t s) {
    char ptr[256];
    if (!json_is_object(o))
        return tl_parts_refuse(r, tie_path(ptr, list, k, NULL), "must be an object, is %s",
                               tl_parts_type_name(o));
    json_int_t node[2], link[2];
    if (!read_pair(json_object_get(o, TL_SCHEMA_SHEET_PARTS), node))
        return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_PARTS),
                               "must be an array of 2 integers");
    const tl_scene_part* p[2] = {hair_part(parts, count, s, node[0]),
                                 hair_part(parts, count, s, node[1])};
    for (int i = 0; i < 2; ++i)
        if (!p[i])
            return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_PARTS),
                                   "node %lld is no hair part of skin %u", (long long)node[i], s);
    if (p[0] == p[1])
        return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_PARTS),
                               "ties a part to itself");
    if (!read_pair(json_object_get(o, TL_SCHEMA_SHEET_LINKS), link))
        return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_LINKS),
                               "must be an array of 2 integers");
    for (int i = 0; i < 2; ++i)
        if (link[i] < 0 || link[i] >= (json_int_t)p[i]->bone_count)
            return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_LINKS),
                                   "link %lld of a part of %u bones", (long long)link[i],
                                   p[i]->bone_count);
    json_t* at = json_object_get(o, TL_SCHEMA_SHEET_AT);
    for (int i = 0; i < 2; ++i) {
        json_t* v = json_array_get(at, (size_t)i);
        if (!(json_is_array(at) && json_array_size(at) == 2 && json_is_number(v) &&
              json_number_value(v) >= 0 && json_number_value(v) <= 1))
            return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_AT),
                                   "must be an array of 2 numbers in [0, 1]");
    }
    json_t* seam = json_object_get(o, TL_SCHEMA_SHEET_SEAM);
    if (!json_is_number(seam))
        return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_SEAM),
                               "must be a number, is %s", tl_parts_type_name(seam));
    if (!(json_number_value(seam) >= 0 && isfinite((float)json_number_value(seam))))
        return tl_parts_refuse(r, tie_path(ptr, list, k, TL_SCHEMA_SHEET_SEAM),
                               "must be >= 0, is %g", json_number_value(seam));
    if (json_object_size(o) == 4) return TL_OK; /* the four keys read above: none unknown */
    static const char* const known[] = {TL_SCHEMA_SHEET_PARTS, TL_SCHEMA_SHEET_LINKS,
                                        TL_SCHEMA_SHEET_AT, TL_SCHEMA_SHEET_SEAM, NULL};
    return tl_parts_note_unknown(r, tie_path(ptr, list, k, NULL), o, known, NULL);
}

tl_result tl_parts_check_sheets(reader* r, const tl_scene_part* parts, uint32_t count) {
    json_t* skins = json_object_get(r->doc->json, "skins");
    bool renumbered = false;
    for (uint32_t i = 0; i < count; ++i)
        renumbered |= parts[i].resolved_by_name;
    for (uint32_t s = 0; s < r->doc->skin_count; ++s) {
        json_t* tailor =
            json_object_get(json_object_get(json_array_get(skins, s), "extras"), TL_SCHEMA_KEY);
        json_t* list = json_object_get(tailor, TL_SCHEMA_SHEET);
        if (!list) continue;
        char base[96];
        snprintf(base, sizeof base, "/skins/%u/extras/%s/%s", s, TL_SCHEMA_KEY, TL_SCHEMA_SHEET);
        if (!json_is_array(list))
            return tl_parts_refuse(r, base, "must be an array of ties, is %s",
                                   tl_parts_type_name(list));
        if (renumbered) { /* (its ties name parts by node index alone) */
            tl_result res = tl_parts_note(r, base,
                                          "the nodes were renumbered, so the ties name no part: "
                                          "ignored");
            if (res != TL_OK) return res;
            continue;
        }
        for (size_t k = 0; k < json_array_size(list); ++k) {
            tl_result res = check_tie(r, base, k, json_array_get(list, k), parts, count, s);
            if (res != TL_OK) return res;
        }
    }
    return TL_OK;
}
