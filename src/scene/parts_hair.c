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

/* Two integers at ptr into out. */
static tl_result read_pair(reader* r, const char* ptr, json_t* v, json_int_t out[2]) {
    if (!(json_is_array(v) && json_array_size(v) == 2 && json_is_integer(json_array_get(v, 0)) &&
          json_is_integer(json_array_get(v, 1))))
        return tl_parts_refuse(r, ptr, "must be an array of 2 integers");
    out[0] = json_integer_value(json_array_get(v, 0));
    out[1] = json_integer_value(json_array_get(v, 1));
    return TL_OK;
}

/* The hair part of skin s on node n, or NULL. */
static const tl_scene_part* hair_part(const tl_scene_part* parts, uint32_t count, uint32_t s,
                                      json_int_t n) {
    for (uint32_t i = 0; i < count; ++i)
        if (parts[i].kind == TL_PART_HAIR && parts[i].skin == s && (json_int_t)parts[i].node == n)
            return &parts[i];
    return NULL;
}

/* Tie k of skin s's sheet at base. */
static tl_result check_tie(reader* r, const char* base, json_t* o, const tl_scene_part* parts,
                           uint32_t count, uint32_t s) {
    char ptr[256];
    if (!json_is_object(o))
        return tl_parts_refuse(r, base, "must be an object, is %s", tl_parts_type_name(o));
    json_int_t node[2], link[2];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_SHEET_PARTS);
    tl_result res = read_pair(r, ptr, json_object_get(o, TL_SCHEMA_SHEET_PARTS), node);
    if (res != TL_OK) return res;
    const tl_scene_part* p[2] = {hair_part(parts, count, s, node[0]),
                                 hair_part(parts, count, s, node[1])};
    for (int k = 0; k < 2; ++k)
        if (!p[k])
            return tl_parts_refuse(r, ptr, "node %lld is no hair part of skin %u",
                                   (long long)node[k], s);
    if (p[0] == p[1]) return tl_parts_refuse(r, ptr, "ties a part to itself");
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_SHEET_LINKS);
    if ((res = read_pair(r, ptr, json_object_get(o, TL_SCHEMA_SHEET_LINKS), link)) != TL_OK)
        return res;
    for (int k = 0; k < 2; ++k)
        if (link[k] < 0 || link[k] >= (json_int_t)p[k]->bone_count)
            return tl_parts_refuse(r, ptr, "link %lld of a part of %u bones", (long long)link[k],
                                   p[k]->bone_count);
    json_t* at = json_object_get(o, TL_SCHEMA_SHEET_AT);
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_SHEET_AT);
    for (int k = 0; k < 2; ++k) {
        json_t* v = json_array_get(at, (size_t)k);
        if (!(json_is_array(at) && json_array_size(at) == 2 && json_is_number(v) &&
              json_number_value(v) >= 0 && json_number_value(v) <= 1))
            return tl_parts_refuse(r, ptr, "must be an array of 2 numbers in [0, 1]");
    }
    json_t* seam = json_object_get(o, TL_SCHEMA_SHEET_SEAM);
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_SHEET_SEAM);
    if (!json_is_number(seam))
        return tl_parts_refuse(r, ptr, "must be a number, is %s", tl_parts_type_name(seam));
    if (!(json_number_value(seam) >= 0 && isfinite((float)json_number_value(seam))))
        return tl_parts_refuse(r, ptr, "must be >= 0, is %g", json_number_value(seam));
    static const char* const known[] = {TL_SCHEMA_SHEET_PARTS, TL_SCHEMA_SHEET_LINKS,
                                        TL_SCHEMA_SHEET_AT, TL_SCHEMA_SHEET_SEAM, NULL};
    return tl_parts_note_unknown(r, base, o, known, NULL);
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
        char base[96], at[128];
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
            snprintf(at, sizeof at, "%s/%zu", base, k);
            tl_result res = check_tie(r, at, json_array_get(list, k), parts, count, s);
            if (res != TL_OK) return res;
        }
    }
    return TL_OK;
}
