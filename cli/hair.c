/* tailor hair-audit: guides of many hair styles on one character, and the article's audit
 * (hair.md §5; docs/hair.md). The work is tailor/hair.h; this file parses and prints. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tailor/hair.h>

static const char* AUDIT_USAGE =
    "usage: tailor hair-audit CHARACTER.glb HAIR... [--json] [--guides G.json]\n"
    "                         [--root-distance MM] [--no-mid-links]\n"
    "  Guide curves through each hair mesh (an .obj in the character's frame, or a glTF whose\n"
    "  mesh on the head is the hair), roots bound to the character's scalp, pieces linked, and\n"
    "  the audit: candidates, attached, rejected by reason, links, coverage, components.\n"
    "  --json              one JSON document: {\"styles\": [...], \"total\": {...}}\n"
    "  --guides G.json     also write every style's guide points, root bindings and audit\n"
    "  --root-distance MM  the root threshold in mm at human scale (default 20)\n"
    "  --no-mid-links      link pieces only tip to end (no mid-guide links)\n";

typedef struct audit_args {
    const char* character;
    const char** hair;
    int hair_count;
    bool json;
    const char* guides;
    tl_hair_def def;
} audit_args;

static int audit_parse(int argc, char** argv, audit_args* a) {
    a->def = tl_default_hair_def();
    a->hair = calloc((size_t)argc, sizeof *a->hair);
    if (!a->hair) return tl_cli_fail("hair-audit", "out of memory");
    for (int i = 1; i < argc; ++i) {
        const char* s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            fputs(AUDIT_USAGE, stdout);
            exit(0);
        } else if (!strcmp(s, "--json")) {
            a->json = true;
        } else if (!strcmp(s, "--no-mid-links")) {
            a->def.mid_guide_links = false;
        } else if (!strcmp(s, "--guides") || !strcmp(s, "--root-distance")) {
            if (i + 1 >= argc) return tl_cli_fail("hair-audit", "%s needs a value", s), 2;
            const char* v = argv[++i];
            if (!strcmp(s, "--guides")) {
                a->guides = v;
                continue;
            }
            char* end;
            double mm = strtod(v, &end);
            if (*end || !(mm > 0 && mm <= 1000))
                return tl_cli_fail("hair-audit", "--root-distance %s: give mm in (0, 1000]", v), 2;
            a->def.root_distance_mm = (float)mm;
        } else if (s[0] == '-' && s[1]) {
            return tl_cli_fail("hair-audit", "unknown option %s (see --help)", s), 2;
        } else if (!a->character) {
            a->character = s;
        } else {
            a->hair[a->hair_count++] = s;
        }
    }
    if (!a->character || a->hair_count == 0) {
        fputs(AUDIT_USAGE, stderr);
        return 2;
    }
    return 0;
}

static json_t* audit_json(const char* file, const tl_hair_audit* au, const char* error) {
    json_t* o = json_object();
    json_object_set_new(o, "file", json_string(file));
    if (error) {
        json_object_set_new(o, "error", json_string(error));
        return o;
    }
    json_t* rejected = json_object();
    for (int r = 1; r < TL_HAIR_REJECT_COUNT; ++r)
        if (au->rejected[r])
            json_object_set_new(rejected, tl_hair_reject_string((tl_hair_reject)r),
                                json_integer(au->rejected[r]));
    json_object_set_new(o, "candidates", json_integer(au->candidates));
    json_object_set_new(o, "attached", json_integer(au->attached));
    json_object_set_new(o, "rejected", rejected);
    json_object_set_new(o, "merged_links", json_integer(au->merged_links));
    json_object_set_new(o, "mid_guide_links", json_integer(au->mid_guide_links));
    json_object_set_new(o, "coverage", json_real(au->coverage));
    json_object_set_new(o, "components", json_integer(au->components));
    json_object_set_new(o, "components_attached", json_integer(au->components_attached));
    json_object_set_new(o, "vertices", json_integer(au->vertices));
    json_object_set_new(o, "excluded_vertices", json_integer(au->excluded_vertices));
    json_object_set_new(o, "error", json_null());
    return o;
}

static void progress(int done, int total, const char* file) {
    const int width = 30;
    int filled = total ? done * width / total : width;
    fprintf(stderr, "\r[%.*s%*s] %d/%d %-40.40s", filled, "##############################",
            width - filled, "", done, total, file);
    if (done == total) fputs("\r\033[K", stderr);
    fflush(stderr);
}

static void print_table(json_t* styles, json_t* total) {
    printf("%-24s %6s %6s %6s %6s %5s %8s %6s %6s %5s %6s %7s  %s\n", "style", "cand", "attach",
           "reject", "links", "mid", "coverage", "parts", "p.att", "excl", "chains", "chain.v",
           "rejected by reason / error");
    size_t i;
    json_t* s;
    json_array_foreach(styles, i, s) {
        const char* file = json_string_value(json_object_get(s, "file"));
        const char* base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        json_t* error = json_object_get(s, "error");
        if (json_is_string(error)) {
            printf("%-24.24s %s\n", base, json_string_value(error));
            continue;
        }
        json_int_t cand = json_integer_value(json_object_get(s, "candidates"));
        json_int_t att = json_integer_value(json_object_get(s, "attached"));
        char reasons[128] = "";
        const char* key;
        json_t* v;
        json_object_foreach(json_object_get(s, "rejected"), key, v) {
            size_t n = strlen(reasons);
            snprintf(reasons + n, sizeof reasons - n, "%s%s %lld", n ? ", " : "", key,
                     (long long)json_integer_value(v));
        }
        json_t* rigid = json_object_get(s, "rigid");
        char chains[16];
        snprintf(chains, sizeof chains, "%s", json_is_true(rigid) ? "rigid" : rigid ? "" : "?");
        if (!json_is_true(rigid) && rigid)
            snprintf(chains, sizeof chains, "%lld",
                     (long long)json_integer_value(json_object_get(s, "chains")));
        printf("%-24.24s %6lld %6lld %6lld %6lld %5lld %7.2f%% %6lld %6lld %5lld %6s %7lld  %s\n",
               base, (long long)cand, (long long)att, (long long)(cand - att),
               (long long)json_integer_value(json_object_get(s, "merged_links")),
               (long long)json_integer_value(json_object_get(s, "mid_guide_links")),
               100 * json_real_value(json_object_get(s, "coverage")),
               (long long)json_integer_value(json_object_get(s, "components")),
               (long long)json_integer_value(json_object_get(s, "components_attached")),
               (long long)json_integer_value(json_object_get(s, "excluded_vertices")), chains,
               (long long)json_integer_value(json_object_get(s, "chain_vertices")), reasons);
    }
    printf("total: %lld styles, %lld of %lld candidates attached (%.2f%%), coverage %.2f%%, "
           "%lld errors\n",
           (long long)json_integer_value(json_object_get(total, "styles")),
           (long long)json_integer_value(json_object_get(total, "attached")),
           (long long)json_integer_value(json_object_get(total, "candidates")),
           100 * json_real_value(json_object_get(total, "attachment_rate")),
           100 * json_real_value(json_object_get(total, "coverage")),
           (long long)json_integer_value(json_object_get(total, "errors")));
}

/* One style: its audit record and, with --guides, its guides document. */
static json_t* audit_style(const char* file, const tl_hair_scalp* scalp, const tl_hair_def* def,
                           json_t* guide_docs, uint64_t totals[4], double* coverage_sum) {
    tl_hair_mesh mesh;
    tl_hair_guides* guides = NULL;
    tl_error err = {0};
    tl_result r = tl_hair_mesh_read(file, &mesh, &err);
    if (r == TL_OK) r = tl_hair_guides_create(&mesh, scalp, def, &guides, &err);
    if (r != TL_OK) {
        tl_hair_mesh_free(&mesh);
        totals[3]++;
        return audit_json(file, NULL, err.message);
    }
    json_t* record = audit_json(file, &guides->audit, NULL);
    tl_hair_chain_def cdef = tl_default_hair_chain_def();
    tl_hair_chains* chains = NULL;
    if (tl_hair_chains_create(&mesh, scalp, guides, &cdef, &chains, &err) == TL_OK) {
        json_object_set_new(record, "chains", json_integer(chains->chain_count));
        json_object_set_new(record, "chain_vertices", json_integer(chains->bound_vertices));
        json_object_set_new(record, "rigid", json_boolean(chains->rigid));
        json_object_set_new(record, "longest_free", json_real(chains->longest_free));
        tl_hair_chains_destroy(chains);
    }
    totals[0] += guides->audit.candidates;
    totals[1] += guides->audit.attached;
    totals[2] += guides->audit.vertices;
    *coverage_sum += guides->audit.coverage * guides->audit.vertices;
    if (guide_docs) {
        char* text = tl_hair_guides_to_json(guides, file);
        json_t* doc = text ? json_loads(text, 0, NULL) : NULL;
        json_array_append_new(guide_docs, doc ? doc : json_null());
        free(text);
    }
    tl_hair_guides_destroy(guides);
    tl_hair_mesh_free(&mesh);
    return record;
}

