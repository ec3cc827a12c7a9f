/* Generalisation: tailor on tailed characters that are not among ../shared/cases. Each of the
 * shared assets with its artist's tail bones (the Quaternius fox, husky, horse, rat, T. rex and
 * stag, the Khronos fox) is stripped at test time (scripts/tail_styles.py, into the build
 * folder) the way other auto-riggers bind a tail they have no bones for: each vertex to the
 * nearest body bone, everything to the joint the tail hangs from, everything to one thigh,
 * and the cases' own template on the stag; a few also scaled and turned Z-up. Then
 * `tailor rig` and `tailor measure --json` on every file, against the issue's bars (the same
 * bars as test_rig junction_cases and cases_bone_distance_and_path):
 *
 *   chain    exactly one chain, from the pelvis region, no other tail left unrigged
 *   bone     the tail's weighted bone distance at most 1.25x the artist's and at most half
 *            the input's
 *   tail     the whole tail (the artist's tail skin), chain simulated: p99 and max within the
 *            input body's, torn <= 0.1%
 *   input    … and its p99 and torn share not above the input's (a tail the file binds rigidly
 *            to the hips barely stretches before: a chain that moves stretches it more)
 *   new      new tears of the re-weighted skin <= 0.25%
 *   touched  the body skin the rig re-weighted tears no more than in the input
 *
 * The cells that do not hold today are listed in `known_misses`: printed, and asserted only in
 * the strict run (TL_GENERAL_STRICT, ctest known_failing_general); every other cell is
 * asserted. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct original {
    const char *key, *asset, *tail, *parent, *shin, *thigh_l, *thigh_r, *walk, *fast;
} original;

static const original originals[] = {
    {"fox-q", "quaternius-fox/Fox.glb", "Tail", "Back", "BackLowerLeg.L", "BackUpperLeg.L",
     "BackUpperLeg.R", "Walk", "Gallop"},
    {"husky", "quaternius-husky/Husky.glb", "Tail", "Back", "BackLowerLeg.L", "BackUpperLeg.L",
     "BackUpperLeg.R", "Walk", "Gallop"},
    {"horse", "quaternius-horse/Horse.glb", "Tail", "Back", "BackUpperLeg.L", "BackLeg.L",
     "BackLeg.R", "Walk", "Gallop"},
    {"rat", "quaternius-rat/Rat.glb", "Tail", "Back", "BackUpLeg.L", "BackLeg.L", "BackLeg.R",
     "Rat_Walk", "Rat_Run"},
    {"trex", "quaternius-trex/Trex.glb", "Tail", "Back", "BackUpLeg.L", "BackLeg.L", "BackLeg.R",
     "TRex_Walk", "TRex_Run"},
    {"stag", "quaternius-stag/Stag.glb", "Tail", "Back", "BackLowerLeg.L", "BackUpperLeg.L",
     "BackUpperLeg.R", "Walk", "Gallop"},
    {"fox-k", "khronos-fox/Fox.glb", "b_Tail", "b_Hip_01", "b_LeftLeg02_016", "b_LeftLeg01_015",
     "b_RightLeg01_019", "Walk", "Run"},
};
#define ORIGINAL_COUNT (sizeof originals / sizeof originals[0])

typedef struct variant {
    const char* key; /* into originals */
    const char* style;
    float scale; /* 1: as the asset */
    bool z_up;
} variant;

static const variant variants[] = {
    {"stag", "template", 1, false}, {"stag", "template", 100, true},
    {"fox-q", "nearest", 1, false}, {"husky", "nearest", 1, false},
    {"horse", "nearest", 1, false}, {"rat", "nearest", 1, false},
    {"trex", "nearest", 1, false},  {"stag", "nearest", 1, false},
    {"fox-k", "nearest", 1, false}, {"fox-k", "nearest", 100, true},
    {"fox-q", "parent", 1, false},  {"husky", "parent", 1, false},
    {"horse", "parent", 1, false},  {"rat", "parent", 1, false},
    {"trex", "parent", 1, false},   {"stag", "parent", 1, false},
    {"fox-k", "parent", 1, false},  {"fox-q", "thigh", 1, false},
    {"husky", "thigh", 1, false},   {"horse", "thigh", 1, false},
    {"rat", "thigh", 1, false},     {"trex", "thigh", 1, false},
    {"stag", "thigh", 1, false},    {"fox-k", "thigh", 1, false},
    {"rat", "thigh", 0.01f, true},
};
#define VARIANT_COUNT (sizeof variants / sizeof variants[0])

