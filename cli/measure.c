/* tailor measure: edge stretch, weighted bone distance and liveliness of regions over clips,
 * for the file as it is and, on an un-rigged file, for the rigs tailor would make of it. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 32
#define MAX_CHAINS 16
#define MAX_SAMPLES 4096

static const char* USAGE =
    "usage: tailor measure FILE [--clip NAME] [--region PATTERN]... [--region-json FILE]...\n"
    "                      [--samples N] [--skin N] [--stress] [--json]\n"
    "  Edge stretch (skinned / rest edge length at N evenly spaced clip times), weighted bone\n"
    "  distance and, for chains, liveliness, per region, and the body baseline (edges outside\n"
    "  every region). Without regions the regions are the parts tailor rig detects (on an\n"
    "  un-rigged file, measured as the file is, rigid, and with a chain, rigged in memory) or\n"
    "  the skin of each chain a rigged file already has. Chains are simulated from rest at t=0.\n"
    "  --clip NAME         one clip (exact name or the part after '|'); default: every clip\n"
    "  --region PATTERN    vertices whose dominant joint's name matches the POSIX extended regex\n"
    "  --region-json FILE  {\"vertices\": [union indices]} or a case's .truth.json\n"
    "  --samples N         sample times per clip (default 24)\n"
    "  --skin N            which skin (default: the one with the most vertices)\n"
    "  --stress            instead: the spec's stress runs on every chain (hip shake, 30/60/144 "
    "fps,\n"
    "                      a 0.5 s hitch, a 100 m teleport) in the clip given, else the first "
    "run/\n"
    "                      gallop clip, else walk, else the first (docs/stress.md)\n"
    "  --json              one JSON document (schema: docs/measure.md)\n";

typedef struct region {
    char name[256];
    const char* cls; /* detected part class, or NULL for a user region */
    int part;        /* analysis part id, or -1 */
    int chain;       /* index of the chain that moves it in the chain configuration, or -1 */
    uint8_t* mask;
    size_t vertices;
} region;

enum { CFG_ORIGINAL, CFG_RIGID, CFG_CHAIN_STATIC, CFG_CHAIN, CFG_COUNT };
static const char* CFG_NAMES[CFG_COUNT] = {"original", "rigid", "chain_static", "chain"};

/* One way of rigging the file, measured over the same regions. */
typedef struct config {
    bool used;
    tl_gltf* doc;
    tl_scene* scene;
    tl_player* player; /* chains simulated (CFG_CHAIN) */
    tl_play_chain chains[MAX_CHAINS];
    uint32_t chain_count;
    tl_liveliness_acc* live[MAX_CHAINS];
    tl_stretch* stretch;
    uint32_t clip;
} config;

static int region_from_pattern(const tl_scene_skin* sk, const char* pattern, region* r) {
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return tl_cli_fail("measure", "--region \"%s\": not a valid regular expression", pattern);
    bool* matches = calloc(sk->joint_count + 1, sizeof *matches);
    if (!matches) return regfree(&re), tl_cli_fail("measure", "out of memory");
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        matches[j] = regexec(&re, sk->joints[j].name, 0, NULL, 0) == 0;
    regfree(&re);
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        r->mask[v] = matches[tl_scene_skin_dominant_joint(sk, v)];
    free(matches);
    snprintf(r->name, sizeof r->name, "%s", pattern);
    return 0;
}

/* Marks vertex `index` of the skin's union (mesh < 0), or of primitive meshM/primP. */
static int mark(const tl_scene_skin* sk, region* r, int mesh, int prim, json_int_t index,
                const char* file) {
    uint32_t base = 0, count = sk->vertex_count;
    if (mesh >= 0) {
        uint32_t p;
        for (p = 0; p < sk->primitive_count; ++p)
            if ((int)sk->primitives[p].mesh == mesh && (int)sk->primitives[p].primitive == prim)
                break;
        if (p == sk->primitive_count)
            return tl_cli_fail("measure", "%s: mesh%d/prim%d is not bound to the measured skin",
                               file, mesh, prim);
        base = sk->primitives[p].first_vertex;
        count = sk->primitives[p].vertex_count;
    }
    if (index < 0 || index >= (json_int_t)count)
        return tl_cli_fail("measure", "%s: vertex %lld is out of range (%u)", file,
                           (long long)index, count);
    r->mask[base + index] = 1;
    return 0;
}

