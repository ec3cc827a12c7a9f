/* --vrm of tailor rig and tailor bake: the chains as VRMC_springBone spring bones, fitted to
 * tailor's motion (docs/vrm.md). */
#include "cli.h"

#include <math.h>

int tl_cli_vrm_document(const char* cmd, tl_gltf* doc, json_t* report) {
    tl_vrm_def def = tl_default_vrm_def();
    tl_vrm_fit fits[64];
    uint32_t n = 0;
    tl_error err;
    if (tl_vrm_write(doc, &def, fits, 64, &n, &err) != TL_OK)
        return tl_cli_fail(cmd, "--vrm: %s", err.message);
    if (n == 0) printf("--vrm: no chains, no spring bones written\n");
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
        if (f->clip == TL_NONE)
            printf("VRM spring %s: %u joints, %u colliders, default settings (no clip to fit)\n",
                   name, f->joints, f->colliders);
        else
            printf("VRM spring %s: %u joints, %u colliders; tip within %.4f H (RMS %.4f H, "
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
