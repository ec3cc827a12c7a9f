/* The shared steps of the extras.tailor reader (parts_internal.h): refusals with the JSON
 * pointer, notes, versions, unknown keys, node references by index and name. */
#include "internal.h"
#include "scene/parts_internal.h"
#include "scene/schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tl_result tl_parts_refuse(reader* r, const char* pointer, const char* format, ...) {
    char why[384];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    return tl_error_set(r->err, TL_ERROR_INVALID, "%s: %s: %s", r->label, pointer, why);
}

tl_result tl_parts_note(reader* r, const char* pointer, const char* what) {
    if (r->note_count == r->note_capacity) {
        uint32_t cap = r->note_capacity ? 2 * r->note_capacity : 8;
        char** grown = realloc(r->notes, cap * sizeof *grown);
        if (!grown) return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
        r->notes = grown, r->note_capacity = cap;
    }
    size_t size = strlen(r->label) + strlen(pointer) + strlen(what) + 5;
    char* text = malloc(size);
    if (!text) return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
    snprintf(text, size, "%s: %s: %s", r->label, pointer, what);
    r->notes[r->note_count++] = text;
    return TL_OK;
}

const char* tl_parts_type_name(const json_t* v) {
    if (!v) return "missing";
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* `version` of a part or skin record: 1..TL_SCHEMA_VERSION. */
tl_result tl_parts_read_version(reader* r, const char* base, json_t* tailor, uint32_t* out) {
    char ptr[128];
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_VERSION_KEY);
    json_t* v = json_object_get(tailor, TL_SCHEMA_VERSION_KEY);
    if (!v) return tl_parts_refuse(r, ptr, "is missing");
    if (!json_is_integer(v))
        return tl_parts_refuse(r, ptr, "must be an integer, is %s", tl_parts_type_name(v));
    json_int_t n = json_integer_value(v);
    if (n > TL_SCHEMA_VERSION)
        return tl_parts_refuse(r, ptr,
                               "version %" JSON_INTEGER_FORMAT " is newer than this reader (%d)", n,
                               TL_SCHEMA_VERSION);
    if (n < 1) return tl_parts_refuse(r, ptr, "must be >= 1, is %" JSON_INTEGER_FORMAT, n);
    *out = (uint32_t)n;
    return TL_OK;
}

tl_result tl_parts_read_setting(reader* r, const char* ptr, json_t* obj, const tl_schema_setting* s,
                                float* field) {
    json_t* v = json_object_get(obj, s->key);
    if (!v) return TL_OK;
    char at[240], why[64];
    snprintf(at, sizeof at, "%s/%s", ptr, s->key);
    if (!json_is_number(v))
        return tl_parts_refuse(r, at, "must be a number, is %s", tl_parts_type_name(v));
    double x = json_number_value(v);
    if (!tl_schema_setting_check(s, x, why, sizeof why))
        return tl_parts_refuse(r, at, "%s, is %g", why, x);
    *field = (float)x;
    return TL_OK;
}

/* Notes every key of `obj` not in `known` (NULL-terminated); `quiet` keys pass silently. */
tl_result tl_parts_note_unknown(reader* r, const char* base, json_t* obj, const char* const* known,
                                const char* quiet) {
    const char* key;
    json_t* v;
    json_object_foreach(obj, key, v) {
        bool found = quiet && !strcmp(key, quiet);
        for (const char* const* k = known; *k && !found; ++k)
            found = !strcmp(key, *k);
        if (found) continue;
        char ptr[256];
        snprintf(ptr, sizeof ptr, "%s/%.100s", base, key);
        tl_result res = tl_parts_note(r, ptr, "unknown key, ignored");
        if (res != TL_OK) return res;
    }
    return TL_OK;
}

/* The node one stored reference means: its index when the node there has the stored name
 * (or no name is stored), else the one node with that name. */
tl_result tl_parts_resolve(reader* r, json_t* index, const char* index_ptr, json_t* name,
                           const char* name_ptr, uint32_t* node, bool* by_name) {
    const tl_gltf* doc = r->doc;
    if (!json_is_integer(index))
        return tl_parts_refuse(r, index_ptr, "must be a node index, is %s",
                               tl_parts_type_name(index));
    json_int_t i = json_integer_value(index);
    bool in_range = i >= 0 && i < (json_int_t)doc->node_count;
    if (!name) {
        if (!in_range)
            return tl_parts_refuse(r, index_ptr,
                                   "node %" JSON_INTEGER_FORMAT " does not exist (%u nodes)", i,
                                   doc->node_count);
        *node = (uint32_t)i;
        return TL_OK;
    }
    if (!json_is_string(name))
        return tl_parts_refuse(r, name_ptr, "must be a node name, is %s", tl_parts_type_name(name));
    const char* want = json_string_value(name);
    if (in_range && doc->nodes[i].name && !strcmp(doc->nodes[i].name, want)) {
        *node = (uint32_t)i;
        return TL_OK;
    }
    uint32_t found = 0, first = 0, second = 0;
    for (uint32_t n = 0; n < doc->node_count; ++n)
        if (doc->nodes[n].name && !strcmp(doc->nodes[n].name, want)) {
            if (found == 0) first = n;
            if (found == 1) second = n;
            ++found;
        }
    if (found == 0)
        return tl_parts_refuse(
            r, name_ptr,
            "no node is named \"%.100s\" (the index says node %" JSON_INTEGER_FORMAT ")", want, i);
    if (found > 1)
        return tl_parts_refuse(
            r, name_ptr,
            "%u nodes are named \"%.100s\" (nodes %u and %u) and node %" JSON_INTEGER_FORMAT
            " is none of them",
            found, want, first, second, i);
    *node = first;
    *by_name = true;
    return TL_OK;
}

/* The joint index of a node in the skin whose map is loaded, or TL_NONE. */
void tl_parts_load_skin_map(reader* r, uint32_t skin) {
    for (uint32_t n = 0; n < r->doc->node_count; ++n)
        r->joint_of_node[n] = TL_NONE;
    const tl_scene_skin* sk = &r->scene->skins[skin];
    for (uint32_t j = sk->joint_count; j-- > 0;)
        r->joint_of_node[sk->joints[j].node] = (int32_t)j;
}

bool tl_parts_skin_has(const tl_scene_skin* sk, uint32_t node) {
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        if (sk->joints[j].node == node) return true;
    return false;
}