/* {"vertices": [...]}, a case's {"tail_vertices": {"meshM/primP": [...]}}, or the knight
 * case's {"shells": [{"primitive": P}]} (every vertex of the skin's P-th primitive). */
static int region_from_json(const tl_scene_skin* sk, const char* file, region* r) {
    json_error_t jerr;
    json_t* root = json_load_file(file, 0, &jerr);
    if (!root) return tl_cli_fail("measure", "%s: line %d: %s", file, jerr.line, jerr.text);
    int code = 0;
    json_t* list = json_object_get(root, "vertices");
    json_t* by_prim = json_object_get(root, "tail_vertices");
    json_t* shells = json_object_get(root, "shells");
    const char* name = json_string_value(json_object_get(root, "name"));
    snprintf(r->name, sizeof r->name, "%s", name ? name : (by_prim || shells) ? "tail" : file);
    size_t i;
    json_t* v;
    if (json_is_array(list)) {
        json_array_foreach(list, i, v) {
            if (!json_is_integer(v)) {
                code = tl_cli_fail("measure", "%s: /vertices/%zu: not an integer", file, i);
                break;
            }
            if ((code = mark(sk, r, -1, -1, json_integer_value(v), file))) break;
        }
    } else if (json_is_object(by_prim)) {
        const char* key;
        json_t* arr;
        json_object_foreach(by_prim, key, arr) {
            int mesh, prim;
            if (sscanf(key, "mesh%d/prim%d", &mesh, &prim) != 2 || !json_is_array(arr)) {
                code = tl_cli_fail("measure",
                                   "%s: /tail_vertices/%s: expected \"meshM/primP\": [indices]",
                                   file, key);
                break;
            }
            json_array_foreach(arr, i, v) {
                if ((code = mark(sk, r, mesh, prim, json_integer_value(v), file))) break;
            }
            if (code) break;
        }
    } else if (json_is_array(shells)) {
        json_array_foreach(shells, i, v) {
            json_int_t p = json_integer_value(json_object_get(v, "primitive"));
            if (p < 0 || p >= (json_int_t)sk->primitive_count) {
                code = tl_cli_fail(
                    "measure", "%s: /shells/%zu/primitive: not a primitive of the skin", file, i);
                break;
            }
            const tl_scene_primitive* sp = &sk->primitives[p];
            memset(r->mask + sp->first_vertex, 1, sp->vertex_count);
        }
    } else {
        code = tl_cli_fail(
            "measure",
            "%s: expected {\"vertices\": [...]}, {\"tail_vertices\": {...}} or {\"shells\": [...]}",
            file);
    }
    json_decref(root);
    return code;
}

static json_t* stats_json(const tl_stretch_stats* s) {
    return json_pack("{s:I,s:f,s:f,s:f,s:f}", "count", (json_int_t)s->count, "p95", (double)s->p95,
                     "p99", (double)s->p99, "max", (double)s->max, "torn_pct", (double)s->torn_pct);
}

static json_t* liveliness_json(const tl_liveliness* l) {
    return json_pack("{s:f,s:f,s:f}", "swing_deg", (double)l->swing_deg, "rest_rms_deg",
                     (double)l->rest_rms_deg, "tip_path_ratio", (double)l->tip_path_ratio);
}

/* Advances the simulated chains to each sample time (tl_stretch_run's hook). */
static void chain_hook(void* user, tl_pose* pose, float time) {
    config* c = user;
    tl_player_advance(c->player, pose, c->clip, time);
    for (uint32_t i = 0; i < c->chain_count; ++i)
        if (c->live[i]) tl_liveliness_add(c->live[i], pose);
}

static void config_free(config* c, bool own_doc) {
    for (uint32_t i = 0; i < MAX_CHAINS; ++i)
        tl_liveliness_destroy(c->live[i]);
    tl_stretch_destroy(c->stretch);
    tl_player_destroy(c->player);
    if (own_doc) {
        tl_scene_destroy(c->scene);
        tl_gltf_destroy(c->doc);
    }
}

