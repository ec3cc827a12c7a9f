/* tailor measure: edge stretch, weighted bone distance and liveliness of regions over clips,
 * for the file as it is and, on an un-rigged file, for the rigs tailor would make of it. The
 * rigs, regions and figures are the library's (tl_measure_rigs, tl_measure_run); this file
 * reads the arguments and the caller's regions and prints. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "measure_internal.h"
#include <tailor/file.h>

#include <regex.h>

#include <tailor/hair.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 32

static const char* USAGE =
    "usage: tailor measure FILE [--clip NAME] [--region PATTERN]... [--region-json FILE]...\n"
    "                      [--samples N] [--skin N] [--before FILE [--region-reweighted]]\n"
    "                      [--stress] [--json]\n"
    "  Edge stretch (skinned / rest edge length at N evenly spaced clip times), weighted bone\n"
    "  distance and, for chains, liveliness, per region, and the body baseline (edges outside\n"
    "  every region); for a region the rigs move differently, how deep it goes inside the\n"
    "  body's skin, as the file is and played. Without regions the regions are the parts tailor\n"
    "  rig detects (on an un-rigged file, measured as the file is, rigid, and with a chain,\n"
    "  rigged in memory) or the skin of each chain a rigged file already has. Chains are\n"
    "  simulated from rest at t=0.\n"
    "  --clip NAME         one clip (exact name or the part after '|'); default: every clip\n"
    "  --region PATTERN    vertices whose dominant joint's name matches the POSIX extended regex\n"
    "  --region-json FILE  {\"vertices\": [union indices]} or a case's .truth.json\n"
    "  --samples N         sample times per clip (default 24)\n"
    "  --skin N            which skin (default: the one with the most vertices)\n"
    "  --before FILE       also each region's new tears against FILE (the same mesh weighted\n"
    "                      before a change): edge samples torn in FILE's skin as played here,\n"
    "                      not in FILE's; both played as tailor play plays them\n"
    "  --region-reweighted also a region of the vertices whose weights differ from FILE's\n"
    "  --stress            instead: the spec's stress runs on every chain and cloth part (hip "
    "shake, 15-144 fps,\n"
    "                      a 0.5 s hitch, a 100 m teleport) in the clip given, else the first "
    "run/\n"
    "                      gallop clip, else walk, else the first (docs/stress.md)\n"
    "  --json              one JSON document (schema: docs/measure.md)\n";

/* A region of the user's, before the library copies it. */
typedef struct region {
    char name[256];
    uint8_t* mask;
} region;

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
    uint8_t* text;
    size_t size;
    tl_error err;
    if (tl_file_read(file, TL_GLTF_MAX_FILE_BYTES, &text, &size, NULL, NULL, &err) != TL_OK)
        return tl_cli_fail("measure", "%s", err.message);
    if (tl_file_check_json_text(text, size, 0, file, &err) != TL_OK) {
        free(text);
        return tl_cli_fail("measure", "%s", err.message);
    }
    json_error_t jerr;
    json_t* root = json_loadb((const char*)text, size, 0, &jerr);
    free(text);
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

/* A pendulum's swing or an aim's error over the clip (docs/measure.md "Pendulum and aim"). */
static json_t* joint_json(const tl_measure_joint* j) {
    if (j->kind == TL_PART_AIM)
        return json_pack("{s:f,s:i,s:i}", "aim_error_max_deg", (double)j->aim_error_max_deg,
                         "samples", (int)j->samples, "nonfinite", (int)j->nonfinite);
    return json_pack("{s:f,s:f,s:i,s:i}", "swing_max_deg", (double)j->swing_max_deg,
                     "swing_rms_deg", (double)j->swing_rms_deg, "samples", (int)j->samples,
                     "nonfinite", (int)j->nonfinite);
}

