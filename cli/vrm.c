/* --vrm of tailor rig and tailor bake: the chains as VRMC_springBone spring bones, fitted to
 * tailor's motion (docs/vrm.md). */
#include "cli.h"

#include <math.h>
#include <string.h>

int tl_cli_vrm_document(const char* cmd, tl_gltf* doc, json_t* report, FILE* summary) {
    tl_vrm_def def = tl_default_vrm_def();
    tl_vrm_fit fits[64];
    uint32_t n = 0;
    tl_error err;
    if (tl_vrm_write(doc, &def, fits, 64, &n, &err) != TL_OK)
        return tl_cli_fail(cmd, "--vrm: %s", err.message);
    if (n == 0 && summary) fprintf(summary, "--vrm: no chains, no spring bones written\n");
    json_t* list = json_array();
    for (uint32_t i = 0; i < n && i < 64; ++i) {
        const tl_vrm_fit* f = &fits[i];
        const char* name = doc->nodes[f->node].name ? doc->nodes[f->node].name : "";
        const char* clip =
            f->clip == TL_NONE
                ? NULL
                : json_string_value(json_object_get(
                      json_array_get(json_object_get(tl_gltf_json(doc), "animations"),
                                     (size_t)f->clip),
                      "name"));
        if (summary && f->clip == TL_NONE)
            fprintf(summary,
                    "VRM spring %s: %u joints, %u colliders, default settings (no clip to fit)\n",
                    name, f->joints, f->colliders);
        else if (summary)
            fprintf(summary,
                    "VRM spring %s: %u joints, %u colliders; tip within %.4f H (RMS %.4f H, "
                    "unfitted %.4f H) of tailor's on %s\n",
                    name, f->joints, f->colliders, f->error_max, f->error_rms, f->error_default,
                    clip ? clip : "?");
        json_array_append_new(
            list,
            json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:[f,f],s:[f,f],s:f,s:[f,f],s:i}", "spring",
                      name, "joints", (int)f->joints, "colliders", (int)f->colliders, "clip",
                      clip ? json_string(clip) : json_null(), "fit_error_max",
                      json_real(f->error_max), "fit_error_rms", json_real(f->error_rms),
                      "fit_error_default", json_real(f->error_default), "stiffness",
                      (double)f->stiffness[0], (double)f->stiffness[1], "drag", (double)f->drag[0],
                      (double)f->drag[1], "gravity_power", (double)f->gravity_power, "hit_radius",
                      (double)f->hit_radius[0], (double)f->hit_radius[1], "evaluations",
                      (int)f->evaluations));
    }
    if (report)
        json_object_set_new(report, "vrm", list);
    else
        json_decref(list);
    return 0;
}

json_t* tl_cli_vrm_springs_json(const tl_gltf* doc) {
    tl_vrm_spring springs[256];
    uint32_t n = 0, colliders = 0;
    tl_error err;
    json_t* list = json_array();
    if (tl_vrm_springs(doc, springs, 256, &n, &colliders, &err) != TL_OK) {
        fprintf(stderr, "tailor inspect: note: %s\n", err.message);
        return list;
    }
    for (uint32_t i = 0; i < n && i < 256; ++i) {
        const tl_vrm_spring* s = &springs[i];
        const char* first = doc->nodes[s->first_node].name;
        const char* last = doc->nodes[s->last_node].name;
        json_array_append_new(
            list,
            json_pack("{s:s,s:s,s:i,s:i,s:o,s:i,s:o,s:f,s:f,s:f,s:f,s:i,s:b}", "version",
                      s->version ? "1.0" : "0.x", "name", s->name, "joints", (int)s->joint_count,
                      "first_node", (int)s->first_node, "first_name",
                      first ? json_string(first) : json_null(), "last_node", (int)s->last_node,
                      "last_name", last ? json_string(last) : json_null(), "stiffness",
                      (double)s->stiffness, "gravity_power", (double)s->gravity_power, "drag_force",
                      (double)s->drag_force, "hit_radius", (double)s->hit_radius, "collider_groups",
                      (int)s->collider_groups, "tailor", s->tailor));
    }
    return list;
}

void tl_cli_vrm_springs_print(const json_t* springs) {
    if (!json_array_size(springs)) return;
    printf("\n%zu VRM spring(s)\n", json_array_size(springs));
    size_t i;
    const json_t* s;
    json_array_foreach(springs, i, s) {
        bool v1 = !strcmp(json_string_value(json_object_get(s, "version")), "1.0");
        const json_t* first = json_object_get(s, "first_name");
        const json_t* last = json_object_get(s, "last_name");
        printf("  %s \"%s\": %d %s, %s .. %s, stiffness %.3g, gravity %.3g, drag %.3g, hit radius "
               "%.3g, %d collider group(s)%s\n",
               v1 ? "VRMC_springBone spring" : "VRM 0.x spring group",
               json_string_value(json_object_get(s, "name")),
               (int)json_integer_value(json_object_get(s, "joints")),
               v1 ? "joints" : "root bone(s)",
               json_is_string(first) ? json_string_value(first) : "(unnamed)",
               json_is_string(last) ? json_string_value(last) : "(unnamed)",
               json_number_value(json_object_get(s, "stiffness")),
               json_number_value(json_object_get(s, "gravity_power")),
               json_number_value(json_object_get(s, "drag_force")),
               json_number_value(json_object_get(s, "hit_radius")),
               (int)json_integer_value(json_object_get(s, "collider_groups")),
               json_is_true(json_object_get(s, "tailor")) ? " (tailor)" : "");
    }
}
