/* tailor measure: edge stretch and weighted bone distance of regions over clips. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 32

typedef struct region {
    char name[256];
    uint8_t* mask;
    size_t vertices;
} region;

static const char* USAGE =
    "usage: tailor measure FILE [--clip NAME] [--region PATTERN]... [--region-json FILE]...\n"
    "                      [--samples N] [--skin N] [--json]\n"
    "  Edge stretch (skinned / rest edge length at N evenly spaced clip times) and weighted bone\n"
    "  distance for each region, and the body baseline (edges outside every region).\n"
    "  --clip NAME         one clip (exact name or the part after '|'); default: every clip\n"
    "  --region PATTERN    vertices whose dominant joint's name matches the POSIX extended regex\n"
    "  --region-json FILE  {\"vertices\": [union indices]} or a case's .truth.json (tail_vertices)\n"
    "  --samples N         sample times per clip (default 24)\n"
    "  --skin N            which skin (default: the one with the most vertices)\n"
    "  --json              one JSON document (schema: docs/measure.md)\n";

static int region_from_pattern(const tl_scene_skin* sk, const char* pattern, region* r) {
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return tl_cli_fail("measure", "--region \"%s\": not a valid regular expression", pattern);
    bool* matches = calloc(sk->joint_count + 1, sizeof *matches);
    for (uint32_t j = 0; j < sk->joint_count; ++j)
        matches[j] = regexec(&re, sk->joints[j].name, 0, NULL, 0) == 0;
    regfree(&re);
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        float best = -1;
        uint32_t dominant = 0;
        for (uint32_t k = 0; k < sk->influence_count; ++k) {
            float w = sk->influence_weights[(size_t)v * sk->influence_count + k];
            if (w > best) best = w, dominant = sk->influence_joints[(size_t)v * sk->influence_count + k];
        }
        r->mask[v] = matches[dominant];
    }
    free(matches);
    snprintf(r->name, sizeof r->name, "%s", pattern);
    return 0;
}

/* Adds union vertex `index` of primitive key "meshM/primP" (or a plain union index). */
static int mark(const tl_scene_skin* sk, region* r, int mesh, int prim, json_int_t index, const char* file) {
    uint32_t base = 0, count = sk->vertex_count;
    if (mesh >= 0) {
        uint32_t p;
        for (p = 0; p < sk->primitive_count; ++p)
            if ((int)sk->primitives[p].mesh == mesh && (int)sk->primitives[p].primitive == prim) break;
        if (p == sk->primitive_count)
            return tl_cli_fail("measure", "%s: mesh%d/prim%d is not bound to the measured skin", file, mesh, prim);
        base = sk->primitives[p].first_vertex;
        count = sk->primitives[p].vertex_count;
    }
    if (index < 0 || index >= (json_int_t)count)
        return tl_cli_fail("measure", "%s: vertex %lld is out of range (%u)", file, (long long)index, count);
    r->mask[base + index] = 1;
    return 0;
}

static int region_from_json(const tl_scene_skin* sk, const char* file, region* r) {
    json_error_t jerr;
    json_t* root = json_load_file(file, 0, &jerr);
    if (!root) return tl_cli_fail("measure", "%s: line %d: %s", file, jerr.line, jerr.text);
    int code = 0;
    json_t* list = json_object_get(root, "vertices");
    json_t* by_prim = json_object_get(root, "tail_vertices");
    const char* name = json_string_value(json_object_get(root, "name"));
    snprintf(r->name, sizeof r->name, "%s", name ? name : by_prim ? "tail" : file);
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
                code = tl_cli_fail("measure", "%s: /tail_vertices/%s: expected \"meshM/primP\": [indices]", file, key);
                break;
            }
            json_array_foreach(arr, i, v) {
                if ((code = mark(sk, r, mesh, prim, json_integer_value(v), file))) break;
            }
            if (code) break;
        }
    } else {
        code = tl_cli_fail("measure", "%s: expected {\"vertices\": [...]} or {\"tail_vertices\": {...}}", file);
    }
    json_decref(root);
    return code;
}

static json_t* stats_json(const tl_stretch_stats* s) {
    return json_pack("{s:I,s:f,s:f,s:f,s:f}", "count", (json_int_t)s->count, "p95", (double)s->p95, "p99",
                     (double)s->p99, "max", (double)s->max, "torn_pct", (double)s->torn_pct);
}