/* The joint a pendulum or aim part of the chained rig's player turns. */
static const char* joint_part_name(const tl_measure_rig* rig, uint32_t i) {
    const tl_scene_part* sp = &rig->scene->parts[tl_player_joint_part(rig->player, i)];
    return rig->scene->skins[sp->skin].joints[sp->bone_joints[0]].name;
}

/* A chain's deepest particle inside a body collider over the clip, a fraction of H. */
static double penetration_of_h(const tl_liveliness* l, float height) {
    return height > 0 ? (double)l->collider_penetration / height : 0;
}

static void print_stats_row(const char* label, const tl_stretch_stats* s, const char* extra) {
    printf("    %-16s %9llu %6.2f %6.2f %6.2f %6.1f%%  %s\n", label, (unsigned long long)s->count,
           s->p95, s->p99, s->max, s->torn_pct, extra ? extra : "");
}

const char* tl_cli_measure_chain_name(const tl_measure_rig* rig, uint32_t i) {
    const tl_scene_skin* sk = &rig->scene->skins[rig->chains[i].skin];
    return sk->joints[rig->chains[i].bone_joints[0]].name;
}

static json_t* new_tears_json(const tl_new_tears* t) {
    return json_pack("{s:I,s:I,s:I,s:I,s:f}", "count", (json_int_t)t->count, "torn_before",
                     (json_int_t)t->torn_before, "torn_after", (json_int_t)t->torn_after,
                     "new_torn", (json_int_t)t->new_torn, "new_torn_pct", (double)t->new_torn_pct);
}

/* The junction fit of a region's part (an un-rigged file rigged in memory), or NULL. */
static const tl_rig_fit* region_fit(const tl_measure_rigs* rigs, const tl_measure_region* rg) {
    if (!rigs->analysis || rg->part < 0) return NULL;
    const tl_rig_fit* fit = &rigs->analysis->parts[rg->part].fit;
    return fit->poses ? fit : NULL;
}

/* Is region rg moved by a hair chain (tailor/hair.h) of the chained rig? */
static bool region_is_hair(const tl_measure_rig* chained, const tl_measure_region* rg) {
    if (!chained || rg->chain < 0) return false;
    const tl_scene* scene = chained->scene;
    for (uint32_t p = 0; p < scene->part_count; ++p)
        if (scene->parts[p].kind == TL_PART_HAIR &&
            scene->parts[p].bone_joints[0] == chained->chains[rg->chain].bone_joints[0])
            return true;
    return false;
}

/* The "hair" block of the hair regions (docs/hair.md): computed once per clip. */
static void hair_json(const tl_measure_run* run, const tl_measure_clip* m, json_t* regions) {
    const tl_measure_rig* chained =
        run->rigs->rigs[TL_MEASURE_CHAIN].used ? &run->rigs->rigs[TL_MEASURE_CHAIN] : NULL;
    json_t* block = NULL;
    for (uint32_t i = 0; i < run->region_count; ++i) {
        if (!region_is_hair(chained, &run->regions[i])) continue;
        if (!block) {
            tl_hair_measure h;
            tl_error err;
            if (tl_hair_measure_clip(chained->scene, run->skin, m->clip, run->samples, &h, &err) !=
                TL_OK) {
                fprintf(stderr, "tailor measure: hair: %s\n", err.message);
                return;
            }
            block =
                json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "roots", (json_int_t)h.roots,
                          "root_drift_max", json_real(h.root_drift_max), "head_bone_drift_max",
                          json_real(h.head_bone_drift_max), "free_motion_max",
                          json_real(h.free_motion_max), "rest_sag_max", json_real(h.rest_sag_max),
                          "collider_penetration", json_real(h.collider_penetration));
            /* the whole hair mesh (the chain regions leave out the seams between them) */
            json_object_set_new(block, "stretch_all", stats_json(&h.stretch));
            json_object_set_new(block, "stretch_body", stats_json(&h.stretch_body));
        }
        json_object_set(json_array_get(regions, i), "hair", block);
    }
    json_decref(block);
}