enum { BAR_CHAIN, BAR_BONE, BAR_TAIL, BAR_INPUT, BAR_NEW, BAR_TOUCHED, BAR_COUNT };
static const char* const bar_names[BAR_COUNT] = {"chain", "bone", "tail",
                                                 "input", "new",  "touched"};

/* The cells that miss today (docs/rig.md "Generalisation"): variant name, bar, clip ("*": both
 * clips and the per-file bars). */
static const struct {
    const char *name, *bar, *clip;
} known_misses[] = {
    /* the root the file binds to the hind legs: the rat's run torn 0.29% (walk holds since
       session 12; the husky's since session 14b, its reached root given the chain's first bone
       as a candidate) */
    {"rat-nearest", "tail", "Rat_Run"},
    /* session 12: the fit keeps the reached root (its file tears excuse nothing), which the
       run tears anew where the file did not (docs/rig.md §8, session 12) */
    {"rat-nearest", "new", "Rat_Run"},
    {"horse-parent", "input", "Walk"},
    {"horse-parent", "input", "Gallop"},
    {"rat-parent", "tail", "Rat_Run"},
    {"rat-parent", "new", "Rat_Run"}, /* as rat-nearest's, session 12 */
    {"fox-k-parent", "input", "Walk"},
    {"fox-k-parent", "input", "Run"},
    {"rat-thigh", "new", "Rat_Walk"},
    {"rat-thigh", "new", "Rat_Run"},
    {"fox-k-thigh", "input", "Walk"},
    {"fox-k-thigh", "input", "Run"},
    /* the same figures as rat-thigh, since its up axis is found (docs/scene.md) */
    {"rat-thigh-x0.01-zup", "new", "Rat_Walk"},
    {"rat-thigh-x0.01-zup", "new", "Rat_Run"},
};

static bool known_miss(const char* name, int bar, const char* clip) {
    for (size_t i = 0; i < sizeof known_misses / sizeof known_misses[0]; ++i)
        if (!strcmp(known_misses[i].name, name) && !strcmp(known_misses[i].bar, bar_names[bar]) &&
            (!strcmp(known_misses[i].clip, "*") || !strcmp(known_misses[i].clip, clip)))
            return true;
    return false;
}

static const original* original_of(const char* key) {
    for (size_t i = 0; i < ORIGINAL_COUNT; ++i)
        if (!strcmp(originals[i].key, key)) return &originals[i];
    return NULL;
}

static void variant_name(const variant* v, char* out, size_t n) {
    if (v->scale != 1 || v->z_up)
        snprintf(out, n, "%s-%s-x%g%s", v->key, v->style, (double)v->scale, v->z_up ? "-zup" : "");
    else
        snprintf(out, n, "%s-%s", v->key, v->style);
}

/* Runs a command, returns its exit status (stdout to *out when out is not NULL). */
static int run(char** out, const char* command) {
    FILE* p = popen(command, "r");
    if (!p) return -1;
    size_t cap = 1 << 16, len = 0, got;
    char* buf = malloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0)
        if ((len += got) + 1 >= cap) buf = realloc(buf, cap *= 2);
    buf[len] = '\0';
    int status = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return status;
}

