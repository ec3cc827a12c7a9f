/* tailor measure --stress: the spec's stress runs on every chain, cloth and joint part
 * (docs/stress.md), printed or as JSON. */
#include "measure_internal.h"

#include <stdio.h>
#include <string.h>

static json_t* stress_json(const char* name, const tl_stress_report* r) {
    return json_pack("{s:s,s:i,s:f,s:f,s:f,s:[f,f,f,f,f],s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}",
                     "name", name, "nonfinite", (int)r->nonfinite, "max_length_error",
                     (double)r->max_length_error, "fps_max_diff", (double)r->fps_max_diff,
                     "fps_max_diff_sampled", (double)r->fps_max_diff_sampled, "fps_rates",
                     (double)r->fps_rates[0], (double)r->fps_rates[1], (double)r->fps_rates[2],
                     (double)r->fps_rates[3], (double)r->fps_rates[4], "cut_error",
                     (double)r->cut_error, "max_step_rotation_deg",
                     (double)r->max_step_rotation_deg, "max_neighbour_step_rotation_deg",
                     (double)r->max_neighbour_step_rotation_deg, "hitch_speed_ratio",
                     (double)r->hitch_speed_ratio, "teleport_speed_ratio",
                     (double)r->teleport_speed_ratio, "settle_seconds", (double)r->settle_seconds,
                     "hitch_speed_ratio_later", (double)r->hitch_speed_ratio_later,
                     "teleport_speed_ratio_later", (double)r->teleport_speed_ratio_later,
                     "collider_penetration", (double)r->collider_penetration);
}

/* --stress on every cloth part (tl_measure_stress_cloth): one entry each, named by its
 * attachment joint and marked "kind": "cloth"; non-zero after printing a failure. */
static int run_stress_cloths(const char* file, const tl_scene* scene, int32_t clip,
                             const tl_stress_def* def, bool as_json, json_t* parts) {
    for (uint32_t k = 0; k < scene->part_count; ++k) {
        const tl_scene_part* sp = &scene->parts[k];
        if (sp->kind != TL_PART_CLOTH) continue;
        tl_stress_report r;
        tl_error err;
        if (tl_measure_stress_cloth(scene, k, clip, def, &r, &err))
            return tl_cli_fail_file("measure", file, err.message);
        char name[160];
        snprintf(name, sizeof name, "cloth %s",
                 scene->skins[sp->skin].joints[sp->attach_joint].name);
        json_t* entry = stress_json(name, &r);
        json_object_set_new(entry, "kind", json_string("cloth"));
        json_object_set_new(entry, "fps_max_diff_sampled_target", json_real(0.001));
        json_object_set_new(entry, "chain_length", json_real(r.chain_length));
        json_object_set_new(entry, "colliders", json_integer(r.colliders));
        json_object_set_new(entry, "collider_penetration_frames", json_integer(r.collider_frames));
        json_object_set_new(entry, "cut_error_frame", json_string("character"));
        json_array_append_new(parts, entry);
        if (!as_json)
            printf("  %-16s %9u %10.2g %8.2f%% %9.1f° %9.1f° %8.3f %8.3f %7.2fs  %.3f %.3f"
                   "  (sampled %.4f%%, cut %.2g, penetration %.2g H)\n",
                   name, r.nonfinite, r.max_length_error, 100 * r.fps_max_diff,
                   r.max_step_rotation_deg, r.max_neighbour_step_rotation_deg, r.hitch_speed_ratio,
                   r.teleport_speed_ratio, r.settle_seconds, r.hitch_speed_ratio_later,
                   r.teleport_speed_ratio_later, 100 * r.fps_max_diff_sampled, r.cut_error,
                   r.collider_penetration);
    }
    return 0;
}

/* --stress on the pendulum and aim parts (tl_measure_stress_joint_parts): one entry each, named
 * by its joint, "kind" "pendulum" or "aim", with the chain's settle_seconds; non-zero after
 * printing a failure. */