/* One clip as JSON (docs/measure.md); vs: each region's new tears against the --before file
 * (region_count + 1: the body last), or NULL. */
static json_t* clip_json(const tl_measure_run* run, const tl_measure_clip* m, const char* before,
                         const tl_new_tears* vs) {
    const tl_measure_rigs* rigs = run->rigs;
    const tl_measure_rig* chained =
        rigs->rigs[TL_MEASURE_CHAIN].used ? &rigs->rigs[TL_MEASURE_CHAIN] : NULL;
    bool original = rigs->rigs[TL_MEASURE_ORIGINAL].used;
    const tl_scene_clip* cl = &rigs->rigs[run->first].scene->clips[m->clip];
    json_t* rs = json_array();
    for (uint32_t i = 0; i < run->region_count; ++i) {
        const tl_measure_region* rg = &run->regions[i];
        json_t *st = json_object(), *depth = json_object();
        for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c)
            if (rigs->rigs[c].used) {
                const char* kind = tl_measure_rig_string((tl_measure_rig_kind)c);
                json_object_set_new(st, kind, stats_json(&m->stats[c][i]));
                json_object_set_new(depth, kind,
                                    m->skin_depth[c][i] >= 0 ? json_real(m->skin_depth[c][i])
                                                             : json_null());
            }
        json_t* bd = json_object();
        json_object_set_new(bd, original ? "original" : "chain_static", json_real(rg->distance));
        if (chained && original) json_object_set_new(bd, "chain", json_real(rg->distance_chain));
        json_object_set_new(bd, "relative",
                            json_real(run->height > 0 ? rg->distance / run->height : 0));
        json_t* r = json_pack("{s:s,s:I,s:I,s:o,s:o}", "name", rg->name, "vertices",
                              (json_int_t)rg->vertices, "edges", (json_int_t)rg->edges, "stretch",
                              st, "bone_distance", bd);
        if (rg->cls) json_object_set_new(r, "class", json_string(rg->cls));
        json_object_set_new(r, "skin_depth", depth);
        if (rg->chain >= 0)
            json_object_set_new(r, "liveliness", liveliness_json(&m->liveliness[rg->chain]));
        if (m->new_tears[i].count)
            json_object_set_new(r, "new_tears", new_tears_json(&m->new_tears[i]));
        if (vs) json_object_set_new(r, "before", tl_cli_before_json(before, &vs[i]));
        if (rg->joint >= 0 && (uint32_t)rg->joint < m->joint_count)
            json_object_set_new(r, "joint", joint_json(&m->joints[rg->joint]));
        const tl_measure_cloth* lat = &m->cloth[i];
        if (lat->particles)
            json_object_set_new(
                r, "cloth",
                json_pack("{s:i,s:i,s:f,s:f,s:i,s:f,s:o,s:o}", "particles", (int)lat->particles,
                          "bones", (int)lat->bones, "tether_violation_max",
                          lat->tether_violation_max, "max_distance_violation_max",
                          lat->max_distance_violation_max, "colliders", (int)lat->colliders,
                          "collider_penetration", lat->collider_penetration, "stretch_vertical",
                          stats_json(&lat->stretch_vertical), "stretch_horizontal",
                          stats_json(&lat->stretch_horizontal)));
        if (lat->particles) {
            json_t* cj = json_object_get(r, "cloth");
            json_object_set_new(cj, "mesh_penetration", json_real(lat->mesh_penetration));
            json_object_set_new(cj, "mesh_penetration_input",
                                lat->mesh_penetration_input >= 0
                                    ? json_real(lat->mesh_penetration_input)
                                    : json_null());
        }
        const tl_rig_fit* fit = region_fit(rigs, rg);
        if (fit)
            json_object_set_new(r, "fit",
                                json_pack("{s:i,s:i,s:i,s:i,s:f}", "free_vertices",
                                          (int)fit->free_vertices, "poses", (int)fit->poses,
                                          "iterations", (int)fit->iterations, "reverted",
                                          (int)fit->reverted, "seconds", (double)fit->seconds));
        json_array_append_new(rs, r);
    }
    hair_json(run, m, rs);
    json_t* chains = json_array();
    for (uint32_t i = 0; chained && i < chained->chain_count; ++i)
        json_array_append_new(chains,
                              json_pack("{s:s,s:i,s:o,s:f,s:i}", "name",
                                        tl_cli_measure_chain_name(chained, i), "bones",
                                        (int)chained->chains[i].bone_count, "liveliness",
                                        liveliness_json(&m->liveliness[i]), "collider_penetration",
                                        penetration_of_h(&m->liveliness[i], run->height),
                                        "colliders", (int)m->liveliness[i].colliders));
    json_t* joints = json_array();
    for (uint32_t i = 0; i < m->joint_count; ++i) {
        json_t* j = joint_json(&m->joints[i]);
        json_object_set_new(j, "name", json_string(joint_part_name(chained, i)));
        json_object_set_new(j, "kind", json_string(tl_part_kind_string(m->joints[i].kind)));
        json_array_append_new(joints, j);
    }
    const tl_measure_region* body = &run->regions[run->region_count];
    json_t* out = json_pack("{s:s,s:f,s:i,s:f,s:o,s:{s:I,s:I,s:o},s:o}", "clip", cl->name,
                            "duration", (double)cl->duration, "samples", (int)run->samples, "H",
                            (double)run->height, "regions", rs, "body", "vertices",
                            (json_int_t)body->vertices, "edges", (json_int_t)body->edges, "stretch",
                            stats_json(&m->stats[run->first][run->region_count]), "chains", chains);
    json_object_set_new(out, "joint_parts", joints);
    if (vs)
        json_object_set_new(json_object_get(out, "body"), "before",
                            tl_cli_before_json(before, &vs[run->region_count]));
    if (m->lift >= 0) json_object_set_new(out, "lift", json_pack("{s:f}", "max_dy_hips", m->lift));
    /* the body as the rig in memory moves it (the root band re-weights body skin) */
    if (chained && run->first != TL_MEASURE_CHAIN)
        json_object_set_new(json_object_get(out, "body"), "stretch_chain",
                            stats_json(&m->stats[TL_MEASURE_CHAIN][run->region_count]));
    return out;
}