/* `tailor measure FILE --clip CLIP --json [--region-json REGION]` as JSON (NULL on failure). */
static json_t* measure(const char* file, const char* clip, const char* region) {
    char* out = NULL;
    int rc = region ? tl_test_cli(&out, "measure '%s' --clip '%s' --region-json '%s' --json", file,
                                  clip, region)
                    : tl_test_cli(&out, "measure '%s' --clip '%s' --json", file, clip);
    json_t* doc = rc == 0 && out ? json_loads(out, 0, NULL) : NULL;
    if (!doc) fprintf(stderr, "  measure %s %s failed (%d)\n", file, clip, rc);
    free(out);
    return doc;
}

/* path.to.number in a JSON document, NaN when missing. */
static double num(const json_t* root, const char* path) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t* at = root;
    for (char* key = strtok(buf, "."); key && at; key = strtok(NULL, "."))
        at = json_is_array(at) ? json_array_get(at, (size_t)atoi(key)) : json_object_get(at, key);
    return json_is_number(at) ? json_number_value(at) : NAN;
}

/* The vertices whose weights the rig changed (by joint and weight) and that are not the
 * truth's tail, written as a measure region file; returns their count (-1 on failure). */
static long touched_region(const char* input, const char* output, const char* truth_path,
                           const char* region_path) {
    tl_error err;
    tl_gltf *a = NULL, *b = NULL;
    tl_scene *sa = NULL, *sb = NULL;
    long count = -1;
    json_t* truth = json_load_file(truth_path, 0, NULL);
    if (truth && tl_gltf_load(input, &a, &err) == TL_OK &&
        tl_gltf_load(output, &b, &err) == TL_OK && tl_scene_create(a, &sa, &err) == TL_OK &&
        tl_scene_create(b, &sb, &err) == TL_OK &&
        sa->skins[0].vertex_count == sb->skins[0].vertex_count) {
        const tl_scene_skin *ka = &sa->skins[0], *kb = &sb->skins[0];
        uint8_t* tail = calloc(ka->vertex_count + 1, 1);
        for (uint32_t p = 0; p < ka->primitive_count; ++p) {
            char key[64];
            snprintf(key, sizeof key, "mesh%u/prim%u", ka->primitives[p].mesh,
                     ka->primitives[p].primitive);
            size_t i;
            json_t* v;
            json_array_foreach(json_object_get(json_object_get(truth, "tail_vertices"), key), i,
                               v) {
                json_int_t k = json_integer_value(v);
                if (k >= 0 && (uint32_t)k < ka->primitives[p].vertex_count)
                    tail[ka->primitives[p].first_vertex + (uint32_t)k] = 1;
            }
        }
        float* wa = calloc(kb->joint_count + 1, sizeof *wa);
        float* wb = calloc(kb->joint_count + 1, sizeof *wb);
        json_t* list = json_array();
        count = 0;
        for (uint32_t v = 0; v < ka->vertex_count; ++v) {
            memset(wa, 0, (kb->joint_count + 1) * sizeof *wa);
            memset(wb, 0, (kb->joint_count + 1) * sizeof *wb);
            for (uint32_t k = 0; k < ka->influence_count; ++k)
                wa[ka->influence_joints[(size_t)v * ka->influence_count + k]] +=
                    ka->influence_weights[(size_t)v * ka->influence_count + k];
            for (uint32_t k = 0; k < kb->influence_count; ++k)
                wb[kb->influence_joints[(size_t)v * kb->influence_count + k]] +=
                    kb->influence_weights[(size_t)v * kb->influence_count + k];
            bool changed = false;
            for (uint32_t j = 0; j < kb->joint_count && !changed; ++j)
                changed = fabsf(wa[j] - wb[j]) > 1e-6f;
            if (changed && !tail[v]) json_array_append_new(list, json_integer(v)), ++count;
        }
        json_t* region = json_pack("{s:s, s:o}", "name", "touched", "vertices", list);
        if (json_dump_file(region, region_path, 0) != 0) count = -1;
        json_decref(region);
        free(wa);
        free(wb);
        free(tail);
    }
    json_decref(truth);
    tl_scene_destroy(sa);
    tl_scene_destroy(sb);
    tl_gltf_destroy(a);
    tl_gltf_destroy(b);
    return count;
}

