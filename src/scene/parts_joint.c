/* Parts that turn an existing joint (docs/schema.md kinds pendulum and aim, cloth.md §10): read
 * from extras.tailor on the joint's own node, checked against the other parts, ordered for the
 * player. */
#include "internal.h"
#include "scene/parts_internal.h"
#include "scene/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A non-zero direction of 3 finite numbers at ptr, normalised into out. */
static tl_result read_direction(reader* r, const char* ptr, json_t* v, float out[3]) {
    if (!(json_is_array(v) && json_array_size(v) == 3))
        return tl_parts_refuse(r, ptr, "must be an array of 3 numbers, is %s",
                               json_is_array(v) ? "an array of another length"
                                                : tl_parts_type_name(v));
    double d[3], n = 0;
    for (size_t k = 0; k < 3; ++k) {
        json_t* x = json_array_get(v, k);
        char at[300];
        snprintf(at, sizeof at, "%s/%zu", ptr, k);
        if (!json_is_number(x) || !isfinite((float)json_number_value(x)))
            return tl_parts_refuse(r, at, "must be a finite number, is %s",
                                   json_is_number(x) ? "not finite as a float"
                                                     : tl_parts_type_name(x));
        d[k] = (float)json_number_value(x);
        n += d[k] * d[k];
    }
    n = sqrt(n);
    if (!(n > 1e-6 && isfinite(n))) return tl_parts_refuse(r, ptr, "must not be zero");
    for (int k = 0; k < 3; ++k)
        out[k] = (float)(d[k] / n);
    return TL_OK;
}

/* The float settings of a table at ptr (an object; missing: defaults kept) into `fields`. */
static tl_result read_settings(reader* r, const char* ptr, json_t* o,
                               const tl_schema_setting* table, int count, void* fields,
                               const char* direction_key, float direction[3]) {
    if (!o) return TL_OK;
    if (!json_is_object(o))
        return tl_parts_refuse(r, ptr, "must be an object, is %s", tl_parts_type_name(o));
    const char* known[TL_SCHEMA_PENDULUM_SETTING_COUNT + 2];
    char at[240];
    for (int k = 0; k < count; ++k) {
        const tl_schema_setting* s = &table[k];
        known[k] = s->key;
        tl_result res = tl_parts_read_setting(r, ptr, o, s, (float*)((char*)fields + s->offset));
        if (res != TL_OK) return res;
    }
    known[count] = direction_key, known[count + 1] = NULL;
    json_t* d = json_object_get(o, direction_key);
    snprintf(at, sizeof at, "%s/%s", ptr, direction_key);
    tl_result res = d ? read_direction(r, at, d, direction) : TL_OK;
    return res != TL_OK ? res : tl_parts_note_unknown(r, ptr, o, known, NULL);
}

/* Whether joint `below` is `joint` or lies under it in the skin. */
static bool joint_under(const tl_scene_skin* sk, uint32_t below, uint32_t joint) {
    for (int32_t j = (int32_t)below, steps = 0; j != TL_NONE && steps <= (int32_t)sk->joint_count;
         j = sk->joints[j].parent, ++steps)
        if ((uint32_t)j == joint) return true;
    return false;
}

static tl_result read_aim(reader* r, const char* base, json_t* tailor, tl_scene_part* part) {
    char ptr[160], name_ptr[160];
    const tl_scene_skin* sk = &r->scene->skins[part->skin];
    uint32_t joint = part->bone_joints[0], node;
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_AIM_TARGET);
    snprintf(name_ptr, sizeof name_ptr, "%s/%s", base, TL_SCHEMA_AIM_TARGET_NAME);
    json_t* target = json_object_get(tailor, TL_SCHEMA_AIM_TARGET);
    if (!target) return tl_parts_refuse(r, ptr, "is missing");
    tl_result res =
        tl_parts_resolve(r, target, ptr, json_object_get(tailor, TL_SCHEMA_AIM_TARGET_NAME),
                         name_ptr, &node, &part->resolved_by_name);
    if (res != TL_OK) return res;
    if (r->joint_of_node[node] == TL_NONE)
        return tl_parts_refuse(r, ptr, "node %u is not a joint of skin %u", node, part->skin);
    part->aim_target = (uint32_t)r->joint_of_node[node];
    if (joint_under(sk, part->aim_target, joint))
        return tl_parts_refuse(
            r, ptr,
            "node %u is %s (node %u): turning it would move its own target "
            "(a cycle)",
            node, part->aim_target == joint ? "the aimed joint itself" : "below the aimed joint",
            part->node);
    part->aim = tl_default_aim_def();
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_AIM);
    return read_settings(r, ptr, json_object_get(tailor, TL_SCHEMA_AIM), tl_schema_aim_settings,
                         TL_SCHEMA_AIM_SETTING_COUNT, &part->aim, TL_SCHEMA_AIM_AXIS,
                         part->aim.aim_axis);
}