/* One clip as text (vs as clip_json's). */
static void clip_print(const tl_measure_run* run, const tl_measure_clip* m, const char* before,
                       const tl_new_tears* vs) {
    const tl_measure_rigs* rigs = run->rigs;
    const tl_measure_rig* chained =
        rigs->rigs[TL_MEASURE_CHAIN].used ? &rigs->rigs[TL_MEASURE_CHAIN] : NULL;
    const tl_scene_clip* cl = &rigs->rigs[run->first].scene->clips[m->clip];
    float H = run->height;
    printf("\nclip %s (%.3f s)\n", cl->name[0] ? cl->name : "(unnamed)", cl->duration);
    for (uint32_t i = 0; i < run->region_count; ++i) {
        const tl_measure_region* r = &run->regions[i];
        printf("  %s%s%s: %zu vertices, %zu edges; bone distance %.4g (%.3f H)", r->name,
               r->cls ? " " : "", r->cls ? r->cls : "", r->vertices, r->edges, r->distance,
               H > 0 ? r->distance / H : 0);
        if (chained && rigs->rigs[TL_MEASURE_ORIGINAL].used)
            printf(" -> %.4g (%.3f H) with the chain", r->distance_chain,
                   H > 0 ? r->distance_chain / H : 0);
        printf("\n    %-16s %9s %6s %6s %6s %7s\n", "rig", "samples", "p95", "p99", "max", "torn");
        for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c) {
            if (!rigs->rigs[c].used || (c != (int)run->first && !r->changed))
                continue; /* unchanged: one row */
            char extra[128] = "";
            if (c == TL_MEASURE_CHAIN && r->chain >= 0)
                snprintf(extra, sizeof extra, "swing %.2f deg, from rest %.2f deg, tip path x%.2f",
                         m->liveliness[r->chain].swing_deg, m->liveliness[r->chain].rest_rms_deg,
                         m->liveliness[r->chain].tip_path_ratio);
            const tl_measure_joint* j =
                r->joint >= 0 && (uint32_t)r->joint < m->joint_count ? &m->joints[r->joint] : NULL;
            if (c == TL_MEASURE_CHAIN && j && j->kind == TL_PART_AIM)
                snprintf(extra, sizeof extra, "off target at most %.3f deg", j->aim_error_max_deg);
            else if (c == TL_MEASURE_CHAIN && j)
                snprintf(extra, sizeof extra, "swing up to %.2f deg, RMS %.2f deg from rest",
                         j->swing_max_deg, j->swing_rms_deg);
            print_stats_row(tl_measure_rig_string((tl_measure_rig_kind)c), &m->stats[c][i], extra);
        }
        for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c) /* (measured where the rigs differ) */
            if (rigs->rigs[c].used && m->skin_depth[c][i] >= 0)
                printf("%s %s %.4f H", c == (int)run->first ? "    inside the body skin:" : ",",
                       tl_measure_rig_string((tl_measure_rig_kind)c), m->skin_depth[c][i]);
        if (r->changed) printf("\n");
        const tl_measure_cloth* lat = &m->cloth[i];
        if (lat->particles) {
            printf("    cloth: %u particles, %u bones; tethers within %.2g of rest, safe distance "
                   "exceeded by %.2g at most, deepest in its %u collider(s) %.4f H\n",
                   lat->particles, lat->bones, lat->tether_violation_max,
                   lat->max_distance_violation_max, lat->colliders, lat->collider_penetration);
            printf("    cloth mesh: deepest vertex in those colliders %.4f H",
                   lat->mesh_penetration);
            if (lat->mesh_penetration_input >= 0)
                printf(" (as the file bound it %.4f H)", lat->mesh_penetration_input);
            printf("\n");
            print_stats_row("vertical", &lat->stretch_vertical, "");
            print_stats_row("horizontal", &lat->stretch_horizontal, "");
        }
        const tl_new_tears* t = &m->new_tears[i];
        if (t->count)
            printf("    new tears %.3f%%: %llu of the %llu edge samples of the skin the rig "
                   "re-weighted torn in the rig (simulated), not as bound\n",
                   t->new_torn_pct, (unsigned long long)t->new_torn, (unsigned long long)t->count);
        if (vs) tl_cli_before_print(before, &vs[i]);
    }
    const tl_measure_region* body = &run->regions[run->region_count];
    printf("  body: %zu vertices, %zu edges\n", body->vertices, body->edges);
    print_stats_row("as the file is", &m->stats[run->first][run->region_count], NULL);
    if (vs) tl_cli_before_print(before, &vs[run->region_count]);
    if (chained && run->first != TL_MEASURE_CHAIN)
        print_stats_row("chain", &m->stats[TL_MEASURE_CHAIN][run->region_count], NULL);
    if (m->lift >= 0)
        printf("  ground seating: the tail lifts the hips by at most %.4g (counting it "
               "minus excluding it)\n",
               m->lift);
}