/* One variant's figures. */
typedef struct figures {
    int chains, pelvis_chains, other_tails;
    double before, after, artist; /* mean weighted bone distance over the whole tail / H */
    long touched;
    struct {
        double in_p99, in_torn, body_p99, body_max, p99, max, torn, new_torn, touched_in,
            touched_out;
    } clip[2];
} figures;

static bool make_variant(const variant* v, const char* base) {
    const original* o = original_of(v->key);
    char input[4096], command[12288];
    snprintf(input, sizeof input, "%s/%s", tl_test_shared("assets"), o->asset);
    snprintf(command, sizeof command,
             "python3 '%s' '%s' '%s' --tail '%s' --parent '%s' --style %s --shin '%s' "
             "--thigh-l '%s' --thigh-r '%s' --scale %g %s --source '%s' >/dev/null",
             tl_test_source("scripts/tail_styles.py"), input, base, o->tail, o->parent, v->style,
             o->shin, o->thigh_l, o->thigh_r, (double)v->scale, v->z_up ? "--z-up" : "", o->asset);
    return run(NULL, command) == 0;
}

/* Generates the variant, rigs it with `tailor rig`, measures input, output and the artist's
 * file with `tailor measure --json`. */
static bool run_variant(const variant* v, const char* name, figures* f) {
    const original* o = original_of(v->key);
    memset(f, 0, sizeof *f);
    char base[4096], in[4200], out[4200], truth[4200], report[4200], touched[4200], art[4200];
    snprintf(base, sizeof base, "%s", tl_test_scratch(name));
    snprintf(in, sizeof in, "%s.glb", base);
    snprintf(out, sizeof out, "%s.rigged.glb", base);
    snprintf(truth, sizeof truth, "%s.truth.json", base);
    snprintf(report, sizeof report, "%s.report.json", base);
    snprintf(touched, sizeof touched, "%s.touched.json", base);
    snprintf(art, sizeof art, "%s/%s", tl_test_shared("assets"), o->asset);
    if (!make_variant(v, base))
        return fprintf(stderr, "  %s: tail_styles.py failed\n", name), false;
    if (tl_test_cli(NULL, "rig '%s' -o '%s' --report '%s' >/dev/null 2>&1", in, out, report) != 0)
        return fprintf(stderr, "  %s: tailor rig failed\n", name), false;
    json_t* rep = json_load_file(report, 0, NULL);
    if (!rep) return false;
    size_t i;
    json_t* part;
    json_array_foreach(json_object_get(rep, "parts"), i, part) {
        const char* action = json_string_value(json_object_get(part, "action"));
        const char* cls = json_string_value(json_object_get(part, "class"));
        const char* region = json_string_value(json_object_get(part, "region"));
        if (action && !strcmp(action, "chain")) {
            f->chains++;
            f->pelvis_chains += region && !strcmp(region, "pelvis");
        } else if (cls && !strcmp(cls, "tail") && strcmp(action, "already_rigged")) {
            f->other_tails++;
        }
    }
    json_decref(rep);
    f->touched = touched_region(in, out, truth, touched);
    if (f->touched < 0) return false;
    bool ok = true;
    for (int c = 0; c < 2 && ok; ++c) {
        const char* clip = c ? o->fast : o->walk;
        json_t* mi = measure(in, clip, truth);  /* input: whole tail and body */
        json_t* mo = measure(out, clip, truth); /* tailor rig's output, chain simulated */
        json_t* mp = measure(in, clip, NULL);   /* the detected parts: new tears */
        json_t* ti = f->touched ? measure(in, clip, touched) : NULL;
        json_t* to = f->touched ? measure(out, clip, touched) : NULL;
        ok = mi && mo && mp && (!f->touched || (ti && to));
        if (ok) {
            f->clip[c].in_p99 = num(mi, "regions.0.stretch.original.p99");
            f->clip[c].in_torn = num(mi, "regions.0.stretch.original.torn_pct");
            f->clip[c].body_p99 = num(mi, "body.stretch.p99");
            f->clip[c].body_max = num(mi, "body.stretch.max");
            f->clip[c].p99 = num(mo, "regions.0.stretch.chain.p99");
            f->clip[c].max = num(mo, "regions.0.stretch.chain.max");
            f->clip[c].torn = num(mo, "regions.0.stretch.chain.torn_pct");
            f->clip[c].new_torn = NAN;
            json_t* r;
            json_array_foreach(json_object_get(mp, "regions"), i, r) {
                double t = num(r, "new_tears.new_torn_pct");
                if (!isnan(t) && (isnan(f->clip[c].new_torn) || t > f->clip[c].new_torn))
                    f->clip[c].new_torn = t;
            }
            f->clip[c].touched_in = f->touched ? num(ti, "regions.0.stretch.original.torn_pct") : 0;
            f->clip[c].touched_out = f->touched ? num(to, "regions.0.stretch.chain.torn_pct") : 0;
            if (c == 0) {
                f->before = num(mi, "regions.0.bone_distance.original") / num(mi, "H");
                f->after = num(mo, "regions.0.bone_distance.chain_static") / num(mo, "H");
            }
        }
        json_decref(mi), json_decref(mo), json_decref(mp), json_decref(ti), json_decref(to);
    }
    json_t* ma = ok ? measure(art, o->walk, truth) : NULL; /* the artist's own bones */
    f->artist = ma ? num(ma, "regions.0.bone_distance.original") / num(ma, "H") : NAN;
    json_decref(ma);
    return ok && !isnan(f->artist);
}