/* Loads the file again, rigs it in memory in `mode`, and builds its scene. */
static int config_rigged(const char* file, tl_rig_mode mode, config* c) {
    tl_error err;
    tl_scene* scene = NULL;
    tl_rig_analysis* rig = NULL;
    tl_rig_def def = tl_default_rig_def();
    def.mode = mode;
    if (tl_gltf_load(file, &c->doc, &err) || tl_scene_create(c->doc, &scene, &err) ||
        tl_rig_analyze(scene, &def, &rig, &err)) {
        tl_scene_destroy(scene);
        return tl_cli_fail("measure", "%s", err.message);
    }
    tl_scene_destroy(scene);
    tl_result r = tl_rig_apply(c->doc, rig, &err);
    tl_rig_analysis_destroy(rig);
    if (r || tl_scene_create(c->doc, &c->scene, &err))
        return tl_cli_fail("measure", "%s (rigging in memory)", err.message);
    c->used = true;
    return 0;
}

static int chains_and_player(config* c, uint32_t samples) {
    tl_error err;
    if (tl_play_chains_find(c->scene, c->chains, MAX_CHAINS, &c->chain_count, &err))
        return tl_cli_fail("measure", "%s", err.message);
    if (c->chain_count > MAX_CHAINS) c->chain_count = MAX_CHAINS;
    if (c->chain_count == 0) return 0;
    tl_player_def def = tl_default_player_def();
    if (tl_player_create(c->scene, c->chains, c->chain_count, &def, &c->player, &err))
        return tl_cli_fail("measure", "%s", err.message);
    for (uint32_t i = 0; i < c->chain_count; ++i)
        if (!(c->live[i] = tl_liveliness_create(c->player, i, samples)))
            return tl_cli_fail("measure", "out of memory");
    return 0;
}

static const char* chain_name(const config* c, uint32_t i) {
    const tl_scene_skin* sk = &c->scene->skins[c->chains[i].skin];
    return sk->joints[c->chains[i].bone_joints[0]].name;
}

static void print_stats_row(const char* label, const tl_stretch_stats* s, const char* extra) {
    printf("    %-16s %9llu %6.2f %6.2f %6.2f %6.1f%%  %s\n", label, (unsigned long long)s->count,
           s->p95, s->p99, s->max, s->torn_pct, extra ? extra : "");
}

static bool contains_word(const char* name, const char* word) {
    for (const char* p = name; *p; ++p) {
        size_t k = 0;
        while (word[k] && p[k] && (p[k] | 32) == word[k])
            ++k;
        if (!word[k]) return true;
    }
    return false;
}