static int run_stress_joints(const char* file, const tl_scene* scene, int32_t clip,
                             const tl_stress_def* def, bool as_json, json_t* parts) {
    tl_joint_part_report r[64];
    uint32_t n;
    tl_error err;
    if (tl_measure_stress_joint_parts(scene, clip, def, r, 64, &n, &err))
        return tl_cli_fail_file("measure", file, err.message);
    for (uint32_t i = 0; i < n; ++i) {
        const tl_scene_part* sp = &scene->parts[r[i].part];
        const char* joint = scene->skins[sp->skin].joints[sp->bone_joints[0]].name;
        bool aim = r[i].kind == TL_PART_AIM;
        json_t* entry =
            json_pack("{s:s,s:s,s:I}", "name", joint, "kind", tl_part_kind_string(r[i].kind),
                      "nonfinite", (json_int_t)r[i].nonfinite);
        if (aim)
            json_object_set_new(entry, "aim_error_max_deg", json_real(r[i].aim_error_max_deg));
        else
            json_object_set_new(entry, "swing_max_deg", json_real(r[i].swing_max_deg)),
                json_object_set_new(entry, "settle_seconds", json_real(r[i].settle_seconds));
        json_array_append_new(parts, entry);
        if (!as_json && aim)
            printf("  aim %-12s %9u  off target at most %.3f°\n", joint, r[i].nonfinite,
                   r[i].aim_error_max_deg);
        else if (!as_json)
            printf("  pendulum %-7s %9u  swing up to %.1f° in the clip, settles in %.2f s\n", joint,
                   r[i].nonfinite, r[i].swing_max_deg, r[i].settle_seconds);
    }
    return 0;
}

/* --stress: the spec's stress runs on each chain (measure.md "Stress"). */
int tl_cli_measure_stress(const char* file, const tl_measure_rig* c, const tl_scene* scene,
                          const char* clip_name, bool as_json) {
    /* the cloth parts of the chains' configuration, else the file's own (a rigged file) */
    uint32_t cloths = 0, chains = c ? c->chain_count : 0;
    if (c) scene = c->scene;
    for (uint32_t k = 0; k < scene->part_count; ++k)
        cloths += scene->parts[k].kind == TL_PART_CLOTH;
    if (chains == 0 && cloths == 0 && scene->joint_part_count == 0)
        return tl_cli_fail("measure",
                           "%s: --stress needs a chain, a cloth, a pendulum or an aim (none found "
                           "or built)",
                           file);
    tl_error err;
    int32_t clip = TL_NONE;
    uint32_t found;
    if (clip_name) {
        if (tl_scene_find_clip(scene, clip_name, &found, &err))
            return tl_cli_fail("measure", "%s", err.message);
        clip = (int32_t)found;
    } else {
        clip = tl_stress_default_clip(scene);
    }
    json_t* parts = json_array();
    tl_stress_def def = tl_default_stress_def();
    if (!as_json)
        printf("%s: stress, clip %s\n  %-16s %9s %10s %9s %10s %10s %8s %8s %8s  %s\n", file,
               clip == TL_NONE ? "(none)" : scene->clips[clip].name, "chain", "nonfinite",
               "length err", "fps diff", "step rot", "neighbour", "hitch", "teleport", "settle",
               "(later: hitch teleport)");
    for (uint32_t i = 0; i < chains; ++i) {
        tl_stress_report r;
        if (tl_measure_stress(c->scene, &c->chains[i], clip, &def, &r, &err)) {
            json_decref(parts);
            return tl_cli_fail_file("measure", file, err.message);
        }
        json_t* entry = stress_json(tl_cli_measure_chain_name(c, i), &r);
        json_object_set_new(entry, "colliders", json_integer(r.colliders));
        json_object_set_new(entry, "collider_penetration_frames", json_integer(r.collider_frames));
        json_array_append_new(parts, entry);
        if (!as_json)
            printf("  %-16s %9u %10.2g %8.2f%% %9.1f° %9.1f° %8.3f %8.3f %7.2fs  %.3f %.3f\n",
                   tl_cli_measure_chain_name(c, i), r.nonfinite, r.max_length_error,
                   100 * r.fps_max_diff, r.max_step_rotation_deg, r.max_neighbour_step_rotation_deg,
                   r.hitch_speed_ratio, r.teleport_speed_ratio, r.settle_seconds,
                   r.hitch_speed_ratio_later, r.teleport_speed_ratio_later);
    }
    if (run_stress_cloths(file, scene, clip, &def, as_json, parts) ||
        run_stress_joints(file, scene, clip, &def, as_json, parts)) {
        json_decref(parts);
        return 1;
    }
    if (as_json) {
        json_t* out = json_pack("{s:s,s:o}", "clip", clip == TL_NONE ? "" : scene->clips[clip].name,
                                "parts", parts);
        int code = tl_cli_json_out("measure", file, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        json_decref(out);
        return code;
    } else {
        json_decref(parts);
    }
    return 0;
}