/* Which bars hold: per file (clip < 0) or per clip. NaN never holds. */
static bool bar_holds(const figures* f, int bar, int c) {
    switch (bar) {
    case BAR_CHAIN:
        return f->chains == 1 && f->pelvis_chains == 1 && f->other_tails == 0;
    case BAR_BONE:
        return f->after <= 1.25 * f->artist && f->after <= 0.5 * f->before;
    case BAR_TAIL:
        return f->clip[c].p99 <= f->clip[c].body_p99 && f->clip[c].max <= f->clip[c].body_max &&
               f->clip[c].torn <= 0.1;
    case BAR_INPUT:
        return f->clip[c].p99 <= f->clip[c].in_p99 && f->clip[c].torn <= f->clip[c].in_torn;
    case BAR_NEW:
        return f->clip[c].new_torn <= 0.25;
    default:
        return f->clip[c].touched_out <= f->clip[c].touched_in;
    }
}

static void general_cases(void) {
    bool strict = getenv("TL_GENERAL_STRICT") != NULL;
    int misses = 0, unexpected = 0, now_holding = 0;
    fprintf(stderr,
            "  | file | clip | chains (pelvis) | bone distance in / out / artist (out/artist) "
            "| whole tail input p99/torn | whole tail p99/max/torn | body p99/max | new "
            "tears | touched body torn in -> out (vertices) | misses |\n");
    for (size_t k = 0; k < VARIANT_COUNT; ++k) {
        char name[128];
        variant_name(&variants[k], name, sizeof name);
        figures f;
        ENSURE_MSG(run_variant(&variants[k], name, &f), "%s: could not run", name);
        const original* o = original_of(variants[k].key);
        for (int c = 0; c < 2; ++c) {
            const char* clip = c ? o->fast : o->walk;
            char missed[128] = "";
            for (int bar = 0; bar < BAR_COUNT; ++bar) {
                if (c == 1 && bar <= BAR_BONE) continue; /* per file: counted once */
                if (bar_holds(&f, bar, c)) {
                    if (known_miss(name, bar, clip)) ++now_holding;
                    continue;
                }
                ++misses;
                strncat(missed, bar_names[bar], sizeof missed - strlen(missed) - 2);
                strcat(missed, " ");
                if (!known_miss(name, bar, clip)) {
                    ++unexpected;
                    tl_test_failf(__FILE__, __LINE__, "%s %s: %s misses the bar, not a known miss",
                                  name, clip, bar_names[bar]);
                }
            }
            fprintf(stderr,
                    "  | %s | %s | %d (%d) | %.4f / %.4f / %.4f (%.2f) | %.3f / %.2f%% | "
                    "%.3f / %.2f / %.3f%% | %.3f / %.2f | %.3f%% | %.3f%% -> %.3f%% (%ld) | %s |\n",
                    name, clip, f.chains, f.pelvis_chains, f.before, f.after, f.artist,
                    f.after / f.artist, f.clip[c].in_p99, f.clip[c].in_torn, f.clip[c].p99,
                    f.clip[c].max, f.clip[c].torn, f.clip[c].body_p99, f.clip[c].body_max,
                    f.clip[c].new_torn, f.clip[c].touched_in, f.clip[c].touched_out, f.touched,
                    missed);
        }
    }
    fprintf(stderr, "  %d cells miss the bars (%d not known); %d known misses now hold\n", misses,
            unexpected, now_holding);
    if (strict) ENSURE_MSG(misses == 0, "%d cells miss the bars", misses);
}