/* --stress: the spec's stress runs on each chain (measure.md "Stress"). */
static int run_stress(const char* file, const config* c, const char* clip_name, bool as_json) {
    if (!c || c->chain_count == 0)
        return tl_cli_fail("measure", "%s: --stress needs a chain (none found or built)", file);
    tl_error err;
    int32_t clip = TL_NONE;
    uint32_t found;
    if (clip_name) {
        if (tl_scene_find_clip(c->scene, clip_name, &found, &err))
            return tl_cli_fail("measure", "%s: %s", file, err.message);
        clip = (int32_t)found;
    } else {
        static const char* preferred[] = {"run", "gallop", "walk"};
        for (int w = 0; w < 3 && clip == TL_NONE; ++w)
            for (uint32_t k = 0; k < c->scene->clip_count && clip == TL_NONE; ++k)
                if (contains_word(c->scene->clips[k].name, preferred[w])) clip = (int32_t)k;
        if (clip == TL_NONE && c->scene->clip_count > 0) clip = 0;
    }
    json_t* parts = json_array();
    tl_stress_def def = tl_default_stress_def();
    if (!as_json)
        printf("%s: stress, clip %s\n  %-16s %9s %10s %9s %10s %10s %8s %8s %8s  %s\n", file,
               clip == TL_NONE ? "(none)" : c->scene->clips[clip].name, "chain", "nonfinite",
               "length err", "fps diff", "step rot", "neighbour", "hitch", "teleport", "settle",
               "(later: hitch teleport)");
    for (uint32_t i = 0; i < c->chain_count; ++i) {
        tl_stress_report r;
        if (tl_measure_stress(c->scene, &c->chains[i], clip, &def, &r, &err)) {
            json_decref(parts);
            return tl_cli_fail("measure", "%s: %s", file, err.message);
        }
        json_array_append_new(
            parts,
            json_pack("{s:s,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "name", chain_name(c, i),
                      "nonfinite", (int)r.nonfinite, "max_length_error", (double)r.max_length_error,
                      "fps_max_diff", (double)r.fps_max_diff, "max_step_rotation_deg",
                      (double)r.max_step_rotation_deg, "max_neighbour_step_rotation_deg",
                      (double)r.max_neighbour_step_rotation_deg, "hitch_speed_ratio",
                      (double)r.hitch_speed_ratio, "teleport_speed_ratio",
                      (double)r.teleport_speed_ratio, "settle_seconds", (double)r.settle_seconds,
                      "hitch_speed_ratio_later", (double)r.hitch_speed_ratio_later,
                      "teleport_speed_ratio_later", (double)r.teleport_speed_ratio_later));
        if (!as_json)
            printf("  %-16s %9u %10.2g %8.2f%% %9.1f° %9.1f° %8.3f %8.3f %7.2fs  %.3f %.3f\n",
                   chain_name(c, i), r.nonfinite, r.max_length_error, 100 * r.fps_max_diff,
                   r.max_step_rotation_deg, r.max_neighbour_step_rotation_deg, r.hitch_speed_ratio,
                   r.teleport_speed_ratio, r.settle_seconds, r.hitch_speed_ratio_later,
                   r.teleport_speed_ratio_later);
    }
    if (as_json) {
        json_t* out = json_pack("{s:s,s:o}", "clip",
                                clip == TL_NONE ? "" : c->scene->clips[clip].name, "parts", parts);
        int code = tl_cli_json_out("measure", file, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        json_decref(out);
        return code;
    } else {
        json_decref(parts);
    }
    return 0;
}

int tl_cli_measure(int argc, char** argv) {
    const char* file = NULL;
    const char* clip_name = NULL;
    const char* patterns[MAX_REGIONS];
    const char* json_files[MAX_REGIONS];
    int pattern_count = 0, json_count = 0;
    long samples = 24, skin_arg = -1;
    bool as_json = false, stress = false;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--help"))
            return printf("%s", USAGE), 0;
        else if (!strcmp(a, "--json"))
            as_json = true;
        else if (!strcmp(a, "--stress"))
            stress = true;
        else if (!strcmp(a, "--clip") && has_value)
            clip_name = argv[++i];
        else if (!strcmp(a, "--region") && has_value && pattern_count < MAX_REGIONS)
            patterns[pattern_count++] = argv[++i];
        else if (!strcmp(a, "--region-json") && has_value && json_count < MAX_REGIONS)
            json_files[json_count++] = argv[++i];
        else if (!strcmp(a, "--samples") && has_value) {
            char* end;
            samples = strtol(argv[++i], &end, 10);
            if (*end || samples < 1 || samples > 100000)
                return tl_cli_fail("measure", "--samples: expected a whole number in 1..100000"), 2;
        } else if (!strcmp(a, "--skin") && has_value) {
            char* end;
            skin_arg = strtol(argv[++i], &end, 10);
            if (*end || skin_arg < 0)
                return tl_cli_fail("measure", "--skin: expected a skin index"), 2;
        } else if (a[0] != '-' && !file)
            file = a;
        else
            return tl_cli_fail("measure", "unexpected argument \"%s\" (see --help)", a), 2;
    }
    if (!file) return fprintf(stderr, "%s", USAGE), 2;

    tl_error err;
    config cfg[CFG_COUNT];
    memset(cfg, 0, sizeof cfg);
    region regions[MAX_REGIONS * 2 + MAX_CHAINS + 1];
    memset(regions, 0, sizeof regions);
    int region_count = 0, code = 0;
    tl_rig_analysis* rig = NULL;
    json_t* out_clips = json_array();
    float* scratch = NULL;
    config* base = &cfg[CFG_ORIGINAL];
    if (tl_gltf_load(file, &base->doc, &err) != TL_OK ||
        tl_scene_create(base->doc, &base->scene, &err) != TL_OK) {
        code = tl_cli_fail("measure", "%s", err.message);
        goto done;
    }
    const tl_scene* scene = base->scene;
    if (scene->skin_count == 0) {
        code = tl_cli_fail("measure", "%s: has no skin to measure", file);
        goto done;
    }
    uint32_t skin = 0;
    if (skin_arg >= 0) {
        if ((uint32_t)skin_arg >= scene->skin_count) {
            code = tl_cli_fail("measure", "--skin %ld: the file has %u skins", skin_arg,
                               scene->skin_count);
            goto done;
        }
        skin = (uint32_t)skin_arg;
    } else {
        for (uint32_t s = 1; s < scene->skin_count; ++s)
            if (scene->skins[s].vertex_count > scene->skins[skin].vertex_count) skin = s;
    }
    const tl_scene_skin* sk = &scene->skins[skin];
    uint32_t vertex_count = sk->vertex_count;

    /* Which rigs to measure: a file with chains as it is (simulated and not); an un-rigged
     * file as it is, and rigged in memory rigid and with chains when tailor would chain it. */
    base->used = true;
    if ((code = chains_and_player(base, (uint32_t)samples))) goto done;
    bool rigged = base->chain_count > 0;
    if (rigged) {
        /* the chains' own configuration is this file: measure it static and moving */
        cfg[CFG_CHAIN] = *base;
        memset(base, 0, sizeof *base);
        base = &cfg[CFG_CHAIN_STATIC];
        base->used = true;
        base->doc = cfg[CFG_CHAIN].doc;
        base->scene = cfg[CFG_CHAIN].scene;
    } else {
        tl_rig_def def = tl_default_rig_def();
        if (tl_rig_analyze(scene, &def, &rig, &err)) {
            code = tl_cli_fail("measure", "%s", err.message);
            goto done;
        }
        if (rig->chain_count > 0) {
            if ((code = config_rigged(file, TL_RIG_MODE_RIGID, &cfg[CFG_RIGID]))) goto done;
            if ((code = config_rigged(file, TL_RIG_MODE_CHAIN, &cfg[CFG_CHAIN_STATIC]))) goto done;
            cfg[CFG_CHAIN].used = true;
            cfg[CFG_CHAIN].doc = cfg[CFG_CHAIN_STATIC].doc;
            cfg[CFG_CHAIN].scene = cfg[CFG_CHAIN_STATIC].scene;
            if ((code = chains_and_player(&cfg[CFG_CHAIN], (uint32_t)samples))) goto done;
        }
    }

    if (stress) {
        code = run_stress(file, cfg[CFG_CHAIN].used ? &cfg[CFG_CHAIN] : NULL, clip_name, as_json);
        goto done;
    }

    /* Regions: the user's, else detected parts, else the skin each chain moves. */
    for (int i = 0; i < pattern_count + json_count; ++i) {
        region* r = &regions[region_count++];
        r->part = r->chain = -1;
        if (!(r->mask = calloc(vertex_count + 1, 1))) {
            code = tl_cli_fail("measure", "out of memory");
            goto done;
        }
        code = i < pattern_count ? region_from_pattern(sk, patterns[i], r)
                                 : region_from_json(sk, json_files[i - pattern_count], r);
        if (code) goto done;
    }
    const config* chained = cfg[CFG_CHAIN].used ? &cfg[CFG_CHAIN] : NULL;
    if (region_count == 0 && rig) {
        for (uint32_t p = 0; p < rig->part_count && region_count < MAX_REGIONS; ++p) {
            const tl_rig_part* part = &rig->parts[p];
            if (part->skin != sk->skin) continue;
            region* r = &regions[region_count++];
            snprintf(r->name, sizeof r->name, "part%u", part->id);
            r->cls = tl_rig_class_string(part->cls);
            r->part = (int)p;
            r->chain = -1;
            if (!(r->mask = calloc(vertex_count + 1, 1))) {
                code = tl_cli_fail("measure", "out of memory");
                goto done;
            }
            for (uint32_t k = 0; k < part->vertex_count; ++k)
                r->mask[part->vertices[k]] = 1;
            /* the chain tailor built for this part: its first bone is PREFIX_1 */
            char first[64];
            snprintf(first, sizeof first, "%s_1", part->bone_prefix);
            for (uint32_t c = 0;
                 chained && part->action == TL_RIG_ACTION_CHAIN && c < chained->chain_count; ++c)
                if (!strcmp(chain_name(chained, c), first)) r->chain = (int)c;
        }
    } else if (region_count == 0 && rigged) {
        for (uint32_t c = 0; c < chained->chain_count && region_count < MAX_REGIONS; ++c) {
            if (chained->chains[c].skin != skin) continue;
            region* r = &regions[region_count++];
            snprintf(r->name, sizeof r->name, "%s", chain_name(chained, c));
            r->cls = "chain";
            r->part = -1;
            r->chain = (int)c;
            if (!(r->mask = calloc(vertex_count + 1, 1))) {
                code = tl_cli_fail("measure", "out of memory");
                goto done;
            }
            for (uint32_t v = 0; v < vertex_count; ++v) {
                uint32_t dominant = tl_scene_skin_dominant_joint(sk, v);
                for (uint32_t b = 0; b < chained->chains[c].bone_count; ++b)
                    if (dominant == chained->chains[c].bone_joints[b]) r->mask[v] = 1;
            }
        }
    } else if (chained && chained->chain_count == 1) {
        for (int i = 0; i < region_count; ++i)
            regions[i].chain = 0; /* user regions: the one chain */
    }
    for (int i = 0; i < region_count; ++i)
        for (uint32_t v = 0; v < vertex_count; ++v)
            regions[i].vertices += regions[i].mask[v] != 0;
    /* the body: every vertex outside every region */
    region* body = &regions[region_count];
    snprintf(body->name, sizeof body->name, "body");
    if (!(body->mask = calloc(vertex_count + 1, 1))) {
        code = tl_cli_fail("measure", "out of memory");
        goto done;
    }
    /* parts of class "body" are body skin that sits far from its bone (tails.md §2, §4): they
     * stay in the baseline */
    for (uint32_t v = 0; v < vertex_count; ++v) {
        bool inside = false;
        for (int i = 0; i < region_count; ++i)
            inside = inside ||
                     (regions[i].mask[v] && !(regions[i].cls && !strcmp(regions[i].cls, "body")));
        body->mask[v] = !inside;
        body->vertices += !inside;
    }

    const uint8_t* masks[MAX_REGIONS * 2 + MAX_CHAINS + 1];
    for (int i = 0; i <= region_count; ++i)
        masks[i] = regions[i].mask;
    tl_measure_def def = tl_default_measure_def();
    def.samples = (uint32_t)samples;
    for (int c = 0; c < CFG_COUNT; ++c) {
        if (!cfg[c].used) continue;
        /* every configuration measures the regions; the first one also the body */
        if (tl_stretch_create(cfg[c].scene, skin, masks, (uint32_t)region_count + 1, &def,
                              &cfg[c].stretch, &err)) {
            code = tl_cli_fail("measure", "%s", err.message);
            goto done;
        }
    }
    scratch = malloc(sizeof(float) * 7 *
                     (tl_measure_segments_bound(chained ? chained->scene : scene, skin) + 1));
    double distance[MAX_REGIONS * 2 + MAX_CHAINS][2];
    for (int i = 0; i < region_count && scratch; ++i) {
        const config* first = cfg[CFG_ORIGINAL].used ? &cfg[CFG_ORIGINAL] : &cfg[CFG_CHAIN_STATIC];
        distance[i][0] =
            tl_measure_bone_distance(first->scene, skin, regions[i].mask, NULL, NULL, 0, scratch);
        distance[i][1] = chained ? tl_measure_bone_distance(chained->scene, skin, regions[i].mask,
                                                            NULL, NULL, 0, scratch)
                                 : -1;
    }

    uint32_t first_clip = 0, last_clip = scene->clip_count;
    if (clip_name) {
        if (tl_scene_find_clip(scene, clip_name, &first_clip, &err) != TL_OK) {
            code = tl_cli_fail("measure", "%s: %s", file, err.message);
            goto done;
        }
        last_clip = first_clip + 1;
    }
    if (!as_json) {
        printf("%s: skin %u, %u vertices, H %.4g, %u sample times per clip%s\n", file, skin,
               vertex_count, sk->height, def.samples,
               rigged                    ? ", chains simulated"
               : rig && rig->chain_count ? ", rigged in memory"
                                         : "");
        if (first_clip == last_clip) printf("  (no clips)\n");
    }
    tl_stretch_stats stats[CFG_COUNT][MAX_REGIONS * 2 + MAX_CHAINS + 1];
    for (uint32_t clip = first_clip; clip < last_clip; ++clip) {
        const tl_scene_clip* cl = &scene->clips[clip];
        int first_cfg = -1;
        for (int c = 0; c < CFG_COUNT; ++c) {
            if (!cfg[c].used) continue;
            if (first_cfg < 0) first_cfg = c;
            cfg[c].clip = clip;
            bool motion = c == CFG_CHAIN;
            if (motion) {
                tl_player_start(cfg[c].player, clip, 0);
                for (uint32_t i = 0; i < cfg[c].chain_count; ++i)
                    tl_liveliness_clear(cfg[c].live[i]);
            }
            tl_stretch_run(cfg[c].stretch, clip, motion ? chain_hook : NULL,
                           motion ? &cfg[c] : NULL, stats[c]);
        }
        double max_dy = -1;
        if (chained && chained->chain_count > 0) {
            float times[MAX_SAMPLES], dy[MAX_SAMPLES];
            uint32_t n = def.samples < MAX_SAMPLES ? def.samples : MAX_SAMPLES;
            for (uint32_t j = 0; j < n; ++j)
                times[j] = (float)j * cl->duration / (float)n;
            tl_seating_def sdef = tl_default_seating_def();
            if (tl_seating_compare(chained->scene, chained->chains, chained->chain_count, clip,
                                   times, n, &sdef, dy, NULL, NULL, &err) == TL_OK) {
                max_dy = 0;
                for (uint32_t j = 0; j < n; ++j)
                    if (dy[j] > max_dy) max_dy = dy[j];
            }
        }
        tl_liveliness live[MAX_CHAINS];
        for (uint32_t i = 0; chained && i < chained->chain_count; ++i)
            live[i] = tl_liveliness_result(chained->live[i]);
        if (as_json) {
            json_t* rs = json_array();
            for (int i = 0; i < region_count; ++i) {
                json_t* st = json_object();
                for (int c = 0; c < CFG_COUNT; ++c)
                    if (cfg[c].used)
                        json_object_set_new(st, CFG_NAMES[c], stats_json(&stats[c][i]));
                json_t* bd = json_object();
                json_object_set_new(bd, cfg[CFG_ORIGINAL].used ? "original" : "chain_static",
                                    json_real(distance[i][0]));
                if (chained && cfg[CFG_ORIGINAL].used)
                    json_object_set_new(bd, "chain", json_real(distance[i][1]));
                json_object_set_new(bd, "relative",
                                    json_real(sk->height > 0 ? distance[i][0] / sk->height : 0));
                json_t* r = json_pack(
                    "{s:s,s:I,s:I,s:o,s:o}", "name", regions[i].name, "vertices",
                    (json_int_t)regions[i].vertices, "edges",
                    (json_int_t)tl_stretch_edge_count(cfg[first_cfg].stretch, (uint32_t)i),
                    "stretch", st, "bone_distance", bd);
                if (regions[i].cls) json_object_set_new(r, "class", json_string(regions[i].cls));
                if (regions[i].chain >= 0)
                    json_object_set_new(r, "liveliness", liveliness_json(&live[regions[i].chain]));
                json_array_append_new(rs, r);
            }
            json_t* chains = json_array();
            for (uint32_t i = 0; chained && i < chained->chain_count; ++i)
                json_array_append_new(chains,
                                      json_pack("{s:s,s:i,s:o}", "name", chain_name(chained, i),
                                                "bones", (int)chained->chains[i].bone_count,
                                                "liveliness", liveliness_json(&live[i])));
            json_array_append_new(
                out_clips, json_pack("{s:s,s:f,s:i,s:f,s:o,s:{s:I,s:I,s:o},s:o}", "clip", cl->name,
                                     "duration", (double)cl->duration, "samples", (int)def.samples,
                                     "H", (double)sk->height, "regions", rs, "body", "vertices",
                                     (json_int_t)body->vertices, "edges",
                                     (json_int_t)tl_stretch_edge_count(cfg[first_cfg].stretch,
                                                                       (uint32_t)region_count),
                                     "stretch", stats_json(&stats[first_cfg][region_count]),
                                     "chains", chains));
            if (max_dy >= 0)
                json_object_set_new(json_array_get(out_clips, json_array_size(out_clips) - 1),
                                    "lift", json_pack("{s:f}", "max_dy_hips", max_dy));
            /* the body as the rig in memory moves it (the root band re-weights body skin) */
            if (cfg[CFG_CHAIN].used && first_cfg != CFG_CHAIN)
                json_object_set_new(
                    json_object_get(json_array_get(out_clips, json_array_size(out_clips) - 1),
                                    "body"),
                    "stretch_chain", stats_json(&stats[CFG_CHAIN][region_count]));
        } else {
            printf("\nclip %s (%.3f s)\n", cl->name[0] ? cl->name : "(unnamed)", cl->duration);
            for (int i = 0; i < region_count; ++i) {
                printf("  %s%s%s: %zu vertices, %zu edges; bone distance %.4g (%.3f H)",
                       regions[i].name, regions[i].cls ? " " : "",
                       regions[i].cls ? regions[i].cls : "", regions[i].vertices,
                       tl_stretch_edge_count(cfg[first_cfg].stretch, (uint32_t)i), distance[i][0],
                       sk->height > 0 ? distance[i][0] / sk->height : 0);
                if (chained && cfg[CFG_ORIGINAL].used)
                    printf(" -> %.4g (%.3f H) with the chain", distance[i][1],
                           sk->height > 0 ? distance[i][1] / sk->height : 0);
                printf("\n    %-16s %9s %6s %6s %6s %7s\n", "rig", "samples", "p95", "p99", "max",
                       "torn");
                bool rigged_part = regions[i].part < 0 ||
                                   rig->parts[regions[i].part].action == TL_RIG_ACTION_CHAIN;
                for (int c = 0; c < CFG_COUNT; ++c) {
                    if (!cfg[c].used || (c != first_cfg && !rigged_part))
                        continue; /* unchanged: one row */
                    char extra[128] = "";
                    if (c == CFG_CHAIN && regions[i].chain >= 0)
                        snprintf(extra, sizeof extra,
                                 "swing %.2f deg, from rest %.2f deg, tip path x%.2f",
                                 live[regions[i].chain].swing_deg,
                                 live[regions[i].chain].rest_rms_deg,
                                 live[regions[i].chain].tip_path_ratio);
                    print_stats_row(CFG_NAMES[c], &stats[c][i], extra);
                }
            }
            printf("  body: %zu vertices, %zu edges\n", body->vertices,
                   tl_stretch_edge_count(cfg[first_cfg].stretch, (uint32_t)region_count));
            print_stats_row("as the file is", &stats[first_cfg][region_count], NULL);
            if (cfg[CFG_CHAIN].used && first_cfg != CFG_CHAIN)
                print_stats_row("chain", &stats[CFG_CHAIN][region_count], NULL);
            if (max_dy >= 0)
                printf("  ground seating: the tail lifts the hips by at most %.4g (counting it "
                       "minus excluding it)\n",
                       max_dy);
        }
    }
    if (as_json) {
        json_t* result = clip_name ? json_incref(json_array_get(out_clips, 0))
                                   : json_pack("{s:s,s:O}", "file", file, "clips", out_clips);
        code = tl_cli_json_out("measure", file, result, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        json_decref(result);
    }
done:
    json_decref(out_clips);
    free(scratch);
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; ++i)
        free(regions[i].mask);
    tl_rig_analysis_destroy(rig);
    /* configurations that share a document free it once */
    config_free(&cfg[CFG_CHAIN], !cfg[CFG_CHAIN_STATIC].used);
    config_free(&cfg[CFG_CHAIN_STATIC], true);
    config_free(&cfg[CFG_RIGID], true);
    config_free(&cfg[CFG_ORIGINAL], true);
    return code;
}