typedef struct options {
    const char* file;
    const char* before;
    const char* clip_name;
    const char* patterns[MAX_REGIONS];
    const char* json_files[MAX_REGIONS];
    int pattern_count, json_count;
    long samples, skin;
    bool as_json, stress, reweighted;
} options;

/* 0, or the exit code (usage errors print themselves). -1: --help printed. */
static int parse(int argc, char** argv, options* o) {
    memset(o, 0, sizeof *o);
    o->samples = 24;
    o->skin = -1;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        bool has_value = i + 1 < argc;
        if (tl_cli_is_help(a))
            return printf("%s", USAGE), -1;
        else if (!strcmp(a, "--json"))
            o->as_json = true;
        else if (!strcmp(a, "--stress"))
            o->stress = true;
        else if (!strcmp(a, "--before") && has_value)
            o->before = argv[++i];
        else if (!strcmp(a, "--region-reweighted"))
            o->reweighted = true;
        else if (!strcmp(a, "--clip") && has_value)
            o->clip_name = argv[++i];
        else if (!strcmp(a, "--region") && has_value && o->pattern_count < MAX_REGIONS)
            o->patterns[o->pattern_count++] = argv[++i];
        else if (!strcmp(a, "--region-json") && has_value && o->json_count < MAX_REGIONS)
            o->json_files[o->json_count++] = argv[++i];
        else if (!strcmp(a, "--samples") && has_value) {
            char* end;
            o->samples = strtol(argv[++i], &end, 10);
            if (*end || o->samples < 1 || o->samples > 100000)
                return tl_cli_fail("measure", "--samples: expected a whole number in 1..100000"), 2;
        } else if (!strcmp(a, "--skin") && has_value) {
            char* end;
            o->skin = strtol(argv[++i], &end, 10);
            if (*end || o->skin < 0)
                return tl_cli_fail("measure", "--skin: expected a skin index"), 2;
        } else if (a[0] != '-' && !o->file)
            o->file = a;
        else
            return tl_cli_fail("measure", "unexpected argument \"%s\" (see --help)", a), 2;
    }
    if (!o->file) return fprintf(stderr, "%s", USAGE), 2;
    if (o->reweighted && !o->before)
        return tl_cli_fail("measure", "--region-reweighted needs --before FILE"), 2;
    if (o->before && o->stress)
        return tl_cli_fail("measure", "--before measures clips, not --stress runs: give one"), 2;
    return 0;
}