static void print_row(const char* name, size_t vertices, size_t edges, const tl_stretch_stats* s,
                      double bone_distance, float height) {
    printf("  %-22.22s %8zu %7zu %9llu %6.2f %6.2f %6.2f %6.1f%%", name, vertices, edges,
           (unsigned long long)s->count, s->p95, s->p99, s->max, s->torn_pct);
    if (bone_distance >= 0) printf("  %.4g (%.3f H)", bone_distance, height > 0 ? bone_distance / height : 0);
    printf("\n");
}

int tl_cli_measure(int argc, char** argv) {
    const char* file = NULL;
    const char* clip_name = NULL;
    const char* patterns[MAX_REGIONS];
    const char* json_files[MAX_REGIONS];
    int pattern_count = 0, json_count = 0;
    long samples = 24, skin_arg = -1;
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--help")) return printf("%s", USAGE), 0;
        else if (!strcmp(a, "--json")) as_json = true;
        else if (!strcmp(a, "--clip") && has_value) clip_name = argv[++i];
        else if (!strcmp(a, "--region") && has_value && pattern_count < MAX_REGIONS) patterns[pattern_count++] = argv[++i];
        else if (!strcmp(a, "--region-json") && has_value && json_count < MAX_REGIONS) json_files[json_count++] = argv[++i];
        else if (!strcmp(a, "--samples") && has_value) {
            char* end;
            samples = strtol(argv[++i], &end, 10);
            if (*end || samples < 1 || samples > 100000)
                return tl_cli_fail("measure", "--samples: expected a whole number in 1..100000"), 2;
        } else if (!strcmp(a, "--skin") && has_value) {
            char* end;
            skin_arg = strtol(argv[++i], &end, 10);
            if (*end || skin_arg < 0) return tl_cli_fail("measure", "--skin: expected a skin index"), 2;
        } else if (a[0] != '-' && !file) file = a;
        else return tl_cli_fail("measure", "unexpected argument \"%s\" (see --help)", a), 2;
    }
    if (!file) return fprintf(stderr, "%s", USAGE), 2;

    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_stretch* stretch = NULL;
    region regions[MAX_REGIONS * 2 + 1];
    memset(regions, 0, sizeof regions);
    int region_count = 0, code = 0;
    json_t* out_clips = json_array();
    float* scratch = NULL;
    if (tl_gltf_load(file, &doc, &err) != TL_OK || tl_scene_create(doc, &scene, &err) != TL_OK) {
        code = tl_cli_fail("measure", "%s", err.message);
        goto done;
    }
    if (scene->skin_count == 0) {
        code = tl_cli_fail("measure", "%s: has no skin to measure", file);
        goto done;
    }
    uint32_t skin = 0;
    if (skin_arg >= 0) {
        if ((uint32_t)skin_arg >= scene->skin_count) {
            code = tl_cli_fail("measure", "--skin %ld: the file has %u skins", skin_arg, scene->skin_count);
            goto done;
        }
        skin = (uint32_t)skin_arg;
    } else {
        for (uint32_t s = 1; s < scene->skin_count; ++s)
            if (scene->skins[s].vertex_count > scene->skins[skin].vertex_count) skin = s;
    }
    const tl_scene_skin* sk = &scene->skins[skin];
    for (int i = 0; i < pattern_count + json_count; ++i) {
        region* r = &regions[region_count];
        r->mask = calloc(sk->vertex_count + 1, 1);
        region_count++;
        if (!r->mask) {
            code = tl_cli_fail("measure", "out of memory");
            goto done;
        }
        code = i < pattern_count ? region_from_pattern(sk, patterns[i], r)
                                 : region_from_json(sk, json_files[i - pattern_count], r);
        if (code) goto done;
        r->vertices = 0;
        for (uint32_t v = 0; v < sk->vertex_count; ++v) r->vertices += r->mask[v] != 0;
    }
    /* the body: every vertex outside every region */
    region* body = &regions[region_count];
    body->mask = calloc(sk->vertex_count + 1, 1);
    snprintf(body->name, sizeof body->name, "body");
    if (!body->mask) {
        code = tl_cli_fail("measure", "out of memory");
        goto done;
    }
    body->vertices = 0;
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        bool inside = false;
        for (int i = 0; i < region_count; ++i) inside = inside || regions[i].mask[v];
        body->mask[v] = !inside;
        body->vertices += !inside;
    }
    const uint8_t* masks[MAX_REGIONS * 2 + 1];
    for (int i = 0; i <= region_count; ++i) masks[i] = regions[i].mask;
    tl_measure_def def = tl_default_measure_def();
    def.samples = (uint32_t)samples;
    if (tl_stretch_create(scene, skin, masks, (uint32_t)region_count + 1, &def, &stretch, &err) != TL_OK) {
        code = tl_cli_fail("measure", "%s", err.message);
        goto done;
    }
    scratch = malloc(sizeof(float) * 7 * (tl_measure_segments_bound(scene, skin) + 1));
    double bone_distance[MAX_REGIONS * 2];
    for (int i = 0; i < region_count && scratch; ++i)
        bone_distance[i] = tl_measure_bone_distance(scene, skin, regions[i].mask, NULL, NULL, 0, scratch);

    uint32_t first = 0, last = scene->clip_count;
    if (clip_name) {
        if (tl_scene_find_clip(scene, clip_name, &first, &err) != TL_OK) {
            code = tl_cli_fail("measure", "%s: %s", file, err.message);
            goto done;
        }
        last = first + 1;
    }
    if (!as_json) {
        printf("%s: skin %u, %u vertices, H %.4g, %u sample times per clip\n", file, skin, sk->vertex_count,
               sk->height, def.samples);
        if (first == last) printf("  (no clips)\n");
    }
    tl_stretch_stats stats[MAX_REGIONS * 2 + 1];
    for (uint32_t c = first; c < last; ++c) {
        const tl_scene_clip* clip = &scene->clips[c];
        tl_stretch_run(stretch, c, NULL, NULL, stats);
        if (as_json) {
            json_t* rs = json_array();
            for (int i = 0; i < region_count; ++i) {
                json_array_append_new(
                    rs, json_pack("{s:s,s:I,s:I,s:o,s:{s:f,s:f}}", "name", regions[i].name, "vertices",
                                  (json_int_t)regions[i].vertices, "edges",
                                  (json_int_t)tl_stretch_edge_count(stretch, (uint32_t)i), "stretch",
                                  stats_json(&stats[i]), "bone_distance", "mean", bone_distance[i],
                                  "relative", sk->height > 0 ? bone_distance[i] / sk->height : 0.0));
            }
            json_array_append_new(
                out_clips,
                json_pack("{s:s,s:f,s:i,s:f,s:o,s:{s:I,s:I,s:o}}", "clip", clip->name, "duration", (double)clip->duration,
                          "samples", (int)def.samples, "H", (double)sk->height, "regions", rs, "body",
                          "vertices", (json_int_t)body->vertices, "edges",
                          (json_int_t)tl_stretch_edge_count(stretch, (uint32_t)region_count), "stretch",
                          stats_json(&stats[region_count])));
        } else {
            printf("\nclip %s (%.3f s)\n", clip->name[0] ? clip->name : "(unnamed)", clip->duration);
            printf("  %-22s %8s %7s %9s %6s %6s %6s %7s  %s\n", "region", "vertices", "edges", "samples", "p95",
                   "p99", "max", "torn", "bone distance");
            for (int i = 0; i < region_count; ++i)
                print_row(regions[i].name, regions[i].vertices, tl_stretch_edge_count(stretch, (uint32_t)i),
                          &stats[i], bone_distance[i], sk->height);
            print_row("body", body->vertices, tl_stretch_edge_count(stretch, (uint32_t)region_count),
                      &stats[region_count], -1, sk->height);
        }
    }
    if (as_json) {
        json_t* result = clip_name ? json_incref(json_array_get(out_clips, 0))
                                   : json_pack("{s:s,s:O}", "file", file, "clips", out_clips);
        char* text = json_dumps(result, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        if (text) puts(text);
        free(text);
        json_decref(result);
    }
done:
    json_decref(out_clips);
    free(scratch);
    for (int i = 0; i < MAX_REGIONS * 2 + 1; ++i) free(regions[i].mask);
    tl_stretch_destroy(stretch);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return code;
}
