/* tailor play: run a clip with every chain simulated; print the chains' joints per frame. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char* USAGE =
    "usage: tailor play FILE --clip NAME [--fps 60] [--seconds S] [--chain J1,J2,...] [--json]\n"
    "  Plays the clip with every bone chain simulated (the chains tailor rig stored in the file,\n"
    "  or --chain: existing joints, root first, hanging from the first one's parent) and prints\n"
    "  the world positions of each chain's joints per frame.\n"
    "  --fps N        frames per second (default 60)\n"
    "  --seconds S    how long (default: the clip's duration; longer plays it again)\n"
    "  --json         JSON Lines: a header {\"clip\", \"fps\", \"frames\": N, \"chains\":\n"
    "                 [{\"joints\": [names], \"attachment\"}]}, then one line per frame\n"
    "                 {\"t\", \"chains\": [[[x,y,z] per joint], ...]} (so head works)\n";

/* --chain "A,B,C": joints of one skin by name, attachment = A's parent joint. */
int tl_cli_chain_from_names(const tl_scene* scene, const char* list, tl_play_chain* out) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    memset(out, 0, sizeof *out);
    out->end_joint = TL_NONE;
    out->settings = tl_default_chain_def();
    char* save = NULL;
    for (char* name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int32_t j = TL_NONE;
        uint32_t s;
        for (s = 0; s < scene->skin_count && j == TL_NONE; ++s)
            j = tl_scene_find_joint(scene, s, name);
        if (j == TL_NONE) return tl_cli_fail("play", "--chain: no joint named \"%s\"", name);
        if (out->bone_count == 0)
            out->skin = s - 1;
        else if (out->skin != s - 1)
            return tl_cli_fail("play", "--chain: \"%s\" is in another skin", name);
        if (out->bone_count == TL_CHAIN_MAX_BONES)
            return tl_cli_fail("play", "--chain: too many joints");
        out->bone_joints[out->bone_count++] = (uint32_t)j;
    }
    if (out->bone_count == 0) return tl_cli_fail("play", "--chain: no joints given");
    int32_t parent = scene->skins[out->skin].joints[out->bone_joints[0]].parent;
    if (parent == TL_NONE)
        return tl_cli_fail("play", "--chain: the first joint has no parent joint to hang from");
    out->attach_joint = (uint32_t)parent;
    return 0;
}

/* The --json header line: the clip, the rate, the frame count and each chain's joints. */
/* Per pendulum: its swing from the rest direction; per aim: the angle between its joint's aim axis
 * and the direction to its target, degrees (docs/cloth.md "Pendulum and aim"). */
static json_t* joint_parts_json(const tl_player* player, const tl_scene* scene,
                                const tl_pose* pose) {
    json_t* list = json_array();
    for (uint32_t i = 0; i < tl_player_joint_part_count(player); ++i) {
        const tl_scene_part* sp = &scene->parts[tl_player_joint_part(player, i)];
        const tl_scene_skin* sk = &scene->skins[sp->skin];
        const tl_pendulum* pendulum = tl_player_pendulum(player, i);
        const char* name = sk->joints[sp->bone_joints[0]].name;
        if (pendulum) {
            json_array_append_new(list,
                                  json_pack("{s:s,s:s,s:f}", "kind", "pendulum", "joint", name,
                                            "swing_deg", (double)tl_pendulum_swing_deg(pendulum)));
            continue;
        }
        json_array_append_new(list,
                              json_pack("{s:s,s:s,s:f}", "kind", "aim", "joint", name, "error_deg",
                                        (double)tl_measure_aim_error_deg(scene, sp, pose)));
    }
    return list;
}

static int print_header(const tl_scene* scene, const tl_play_chain* chains, uint32_t chain_count,
                        uint32_t clip, double fps, long frames, const char* file) {
    json_t* names = json_array();
    for (uint32_t c = 0; c < chain_count; ++c) {
        const tl_scene_skin* sk = &scene->skins[chains[c].skin];
        json_t* list = json_array();
        for (uint32_t b = 0; b < chains[c].bone_count; ++b)
            json_array_append_new(list, json_string(sk->joints[chains[c].bone_joints[b]].name));
        if (chains[c].end_joint != TL_NONE)
            json_array_append_new(list, json_string(sk->joints[chains[c].end_joint].name));
        else
            json_array_append_new(list, json_string("(tip)"));
        json_array_append_new(names, json_pack("{s:o,s:s}", "joints", list, "attachment",
                                               sk->joints[chains[c].attach_joint].name));
    }
    json_t* head = json_pack("{s:s,s:f,s:I,s:o}", "clip", scene->clips[clip].name, "fps", fps,
                             "frames", (json_int_t)frames, "chains", names);
    int code = tl_cli_json_out("play", file, head, JSON_COMPACT | JSON_REAL_PRECISION(7));
    json_decref(head);
    return code;
}