/* The skin measured: --skin, else the one with the most vertices. 0 or the exit code. */
static int pick_skin(const options* o, const tl_scene* scene, uint32_t* skin) {
    if (scene->skin_count == 0)
        return tl_cli_fail("measure", "%s: has no skin to measure", o->file);
    if (o->skin < 0) {
        *skin = tl_measure_default_skin(scene);
        return 0;
    }
    if ((uint32_t)o->skin >= scene->skin_count)
        return tl_cli_fail("measure", "--skin %ld: the file has %u skins", o->skin,
                           scene->skin_count);
    *skin = (uint32_t)o->skin;
    return 0;
}

/* The user's regions (--region, --region-json) as masks. 0 or the exit code. */
static int user_regions(const options* o, const tl_scene_skin* sk, region* regions,
                        tl_measure_region_def* defs) {
    for (int i = 0; i < o->pattern_count + o->json_count; ++i) {
        region* r = &regions[i];
        if (!(r->mask = calloc(sk->vertex_count + 1, 1)))
            return tl_cli_fail("measure", "out of memory");
        int code = i < o->pattern_count
                       ? region_from_pattern(sk, o->patterns[i], r)
                       : region_from_json(sk, o->json_files[i - o->pattern_count], r);
        if (code) return code;
        defs[i].name = r->name;
        defs[i].mask = r->mask;
    }
    return 0;
}