static tl_result read_pendulum(reader* r, const char* base, json_t* tailor, tl_scene_part* part) {
    char ptr[160];
    part->pendulum = tl_default_pendulum_def();
    snprintf(ptr, sizeof ptr, "%s/%s", base, TL_SCHEMA_PENDULUM);
    tl_result res = read_settings(r, ptr, json_object_get(tailor, TL_SCHEMA_PENDULUM),
                                  tl_schema_pendulum_settings, TL_SCHEMA_PENDULUM_SETTING_COUNT,
                                  &part->pendulum, TL_SCHEMA_PENDULUM_REST_DIRECTION,
                                  part->pendulum.rest_direction);
    if (res != TL_OK) return res;
    tl_pendulum check; /* what the solver refuses is refused here, at the file */
    tl_error why;
    if (tl_pendulum_init(&check, &part->pendulum, &why) != TL_OK)
        return tl_parts_refuse(r, ptr, "%s", why.message);
    return TL_OK;
}

tl_result tl_parts_read_joint_part(reader* r, const char* base, json_t* tailor,
                                   tl_scene_part* part) {
    tl_scene* scene = r->scene;
    part->skin = scene->skin_count;
    for (uint32_t s = 0; s < scene->skin_count && part->skin == scene->skin_count; ++s)
        if (tl_parts_skin_has(&scene->skins[s], part->node)) part->skin = s;
    if (part->skin == scene->skin_count)
        return tl_parts_refuse(r, base, "node %u is not a joint of any skin (a %s turns a joint)",
                               part->node, tl_part_kind_string(part->kind));
    tl_parts_load_skin_map(r, part->skin);
    const tl_scene_skin* sk = &scene->skins[part->skin];
    uint32_t joint = (uint32_t)r->joint_of_node[part->node];
    uint32_t* joints = tl_scene_storage(scene, sizeof *joints);
    float* radii = tl_scene_storage(scene, sizeof *radii);
    if (!joints || !radii)
        return tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
    joints[0] = joint;
    part->bone_count = 1, part->bone_joints = joints, part->end_joint = joint, part->radii = radii;
    part->attach_joint =
        sk->joints[joint].parent != TL_NONE ? (uint32_t)sk->joints[joint].parent : joint;
    part->chain = tl_default_chain_settings();
    bool aim = part->kind == TL_PART_AIM;
    tl_result res = aim ? read_aim(r, base, tailor, part) : read_pendulum(r, base, tailor, part);
    if (res == TL_OK && part->resolved_by_name)
        res = tl_parts_note(r, base,
                            "node indices disagree with the node names stored beside them (the "
                            "nodes were renumbered); the names were used");
    if (res != TL_OK) return res;
    static const char* const known_aim[] = {TL_SCHEMA_VERSION_KEY, TL_SCHEMA_KIND,
                                            TL_SCHEMA_AIM_TARGET,  TL_SCHEMA_AIM_TARGET_NAME,
                                            TL_SCHEMA_AIM,         NULL};
    static const char* const known_pendulum[] = {TL_SCHEMA_VERSION_KEY, TL_SCHEMA_KIND,
                                                 TL_SCHEMA_PENDULUM, NULL};
    return tl_parts_note_unknown(r, base, tailor, aim ? known_aim : known_pendulum, NULL);
}