int tl_cli_hair_audit(int argc, char** argv) {
    audit_args a = {0};
    int rc = audit_parse(argc, argv, &a);
    if (rc) return free(a.hair), rc;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_hair_scalp* scalp = NULL;
    tl_error err;
    tl_result r = tl_gltf_load(a.character, &doc, &err);
    if (r == TL_OK) r = tl_scene_create(doc, &scene, &err);
    int32_t skin = r == TL_OK ? tl_hair_scene_skin(scene) : TL_NONE;
    if (r == TL_OK && skin == TL_NONE)
        r = tl_error_set(&err, TL_ERROR_NOT_FOUND, "%s: no skin with a head joint", a.character);
    uint8_t* exclude = NULL;
    if (r == TL_OK) {
        exclude = calloc(scene->skins[skin].primitive_count + 1, 1);
        if (!exclude) r = tl_error_set(&err, TL_ERROR_MEMORY, "out of memory");
    }
    if (r == TL_OK) { /* the character's own hair is not its scalp */
        tl_hair_find_primitives(scene, (uint32_t)skin, exclude);
        r = tl_hair_scalp_find(scene, (uint32_t)skin, &a.def, exclude, &scalp, &err);
    }
    if (r != TL_OK) {
        rc = tl_cli_fail("hair-audit", "%s", err.message);
        goto done;
    }
    bool tty = isatty(2);
    json_t* styles = json_array();
    json_t* guide_docs = a.guides ? json_array() : NULL;
    uint64_t totals[4] = {0}; /* candidates, attached, vertices, errors */
    double coverage_sum = 0;
    for (int i = 0; i < a.hair_count; ++i) {
        if (tty) progress(i, a.hair_count, a.hair[i]);
        json_array_append_new(
            styles, audit_style(a.hair[i], scalp, &a.def, guide_docs, totals, &coverage_sum));
    }
    if (tty) progress(a.hair_count, a.hair_count, "");
    json_t* total =
        json_pack("{s:i, s:I, s:I, s:o, s:o, s:I}", "styles", a.hair_count, "candidates",
                  (json_int_t)totals[0], "attached", (json_int_t)totals[1], "attachment_rate",
                  json_real(totals[0] ? (double)totals[1] / (double)totals[0] : 0), "coverage",
                  json_real(totals[2] ? coverage_sum / (double)totals[2] : 0), "errors",
                  (json_int_t)totals[3]);
    if (a.guides) {
        json_t* gdoc = json_pack("{s:s, s:O, s:O}", "character", a.character, "styles", guide_docs,
                                 "total", total);
        char* text = json_dumps(gdoc, JSON_COMPACT);
        rc = text
                 ? tl_cli_write("hair-audit", NULL, a.character, NULL, false, false, a.guides, text)
                 : tl_cli_fail("hair-audit", "out of memory");
        free(text);
        json_decref(gdoc);
    }
    if (rc == 0 && a.json) {
        json_t* out = json_pack("{s:s, s:o, s:o}", "character", a.character, "styles", styles,
                                "total", total);
        rc = tl_cli_json_out("hair-audit", a.character, out, JSON_INDENT(2));
        json_decref(out);
    } else {
        if (rc == 0) print_table(styles, total);
        json_decref(styles);
        json_decref(total);
    }
    json_decref(guide_docs);
    if (rc == 0 && totals[3]) rc = 1; /* a style that did not load fails the run */
done:
    tl_hair_scalp_destroy(scalp);
    free(exclude);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    free(a.hair);
    return rc;
}