/* Measures the clips (one, or all) and prints them. 0 or the exit code. */
static int measure_clips(const options* o, tl_measure_run* run, tl_cli_play_side* sides) {
    const tl_measure_rigs* rigs = run->rigs;
    const tl_scene* scene = rigs->rigs[run->first].scene;
    tl_error err;
    uint32_t first_clip = 0, last_clip = scene->clip_count;
    if (o->clip_name) {
        if (tl_scene_find_clip(scene, o->clip_name, &first_clip, &err) != TL_OK)
            return tl_cli_fail("measure", "%s", err.message);
        last_clip = first_clip + 1;
    }
    if (!o->as_json) {
        printf("%s: skin %u, %u vertices, H %.4g, %u sample times per clip%s\n", o->file, run->skin,
               scene->skins[run->skin].vertex_count, run->height, run->samples,
               rigs->rigged                                    ? ", chains simulated"
               : rigs->analysis && rigs->analysis->chain_count ? ", rigged in memory"
                                                               : "");
        if (first_clip == last_clip) printf("  (no clips)\n");
    }
    json_t* clips = json_array();
    tl_measure_clip* m = malloc(sizeof *m);
    if (!m) return json_decref(clips), tl_cli_fail("measure", "out of memory");
    tl_new_tears vs[TL_MEASURE_MAX_REGIONS + 1];
    for (uint32_t clip = first_clip; clip < last_clip; ++clip) {
        if (tl_measure_run_clip(run, clip, m, &err) != TL_OK) {
            free(m);
            json_decref(clips);
            return tl_cli_fail_file("measure", o->file, err.message);
        }
        int code = sides ? tl_cli_sides_tears(o->before, run, sides, clip, vs) : 0;
        if (code) return free(m), json_decref(clips), code;
        if (o->as_json)
            json_array_append_new(clips, clip_json(run, m, o->before, sides ? vs : NULL));
        else
            clip_print(run, m, o->before, sides ? vs : NULL);
    }
    free(m);
    int code = 0;
    if (o->as_json) {
        json_t* result = o->clip_name ? json_incref(json_array_get(clips, 0))
                                      : json_pack("{s:s,s:O}", "file", o->file, "clips", clips);
        code = tl_cli_json_out("measure", o->file, result, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        json_decref(result);
    }
    json_decref(clips);
    return code;
}

/* Garments modelled apart (an unskinned cape under the chest) are measured as tailor rig
 * makes them: rebound to their torso joint (the file as it looks, the cape rigid on the joint),
 * then rigged as cloth in memory. Replaces *scene when anything was rebound. */
static tl_result rebind_unskinned(tl_gltf* doc, tl_scene** scene, tl_rig_def* def, tl_error* err) {
    bool candidate = false; /* the analysis runs only for a mesh with no skin under a node */
    for (uint32_t n = 0; n < doc->node_count; ++n)
        candidate |= doc->nodes[n].mesh != TL_NONE && doc->nodes[n].skin == TL_NONE &&
                     doc->nodes[n].parent != TL_NONE;
    if (!def->cloth || !candidate || !(*scene)->skin_count) return TL_OK;
    tl_rig_analysis* a = NULL;
    uint32_t converted = 0;
    tl_result r = tl_rig_analyze(*scene, def, &a, err);
    if (r == TL_OK && a->unskinned_count)
        r = tl_rig_skin_unskinned(doc, *scene, a, def, &converted, err);
    tl_rig_analysis_destroy(a);
    if (r != TL_OK || !converted) return r;
    tl_scene_destroy(*scene);
    *scene = NULL;
    return tl_scene_create(doc, scene, err);
}

int tl_cli_measure(int argc, char** argv) {
    options o;
    int code = parse(argc, argv, &o);
    if (code) return code < 0 ? 0 : code;
    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_measure_rigs* rigs = NULL;
    tl_measure_run* run = NULL;
    region regions[MAX_REGIONS * 2];
    tl_measure_region_def defs[MAX_REGIONS * 2];
    tl_cli_play_side sides[2] = {{0}};
    memset(regions, 0, sizeof regions);
    uint32_t skin = 0;
    tl_measure_rigs_def rdef = tl_default_measure_rigs_def();
    rdef.samples = (uint32_t)o.samples;
    if (tl_gltf_load(o.file, &doc, &err) != TL_OK || tl_scene_create(doc, &scene, &err) != TL_OK ||
        rebind_unskinned(doc, &scene, &rdef.rig, &err) != TL_OK) {
        code = tl_cli_fail("measure", "%s: %s", o.file, err.message);
    } else if (!(code = pick_skin(&o, scene, &skin)) &&
               tl_measure_rigs_create(scene, &rdef, &rigs, &err) != TL_OK) {
        code = tl_cli_fail("measure", "%s", err.message);
    }
    if (!code && o.stress) {
        const tl_measure_rig* chain = &rigs->rigs[TL_MEASURE_CHAIN];
        code = tl_cli_measure_stress(o.file, chain->used ? chain : NULL, scene, o.clip_name,
                                     o.as_json);
    } else if (!code && !(code = user_regions(&o, &scene->skins[skin], regions, defs)) &&
               !(code = o.before ? tl_cli_sides_open(o.file, o.before, scene, skin, sides) : 0)) {
        tl_measure_run_def def = tl_default_measure_run_def();
        def.samples = (uint32_t)o.samples;
        def.skin = skin;
        def.regions = defs;
        def.region_count = (uint32_t)(o.pattern_count + o.json_count);
        region* rw = &regions[def.region_count];
        if (o.reweighted && !(rw->mask = calloc(scene->skins[skin].vertex_count + 1, 1))) {
            code = tl_cli_fail("measure", "out of memory");
        } else if (o.reweighted) {
            uint32_t n = tl_cli_sides_reweighted(sides, skin, rw->mask);
            snprintf(rw->name, sizeof rw->name, "re-weighted (%u vertices)", n);
            defs[def.region_count].name = rw->name;
            defs[def.region_count++].mask = rw->mask;
        }
        if (code)
            ;
        else if (tl_measure_run_create(rigs, &def, &run, &err) != TL_OK)
            code = tl_cli_fail("measure", "%s", err.message);
        else
            code = measure_clips(&o, run, o.before ? sides : NULL);
    }
    tl_cli_sides_close(sides);
    tl_measure_run_destroy(run);
    tl_measure_rigs_destroy(rigs);
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; ++i)
        free(regions[i].mask);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return code;
}