static bool turns_joint(const tl_scene_part* p) {
    return p->kind == TL_PART_PENDULUM || p->kind == TL_PART_AIM;
}

/* A pendulum or aim on a joint that a tail, hair or cloth part also turns. */
static tl_result check_shared(reader* r, const tl_scene_part* parts, uint32_t count, uint32_t i) {
    const tl_scene_part* p = &parts[i];
    for (uint32_t k = 0; k < count; ++k) {
        const tl_scene_part* q = &parts[k];
        if (turns_joint(q) || q->skin != p->skin) continue;
        bool shared = false;
        for (uint32_t b = 0; b < q->bone_count && !shared; ++b)
            shared = q->bone_joints[b] == p->bone_joints[0];
        if (!shared) continue;
        char base[64];
        snprintf(base, sizeof base, "/nodes/%u/extras/%s", p->node, TL_SCHEMA_KEY);
        return tl_parts_refuse(r, base,
                               "joint %u is a bone of the %s part at /nodes/%u (two parts would "
                               "turn it)",
                               p->bone_joints[0], tl_part_kind_string(q->kind), q->node);
    }
    return TL_OK;
}

tl_result tl_parts_check_joint_parts(reader* r, const tl_scene_part* parts, uint32_t count) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i)
        n += turns_joint(&parts[i]);
    if (n == 0) return TL_OK;
    uint32_t* order = tl_scene_storage(r->scene, n * sizeof *order);
    /* per node: the aim part on it (+1), 0 for none; the state of each aim in the walk */
    uint32_t* aim_at = calloc(r->doc->node_count + 1, sizeof *aim_at);
    uint8_t* state = calloc(count + 1, 1);
    uint32_t* stack = calloc(count + 1, sizeof *stack);
    tl_result res = order && aim_at && state && stack
                        ? TL_OK
                        : tl_error_set(r->err, TL_ERROR_MEMORY, "%s: out of memory", r->label);
    uint32_t done = 0;
    for (uint32_t i = 0; i < count && res == TL_OK; ++i) {
        if (!turns_joint(&parts[i])) continue;
        res = check_shared(r, parts, count, i);
        if (parts[i].kind == TL_PART_PENDULUM) order[done++] = i;
        if (parts[i].kind == TL_PART_AIM) aim_at[parts[i].node] = i + 1;
    }
    /* aims depth first: an aim waits for the aims on its target's joint and above it (state 1:
       on the stack, 2: placed); meeting one on the stack is a cycle */
    for (uint32_t i = 0; i < count && res == TL_OK; ++i) {
        if (parts[i].kind != TL_PART_AIM || state[i]) continue;
        uint32_t depth = 0;
        stack[depth++] = i, state[i] = 1;
        while (depth > 0 && res == TL_OK) {
            const tl_scene_part* p = &parts[stack[depth - 1]];
            const tl_scene_skin* sk = &r->scene->skins[p->skin];
            int32_t wait = TL_NONE;
            for (int32_t j = (int32_t)p->aim_target; j != TL_NONE && wait == TL_NONE;
                 j = sk->joints[j].parent) {
                uint32_t a = aim_at[sk->joints[j].node];
                if (a && parts[a - 1].skin == p->skin && state[a - 1] != 2) wait = (int32_t)a - 1;
            }
            if (wait == TL_NONE) {
                order[done++] = stack[--depth], state[p - parts] = 2;
            } else if (state[wait] == 1) {
                char base[64];
                snprintf(base, sizeof base, "/nodes/%u/extras/%s/%s", p->node, TL_SCHEMA_KEY,
                         TL_SCHEMA_AIM_TARGET);
                res = tl_parts_refuse(r, base,
                                      "its target moves with the aim at /nodes/%u, which waits "
                                      "for this one (a cycle of aims)",
                                      parts[wait].node);
            } else {
                stack[depth++] = (uint32_t)wait, state[wait] = 1;
            }
        }
    }
    if (res == TL_OK) r->scene->joint_parts = order, r->scene->joint_part_count = n;
    free(aim_at), free(state), free(stack);
    return res;
}
