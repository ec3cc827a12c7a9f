/* tailor rig --pendulum NODE[:LENGTH_M] and --aim NODE=TARGET[:MAX_DEG[:WEIGHT]]: parts that turn
 * an existing joint (docs/rig.md, docs/schema.md kinds pendulum and aim). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A node by exact name, else by index (digits only); TL_NONE for neither. */
static int32_t find_node(const tl_gltf* doc, const char* s, size_t len) {
    for (uint32_t n = 0; n < doc->node_count; ++n)
        if (doc->nodes[n].name && strlen(doc->nodes[n].name) == len &&
            !strncmp(doc->nodes[n].name, s, len))
            return (int32_t)n;
    char digits[16];
    if (len == 0 || len >= sizeof digits || strspn(s, "0123456789") < len) return TL_NONE;
    memcpy(digits, s, len), digits[len] = 0;
    unsigned long i = strtoul(digits, NULL, 10);
    return i < doc->node_count ? (int32_t)i : TL_NONE;
}

static bool parse_number(const char* s, float* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || (*end && *end != ':') || !isfinite(v)) return false;
    *out = (float)v;
    return true;
}

/* The skin and joint of a node (the first skin holding it), false when it is no joint. */
static bool joint_of(const tl_scene* scene, uint32_t node, uint32_t* skin, uint32_t* joint) {
    for (uint32_t s = 0; s < scene->skin_count; ++s)
        for (uint32_t j = 0; j < scene->skins[s].joint_count; ++j)
            if (scene->skins[s].joints[j].node == node) return *skin = s, *joint = j, true;
    return false;
}

/* The part that already turns this joint (a tail, hair or cloth bone), or NULL. */
static const tl_scene_part* owner(const tl_scene* scene, uint32_t skin, uint32_t joint) {
    for (uint32_t i = 0; i < scene->part_count; ++i) {
        const tl_scene_part* p = &scene->parts[i];
        for (uint32_t b = 0; p->skin == skin && b < p->bone_count; ++b)
            if (p->bone_joints[b] == joint || p->end_joint == joint) return p;
    }
    return NULL;
}

/* One option: checks it on the scene and writes the part into the document. */
static int add_part(const tl_scene* scene, tl_gltf* doc, bool aim, const char* spec) {
    const char* option = aim ? "--aim" : "--pendulum";
    size_t len = strcspn(spec, aim ? "=" : ":");
    int32_t node = find_node(doc, spec, len);
    if (node == TL_NONE)
        return tl_cli_fail("rig", "%s %s: no node is named or numbered \"%.*s\"", option, spec,
                           (int)len, spec),
               2;
    uint32_t skin, joint;
    if (!joint_of(scene, (uint32_t)node, &skin, &joint))
        return tl_cli_fail("rig", "%s %s: node %d is not a joint of any skin", option, spec, node),
               2;
    const tl_scene_part* p = owner(scene, skin, joint);
    if (p)
        return tl_cli_fail("rig", "%s %s: node %d is a bone of the %s part at node %u", option,
                           spec, node, tl_part_kind_string(p->kind), p->node),
               2;
    tl_error err;
    tl_result r;
    if (!aim) {
        float length = 0;
        if (spec[len] == ':' && !(parse_number(spec + len + 1, &length) && length > 0))
            return tl_cli_fail("rig", "%s %s: the length must be a number of metres > 0", option,
                               spec),
                   2;
        tl_pendulum_def def = tl_part_default_pendulum(scene, skin, joint, length);
        r = tl_part_write_pendulum(doc, (uint32_t)node, &def, &err);
    } else {
        const char* t = spec[len] == '=' ? spec + len + 1 : NULL;
        size_t tlen = t ? strcspn(t, ":") : 0;
        int32_t target = t ? find_node(doc, t, tlen) : TL_NONE;
        if (target == TL_NONE)
            return tl_cli_fail("rig", "%s %s: expected NODE=TARGET, TARGET a node's name or index",
                               option, spec),
                   2;
        uint32_t tskin, tjoint;
        if (!joint_of(scene, (uint32_t)target, &tskin, &tjoint) || tskin != skin)
            return tl_cli_fail("rig", "%s %s: target node %d is not a joint of skin %u", option,
                               spec, target, skin),
                   2;
        for (int32_t n = target; n != TL_NONE; n = doc->nodes[n].parent)
            if (n == node)
                return tl_cli_fail("rig",
                                   "%s %s: target node %d is %s node %d: turning it would move its "
                                   "own target",
                                   option, spec, target, target == node ? "the same as" : "below",
                                   node),
                       2;
        tl_aim_def def = tl_part_default_aim(scene, skin, joint);
        const char* more = t + tlen;
        if (*more == ':' && !(parse_number(more + 1, &def.max_angle_deg) &&
                              def.max_angle_deg >= 0 && def.max_angle_deg <= 180))
            return tl_cli_fail("rig", "%s %s: MAX_DEG must be in [0, 180]", option, spec), 2;
        more = *more == ':' ? more + 1 + strcspn(more + 1, ":") : more;
        if (*more == ':' &&
            !(parse_number(more + 1, &def.weight) && def.weight >= 0 && def.weight <= 1))
            return tl_cli_fail("rig", "%s %s: WEIGHT must be in [0, 1]", option, spec), 2;
        r = tl_part_write_aim(doc, (uint32_t)node, (uint32_t)target, &def, &err);
    }
    /* the skin's frame beside it, as for chains: a pendulum's gravity and H follow it */
    if (r == TL_OK) r = tl_skin_write_frame(doc, scene, skin, &err);
    if (r != TL_OK) return tl_cli_fail("rig", "%s %s: %s", option, spec, err.message), 2;
    return 0;
}