char* tl_cli_measure_json(const char* cmd, const char* file) {
    tl_error err;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_measure_rigs* rigs = NULL;
    tl_measure_run* run = NULL;
    char* text = NULL;
    tl_measure_rigs_def rdef = tl_default_measure_rigs_def();
    tl_measure_run_def def = tl_default_measure_run_def();
    if (tl_gltf_load(file, &doc, &err) != TL_OK || tl_scene_create(doc, &scene, &err) != TL_OK ||
        (scene->skin_count && tl_measure_rigs_create(scene, &rdef, &rigs, &err) != TL_OK)) {
        tl_cli_fail(cmd, "%s", err.message);
    } else if (!scene->skin_count) {
        text = strdup("{\"clips\": []}");
    } else if ((def.skin = tl_measure_default_skin(scene)),
               tl_measure_run_create(rigs, &def, &run, &err) != TL_OK) {
        tl_cli_fail(cmd, "%s", err.message);
    } else {
        json_t* clips = json_array();
        tl_measure_clip* m = malloc(sizeof *m);
        bool ok = m != NULL;
        for (uint32_t clip = 0; ok && clip < scene->clip_count; ++clip) {
            ok = tl_measure_run_clip(run, clip, m, &err) == TL_OK;
            if (ok) json_array_append_new(clips, clip_json(run, m, NULL, NULL));
        }
        json_t* out = json_pack("{s:s,s:o}", "file", file, "clips", clips);
        text = ok ? json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        if (!text) tl_cli_fail(cmd, "%s", m ? err.message : "out of memory");
        json_decref(out);
        free(m);
    }
    tl_measure_run_destroy(run);
    tl_measure_rigs_destroy(rigs);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return text;
}