/* A thigh-bound horse rigged with every clip skipped (the range-of-motion fit, docs/rig.md §8
 * session 10c): the whole tail's p99 and max within the body's (the `tail` bar) in the walk
 * and the fast clip. With the 60° girdles the revert gave the tail's flare back the file's
 * binding to the hip joint, and it tore (1.880 / 4.06 against the body's max 3.30). */
static void noclip_thigh_flare(void) {
    const variant v = {"horse", "thigh", 1, false};
    const original* o = original_of(v.key);
    char name[128], base[4096], in[4200], out[4200], truth[4200], skip[4096] = "";
    variant_name(&v, name, sizeof name);
    snprintf(base, sizeof base, "%s", tl_test_scratch("noclip-horse-thigh"));
    snprintf(in, sizeof in, "%s.glb", base);
    snprintf(out, sizeof out, "%s.rigged.glb", base);
    snprintf(truth, sizeof truth, "%s.truth.json", base);
    ENSURE_MSG(make_variant(&v, base), "%s: tail_styles.py failed", name);
    char* text = NULL;
    ENSURE(tl_test_cli(&text, "inspect '%s' --json", in) == 0 && text);
    json_t* doc = json_loads(text, 0, NULL);
    free(text);
    ENSURE(doc);
    size_t i;
    json_t* a;
    json_array_foreach(json_object_get(doc, "animations"), i, a) {
        const char* clip = json_string_value(json_object_get(a, "name"));
        ENSURE(clip && strlen(skip) + strlen(clip) + 16 < sizeof skip);
        strcat(skip, " --fit-skip '"), strcat(skip, clip), strcat(skip, "'");
    }
    json_decref(doc);
    ENSURE(i > 0);
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --force%s >/dev/null 2>&1", in, out, skip) == 0);
    for (int c = 0; c < 2; ++c) {
        const char* clip = c ? o->fast : o->walk;
        json_t* mi = measure(in, clip, truth);
        json_t* mo = measure(out, clip, truth);
        ENSURE(mi && mo);
        double p99 = num(mo, "regions.0.stretch.chain.p99"),
               max = num(mo, "regions.0.stretch.chain.max");
        double body_p99 = num(mi, "body.stretch.p99"), body_max = num(mi, "body.stretch.max");
        fprintf(stderr, "  %s %s, no clips: whole tail p99/max %.3f/%.2f, body %.3f/%.2f\n", name,
                clip, p99, max, body_p99, body_max);
        ENSURE_MSG(p99 <= body_p99 && max <= body_max, "%s %s (no clips): the whole tail tears",
                   name, clip);
        json_decref(mi), json_decref(mo);
    }
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"general_cases", general_cases},
        {"noclip_thigh_flare", noclip_thigh_flare},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