/* Each option's NODE that is an unskinned mesh node (a hood modelled apart under the head)
 * made a joint of its ancestor joint's skin (tl_rig_mesh_joint), so the part can turn it.
 * 0 or the exit code. */
static int mesh_joints(tl_gltf* doc, const char* const* specs, const bool* aims, int count,
                       FILE* summary) {
    for (int i = 0; i < count; ++i) {
        int32_t node = find_node(doc, specs[i], strcspn(specs[i], aims[i] ? "=" : ":"));
        if (node == TL_NONE || doc->nodes[node].mesh == TL_NONE || doc->nodes[node].skin != TL_NONE)
            continue;
        tl_error err;
        tl_scene* scene = NULL;
        if (tl_scene_create(doc, &scene, &err) != TL_OK)
            return tl_cli_fail("rig", "%s", err.message);
        uint32_t skin, joint;
        tl_result r = TL_OK;
        bool made = !joint_of(scene, (uint32_t)node, &skin, &joint);
        if (made) r = tl_rig_mesh_joint(doc, scene, (uint32_t)node, &skin, &err);
        tl_scene_destroy(scene);
        if (r != TL_OK)
            return tl_cli_fail("rig", "%s %s: %s", aims[i] ? "--aim" : "--pendulum", specs[i],
                               err.message),
                   2;
        if (made && summary)
            fprintf(summary, "mesh node %d (%s) made a joint of skin %u\n", node,
                    doc->nodes[node].name ? doc->nodes[node].name : "", skin);
    }
    return 0;
}

int tl_cli_rig_joint_parts(tl_gltf* doc, const char* const* specs, const bool* aims, int count,
                           FILE* summary) {
    if (count == 0) return 0;
    int code = mesh_joints(doc, specs, aims, count, summary);
    if (code) return code;
    tl_error err;
    tl_scene* scene = NULL;
    if (tl_scene_create(doc, &scene, &err) != TL_OK) return tl_cli_fail("rig", "%s", err.message);
    for (int i = 0; i < count && !code; ++i)
        code = add_part(scene, doc, aims[i], specs[i]);
    tl_scene_destroy(scene);
    scene = NULL;
    /* what the reader refuses (a cycle of aims) is refused here, before anything is written */
    if (!code && tl_scene_create(doc, &scene, &err) != TL_OK)
        code = tl_cli_fail("rig", "%s", err.message), code = 2;
    if (!code && summary)
        fprintf(summary, "%u pendulum/aim part(s) stored\n", scene->joint_part_count);
    tl_scene_destroy(scene);
    return code;
}