int tl_cli_play(int argc, char** argv) {
    const char *file = NULL, *clip_name = NULL, *chain_list = NULL;
    double fps = 60, seconds = -1;
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        bool value = i + 1 < argc;
        if (tl_cli_is_help(argv[i]))
            return printf("%s", USAGE), 0;
        else if (!strcmp(argv[i], "--json"))
            as_json = true;
        else if (!strcmp(argv[i], "--clip") && value)
            clip_name = argv[++i];
        else if (!strcmp(argv[i], "--chain") && value)
            chain_list = argv[++i];
        else if (!strcmp(argv[i], "--fps") && value) {
            char* end;
            fps = strtod(argv[++i], &end);
            if (*end || !(fps >= 1 && fps <= 10000))
                return tl_cli_fail("play", "--fps: expected 1..10000"), 2;
        } else if (!strcmp(argv[i], "--seconds") && value) {
            char* end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds >= 0 && seconds <= 3600))
                return tl_cli_fail("play", "--seconds: expected 0..3600"), 2;
        } else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else
            return tl_cli_fail("play", "unexpected argument \"%s\" (see --help)", argv[i]), 2;
    }
    if (!file || !clip_name) return fprintf(stderr, "%s", USAGE), 2;
    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_player* player = NULL;
    tl_pose* pose = NULL;
    int code = 0;
    tl_play_chain chains[64];
    uint32_t chain_count = 0, clip;
    if (tl_gltf_load(file, &doc, &err) || tl_scene_create(doc, &scene, &err) ||
        tl_scene_find_clip(scene, clip_name, &clip, &err)) {
        code = tl_cli_fail("play", "%s", err.message);
        goto done;
    }
    for (uint32_t i = 0; i < scene->note_count; ++i)
        fprintf(stderr, "tailor play: note: %s\n", scene->notes[i]);
    if (chain_list) {
        if ((code = tl_cli_chain_from_names(scene, chain_list, &chains[0]))) goto done;
        chain_count = 1;
    } else if (tl_play_chains_find(scene, chains, 64, &chain_count, &err)) {
        code = tl_cli_fail("play", "%s", err.message);
        goto done;
    }
    if (chain_count > 64) chain_count = 64;
    if (chain_count == 0 && scene->joint_part_count == 0) {
        code = tl_cli_fail(
            "play", "%s: no chains (run tailor rig first, or name joints with --chain)", file);
        goto done;
    }
    tl_player_def def = tl_default_player_def();
    def.loop = true; /* --seconds past the clip's end plays it again, the tail swinging on */
    if (tl_player_create(scene, chains, chain_count, &def, &player, &err)) {
        code = tl_cli_fail("play", "%s", err.message);
        goto done;
    }
    pose = tl_pose_create(scene);
    bool one_skin = pose != NULL;
    for (uint32_t c = 0; c < chain_count; ++c)
        one_skin = one_skin && chains[c].skin == chains[0].skin;
    /* only the chains' and joint parts' joints are read */
    uint32_t skin0 = chain_count ? chains[0].skin : scene->parts[scene->joint_parts[0]].skin;
    for (uint32_t c = 0; c < scene->joint_part_count; ++c)
        one_skin = one_skin && scene->parts[scene->joint_parts[c]].skin == skin0;
    if (one_skin) tl_pose_keep_skin(pose, scene, skin0);
    if (seconds < 0) seconds = scene->clips[clip].duration;
    long frames = (long)floor(seconds * fps + 1e-6) + 1;
    if (as_json && (code = print_header(scene, chains, chain_count, clip, fps, frames, file)))
        goto done;
    if (!as_json)
        printf("%s: clip %s, %u chain(s), %u pendulum/aim part(s), %ld frames at %g fps\n", file,
               scene->clips[clip].name, chain_count, scene->joint_part_count, frames, fps);
    for (long f = 0; f < frames; ++f) {
        float t = (float)((double)f / fps);
        double duration = scene->clips[clip].duration;
        tl_player_advance(player, pose, clip,
                          duration > 0 ? (float)fmod((double)f / fps, duration) : 0.0f);
        json_t* jchains = json_array();
        for (uint32_t c = 0; c < chain_count; ++c) {
            const tl_scene_skin* sk = &scene->skins[chains[c].skin];
            json_t* joints = json_array();
            for (uint32_t b = 0; b <= chains[c].bone_count; ++b) {
                int32_t j = b < chains[c].bone_count ? (int32_t)chains[c].bone_joints[b]
                                                     : chains[c].end_joint;
                const float* w = NULL;
                float tip[3];
                if (j != TL_NONE) {
                    w = pose->world + 16 * (size_t)sk->joints[j].node + 12;
                } else {
                    const float* at = tl_chain_tip_positions(tl_player_chain(player, c));
                    float origin[3]; /* (the player's floating origin) */
                    tl_player_origin(player, origin);
                    for (int k = 0; k < 3; ++k)
                        tip[k] = at[3 * (b - 1) + k] + origin[k];
                    w = tip;
                }
                json_array_append_new(
                    joints, json_pack("[f,f,f]", (double)w[0], (double)w[1], (double)w[2]));
            }
            if (!as_json) {
                json_t* last = json_array_get(joints, json_array_size(joints) - 1);
                printf("  t %7.3f  chain %u tip (%9.4f %9.4f %9.4f)\n", t, c,
                       json_real_value(json_array_get(last, 0)),
                       json_real_value(json_array_get(last, 1)),
                       json_real_value(json_array_get(last, 2)));
            }
            json_array_append_new(jchains, joints);
        }
        json_t* jparts = joint_parts_json(player, scene, pose);
        for (size_t k = 0; !as_json && k < json_array_size(jparts); ++k) {
            json_t* e = json_array_get(jparts, k);
            json_t* v = json_object_get(e, "swing_deg");
            printf("  t %7.3f  %s %s %s %.3f deg\n", t,
                   json_string_value(json_object_get(e, "kind")),
                   json_string_value(json_object_get(e, "joint")), v ? "swing" : "off target",
                   json_real_value(v ? v : json_object_get(e, "error_deg")));
        }
        if (as_json) {
            json_t* line = json_pack("{s:f,s:o,s:o}", "t", (double)t, "chains", jchains,
                                     "joint_parts", jparts);
            code = tl_cli_json_out("play", file, line, JSON_COMPACT | JSON_REAL_PRECISION(7));
            json_decref(line);
            if (code) goto done;
        } else {
            json_decref(jchains);
            json_decref(jparts);
        }
    }
done:
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return code;
}