static const char* HAIR_USAGE =
    "usage: tailor hair CHARACTER.glb --hair HAIR.obj|HAIR.glb [--fit] -o OUT.glb [--force]\n"
    "  Attaches a hair asset to the character, skinned to its head, and rigs it as tailor rig\n"
    "  does (guide chains of kind hair; a short style stays rigid). The asset is placed as it\n"
    "  is (made for this body, in its frame), or with --fit scaled crown to crown onto the head\n"
    "  and pushed out past the head's ellipsoid. Prints the guides' attachment.\n";

typedef struct hair_args {
    const char *character, *hair, *output;
    bool fit, force;
} hair_args;

static int hair_parse(int argc, char** argv, hair_args* a) {
    for (int i = 1; i < argc; ++i) {
        const char* s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            fputs(HAIR_USAGE, stdout);
            exit(0);
        } else if (!strcmp(s, "--fit")) {
            a->fit = true;
        } else if (!strcmp(s, "--force")) {
            a->force = true;
        } else if (!strcmp(s, "--hair") || !strcmp(s, "-o")) {
            if (i + 1 >= argc) return tl_cli_fail("hair", "%s needs a value", s), 2;
            *(!strcmp(s, "-o") ? &a->output : &a->hair) = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return tl_cli_fail("hair", "unknown option %s (see --help)", s), 2;
        } else if (!a->character) {
            a->character = s;
        } else {
            return tl_cli_fail("hair", "one character only (%s?)", s), 2;
        }
    }
    if (!a->character || !a->hair || !a->output) {
        fputs(HAIR_USAGE, stderr);
        return 2;
    }
    return 0;
}

