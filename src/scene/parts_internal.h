/* The reader of extras.tailor shared between src/scene/parts.c (chains, cloth, colliders) and
 * src/scene/parts_joint.c (pendulum and aim parts); not part of the public API. */
#ifndef TL_SCENE_PARTS_INTERNAL_H
#define TL_SCENE_PARTS_INTERNAL_H

#include <tailor/gltf_json.h>
#include <tailor/scene.h>

#include "scene/schema.h"

typedef struct reader {
    tl_scene* scene;
    const tl_gltf* doc;
    const char* label;
    tl_error* err;
    char** notes; /* malloc'd until they move into the scene's storage */
    uint32_t note_count, note_capacity;
    int32_t* joint_of_node; /* one skin's map, node_count entries */
} reader;

/* TL_ERROR_INVALID "LABEL: POINTER: why". */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
tl_result
tl_parts_refuse(reader* r, const char* pointer, const char* format, ...);
tl_result tl_parts_note(reader* r, const char* pointer, const char* what);
const char* tl_parts_type_name(const json_t* v);
tl_result tl_parts_read_version(reader* r, const char* base, json_t* tailor, uint32_t* out);
tl_result tl_parts_note_unknown(reader* r, const char* base, json_t* obj, const char* const* known,
                                const char* quiet);
/* Setting s of the settings object `obj` at ptr into *field when present (a number within s's
 * range; refused with its JSON pointer otherwise; missing: *field kept). */
tl_result tl_parts_read_setting(reader* r, const char* ptr, json_t* obj, const tl_schema_setting* s,
                                float* field);
tl_result tl_parts_resolve(reader* r, json_t* index, const char* index_ptr, json_t* name,
                           const char* name_ptr, uint32_t* node, bool* by_name);
void tl_parts_load_skin_map(reader* r, uint32_t skin);
bool tl_parts_skin_has(const tl_scene_skin* sk, uint32_t node);

/* A part of kind pendulum or aim at base (its version and kind read): the joint of the record's
 * node, the settings, an aim's target (src/scene/parts_joint.c). */
tl_result tl_parts_read_joint_part(reader* r, const char* base, json_t* tailor,
                                   tl_scene_part* part);

/* After every part is read: a pendulum or aim on a joint another part turns is refused, and so
 * is a cycle of aims (each one's target below the next one's joint); scene->joint_parts gets
 * the order the player applies them in (pendulums, then aims after those they depend on). */
tl_result tl_parts_check_joint_parts(reader* r, const tl_scene_part* parts, uint32_t count);

/* A hair part's extras.tailor.hit_radius into part->hit_radius (-1 when absent; refused on
 * another kind, or when not a number >= 0) (src/scene/parts_hair.c). */
tl_result tl_parts_read_hit_radius(reader* r, const char* base, json_t* tailor,
                                   tl_scene_part* part);

/* After every part is read: each skin's extras.tailor.sheet checked, each tie two different hair
 * parts of the skin (by node), a link of each, two points in [0, 1] and a seam >= 0; ignored
 * with a note when the nodes were renumbered (src/scene/parts_hair.c). */
tl_result tl_parts_check_sheets(reader* r, const tl_scene_part* parts, uint32_t count);

#endif