/* Places the hair, audits its guides on the scalp, refreshes the scene. */
static tl_result hair_place(tl_gltf* doc, tl_scene* scene, uint32_t skin, const hair_args* a,
                            tl_hair_audit* audit, tl_error* err) {
    tl_hair_mesh mesh;
    tl_result r = tl_hair_mesh_read(a->hair, &mesh, err);
    uint8_t* exclude = calloc(scene->skins[skin].primitive_count + 1, 1);
    if (r == TL_OK && !exclude) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) tl_hair_find_primitives(scene, skin, exclude);
    if (r == TL_OK && a->fit) r = tl_hair_fit(scene, skin, exclude, 8.0f, &mesh, err);
    tl_hair_scalp* scalp = NULL;
    tl_hair_guides* guides = NULL;
    tl_hair_def def = tl_default_hair_def();
    if (r == TL_OK) r = tl_hair_scalp_find(scene, skin, &def, exclude, &scalp, err);
    if (r == TL_OK) r = tl_hair_guides_create(&mesh, scalp, &def, &guides, err);
    if (r == TL_OK) *audit = guides->audit;
    tl_hair_guides_destroy(guides);
    tl_hair_scalp_destroy(scalp);
    if (r == TL_OK) r = tl_hair_attach(doc, scene, skin, &mesh, err);
    if (r == TL_OK) r = tl_scene_refresh(scene, err);
    free(exclude);
    tl_hair_mesh_free(&mesh);
    return r;
}

int tl_cli_hair(int argc, char** argv) {
    hair_args a = {0};
    int rc = hair_parse(argc, argv, &a);
    if (rc) return rc;
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_rig_analysis* rig = NULL;
    tl_error err;
    tl_hair_audit audit = {0};
    tl_result r = tl_gltf_load(a.character, &doc, &err);
    if (r == TL_OK) r = tl_scene_create(doc, &scene, &err);
    int32_t skin = r == TL_OK ? tl_hair_scene_skin(scene) : TL_NONE;
    if (r == TL_OK && skin == TL_NONE)
        r = tl_error_set(&err, TL_ERROR_NOT_FOUND, "%s: no skin with a head joint", a.character);
    if (r == TL_OK) r = hair_place(doc, scene, (uint32_t)skin, &a, &audit, &err);
    tl_rig_def def = tl_default_rig_def();
    if (r == TL_OK) r = tl_rig_analyze(scene, &def, &rig, &err);
    if (r == TL_OK) r = tl_rig_apply(doc, rig, &err);
    if (r != TL_OK) {
        rc = tl_cli_fail("hair", "%s", err.message);
    } else {
        rc = tl_cli_write("hair", doc, a.character, a.output, a.force, false, NULL, NULL);
        uint32_t chains = 0;
        for (uint32_t i = 0; i < rig->part_count; ++i)
            chains += rig->parts[i].cls == TL_RIG_CLASS_HAIR &&
                      rig->parts[i].action == TL_RIG_ACTION_CHAIN;
        if (rc == 0)
            printf("%s + %s%s: %u of %u guides attached (%.2f%%), coverage %.2f%%; %u hair "
                   "chain(s)%s\n",
                   a.character, a.hair, a.fit ? " (fitted)" : "", audit.attached, audit.candidates,
                   audit.candidates ? 100.0 * audit.attached / audit.candidates : 0,
                   100 * audit.coverage, chains,
                   chains ? ""
                          : ": rigid on the head (a short style, or a character on four legs)");
    }
    tl_rig_analysis_destroy(rig);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return rc;
}
