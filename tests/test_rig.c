/* Tests of the rig module on the real cases: one chain per tailed case from the pelvis
 * region, the tail's bone distance halved and within 1.25× of the artist's own rig, the
 * chain along the artist's removed tail, rigid mode, controls untouched, the written file's
 * invariants (joints, inverse binds, clips, other weights bit for bit; normalised weights;
 * validator), the built-in samples in every frame, and the command. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "rig/internal.h"

#include <tailor/gltf_json.h>
#include <tailor/sample.h>
#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char* const tailed_cases[] = {
    "fox-khronos-tailless", "fox-quaternius-tailless", "husky-tailless", "rat-tailless",
    "trex-tailless",        "horse-tailless",          "knight-tailed",
};
#define CASE_COUNT (sizeof tailed_cases / sizeof tailed_cases[0])

static const char* case_path(const char* name);

/* A loaded file with its scene. */
typedef struct loaded {
    tl_gltf* doc;
    tl_scene* scene;
} loaded;

static bool load(const char* path, loaded* out) {
    tl_error err;
    out->doc = NULL;
    out->scene = NULL;
    if (tl_gltf_load(path, &out->doc, &err) != TL_OK) {
        fprintf(stderr, "  %s\n", err.message);
        return false;
    }
    if (tl_scene_create(out->doc, &out->scene, &err) != TL_OK) {
        fprintf(stderr, "  %s\n", err.message);
        tl_gltf_destroy(out->doc);
        out->doc = NULL;
        return false;
    }
    return true;
}

static void unload(loaded* l) {
    tl_scene_destroy(l->scene);
    tl_gltf_destroy(l->doc);
    l->scene = NULL;
    l->doc = NULL;
}

/* Union vertex indices of the truth's tail ("meshM/primP": [indices]) in a scene's skin 0;
 * the knight's truth names whole primitives ("shells"). Returns the count (malloc'd list). */
static size_t truth_vertices(const json_t* truth, const tl_scene* scene, uint32_t** out) {
    const tl_scene_skin* skin = &scene->skins[0];
    size_t cap = skin->vertex_count, n = 0;
    uint32_t* list = malloc((cap + 1) * sizeof *list);
    const json_t* tv = json_object_get(truth, "tail_vertices");
    for (uint32_t p = 0; p < skin->primitive_count; ++p) {
        const tl_scene_primitive* sp = &skin->primitives[p];
        char key[64];
        snprintf(key, sizeof key, "mesh%u/prim%u", sp->mesh, sp->primitive);
        const json_t* arr = tv ? json_object_get(tv, key) : NULL;
        size_t i;
        const json_t* v;
        json_array_foreach(arr, i, v) {
            json_int_t k = json_integer_value(v);
            if (k >= 0 && (uint32_t)k < sp->vertex_count && n < cap)
                list[n++] = sp->first_vertex + (uint32_t)k;
        }
        const json_t* shell;
        json_array_foreach(json_object_get(truth, "shells"), i, shell) {
            if (json_integer_value(json_object_get(shell, "primitive")) != sp->primitive ||
                sp->mesh != 0)
                continue;
            for (uint32_t k = 0; k < sp->vertex_count && n < cap; ++k)
                list[n++] = sp->first_vertex + k;
        }
    }
    *out = list;
    return n;
}

/* Mean weighted bone distance of a file's skin 0 over the given union vertices, over H. */
static double mean_bone_distance(const tl_scene* scene, const uint32_t* vertices, size_t n) {
    const tl_scene_skin* skin = &scene->skins[0];
    uint8_t* mask = calloc(skin->vertex_count + 1, 1);
    float* scratch = malloc(sizeof(float) * 7 * (tl_scene_skin_bones_bound(skin) + 1));
    double d = NAN;
    if (mask && scratch) {
        for (size_t i = 0; i < n; ++i)
            mask[vertices[i]] = 1;
        d = tl_measure_bone_distance(scene, 0, mask, NULL, NULL, 0, scratch);
    }
    free(mask);
    free(scratch);
    return n ? d / skin->height : NAN;
}

/* Polyline helpers: length, and the mean distance of points sampled along a to polyline b. */
static double polyline_length(const double* p, size_t n) {
    double L = 0;
    for (size_t i = 1; i < n; ++i)
        L += sqrt((p[3 * i] - p[3 * i - 3]) * (p[3 * i] - p[3 * i - 3]) +
                  (p[3 * i + 1] - p[3 * i - 2]) * (p[3 * i + 1] - p[3 * i - 2]) +
                  (p[3 * i + 2] - p[3 * i - 1]) * (p[3 * i + 2] - p[3 * i - 1]));
    return L;
}

static double point_polyline(const double* x, const double* p, size_t n) {
    double best = INFINITY;
    for (size_t i = 0; i + 1 < n || (n == 1 && i == 0); ++i) {
        const double* a = p + 3 * i;
        const double* b = n == 1 ? a : p + 3 * i + 3;
        double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double ax[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
        double len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
        double t = len2 > 0 ? (ax[0] * ab[0] + ax[1] * ab[1] + ax[2] * ab[2]) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double d[3] = {ax[0] - t * ab[0], ax[1] - t * ab[1], ax[2] - t * ab[2]};
        double dd = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (dd < best) best = dd;
        if (n == 1) break;
    }
    return best;
}

static double mean_directed(const double* a, size_t na, const double* b, size_t nb) {
    double L = polyline_length(a, na), sum = 0;
    const int samples = 256;
    for (int s = 0; s <= samples; ++s) {
        double target = L * s / samples, walked = 0, x[3];
        memcpy(x, a + 3 * (na - 1), sizeof x);
        for (size_t i = 1; i < na; ++i) {
            double seg = polyline_length(a + 3 * (i - 1), 2);
            if (walked + seg >= target && seg > 0) {
                double t = (target - walked) / seg;
                for (int k = 0; k < 3; ++k)
                    x[k] = a[3 * i - 3 + k] + t * (a[3 * i + k] - a[3 * i - 3 + k]);
                break;
            }
            walked += seg;
        }
        sum += point_polyline(x, b, nb);
    }
    return sum / (samples + 1);
}

/* The figures of one case after `tailor rig` (defaults). */
typedef struct case_figures {
    uint32_t chains, other_chain_class;
    bool pelvis_region;
    uint32_t shell_count;  /* the truth's shells (knight) */
    double shell_cover[2]; /* share of each shell's vertices in the chain part */
    char attach[64], truth_parent[64];
    double before, after, artist; /* mean weighted bone distance over the tail / H */
    double polyline, longer;      /* mean polyline distance, the longer polyline's length */
    size_t tail_vertices;
} case_figures;

static bool run_case(const char* name, case_figures* f) {
    memset(f, 0, sizeof *f);
    f->artist = NAN;
    char rel[256];
    snprintf(rel, sizeof rel, "cases/%s.truth.json", name);
    json_error_t jerr;
    json_t* truth = json_load_file(tl_test_shared(rel), 0, &jerr);
    if (!truth) return false;
    snprintf(rel, sizeof rel, "cases/%s.glb", name);
    char input[4096];
    snprintf(input, sizeof input, "%s", tl_test_shared(rel));
    snprintf(f->truth_parent, sizeof f->truth_parent, "%s",
             json_string_value(json_object_get(truth, "tail_parent")));

    loaded in;
    if (!load(input, &in)) return json_decref(truth), false;
    tl_rig_def def = tl_default_rig_def();
    tl_rig_analysis* rig;
    tl_error err;
    if (tl_rig_analyze(in.scene, &def, &rig, &err) != TL_OK)
        return json_decref(truth), unload(&in), false;
    const tl_rig_part* chain = NULL;
    for (uint32_t i = 0; i < rig->part_count; ++i) {
        const tl_rig_part* p = &rig->parts[i];
        if (p->action == TL_RIG_ACTION_CHAIN)
            f->chains++, chain = p;
        else if (p->cls == TL_RIG_CLASS_TAIL && p->action != TL_RIG_ACTION_ALREADY_RIGGED)
            f->other_chain_class++;
    }
    uint32_t* tail;
    f->tail_vertices = truth_vertices(truth, in.scene, &tail);
    f->before = mean_bone_distance(in.scene, tail, f->tail_vertices);
    double H = in.scene->skins[0].height;
    double chain_pts[3 * (TL_RIG_MAX_LINKS + 1)];
    size_t chain_n = 0;
    if (chain) {
        f->pelvis_region = chain->region == TL_RIG_REGION_PELVIS;
        size_t k;
        const json_t* shell;
        json_array_foreach(json_object_get(truth, "shells"), k, shell) {
            if (k >= 2) break;
            uint32_t prim = (uint32_t)json_integer_value(json_object_get(shell, "primitive"));
            const tl_scene_skin* skin = &in.scene->skins[0];
            for (uint32_t q = 0; q < skin->primitive_count; ++q) {
                const tl_scene_primitive* sp = &skin->primitives[q];
                if (sp->mesh != 0 || sp->primitive != prim) continue;
                uint32_t inside = 0;
                for (uint32_t v = 0; v < chain->vertex_count; ++v)
                    inside += chain->vertices[v] >= sp->first_vertex &&
                              chain->vertices[v] < sp->first_vertex + sp->vertex_count;
                f->shell_cover[k] = (double)inside / sp->vertex_count;
            }
            f->shell_count = (uint32_t)k + 1;
        }
        snprintf(f->attach, sizeof f->attach, "%s", chain->attach_name);
        chain_n = chain->segments + 1;
        for (size_t i = 0; i < 3 * chain_n; ++i)
            chain_pts[i] = chain->joints[i];
    }
    /* the truth's polyline in the rest-world frame */
    double truth_pts[3 * 16];
    size_t truth_n = 0;
    const float* M = in.scene->skins[0].rest_world;
    size_t i;
    const json_t* j;
    json_array_foreach(json_object_get(truth, "removed_joints"), i, j) {
        if (truth_n == 16) break;
        const json_t* bp = json_object_get(j, "bind_position");
        double b[3] = {json_number_value(json_array_get(bp, 0)),
                       json_number_value(json_array_get(bp, 1)),
                       json_number_value(json_array_get(bp, 2))};
        for (int r = 0; r < 3; ++r)
            truth_pts[3 * truth_n + r] =
                M[r] * b[0] + M[4 + r] * b[1] + M[8 + r] * b[2] + M[12 + r];
        truth_n++;
    }
    if (truth_n == 0 && json_object_get(truth, "root")) {
        for (int r = 0; r < 3; ++r) {
            truth_pts[r] = json_number_value(json_array_get(json_object_get(truth, "root"), r));
            truth_pts[3 + r] =
                json_number_value(json_array_get(json_object_get(truth, "tail_tip"), r));
        }
        truth_n = 2;
    }
    if (chain_n && truth_n) {
        f->polyline = 0.5 *
                      (mean_directed(chain_pts, chain_n, truth_pts, truth_n) +
                       mean_directed(truth_pts, truth_n, chain_pts, chain_n)) /
                      H;
        double a = polyline_length(chain_pts, chain_n), b = polyline_length(truth_pts, truth_n);
        f->longer = (a > b ? a : b) / H;
    }

    /* the written file, reloaded */
    tl_scene_destroy(in.scene);
    in.scene = NULL;
    bool ok = tl_rig_apply(in.doc, rig, &err) == TL_OK;
    tl_rig_analysis_destroy(rig);
    snprintf(rel, sizeof rel, "%s.glb", name);
    const char* out_path = tl_test_scratch(rel);
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    ok = ok && tl_gltf_save(in.doc, out_path, &save, &err) == TL_OK;
    unload(&in);
    loaded out;
    if (ok && load(out_path, &out)) {
        f->after = mean_bone_distance(out.scene, tail, f->tail_vertices);
        unload(&out);
    } else {
        ok = false;
    }
    /* the artist's own rig: the source asset has the same vertex order */
    const char* source = json_string_value(json_object_get(truth, "source"));
    if (ok && source && json_object_get(truth, "removed_joints")) {
        snprintf(rel, sizeof rel, "assets/%s", source);
        loaded art;
        if (load(tl_test_shared(rel), &art)) {
            f->artist = mean_bone_distance(art.scene, tail, f->tail_vertices);
            unload(&art);
        }
    }
    free(tail);
    json_decref(truth);
    return ok;
}

/* Every tailed case gets exactly one chain, hanging from the pelvis region; no other part
 * is a tail to re-rig; the knight's two shells are one part. */
static void test_cases_one_chain(void) {
    for (size_t c = 0; c < CASE_COUNT; ++c) {
        case_figures f;
        ENSURE_MSG(run_case(tailed_cases[c], &f), "%s: could not run", tailed_cases[c]);
        fprintf(stderr, "  %-24s chain from %-12s (artist: %-9s) pelvis region %d\n",
                tailed_cases[c], f.attach, f.truth_parent, f.pelvis_region);
        ENSURE_MSG(f.chains == 1, "%s: %u chains", tailed_cases[c], f.chains);
        ENSURE_MSG(f.other_chain_class == 0, "%s: %u other tails", tailed_cases[c],
                   f.other_chain_class);
        ENSURE_MSG(f.pelvis_region, "%s: the chain hangs from %s, not the pelvis region",
                   tailed_cases[c], f.attach);
        if (!strcmp(tailed_cases[c], "knight-tailed")) {
            fprintf(stderr, "  knight: the chain part holds %.0f%% and %.0f%% of the two shells\n",
                    100 * f.shell_cover[0], 100 * f.shell_cover[1]);
            ENSURE(f.shell_count == 2);
            ENSURE_MSG(f.shell_cover[0] >= 0.9 && f.shell_cover[1] >= 0.9,
                       "knight: the shells are not one part");
        }
    }
}

/* The tail's weighted bone distance falls by at least half and ends within 1.25× of the
 * artist's own bones; the chain follows the artist's removed tail (mean polyline distance
 * at most 10% of the longer polyline) unless it binds the skin closer than the artist did. */
static void test_cases_bone_distance_and_path(void) {
    for (size_t c = 0; c < CASE_COUNT; ++c) {
        case_figures f;
        ENSURE_MSG(run_case(tailed_cases[c], &f), "%s: could not run", tailed_cases[c]);
        fprintf(stderr,
                "  %-24s tail %4zu verts  bone distance/H: input %.4f  output %.4f  artist %.4f  "
                "(out/in %.2f, out/artist %.2f)  polyline %.4f of %.4f (%.1f%%)\n",
                tailed_cases[c], f.tail_vertices, f.before, f.after, f.artist, f.after / f.before,
                f.after / f.artist, f.polyline, f.longer, 100 * f.polyline / f.longer);
        ENSURE(f.tail_vertices > 0);
        ENSURE_MSG(f.after <= 0.5 * f.before, "%s: bone distance %.4f -> %.4f", tailed_cases[c],
                   f.before, f.after);
        if (!isnan(f.artist))
            ENSURE_MSG(f.after <= 1.25 * f.artist, "%s: %.4f against the artist's %.4f",
                       tailed_cases[c], f.after, f.artist);
        bool closer = !isnan(f.artist) && f.after < f.artist;
        ENSURE_MSG(closer || f.polyline <= 0.1 * f.longer, "%s: polyline distance %.4f of %.4f",
                   tailed_cases[c], f.polyline, f.longer);
    }
}

/* The root band (def.root_band): on the cases whose tail root keeps wrong weights outside the
 * part (the husky's and the knight's), the whole tail as the artist bound it (truth file)
 * tears less in the walk once the band blends the root into the part, chain at rest; the
 * band leaves no truth vertex with its old weights; off, nothing outside the part changes. */
static double truth_walk(const char* name, const char* clip, float band, uint32_t* band_count,
                         double* p99) {
    char rel[256];
    snprintf(rel, sizeof rel, "cases/%s.truth.json", name);
    json_t* truth = json_load_file(tl_test_shared(rel), 0, NULL);
    loaded in;
    if (!truth || !load(case_path(name), &in)) return json_decref(truth), NAN;
    tl_rig_def def = tl_default_rig_def();
    def.root_band = band;
    def.junction_fit = false; /* the band alone */
    tl_rig_analysis* rig = NULL;
    tl_error err;
    double torn = NAN;
    uint32_t* tail = NULL;
    size_t n = truth_vertices(truth, in.scene, &tail);
    uint8_t* mask = calloc(in.scene->skins[0].vertex_count + 1, 1);
    for (size_t i = 0; i < n; ++i)
        mask[tail[i]] = 1;
    *band_count = 0;
    if (tl_rig_analyze(in.scene, &def, &rig, &err) == TL_OK) {
        for (uint32_t i = 0; i < rig->part_count; ++i)
            *band_count += rig->parts[i].band_count;
        tl_scene_destroy(in.scene);
        in.scene = NULL;
        tl_scene* scene = NULL;
        tl_stretch* st = NULL;
        uint32_t c;
        const uint8_t* masks[1] = {mask};
        tl_measure_def mdef = tl_default_measure_def();
        if (tl_rig_apply(in.doc, rig, &err) == TL_OK &&
            tl_scene_create(in.doc, &scene, &err) == TL_OK &&
            tl_scene_find_clip(scene, clip, &c, &err) == TL_OK &&
            tl_stretch_create(scene, 0, masks, 1, &mdef, &st, &err) == TL_OK) {
            tl_stretch_stats s;
            tl_stretch_run(st, c, NULL, NULL, &s);
            torn = s.torn_pct;
            *p99 = s.p99;
        }
        tl_stretch_destroy(st);
        tl_scene_destroy(scene);
    }
    tl_rig_analysis_destroy(rig);
    unload(&in);
    free(mask);
    free(tail);
    json_decref(truth);
    return torn;
}

static void test_root_band(void) {
    const char* names[][2] = {
        {"husky-tailless", "Walk"}, {"knight-tailed", "Walking"}, {"horse-tailless", "Walk"}};
    float band = tl_default_rig_def().root_band;
    ENSURE(band > 0);
    for (size_t c = 0; c < sizeof names / sizeof names[0]; ++c) {
        uint32_t off_count, on_count;
        double off_p99 = NAN, on_p99 = NAN;
        double off = truth_walk(names[c][0], names[c][1], 0, &off_count, &off_p99);
        double on = truth_walk(names[c][0], names[c][1], band, &on_count, &on_p99);
        fprintf(stderr,
                "  %-16s whole tail, chain at rest, %s: torn %.2f%% p99 %.3f without the band, "
                "%.2f%% p99 %.3f "
                "with it (%u band vertices)\n",
                names[c][0], names[c][1], off, off_p99, on, on_p99, on_count);
        ENSURE(off_count == 0 && on_count > 0);
        ENSURE_MSG(on < off && on_p99 < off_p99, "%s: the band does not close the root",
                   names[c][0]);
    }
}

/* Rigs `input` with `def` and writes `out_path`. Returns the analysis made on the input
 * (the caller destroys it), or NULL. */
static tl_rig_analysis* rig_file(const char* input, const tl_rig_def* def, const char* out_path) {
    loaded in;
    if (!load(input, &in)) return NULL;
    tl_rig_analysis* rig = NULL;
    tl_error err;
    if (tl_rig_analyze(in.scene, def, &rig, &err) != TL_OK) {
        fprintf(stderr, "  %s\n", err.message);
        unload(&in);
        return NULL;
    }
    tl_scene_destroy(in.scene);
    in.scene = NULL;
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    if (tl_rig_apply(in.doc, rig, &err) != TL_OK ||
        tl_gltf_save(in.doc, out_path, &save, &err) != TL_OK) {
        fprintf(stderr, "  %s\n", err.message);
        tl_rig_analysis_destroy(rig);
        rig = NULL;
    }
    unload(&in);
    return rig;
}

static const char* case_path(const char* name) {
    static char buf[4096];
    char rel[256];
    snprintf(rel, sizeof rel, "cases/%s.glb", name);
    snprintf(buf, sizeof buf, "%s", tl_test_shared(rel));
    return buf;
}

/* No code in the output's validator report that the input did not have as often. */
static bool no_new_issues(const char* input, const char* output) {
    json_t* a = tl_test_validate(input);
    json_t* b = tl_test_validate(output);
    bool ok = a && b;
    const char* code;
    json_t* count;
    if (ok) json_object_foreach(json_object_get(b, "codes"), code, count) {
            json_int_t before =
                json_integer_value(json_object_get(json_object_get(a, "codes"), code));
            if (json_integer_value(count) > before) {
                fprintf(stderr, "  %s: new validator issue %s (%lld, was %lld)\n", output, code,
                        (long long)json_integer_value(count), (long long)before);
                ok = false;
            }
        }
    json_decref(a);
    json_decref(b);
    return ok;
}

static float* read_floats(const tl_gltf* doc, int32_t accessor, size_t* count) {
    size_t n = tl_gltf_accessor_value_count(doc, (uint32_t)accessor);
    float* out = malloc((n + 1) * sizeof *out);
    tl_error err;
    if (tl_gltf_accessor_read_float(doc, (uint32_t)accessor, out, n, &err) != TL_OK) n = 0;
    *count = n;
    return out;
}

static uint32_t* read_uints(const tl_gltf* doc, int32_t accessor, size_t* count) {
    size_t n = tl_gltf_accessor_value_count(doc, (uint32_t)accessor);
    uint32_t* out = malloc((n + 1) * sizeof *out);
    tl_error err;
    if (tl_gltf_accessor_read_uint(doc, (uint32_t)accessor, out, n, &err) != TL_OK) n = 0;
    *count = n;
    return out;
}

/* What must hold of every written file: the file's joints, their order and inverse binds,
 * every clip and every other vertex's weights bit for bit; new joints hang under existing
 * ones with a literal 0,0,0,1 last IBM row and stored transforms equal to the rest locals
 * their IBMs give; re-weighted vertices normalised as the validator wants; no new validator
 * issue. `changed` marks the union vertices the analysis re-weighted. */
static void check_output(const char* input, const char* output, const uint8_t* changed) {
    loaded a, b;
    ENSURE(load(input, &a));
    if (!load(output, &b)) {
        unload(&a);
        ENSURE(false);
    }
    const tl_gltf* da = a.doc;
    const tl_gltf* db = b.doc;
    bool ok = true;
    ENSURE_MSG(da->skin_count == db->skin_count && da->node_count <= db->node_count, "%s", output);
    for (uint32_t s = 0; s < da->skin_count && ok; ++s) {
        const tl_gltf_skin* sa = &da->skins[s];
        const tl_gltf_skin* sb = &db->skins[s];
        ENSURE(sb->joint_count >= sa->joint_count);
        ENSURE_MSG(!memcmp(sa->joints, sb->joints, sa->joint_count * sizeof *sa->joints),
                   "%s: joints reordered", output);
        if (sa->inverse_bind_matrices != TL_NONE) {
            size_t na, nb;
            float* ia = read_floats(da, sa->inverse_bind_matrices, &na);
            float* ib = read_floats(db, sb->inverse_bind_matrices, &nb);
            ok = nb >= 16 * (size_t)sb->joint_count &&
                 !memcmp(ia, ib, 16 * sa->joint_count * sizeof *ia);
            for (uint32_t j = sa->joint_count; j < sb->joint_count && ok; ++j)
                ok = ib[16 * j + 3] == 0 && ib[16 * j + 7] == 0 && ib[16 * j + 11] == 0 &&
                     ib[16 * j + 15] == 1;
            free(ia);
            free(ib);
            ENSURE_MSG(ok, "%s: inverse binds changed or a new IBM's last row is not 0,0,0,1",
                       output);
        }
        /* new joints: under existing joints or other new ones; stored TRS = rest locals */
        const tl_scene_skin* kb = &b.scene->skins[s];
        for (uint32_t j = sa->joint_count; j < sb->joint_count; ++j) {
            uint32_t node = sb->joints[j];
            ENSURE(node >= da->node_count);
            int32_t parent = db->nodes[node].parent;
            bool under_joint = false;
            for (uint32_t k = 0; k < j; ++k)
                under_joint |= (int32_t)sb->joints[k] == parent;
            ENSURE_MSG(under_joint, "%s: new joint %u is not a child of a joint", output, j);
            const tl_trs* rest = &kb->joints[j].rest;
            const tl_gltf_node* n = &db->nodes[node];
            float scale = 1e-4f * kb->height;
            for (int k = 0; k < 3; ++k)
                ENSURE_MSG(fabsf(n->translation[k] - rest->translation[k]) <=
                               scale + 1e-4f * fabsf(rest->translation[k]),
                           "%s: joint %u translation %g, rest %g", output, j, n->translation[k],
                           rest->translation[k]);
            /* the bind rotation points each bone at its child: the node stores it */
            float dot = 0;
            for (int k = 0; k < 4; ++k)
                dot += n->rotation[k] * rest->rotation[k];
            ENSURE_MSG(fabsf(fabsf(dot) - 1) < 1e-5f, "%s: new joint %u rotation is not its rest",
                       output, j);
        }
    }
    /* clips: the same JSON and the same keys */
    ENSURE_MSG(json_equal(json_object_get(da->json, "animations"),
                          json_object_get(db->json, "animations")),
               "%s: animations changed", output);
    for (uint32_t an = 0; an < da->animation_count; ++an)
        for (uint32_t sm = 0; sm < da->animations[an].sampler_count; ++sm) {
            uint32_t accs[2] = {da->animations[an].samplers[sm].input,
                                da->animations[an].samplers[sm].output};
            for (int k = 0; k < 2; ++k) {
                size_t na, nb;
                float* x = read_floats(da, (int32_t)accs[k], &na);
                float* y = read_floats(db, (int32_t)accs[k], &nb);
                ok = na == nb && !memcmp(x, y, na * sizeof *x);
                free(x);
                free(y);
                ENSURE_MSG(ok, "%s: clip %u sampler %u keys changed", output, an, sm);
            }
        }
    /* weights, primitive by primitive */
    const tl_scene_skin* ka = &a.scene->skins[0];
    for (uint32_t q = 0; q < ka->primitive_count; ++q) {
        const tl_scene_primitive* sp = &ka->primitives[q];
        const tl_gltf_primitive* pa = &da->meshes[sp->mesh].primitives[sp->primitive];
        const tl_gltf_primitive* pb = &db->meshes[sp->mesh].primitives[sp->primitive];
        ENSURE(pa->joint_set_count == pb->joint_set_count);
        for (uint32_t set = 0; set < pa->joint_set_count; ++set) {
            size_t n1, n2, n3, n4;
            uint32_t* ja = read_uints(da, pa->joints[set], &n1);
            uint32_t* jb = read_uints(db, pb->joints[set], &n2);
            float* wa = read_floats(da, pa->weights[set], &n3);
            float* wb = read_floats(db, pb->weights[set], &n4);
            ok = n1 == n2 && n3 == n4 && n1 == 4 * (size_t)sp->vertex_count && n3 == n1;
            ok = ok && db->accessors[pb->weights[set]].component_type ==
                           da->accessors[pa->weights[set]].component_type;
            for (uint32_t v = 0; v < sp->vertex_count && ok; ++v) {
                size_t u = sp->first_vertex + v;
                if (!changed[u]) {
                    ok = !memcmp(ja + 4 * v, jb + 4 * v, 4 * sizeof *ja) &&
                         !memcmp(wa + 4 * v, wb + 4 * v, 4 * sizeof *wa);
                    if (!ok) fprintf(stderr, "  %s: untouched vertex %zu changed\n", output, u);
                    continue;
                }
                /* re-weighted: float32 sum within 2e-7 per non-zero weight of 1, no joint
                   twice with non-zero weight, unused slots joint 0 weight 0 */
                float sum = 0;
                int nonzero = 0;
                for (int k = 0; k < 4; ++k) {
                    if (set > 0) ok = ok && wb[4 * v + k] == 0 && jb[4 * v + k] == 0;
                    sum += wb[4 * v + k];
                    nonzero += wb[4 * v + k] != 0;
                    if (wb[4 * v + k] == 0) ok = ok && jb[4 * v + k] == 0;
                    for (int m = 0; m < k; ++m)
                        if (wb[4 * v + k] != 0 && wb[4 * v + m] != 0)
                            ok = ok && jb[4 * v + k] != jb[4 * v + m];
                }
                if (set == 0) ok = ok && fabsf(sum - 1) <= 2e-7f * (float)nonzero;
                if (!ok)
                    fprintf(stderr, "  %s: re-weighted vertex %zu is not well formed (sum %.9g)\n",
                            output, u, sum);
            }
            free(ja);
            free(jb);
            free(wa);
            free(wb);
            if (!ok) break;
        }
        if (!ok) break;
    }
    unload(&a);
    unload(&b);
    ENSURE(ok);
    ENSURE_MSG(no_new_issues(input, output), "%s: new validator issues", output);
}

static uint8_t* changed_vertices(const tl_rig_analysis* rig) {
    uint8_t* changed = calloc(rig->skins[0].vertex_count + 1, 1);
    for (uint32_t i = 0; i < rig->part_count; ++i)
        if (rig->parts[i].new_joints && rig->parts[i].skin == 0)
            for (uint32_t k = 0; k < rig->parts[i].vertex_count; ++k)
                changed[rig->parts[i].vertices[k]] = 1;
    for (uint32_t i = 0; i < rig->part_count; ++i)
        if (rig->parts[i].band_weights && rig->parts[i].skin == 0)
            for (uint32_t k = 0; k < rig->parts[i].band_count; ++k)
                changed[rig->parts[i].band_vertices[k]] = 1;
    return changed;
}

static void test_output_invariants(void) {
    for (size_t c = 0; c < CASE_COUNT; ++c) {
        char name[256];
        snprintf(name, sizeof name, "%s-invariants.glb", tailed_cases[c]);
        const char* out = tl_test_scratch(name);
        tl_rig_def def = tl_default_rig_def();
        char input[4096];
        snprintf(input, sizeof input, "%s", case_path(tailed_cases[c]));
        tl_rig_analysis* rig = rig_file(input, &def, out);
        ENSURE_MSG(rig, "%s", tailed_cases[c]);
        ENSURE(rig->changed_vertices > 0);
        uint8_t* changed = changed_vertices(rig);
        tl_rig_analysis_destroy(rig);
        check_output(input, out, changed);
        free(changed);
        if (tl_test_failed) return;
    }
}

/* --mode rigid: every vertex of the tail part on the attachment joint, no new joints. */
static void test_rigid_mode(void) {
    const char* cases[] = {"husky-tailless", "knight-tailed"};
    for (size_t c = 0; c < 2; ++c) {
        tl_rig_def def = tl_default_rig_def();
        def.mode = TL_RIG_MODE_RIGID;
        char input[4096], name[256];
        snprintf(input, sizeof input, "%s", case_path(cases[c]));
        snprintf(name, sizeof name, "%s-rigid.glb", cases[c]);
        const char* out = tl_test_scratch(name);
        tl_rig_analysis* rig = rig_file(input, &def, out);
        ENSURE(rig);
        const tl_rig_part* tail = NULL;
        for (uint32_t i = 0; i < rig->part_count; ++i)
            if (rig->parts[i].cls == TL_RIG_CLASS_TAIL) {
                ENSURE_MSG(!tail, "%s: two tails", cases[c]);
                tail = &rig->parts[i];
            }
        ENSURE(tail && tail->action == TL_RIG_ACTION_RIGID && tail->vertex_count > 0);
        ENSURE(rig->chain_count == 0);
        loaded o;
        ENSURE(load(out, &o));
        const tl_scene_skin* skin = &o.scene->skins[0];
        bool ok = skin->joint_count == rig->skins[0].joint_count;
        for (uint32_t k = 0; k < tail->vertex_count && ok; ++k) {
            uint32_t v = tail->vertices[k];
            double on_attach = 0;
            for (uint32_t i = 0; i < skin->influence_count; ++i)
                if (skin->influence_joints[v * skin->influence_count + i] ==
                    (uint32_t)tail->attach_joint)
                    on_attach += skin->influence_weights[v * skin->influence_count + i];
            ok = on_attach == 1.0;
        }
        unload(&o);
        uint8_t* changed = changed_vertices(rig);
        tl_rig_analysis_destroy(rig);
        ENSURE_MSG(ok, "%s: a tail vertex is not wholly on the attachment joint", cases[c]);
        check_output(input, out, changed);
        free(changed);
        if (tl_test_failed) return;
    }
}

/* Two analyses plan the same parts the same way, bit for bit. */
static bool analyses_equal(const tl_rig_analysis* a, const tl_rig_analysis* b) {
    if (a->part_count != b->part_count || a->chain_count != b->chain_count ||
        a->changed_vertices != b->changed_vertices || a->skin_count != b->skin_count ||
        a->def.mode != b->def.mode)
        return false;
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        const tl_rig_skin *x = &a->skins[s], *y = &b->skins[s];
        size_t V = x->vertex_count;
        if (V != y->vertex_count || x->new_joint_count != y->new_joint_count ||
            memcmp(x->skeleton_distance, y->skeleton_distance, V * sizeof(float)) ||
            memcmp(x->bone_distance, y->bone_distance, V * sizeof(float)) ||
            memcmp(x->misbound, y->misbound, V) || memcmp(x->part, y->part, V * sizeof(int32_t)))
            return false;
    }
    for (uint32_t i = 0; i < a->part_count; ++i) {
        const tl_rig_part *p = &a->parts[i], *q = &b->parts[i];
        size_t n = p->vertex_count, m = p->band_count;
        bool planned = p->new_joints != NULL;
        if (p->action != q->action || p->cls != q->cls || n != q->vertex_count ||
            m != q->band_count || p->segments != q->segments ||
            planned != (q->new_joints != NULL) || strcmp(p->bone_prefix, q->bone_prefix) ||
            p->first_new_joint != q->first_new_joint ||
            memcmp(p->vertices, q->vertices, n * sizeof(uint32_t)) ||
            memcmp(p->joints, q->joints, sizeof p->joints) ||
            memcmp(p->radii, q->radii, sizeof p->radii) ||
            (planned && (memcmp(p->new_joints, q->new_joints, 4 * n * sizeof(uint32_t)) ||
                         memcmp(p->new_weights, q->new_weights, 4 * n * sizeof(float)))) ||
            (m && (memcmp(p->band_vertices, q->band_vertices, m * sizeof(uint32_t)) ||
                   memcmp(p->band_joints, q->band_joints, 4 * m * sizeof(uint32_t)) ||
                   memcmp(p->band_weights, q->band_weights, 4 * m * sizeof(float)))))
            return false;
    }
    return true;
}

/* tl_rig_analyze_modes plans each mode as tl_rig_analyze does in that mode alone. */
static void test_analyze_modes(void) {
    const char* cases[] = {"husky-tailless", "knight-tailed", "fox-khronos-tailless"};
    for (size_t c = 0; c < 3; ++c) {
        loaded l;
        ENSURE(load(case_path(cases[c]), &l));
        tl_error err;
        tl_rig_def def = tl_default_rig_def();
        const tl_rig_mode modes[2] = {TL_RIG_MODE_CHAIN, TL_RIG_MODE_RIGID};
        tl_rig_analysis *alone[2] = {NULL, NULL}, *both[2] = {NULL, NULL};
        bool ok = tl_rig_analyze_modes(l.scene, &def, modes, 2, both, &err) == TL_OK;
        for (int k = 0; k < 2 && ok; ++k) {
            def.mode = modes[k];
            ok = tl_rig_analyze(l.scene, &def, &alone[k], &err) == TL_OK;
        }
        bool chain_same = ok && analyses_equal(alone[0], both[0]);
        bool rigid_same = ok && analyses_equal(alone[1], both[1]);
        bool differ = ok && !analyses_equal(both[0], both[1]); /* the comparison can fail */
        bool chained = ok && both[0]->chain_count > 0 && both[1]->chain_count == 0;
        for (int k = 0; k < 2; ++k) {
            tl_rig_analysis_destroy(alone[k]);
            tl_rig_analysis_destroy(both[k]);
        }
        unload(&l);
        ENSURE_MSG(ok, "%s: %s", cases[c], err.message);
        ENSURE_MSG(chain_same && rigid_same, "%s: chain %d rigid %d", cases[c], chain_same,
                   rigid_same);
        ENSURE_MSG(differ && chained, "%s: the two modes plan the same", cases[c]);
    }
}

/* Artist-rigged files: nothing changes (every influence bit for bit), parts are reported. */
static void test_controls_unchanged(void) {
    const char* controls[] = {
        "assets/khronos-fox/Fox.glb",
        "assets/quaternius-fox/Fox.glb",
        "assets/quaternius-husky/Husky.glb",
        "assets/quaternius-rat/Rat.glb",
        "assets/quaternius-trex/Trex.glb",
        "assets/quaternius-stag/Stag.glb",
        "assets/quaternius-horse/Horse.glb",
        "assets/khronos-cesiumman/CesiumMan.glb",
        "assets/quaternius-knight/KnightCharacter.glb",
        "cases/mh-body.glb", /* mh-long01 is no control: its hair gets chains (test_hair);
                                mh-suit-skirt neither: its skirt became cloth (test_cloth) */
    };
    for (size_t c = 0; c < sizeof controls / sizeof controls[0]; ++c) {
        char input[4096], name[256];
        snprintf(input, sizeof input, "%s", tl_test_shared(controls[c]));
        snprintf(name, sizeof name, "control-%zu.glb", c);
        const char* out = tl_test_scratch(name);
        char* text = NULL;
        int code = tl_test_cli(&text, "rig '%s' -o '%s'", input, out);
        ENSURE_MSG(code == 0, "%s: exit %d", controls[c], code);
        bool reported = text && strstr(text, "0 chain(s), 0 vertices re-weighted");
        int parts = 0;
        for (const char* p = text; p && (p = strstr(p, "\npart ")); ++p)
            parts++;
        free(text);
        fprintf(stderr, "  %-44s %d part(s) seen, left alone\n", controls[c], parts);
        ENSURE_MSG(reported, "%s: the control was changed", controls[c]);
        loaded a, b;
        ENSURE(load(input, &a));
        ENSURE(load(out, &b));
        bool same = a.scene->skin_count == b.scene->skin_count;
        for (uint32_t s = 0; s < a.scene->skin_count && same; ++s) {
            const tl_scene_skin* x = &a.scene->skins[s];
            const tl_scene_skin* y = &b.scene->skins[s];
            size_t n = (size_t)x->vertex_count * x->influence_count;
            same = x->joint_count == y->joint_count && x->vertex_count == y->vertex_count &&
                   x->influence_count == y->influence_count &&
                   !memcmp(x->influence_joints, y->influence_joints,
                           n * sizeof *x->influence_joints) &&
                   !memcmp(x->influence_weights, y->influence_weights,
                           n * sizeof *x->influence_weights);
        }
        unload(&a);
        unload(&b);
        ENSURE_MSG(same, "%s: a skin influence changed", controls[c]);
    }
}

/* A short tail on a thick rump bound to the hips or to the body bones nearest it (the
 * Quaternius stag, stripped of its tail bones by scripts/tail_styles.py) is neither far from
 * the rump nor misbound: found by its shape (src/rig/protrude.c), it gets one chain from the
 * pelvis on the artist's tail skin. Fails without the protrusion split (no part at all). */
static void test_short_tail_on_hips(void) {
    const char* styles[] = {"parent", "nearest"};
    for (size_t s = 0; s < 2; ++s) {
        char name[64], base[4096], path[4200], command[12288];
        snprintf(name, sizeof name, "stag-hips-%s", styles[s]);
        snprintf(base, sizeof base, "%s", tl_test_scratch(name));
        snprintf(command, sizeof command,
                 "python3 '%s' '%s' '%s' --tail Tail --parent Back --style %s --shin "
                 "BackLowerLeg.L --thigh-l BackUpperLeg.L --thigh-r BackUpperLeg.R >/dev/null",
                 tl_test_source("scripts/tail_styles.py"),
                 tl_test_shared("assets/quaternius-stag/Stag.glb"), base, styles[s]);
        ENSURE_MSG(system(command) == 0, "%s: tail_styles.py failed", name);
        snprintf(path, sizeof path, "%s.truth.json", base);
        json_error_t jerr;
        json_t* truth = json_load_file(path, 0, &jerr);
        ENSURE_MSG(truth, "%s: %s", path, jerr.text);
        snprintf(path, sizeof path, "%s.glb", base);
        loaded l;
        ENSURE(load(path, &l));
        uint32_t* tail = NULL;
        size_t tail_count = truth_vertices(truth, l.scene, &tail);
        json_decref(truth);
        tl_rig_def def = tl_default_rig_def();
        tl_rig_analysis* rig = NULL;
        tl_error err;
        bool ok = tl_rig_analyze(l.scene, &def, &rig, &err) == TL_OK;
        uint32_t chains = 0, tails = 0, inside = 0, count = 0;
        bool pelvis = false;
        uint8_t* in_tail = calloc(l.scene->skins[0].vertex_count + 1, 1);
        for (size_t i = 0; i < tail_count && in_tail; ++i)
            in_tail[tail[i]] = 1;
        for (uint32_t i = 0; ok && in_tail && i < rig->part_count; ++i) {
            const tl_rig_part* p = &rig->parts[i];
            tails += p->cls == TL_RIG_CLASS_TAIL;
            if (p->action != TL_RIG_ACTION_CHAIN) continue;
            chains++;
            pelvis = p->region == TL_RIG_REGION_PELVIS;
            count = p->vertex_count;
            for (uint32_t k = 0; k < p->vertex_count; ++k)
                inside += in_tail[p->vertices[k]];
        }
        fprintf(stderr,
                "  %s: %u chain(s), %u tail part(s); part %u vertices, %u of them "
                "in the artist's tail skin of %zu\n",
                name, chains, tails, count, inside, tail_count);
        free(in_tail);
        free(tail);
        tl_rig_analysis_destroy(rig);
        unload(&l);
        ENSURE_MSG(ok, "%s: %s", name, err.message);
        ENSURE_MSG(chains == 1 && tails == 1 && pelvis, "%s: no single pelvis chain", name);
        /* the part is the tail's skin: nearly all of it inside, most of the tail covered */
        ENSURE_MSG(10 * inside >= 9 * count && 10 * inside >= 8 * tail_count,
                   "%s: the part is not the tail", name);
    }
}

/* Two chains in one file get distinct names and both are written validly. */
static void test_two_chains(void) {
    char input[4096];
    snprintf(input, sizeof input, "%s", case_path("knight-tailed"));
    loaded in;
    ENSURE(load(input, &in));
    tl_rig_def def = tl_default_rig_def();
    tl_rig_analysis* rig;
    tl_error err;
    ENSURE_OK(tl_rig_analyze(in.scene, &def, &rig, &err), err);
    /* force the largest non-tail part (the far body skin) into a chain too */
    int32_t other = -1;
    for (uint32_t i = 0; i < rig->part_count; ++i)
        if (rig->parts[i].action != TL_RIG_ACTION_CHAIN &&
            (other < 0 || rig->parts[i].vertex_count > rig->parts[other].vertex_count))
            other = (int32_t)i;
    tl_rig_analysis_destroy(rig);
    unload(&in);
    ENSURE(other >= 0);
    def.overrides[def.override_count++] = (tl_rig_override){(uint32_t)other, TL_RIG_CLASS_TAIL};
    const char* out = tl_test_scratch("knight-two-chains.glb");
    rig = rig_file(input, &def, out);
    ENSURE(rig);
    ENSURE(rig->chain_count == 2);
    uint8_t* changed = changed_vertices(rig);
    tl_rig_analysis_destroy(rig);
    loaded o;
    ENSURE(load(out, &o));
    int first = 0, second = 0, ends = 0;
    for (uint32_t n = 0; n < o.doc->node_count; ++n) {
        const char* name = o.doc->nodes[n].name;
        if (!name) continue;
        first += !strcmp(name, "Tail_1");
        second += !strcmp(name, "Tail.001_1");
        ends += !strcmp(name, "Tail_End") + !strcmp(name, "Tail.001_End");
    }
    unload(&o);
    ENSURE_MSG(first == 1 && second == 1 && ends == 2, "names: Tail_1 x%d, Tail.001_1 x%d, ends %d",
               first, second, ends);
    check_output(input, out, changed);
    free(changed);
}

/* A part of a sample's analysis in the character's own frame (positions over H from the
 * floor point below the pelvis, on lateral / up / forward axes), to compare variants. */
typedef struct sample_part {
    tl_rig_class cls;
    tl_rig_action action;
    uint32_t vertices, segments;
    char attach[64];
    float joints[(TL_RIG_MAX_LINKS + 1) * 3];
} sample_part;

/* What the rig does to a sample's tail (its truth shells): the chains, whether the one that
 * holds most of the tail hangs from the pelvis region, how much of the tail it holds, and the
 * tail's mean weighted bone distance (over H) before and after tl_rig_apply. */
typedef struct sample_tail {
    uint32_t chains;
    bool pelvis_region;
    char attach[64];
    size_t tail_vertices, covered;
    double before, after;
} sample_tail;

/* Analyses a sample variant; fills up to `max` parts and the tail's figures (after applying
 * the analysis); returns the part count or -1. */
static int sample_parts(const char* name, const tl_sample_def* sd, sample_part* out, int max,
                        sample_tail* tail) {
    memset(tail, 0, sizeof *tail);
    tail->before = tail->after = NAN;
    tl_gltf* doc;
    tl_sample_truth truth;
    tl_error err;
    if (tl_sample_build(name, sd, &doc, &truth, &err) != TL_OK) return -1;
    tl_scene* scene = NULL;
    tl_rig_analysis* rig = NULL;
    tl_rig_def def = tl_default_rig_def();
    uint32_t* verts = NULL;
    int n = -1;
    if (tl_scene_create(doc, &scene, &err) == TL_OK &&
        tl_rig_analyze(scene, &def, &rig, &err) == TL_OK) {
        const tl_scene_skin* skin = &scene->skins[0];
        const float* origin = skin->joints[skin->body.pelvis].rest_world + 12;
        const float* axes[3] = {skin->lateral, skin->up, skin->forward};
        n = 0;
        for (uint32_t i = 0; i < rig->part_count && n < max; ++i, ++n) {
            const tl_rig_part* p = &rig->parts[i];
            sample_part* o = &out[n];
            memset(o, 0, sizeof *o);
            o->cls = p->cls;
            o->action = p->action;
            o->vertices = p->vertex_count;
            o->segments = p->action == TL_RIG_ACTION_CHAIN ? p->segments : 0;
            snprintf(o->attach, sizeof o->attach, "%s", p->attach_name);
            for (uint32_t j = 0; j <= o->segments && o->segments; ++j)
                for (int k = 0; k < 3; ++k) {
                    const float* x = p->joints + 3 * j;
                    o->joints[3 * j + k] =
                        ((x[0] - origin[0]) * axes[k][0] + (x[1] - origin[1]) * axes[k][1] +
                         (x[2] - origin[2]) * axes[k][2]) /
                        skin->height;
                }
        }
        /* the truth's tail as union vertices of skin 0 */
        verts = malloc((skin->vertex_count + 1) * sizeof *verts);
        for (uint32_t k = 0; verts && k < truth.shell_count; ++k)
            for (uint32_t q = 0; q < skin->primitive_count; ++q) {
                const tl_scene_primitive* sp = &skin->primitives[q];
                if (sp->mesh != truth.shells[k].mesh || sp->primitive != truth.shells[k].primitive)
                    continue;
                for (uint32_t v = 0; v < truth.shells[k].vertex_count; ++v)
                    verts[tail->tail_vertices++] = sp->first_vertex + truth.shells[k].vertices[v];
            }
        const tl_rig_part* best = NULL;
        for (uint32_t i = 0; i < rig->part_count; ++i) {
            const tl_rig_part* p = &rig->parts[i];
            if (p->action != TL_RIG_ACTION_CHAIN) continue;
            tail->chains++;
            size_t inside = 0;
            for (size_t t = 0; t < tail->tail_vertices; ++t)
                inside += rig->skins[0].part[verts[t]] == (int32_t)p->id;
            if (!best || inside > tail->covered) best = p, tail->covered = inside;
        }
        if (best) {
            tail->pelvis_region = best->region == TL_RIG_REGION_PELVIS;
            snprintf(tail->attach, sizeof tail->attach, "%s", best->attach_name);
        }
        if (verts) tail->before = mean_bone_distance(scene, verts, tail->tail_vertices);
        tl_scene_destroy(scene);
        scene = NULL;
        if (verts && tl_rig_apply(doc, rig, &err) == TL_OK &&
            tl_scene_create(doc, &scene, &err) == TL_OK)
            tail->after = mean_bone_distance(scene, verts, tail->tail_vertices);
    }
    free(verts);
    tl_rig_analysis_destroy(rig);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    tl_sample_truth_free(&truth);
    return n;
}

/* --fix-rigid on MakeHuman long hair: the hair lying on the chest is misbound by distance
 * but bound like the scalp it hangs from (the head), so --fix-rigid leaves it (tails.md §5);
 * only the hair pipeline's chains (class hair, test_hair) re-weight it. */
static void test_fix_rigid_keeps_hair(void) {
    loaded in;
    ENSURE(load(tl_test_shared("cases/mh-long01.glb"), &in));
    tl_rig_def def = tl_default_rig_def();
    def.fix_rigid = true;
    tl_rig_analysis* rig;
    tl_error err;
    ENSURE_OK(tl_rig_analyze(in.scene, &def, &rig, &err), err);
    uint32_t misbound_parts = 0, misbound_vertices = 0;
    for (uint32_t i = 0; i < rig->part_count; ++i) {
        const tl_rig_part* p = &rig->parts[i];
        /* (the hair step relabels the reported shards of the hair: class hair) */
        if ((p->cls == TL_RIG_CLASS_RIGID || p->cls == TL_RIG_CLASS_CLOTH ||
             (p->cls == TL_RIG_CLASS_HAIR && p->action == TL_RIG_ACTION_REPORTED)) &&
            p->misbound > 0.5f && p->welded_count > 20)
            misbound_parts++, misbound_vertices += p->vertex_count;
    }
    uint32_t changed = rig->changed_vertices;
    for (uint32_t i = 0; i < rig->part_count; ++i)
        if (rig->parts[i].cls == TL_RIG_CLASS_HAIR && rig->parts[i].action == TL_RIG_ACTION_CHAIN)
            changed -= rig->parts[i].vertex_count;
    tl_rig_analysis_destroy(rig);
    unload(&in);
    fprintf(stderr, "  %u misbound hair part(s), %u vertices; %u re-weighted\n", misbound_parts,
            misbound_vertices, changed);
    ENSURE(misbound_parts >= 1);
    ENSURE(changed == 0);
}

/* Forcing every part of a MakeHuman file (163 joints, JOINTS_0 as unsigned bytes) into a
 * chain passes 256 joints: JOINTS_0 must switch to unsigned short, every chain gets its own
 * names, and the file stays valid with every other weight unchanged. */
static void test_many_chains_widen_joints(void) {
    char input[4096];
    snprintf(input, sizeof input, "%s", tl_test_shared("cases/mh-long01.glb"));
    loaded in;
    ENSURE(load(input, &in));
    tl_rig_def def = tl_default_rig_def();
    tl_rig_analysis* rig;
    tl_error err;
    ENSURE_OK(tl_rig_analyze(in.scene, &def, &rig, &err), err);
    uint32_t parts = rig->part_count;
    tl_rig_analysis_destroy(rig);
    unload(&in);
    ENSURE(parts >= 12);
    for (uint32_t i = 0; i < parts && i < TL_RIG_MAX_OVERRIDES; ++i)
        def.overrides[def.override_count++] = (tl_rig_override){i, TL_RIG_CLASS_TAIL};
    def.min_links = def.max_links = 8; /* 9 joints a chain */
    const char* out = tl_test_scratch("mh-long01-many-chains.glb");
    rig = rig_file(input, &def, out);
    ENSURE(rig);
    uint32_t total = rig->skins[0].joint_count + rig->skins[0].new_joint_count;
    fprintf(stderr, "  %u chains, %u joints\n", rig->chain_count, total);
    uint8_t* changed = changed_vertices(rig);
    tl_rig_analysis_destroy(rig);
    ENSURE(total > 256);
    loaded o;
    ENSURE(load(out, &o));
    bool widened = true;
    for (uint32_t m = 0; m < o.doc->mesh_count; ++m)
        for (uint32_t q = 0; q < o.doc->meshes[m].primitive_count; ++q) {
            const tl_gltf_primitive* gp = &o.doc->meshes[m].primitives[q];
            for (uint32_t set = 0; set < gp->joint_set_count; ++set)
                widened &=
                    o.doc->accessors[gp->joints[set]].component_type == TL_GLTF_UNSIGNED_SHORT;
        }
    int named = 0;
    for (uint32_t n = 0; n < o.doc->node_count; ++n)
        named += o.doc->nodes[n].name && !strcmp(o.doc->nodes[n].name, "Tail.010_1");
    unload(&o);
    ENSURE_MSG(widened, "JOINTS_n still unsigned byte with %u joints", total);
    ENSURE(named == 1);
    check_output(input, out, changed);
    free(changed);
}

/* One sample variant's tail: exactly one chain, from the pelvis region, holding at least
 * 80 % of the truth's tail vertices, and the tail's bone distance at least halved. */
static bool sample_tail_ok(const char* label, const sample_tail* t) {
    fprintf(stderr,
            "  %-50s %u chain(s) from %s holding %zu of %zu tail vertices; bone distance/H %.4f -> "
            "%.4f\n",
            label, t->chains, t->attach, t->covered, t->tail_vertices, t->before, t->after);
    const char* why = t->chains != 1      ? "not exactly one chain"
                      : !t->pelvis_region ? "the chain is not from the pelvis region"
                      : !(t->tail_vertices && 5 * t->covered >= 4 * t->tail_vertices)
                          ? "the chain holds too little of the tail"
                      : !(t->after <= 0.5 * t->before) ? "the tail's bone distance is not halved"
                                                       : NULL;
    if (why) tl_test_failf(__FILE__, __LINE__, "%s: %s", label, why);
    return why == NULL;
}

/* The built-in samples in every bind-space up axis, scale, facing and height: each gets
 * exactly one chain, from the pelvis region, over most of its tail, at least halving the
 * tail's bone distance; and the analysis does not depend on the frame — the same parts,
 * classes, actions and vertex counts, and the same chain joints in the character's own frame
 * (over H) as the canonical variant. */
static void test_samples_every_frame(void) {
    const char* names[] = {"tailed-biped", "tailed-quadruped"};
    const tl_sample_up ups[] = {TL_SAMPLE_Y_UP, TL_SAMPLE_Z_UP};
    const float scales[] = {1.0f, 0.01f};
    const tl_sample_facing facings[] = {TL_SAMPLE_FACING_POS_Z, TL_SAMPLE_FACING_NEG_Z};
    const float heights[] = {1.8f, 5.6f};
    enum { MAX_PARTS = 64 };
    static sample_part canonical[MAX_PARTS], variant[MAX_PARTS];
    for (int n = 0; n < 2; ++n) {
        tl_sample_def sd = tl_default_sample_def();
        sample_tail tail;
        int count = sample_parts(names[n], &sd, canonical, MAX_PARTS, &tail);
        ENSURE_MSG(count > 0, "%s: no parts", names[n]);
        fprintf(stderr, "  %s: %d parts\n", names[n], count);
        for (int u = 0; u < 2; ++u)
            for (int sc = 0; sc < 2; ++sc)
                for (int fa = 0; fa < 2; ++fa)
                    for (int h = 0; h < 2; ++h) {
                        sd.up = ups[u];
                        sd.scale = scales[sc];
                        sd.facing = facings[fa];
                        sd.height = heights[h];
                        char label[160];
                        snprintf(label, sizeof label, "%s up %c scale %g facing %sz height %g",
                                 names[n], u ? 'z' : 'y', (double)sd.scale, fa ? "-" : "+",
                                 (double)sd.height);
                        int vc = sample_parts(names[n], &sd, variant, MAX_PARTS, &tail);
                        ENSURE(sample_tail_ok(label, &tail));
                        ENSURE_MSG(vc == count, "%s: %d parts, canonical %d", label, vc, count);
                        for (int i = 0; i < count; ++i) {
                            const sample_part* a = &canonical[i];
                            const sample_part* b = &variant[i];
                            ENSURE_MSG(
                                a->cls == b->cls && a->action == b->action &&
                                    a->segments == b->segments && !strcmp(a->attach, b->attach),
                                "%s: part %d is %s/%s from %s, canonical %s/%s from %s", label, i,
                                tl_rig_class_string(b->cls), tl_rig_action_string(b->action),
                                b->attach, tl_rig_class_string(a->cls),
                                tl_rig_action_string(a->action), a->attach);
                            /* welding and thresholds sit on float rounding: allow a vertex or two
                             */
                            ENSURE_MSG(abs((int)a->vertices - (int)b->vertices) <= 2,
                                       "%s: part %d has %u vertices, canonical %u", label, i,
                                       b->vertices, a->vertices);
                            for (uint32_t k = 0; k < 3 * (a->segments + 1) && a->segments; ++k)
                                ENSURE_MSG(
                                    fabsf(a->joints[k] - b->joints[k]) <= 1e-3f,
                                    "%s: part %d joint coordinate %u is %.5f, canonical %.5f",
                                    label, i, k, (double)b->joints[k], (double)a->joints[k]);
                        }
                    }
    }
}

/* The quadruped sample's tail (its truth shells) gets a chain from the truth's tail parent
 * that runs from the tail root to its tip and at least halves the tail's bone distance. */
static void test_sample_quadruped_tail(void) {
    tl_sample_def sd = tl_default_sample_def();
    sd.up = TL_SAMPLE_Z_UP;
    sd.scale = 0.01f;
    tl_gltf* doc;
    tl_sample_truth truth;
    tl_error err;
    ENSURE_OK(tl_sample_build("tailed-quadruped", &sd, &doc, &truth, &err), err);
    tl_scene* scene;
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    tl_rig_def def = tl_default_rig_def();
    tl_rig_analysis* rig;
    ENSURE_OK(tl_rig_analyze(scene, &def, &rig, &err), err);
    const tl_scene_skin* skin = &scene->skins[0];
    uint32_t* tail = malloc(skin->vertex_count * sizeof *tail);
    size_t tail_n = 0;
    for (uint32_t k = 0; k < truth.shell_count; ++k)
        for (uint32_t q = 0; q < skin->primitive_count; ++q) {
            const tl_scene_primitive* sp = &skin->primitives[q];
            if (sp->mesh != truth.shells[k].mesh || sp->primitive != truth.shells[k].primitive)
                continue;
            for (uint32_t v = 0; v < truth.shells[k].vertex_count; ++v)
                tail[tail_n++] = sp->first_vertex + truth.shells[k].vertices[v];
        }
    /* the chain part holding most of the truth's tail */
    const tl_rig_part* chain = NULL;
    uint32_t best = 0;
    for (uint32_t i = 0; i < rig->part_count; ++i) {
        const tl_rig_part* p = &rig->parts[i];
        if (p->action != TL_RIG_ACTION_CHAIN) continue;
        uint32_t inside = 0;
        for (size_t t = 0; t < tail_n; ++t)
            inside += rig->skins[0].part[tail[t]] == (int32_t)p->id;
        if (inside > best) best = inside, chain = p;
    }
    double before = mean_bone_distance(scene, tail, tail_n);
    bool found = chain != NULL;
    float root_error = 0, tip_error = 0;
    char attach[64] = "";
    if (found) {
        for (int k = 0; k < 3; ++k) {
            float a = chain->joints[k] - truth.tail_root[k];
            float b = chain->joints[3 * chain->segments + k] - truth.tail_tip[k];
            root_error += a * a;
            tip_error += b * b;
        }
        root_error = sqrtf(root_error) / truth.tail_length;
        tip_error = sqrtf(tip_error) / truth.tail_length;
        snprintf(attach, sizeof attach, "%s", chain->attach_name);
    }
    tl_scene_destroy(scene);
    tl_result r = tl_rig_apply(doc, rig, &err);
    uint32_t chains = rig->chain_count;
    tl_rig_analysis_destroy(rig);
    double after = NAN;
    if (r == TL_OK && tl_scene_create(doc, &scene, &err) == TL_OK) {
        after = mean_bone_distance(scene, tail, tail_n);
        tl_scene_destroy(scene);
    }
    fprintf(
        stderr,
        "  quadruped: %u chain(s); the tail's from %s (truth %s) holds %u of %zu tail vertices; "
        "bone distance/H %.4f -> %.4f; root %.3f, tip %.3f tail lengths off\n",
        chains, attach, truth.tail_parent, best, tail_n, before, after, (double)root_error,
        (double)tip_error);
    bool parent_ok = found && !strcmp(attach, truth.tail_parent);
    free(tail);
    tl_gltf_destroy(doc);
    tl_sample_truth_free(&truth);
    ENSURE(found && parent_ok);
    ENSURE(best >= tail_n * 9 / 10);
    ENSURE_MSG(after <= 0.5 * before, "bone distance %.4f -> %.4f", before, after);
    ENSURE(root_error <= 0.15f && tip_error <= 0.15f);
}

/* The command: the report's schema, --dry-run writes nothing, --part overrides, --mode
 * rigid, bad arguments. */
static void test_cli(void) {
    char input[4096];
    snprintf(input, sizeof input, "%s", case_path("husky-tailless"));
    const char* out = tl_test_scratch("cli-dry.glb");
    const char* report_path = tl_test_scratch("cli-report.json");
    remove(out);
    remove(report_path);
    char* text = NULL;
    ENSURE(tl_test_cli(&text, "rig '%s' -o '%s' --dry-run --report '%s'", input, out,
                       report_path) == 0);
    bool printed = text && strstr(text, "hangs from") && strstr(text, "class tail") &&
                   strstr(text, "chain built");
    free(text);
    ENSURE_MSG(printed, "the human report lacks the part lines");
    struct stat st;
    ENSURE_MSG(stat(out, &st) != 0, "--dry-run wrote %s", out);
    json_error_t jerr;
    json_t* report = json_load_file(report_path, 0, &jerr);
    ENSURE_MSG(report, "%s: %s", report_path, jerr.text);
    const char* fields[] = {"id",           "vertices",    "class",        "action",
                            "attach_joint", "attach_role", "reach",        "centroid_ratio",
                            "elongation",   "tube_ratio",  "length",       "misbound",
                            "segments",     "bones",       "joints_world", "reason"};
    json_t* parts = json_object_get(report, "parts");
    size_t i;
    json_t* p;
    int chain_id = -1;
    bool schema = json_array_size(parts) > 0;
    json_array_foreach(parts, i, p) {
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; ++f)
            if (!json_object_get(p, fields[f])) {
                fprintf(stderr, "  part %zu lacks \"%s\"\n", i, fields[f]);
                schema = false;
            }
        if (!strcmp(json_string_value(json_object_get(p, "action")), "chain")) {
            chain_id = (int)json_integer_value(json_object_get(p, "id"));
            size_t K = (size_t)json_integer_value(json_object_get(p, "segments"));
            schema = schema && json_array_size(json_object_get(p, "bones")) == K + 1 &&
                     json_array_size(json_object_get(p, "joints_world")) == K + 1 &&
                     !strcmp(json_string_value(json_array_get(json_object_get(p, "bones"), 0)),
                             "Tail_1");
        }
    }
    json_decref(report);
    ENSURE(schema);
    ENSURE(chain_id >= 0);

    /* --part ID=none leaves the tail alone; --part ID=rigid re-weights it rigidly */
    out = tl_test_scratch("cli-none.glb");
    ENSURE(tl_test_cli(&text, "rig '%s' -o '%s' --part %d=none", input, out, chain_id) == 0);
    bool left =
        text && strstr(text, "0 chain(s), 0 vertices re-weighted") && strstr(text, "set by --part");
    free(text);
    ENSURE_MSG(left, "--part %d=none still rigged the part", chain_id);
    ENSURE(tl_test_cli(&text, "rig '%s' --dry-run --part %d=rigid", input, chain_id) == 0);
    bool rigid = text && strstr(text, "re-weighted rigid to") && strstr(text, "0 chain(s)");
    free(text);
    ENSURE(rigid);
    ENSURE(tl_test_cli(&text, "rig '%s' --dry-run --mode rigid", input) == 0);
    rigid = text && strstr(text, "re-weighted rigid to") && strstr(text, "0 chain(s)");
    free(text);
    ENSURE(rigid);

    /* usage errors exit 2 and write nothing */
    out = tl_test_scratch("cli-bad.glb");
    remove(out);
    const char* bad[] = {"--mode banana",  "--far -1",    "--max-links 99", "--part 999=chain",
                         "--part 0=wings", "--segment x", "--bogus"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        int code = tl_test_cli(&text, "rig '%s' -o '%s' %s 2>/dev/null", input, out, bad[k]);
        free(text);
        ENSURE_MSG(code == 2, "%s: exit %d", bad[k], code);
    }
    ENSURE(tl_test_cli(&text, "rig '%s' 2>/dev/null", input) == 2);
    free(text);
    ENSURE_MSG(stat(out, &st) != 0, "a failed run wrote %s", out);
}

/* A def whose chain settings the file's reader would refuse is refused before anything is
 * written (the ranges of docs/schema.md). */
static void chain_settings_checked(void) {
    tl_rig_def def = tl_default_rig_def();
    tl_error err;
    ENSURE_OK(tl_rig_def_check(&def, &err), err);
    def.chain.damping_ratio = -1;
    ENSURE(tl_rig_def_check(&def, &err) == TL_ERROR_ARGUMENT);
    ENSURE_MSG(!strcmp(err.message, "chain.damping_ratio = -1: must be >= 0"), "%s", err.message);
    def = tl_default_rig_def();
    def.chain.rest_curve = 2;
    ENSURE(tl_rig_def_check(&def, &err) == TL_ERROR_ARGUMENT && strstr(err.message, "<= 1"));
}

/* The junction fit, judged on what a viewer sees (tails.md §6, measure.md): per case, walk
 * and fast clip, chain simulated, the whole tail (the truth's vertices) against the body
 * (every edge with both ends outside it, in the input) and against the input; new tears of
 * the skin the rig re-weighted; the body skin it touched outside the tail; and the same with
 * the fit shown none of the two clips (a hold-out). The fit never reads the truth: the truth
 * masks only choose what is measured. */
typedef struct junction_figures {
    tl_stretch_stats tail, touched, touched_input;
    tl_new_tears tears;
    double seconds;
} junction_figures;

static void advance_hook(void* user, tl_pose* pose, float time) {
    void** u = user;
    tl_player_advance(u[0], pose, *(uint32_t*)u[1], time);
}

/* Rigs the case in memory with `def` and measures clip `clip` (by name). */
static bool junction_run(const char* name, const char* clip, const tl_rig_def* def,
                         const uint8_t* tail_mask, junction_figures* out) {
    loaded in, rigged;
    if (!load(case_path(name), &in)) return false;
    if (!load(case_path(name), &rigged)) return unload(&in), false;
    tl_error err;
    tl_rig_analysis* rig = NULL;
    bool ok = tl_rig_analyze(rigged.scene, def, &rig, &err) == TL_OK;
    uint32_t V = in.scene->skins[0].vertex_count;
    uint8_t* touched = calloc(V + 1, 1);
    uint8_t* region = calloc(V + 1, 1);
    for (uint32_t i = 0; ok && i < rig->part_count; ++i) {
        const tl_rig_part* p = &rig->parts[i];
        if (p->skin != 0 || p->action != TL_RIG_ACTION_CHAIN) continue;
        for (uint32_t k = 0; k < p->vertex_count; ++k)
            region[p->vertices[k]] = 1;
        for (uint32_t k = 0; k < p->band_count; ++k)
            region[p->band_vertices[k]] = 1;
        out->seconds += p->fit.seconds;
    }
    for (uint32_t v = 0; v < V; ++v)
        touched[v] = region[v] && !tail_mask[v];
    if (ok) {
        tl_scene_destroy(rigged.scene);
        rigged.scene = NULL;
        ok = tl_rig_apply(rigged.doc, rig, &err) == TL_OK &&
             tl_scene_create(rigged.doc, &rigged.scene, &err) == TL_OK;
    }
    tl_play_chain chains[8];
    uint32_t chain_count = 0, c = 0;
    tl_player* player = NULL;
    tl_player_def pdef = tl_default_player_def();
    ok = ok && tl_scene_find_clip(rigged.scene, clip, &c, &err) == TL_OK &&
         tl_play_chains_find(rigged.scene, chains, 8, &chain_count, &err) == TL_OK &&
         chain_count >= 1 && chain_count <= 8 &&
         tl_player_create(rigged.scene, chains, chain_count, &pdef, &player, &err) == TL_OK;
    tl_measure_def mdef = tl_default_measure_def();
    const uint8_t* masks[2] = {tail_mask, touched};
    tl_stretch* st = NULL;
    void* user[2] = {player, &c};
    if (ok && tl_stretch_create(rigged.scene, 0, masks, 2, &mdef, &st, &err) == TL_OK) {
        tl_stretch_stats s[2];
        tl_player_start(player, c, 0);
        tl_stretch_run(st, c, advance_hook, user, s);
        out->tail = s[0], out->touched = s[1];
        tl_stretch* sti = NULL;
        const uint8_t* one[1] = {touched};
        if (tl_stretch_create(in.scene, 0, one, 1, &mdef, &sti, &err) == TL_OK)
            tl_stretch_run(sti, c, NULL, NULL, &out->touched_input);
        tl_stretch_destroy(sti);
        tl_player_start(player, c, 0);
        ok = tl_measure_new_tears(in.scene, rigged.scene, 0, region, c, &mdef, advance_hook, user,
                                  &out->tears, &err) == TL_OK;
    } else {
        ok = false;
    }
    if (!ok) fprintf(stderr, "  %s %s: %s\n", name, clip, err.message);
    tl_stretch_destroy(st);
    tl_player_destroy(player);
    tl_rig_analysis_destroy(rig);
    free(touched);
    free(region);
    unload(&rigged);
    unload(&in);
    return ok;
}

static void test_junction_cases(void) {
    static const struct {
        const char *name, *walk, *fast;
    } cases[] = {
        {"fox-khronos-tailless", "Walk", "Run"}, {"fox-quaternius-tailless", "Walk", "Gallop"},
        {"husky-tailless", "Walk", "Gallop"},    {"horse-tailless", "Walk", "Gallop"},
        {"rat-tailless", "Rat_Walk", "Rat_Run"}, {"trex-tailless", "TRex_Walk", "TRex_Run"},
        {"knight-tailed", "Walking", "Run"},
    };
    int failures = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char rel[256];
        snprintf(rel, sizeof rel, "cases/%s.truth.json", cases[k].name);
        json_t* truth = json_load_file(tl_test_shared(rel), 0, NULL);
        loaded in;
        ENSURE(truth && load(case_path(cases[k].name), &in));
        uint32_t* tail = NULL;
        size_t n = truth_vertices(truth, in.scene, &tail);
        uint32_t V = in.scene->skins[0].vertex_count;
        uint8_t* tail_mask = calloc(V + 1, 1);
        uint8_t* body_mask = calloc(V + 1, 1);
        for (size_t i = 0; i < n; ++i)
            tail_mask[tail[i]] = 1;
        for (uint32_t v = 0; v < V; ++v)
            body_mask[v] = !tail_mask[v];
        json_decref(truth);
        free(tail);
        for (int fast = 0; fast < 2; ++fast) {
            const char* clip = fast ? cases[k].fast : cases[k].walk;
            uint32_t c;
            tl_error err;
            ENSURE_OK(tl_scene_find_clip(in.scene, clip, &c, &err), err);
            /* the input: the whole tail and the body as the file binds them */
            tl_measure_def mdef = tl_default_measure_def();
            const uint8_t* masks[2] = {tail_mask, body_mask};
            tl_stretch* st;
            ENSURE_OK(tl_stretch_create(in.scene, 0, masks, 2, &mdef, &st, &err), err);
            tl_stretch_stats input[2];
            tl_stretch_run(st, c, NULL, NULL, input);
            tl_stretch_destroy(st);
            junction_figures band = {0}, fit = {0}, held = {0}, rom = {0};
            tl_rig_def def = tl_default_rig_def();
            tl_rig_def no_fit = def, holdout = def, no_clip = def;
            no_clip.junction_skip = ~(uint64_t)0; /* as a file with no clip: range of motion */
            no_fit.junction_fit = false;
            uint32_t other;
            ENSURE_OK(
                tl_scene_find_clip(in.scene, fast ? cases[k].walk : cases[k].fast, &other, &err),
                err);
            holdout.junction_skip = ((uint64_t)1 << c) | ((uint64_t)1 << other);
            ENSURE(c < 64 && other < 64);
            ENSURE(junction_run(cases[k].name, clip, &no_fit, tail_mask, &band));
            ENSURE(junction_run(cases[k].name, clip, &def, tail_mask, &fit));
            ENSURE(junction_run(cases[k].name, clip, &holdout, tail_mask, &held));
            ENSURE(junction_run(cases[k].name, clip, &no_clip, tail_mask, &rom));
            fprintf(
                stderr,
                "  %-23s %-9s whole tail p99/max/torn: input %.3f/%.2f/%.2f%% band "
                "%.3f/%.2f/%.3f%% fit %.3f/%.2f/%.3f%% hold-out %.3f/%.2f/%.3f%% | body "
                "%.3f/%.2f | new tears band %.3f%% fit %.3f%% hold-out %.3f%% | touched "
                "body torn input %.3f%% fit %.3f%% (%llu samples) | fit %.1f ms | no clips: whole "
                "tail %.3f/%.2f/%.3f%% new tears %.3f%%\n",
                cases[k].name, clip, input[0].p99, input[0].max, input[0].torn_pct, band.tail.p99,
                band.tail.max, band.tail.torn_pct, fit.tail.p99, fit.tail.max, fit.tail.torn_pct,
                held.tail.p99, held.tail.max, held.tail.torn_pct, input[1].p99, input[1].max,
                band.tears.new_torn_pct, fit.tears.new_torn_pct, held.tears.new_torn_pct,
                fit.touched_input.torn_pct, fit.touched.torn_pct,
                (unsigned long long)fit.touched.count, 1e3 * fit.seconds, rom.tail.p99,
                rom.tail.max, rom.tail.torn_pct, rom.tears.new_torn_pct);
            /* the whole tail, fitted on every clip and with the two measured held out: no
               more than the body deforms, torn at most 0.1%, never worse than the input */
            const junction_figures* judged[2] = {&fit, &held};
            for (int j = 0; j < 2; ++j) {
                const tl_stretch_stats* t = &judged[j]->tail;
                ENSURE_MSG(t->p99 <= input[1].p99 && t->max <= input[1].max &&
                               t->torn_pct <= 0.1f && t->p99 <= input[0].p99 &&
                               t->torn_pct <= input[0].torn_pct,
                           "%s %s (%s): the whole tail misses the bar", cases[k].name, clip,
                           j ? "hold-out" : "fit");
            }
            /* a file with no clip (the range-of-motion fit): new tears within the bar and the
               whole tail within the body's stretch, always; torn at most 0.1% and never above
               the input counted with the misses below */
            ENSURE_MSG(rom.tears.new_torn_pct <= 0.25f && rom.tail.p99 <= input[1].p99 &&
                           rom.tail.max <= input[1].max && rom.tail.p99 <= input[0].p99,
                       "%s %s (no clips): new tears %.3f%% or the whole tail misses the bar",
                       cases[k].name, clip, rom.tears.new_torn_pct);
            if (!(rom.tail.torn_pct <= 0.1f && rom.tail.torn_pct <= input[0].torn_pct)) {
                fprintf(stderr, "    %s %s: the whole tail tears %.3f%% with no clips\n",
                        cases[k].name, clip, rom.tail.torn_pct);
                ++failures;
            }
            if (!(fit.touched.torn_pct <= fit.touched_input.torn_pct)) {
                fprintf(stderr, "    %s %s: the body skin the rig touched tears more\n",
                        cases[k].name, clip);
                ++failures;
            }
            if (!(fit.tears.new_torn_pct <= 0.25f)) {
                fprintf(stderr, "    %s %s: new tears %.3f%% above 0.25%%\n", cases[k].name, clip,
                        fit.tears.new_torn_pct);
                ++failures;
            }
            /* always: the fit never makes the whole tail worse than the band did, nor adds
               more new tears */
            if (!(fit.tail.torn_pct <= band.tail.torn_pct &&
                  fit.tears.new_torn_pct <= band.tears.new_torn_pct)) {
                fprintf(stderr, "    %s %s: the fit is worse than the band\n", cases[k].name, clip);
                ++failures;
            }
        }
        free(tail_mask);
        free(body_mask);
        unload(&in);
    }
    /* new tears at most 0.25%, the touched body no worse, the fit no worse than the band,
       the whole tail with no clips torn at most 0.1% and never above the input: met on every
       case-clip since session 11 (docs/rig.md §8), asserted (with session 10c's `src/rig`
       the horse's gallop with no clips fails: whole tail torn 0.156%) */
    fprintf(stderr, "  %d case-clip checks miss the issue's bar\n", failures);
    ENSURE(failures == 0);
}

/* Bones that look right in Blender: each new bone's bind +Y (the Y column of its bind matrix,
 * rest-world) points at its child's head, and skinning is what it was: in the stored pose of a
 * file tailor rig wrote, every new joint's skinning matrix W · IBM equals its attachment's
 * (the bones ride with it, as when they shared its bind rotation) to float noise. */
static void test_bones_point_at_children(void) {
    for (size_t c = 0; c < CASE_COUNT && !tl_test_failed; ++c) {
        char name[256];
        snprintf(name, sizeof name, "%s-axes.glb", tailed_cases[c]);
        const char* out = tl_test_scratch(name);
        tl_rig_def def = tl_default_rig_def();
        tl_rig_analysis* rig = rig_file(case_path(tailed_cases[c]), &def, out);
        ENSURE_MSG(rig, "%s", tailed_cases[c]);
        tl_rig_analysis_destroy(rig);
        loaded f;
        ENSURE(load(out, &f));
        tl_error err;
        tl_play_chain chains[8];
        uint32_t n = 0;
        ENSURE_OK(tl_play_chains_find(f.scene, chains, 8, &n, &err), err);
        ENSURE(n >= 1 && n <= 8);
        tl_pose* pose = tl_pose_create(f.scene);
        tl_pose_set_stored(pose, f.scene);
        double worst_angle = 0, worst_skin = 0;
        for (uint32_t k = 0; k < n; ++k) {
            const tl_scene_skin* sk = &f.scene->skins[chains[k].skin];
            float* m = malloc(16 * sizeof(float) * sk->joint_count);
            tl_pose_joint_matrices(pose, f.scene, chains[k].skin, m);
            const float* ma = m + 16 * (size_t)chains[k].attach_joint;
            for (uint32_t b = 0; b <= chains[k].bone_count; ++b) {
                uint32_t j = b < chains[k].bone_count ? chains[k].bone_joints[b]
                                                      : (uint32_t)chains[k].end_joint;
                const float* w = sk->joints[j].rest_world;
                if (b < chains[k].bone_count) {
                    uint32_t child = b + 1 < chains[k].bone_count ? chains[k].bone_joints[b + 1]
                                                                  : (uint32_t)chains[k].end_joint;
                    const float* cw = sk->joints[child].rest_world;
                    double d[3] = {cw[12] - w[12], cw[13] - w[13], cw[14] - w[14]}, dot = 0, ly = 0,
                           ld = 0;
                    for (int r = 0; r < 3; ++r)
                        dot += d[r] * w[4 + r], ly += (double)w[4 + r] * w[4 + r],
                            ld += d[r] * d[r];
                    double cosine = fmin(1, dot / sqrt(ly * ld));
                    worst_angle = fmax(worst_angle, acos(cosine) * 180 / 3.14159265358979323846);
                }
                double scale =
                    sqrt((double)ma[0] * ma[0] + (double)ma[1] * ma[1] + (double)ma[2] * ma[2]);
                for (int e = 0; e < 16; ++e) {
                    double unit = e >= 12 ? sk->height : scale;
                    worst_skin =
                        fmax(worst_skin, fabs((double)m[16 * (size_t)j + e] - ma[e]) / unit);
                }
            }
            free(m);
        }
        tl_pose_destroy(pose);
        unload(&f);
        fprintf(stderr,
                "  %s: +Y within %.2g deg of the child; W*IBM within %.2g of the attachment's\n",
                tailed_cases[c], worst_angle, worst_skin);
        ENSURE(worst_angle < 0.01);
        ENSURE(worst_skin < 1e-5);
    }
}

/* Validator reports of several files from one node run (one JSON line each), or false. */
static bool validate_many(const char* const* paths, size_t n, json_t** reports) {
    char command[16384];
    int len =
        snprintf(command, sizeof command, "cd '%s' && node tests/validate.mjs", tl_test_source(""));
    for (size_t i = 0; i < n; ++i)
        len += snprintf(command + len, sizeof command - (size_t)len, " '%s'", paths[i]);
    FILE* p = popen(command, "r");
    if (!p) return false;
    char line[65536];
    size_t got = 0;
    while (got < n && fgets(line, sizeof line, p))
        reports[got++] = json_loads(line, 0, NULL);
    pclose(p);
    return got == n;
}

static json_int_t report_code(json_t* report, const char* group, const char* code) {
    return json_integer_value(json_object_get(json_object_get(report, group), code));
}

/* A clean file: tailor rig leaves none of the data it replaced (the validator's UNUSED_OBJECT
 * count is not above the input's; the file grows a few percent, not by the old weights), adds
 * no error or warning, keeps an invalid skin.skeleton as it was, and --fix-skeleton repairs
 * it. */
static void test_clean_file(void) {
    int invalid_inputs = 0;
    for (size_t c = 0; c < CASE_COUNT && !tl_test_failed; ++c) {
        char in[4096], out[600], fixed[700];
        snprintf(in, sizeof in, "%s", case_path(tailed_cases[c]));
        snprintf(out, sizeof out, "%s", tl_test_scratch(tailed_cases[c]));
        snprintf(fixed, sizeof fixed, "%s-fixed.glb", out);
        strcat(out, "-clean.glb");
        ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' > /dev/null", in, out) == 0);
        ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --fix-skeleton > /dev/null", in, fixed) == 0);
        const char* paths[3] = {in, out, fixed};
        json_t* r[3] = {NULL, NULL, NULL};
        ENSURE(validate_many(paths, 3, r) && r[0] && r[1] && r[2]);
        json_int_t unused_in = report_code(r[0], "infos", "UNUSED_OBJECT"),
                   unused_out = report_code(r[1], "infos", "UNUSED_OBJECT"),
                   skel_in = report_code(r[0], "codes", "SKIN_SKELETON_INVALID");
        struct stat a, b;
        stat(in, &a), stat(out, &b);
        fprintf(stderr, "  %s: UNUSED_OBJECT %lld -> %lld, %lld -> %lld bytes (+%.1f%%)%s\n",
                tailed_cases[c], (long long)unused_in, (long long)unused_out, (long long)a.st_size,
                (long long)b.st_size, 100.0 * (double)(b.st_size - a.st_size) / (double)a.st_size,
                skel_in ? ", skeleton repaired" : "");
        invalid_inputs += skel_in > 0;
        bool no_new = true;
        const char* code;
        json_t* count;
        for (int k = 1; k < 3; ++k)
            json_object_foreach(json_object_get(r[k], "codes"), code, count) {
                bool repaired = k == 2 && !strcmp(code, "SKIN_SKELETON_INVALID");
                if (json_integer_value(count) > report_code(r[0], "codes", code) || (repaired))
                    no_new = false, fprintf(stderr, "  %s: %s\n", paths[k], code);
            }
        bool kept = report_code(r[1], "codes", "SKIN_SKELETON_INVALID") == skel_in;
        bool unused_ok = report_code(r[2], "infos", "UNUSED_OBJECT") <= unused_in;
        for (int k = 0; k < 3; ++k)
            json_decref(r[k]);
        ENSURE_MSG(unused_out <= unused_in && unused_ok, "%s: unused objects left behind",
                   tailed_cases[c]);
        ENSURE_MSG(no_new && kept, "%s: a new or unrepaired problem", tailed_cases[c]);
    }
    ENSURE(invalid_inputs > 0); /* the repair was exercised */
}

/* rig_skeleton_distances (the field's skeleton distance through the bones' boxes) gives the
 * very values of tl_mesh_nearest_segments: a random skeleton of chains (some bones of zero
 * length), points near the bones, on them, far away and not finite. */
static void test_skeleton_distances_match(void) {
    enum { BONES = 150, POINTS = 20000 };
    rig_bones bones = {malloc(6 * sizeof(float) * BONES), NULL, BONES, NULL, 0};
    float *pts = malloc(3 * sizeof(float) * POINTS), *a = malloc(sizeof(float) * POINTS),
          *b = malloc(sizeof(float) * POINTS);
    ENSURE(bones.ab && pts && a && b);
    uint32_t r = 99;
#define UNIT() ((r = r * 1664525u + 1013904223u) >> 8) * (1.0f / 16777216.0f)
    float at[3] = {0, 1, 0};
    for (uint32_t s = 0; s < BONES; ++s) {
        float* ab = bones.ab + 6 * (size_t)s;
        if (s % 12 == 0) /* a new chain from somewhere on the body */
            for (int k = 0; k < 3; ++k)
                at[k] = (k == 1 ? 1 : 0) + 0.6f * (UNIT() - 0.5f);
        float len = s % 17 == 0 ? 0 : 0.01f + 0.15f * UNIT();
        for (int k = 0; k < 3; ++k)
            ab[k] = at[k], at[k] += len * (UNIT() - 0.5f), ab[3 + k] = at[k];
    }
    for (uint32_t i = 0; i < POINTS; ++i) {
        const float* ab = bones.ab + 6 * (size_t)((uint32_t)(UNIT() * BONES) % BONES);
        float t = UNIT(), spread = i % 3 == 0 ? 0.002f : i % 3 == 1 ? 0.05f : 0.5f;
        for (int k = 0; k < 3; ++k)
            pts[3 * i + k] =
                ab[k] + t * (ab[3 + k] - ab[k]) + (i % 11 == 0 ? 0 : spread) * (UNIT() - 0.5f);
    }
#undef UNIT
    pts[3 * 5] = NAN, pts[3 * 9 + 1] = INFINITY;
    ENSURE(rig_skeleton_distances(&bones, pts, POINTS, a));
    tl_mesh_nearest_segments(b, NULL, pts, POINTS, 12, bones.ab, BONES);
    uint32_t differ = 0;
    for (uint32_t i = 0; i < POINTS; ++i)
        differ += memcmp(a + i, b + i, sizeof(float)) != 0;
    printf("  %u points, %u differ from tl_mesh_nearest_segments\n", POINTS, differ);
    ENSURE(differ == 0);
    free(bones.ab), free(pts), free(a), free(b);
}

/* ---- play data of a file tailor rigged before session 24 (docs/rig.md "Session 25") ---- */

/* The session-24 play keys (skins' frame and sheet, hair parts' hit_radius) removed from a
 * document: a file as an older tailor rigged it. Returns how many were removed. */
static uint32_t play_keys_strip(json_t* root, bool frame) {
    uint32_t n = 0;
    size_t i;
    json_t* o;
    json_array_foreach(json_object_get(root, "skins"), i, o) {
        json_t* t = json_object_get(json_object_get(o, "extras"), "tailor");
        n += frame && json_object_del(t, "frame") == 0;
        n += json_object_del(t, "colliders") == 0; /* (a file rigged before session 23) */
        n += json_object_del(t, "sheet") == 0;
    }
    json_array_foreach(json_object_get(root, "nodes"), i, o) n +=
        json_object_del(json_object_get(json_object_get(o, "extras"), "tailor"), "hit_radius") == 0;
    return n;
}

/* `path` rigged by the command into `out` (and its report), returned loaded. */
static tl_gltf* rig_cli(const char* path, const char* out, const char* report) {
    if (tl_test_cli(NULL, "rig '%s' -o '%s' --force%s%s%s > /dev/null", path, out,
                    report ? " --report '" : "", report ? report : "", report ? "'" : "") != 0)
        return NULL;
    tl_gltf* doc = NULL;
    tl_error err;
    if (tl_gltf_load(out, &doc, &err) != TL_OK) fprintf(stderr, "  %s\n", err.message);
    return doc;
}

static bool buffers_equal(const tl_gltf* a, const tl_gltf* b) {
    bool same = a->buffer_count == b->buffer_count;
    for (uint32_t k = 0; same && k < a->buffer_count; ++k)
        same = a->buffers[k].size == b->buffers[k].size &&
               !memcmp(a->buffers[k].data, b->buffers[k].data, a->buffers[k].size);
    return same;
}

/* A copy of the rigged `doc` with every play key removed (play_keys_strip), saved to `path`. */
static tl_result save_older(const tl_gltf* doc, const char* path, uint32_t* removed,
                            tl_error* err) {
    tl_gltf* b = NULL;
    tl_result r = tl_gltf_clone(doc, &b, err);
    if (r != TL_OK) return r;
    *removed = play_keys_strip(tl_gltf_json(b), true);
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    r = tl_gltf_save(b, path, &save, err);
    tl_gltf_destroy(b);
    return r;
}

/* The character `path` rigged fresh, its play keys removed (an "older" file, saved with the
 * same BIN), rigged again: the keys come back equal value for value to the fresh rig's, every
 * other JSON value and every buffer byte as they were, and the report counts them; rigged once
 * more, the file is byte for byte the same. */
static void play_upgrade_case(const char* name, const char* path, bool hair) {
    char fresh[512], old[512], up[512], again[512], report[512];
    snprintf(fresh, sizeof fresh, "%.500s-fresh.glb", tl_test_scratch(name));
    snprintf(old, sizeof old, "%.500s-old.glb", tl_test_scratch(name));
    snprintf(up, sizeof up, "%.500s-up.glb", tl_test_scratch(name));
    snprintf(again, sizeof again, "%.500s-again.glb", tl_test_scratch(name));
    snprintf(report, sizeof report, "%.500s-up.json", tl_test_scratch(name));
    tl_gltf* a = rig_cli(path, fresh, NULL);
    ENSURE(a);
    tl_error err;
    uint32_t removed = 0;
    ENSURE_OK(save_older(a, old, &removed, &err), err);
    tl_gltf* c = rig_cli(old, up, report);
    ENSURE(c);
    json_error_t jerr;
    json_t* r = json_load_file(report, 0, &jerr);
    ENSURE_MSG(r, "%s: %s", report, jerr.text);
    json_t* play = json_object_get(r, "play_data");
    json_int_t frames = json_integer_value(json_object_get(play, "frame"));
    json_int_t colliders = json_integer_value(json_object_get(play, "colliders"));
    json_int_t radii = json_integer_value(json_object_get(play, "hit_radius"));
    json_int_t ties = json_integer_value(json_object_get(play, "sheet_ties"));
    bool same_json = json_equal(tl_gltf_json(a), tl_gltf_json(c));
    bool same_bin = buffers_equal(a, c);
    json_decref(r);
    tl_gltf_destroy(a);
    tl_gltf_destroy(c);
    tl_gltf* d = rig_cli(up, again, NULL);
    ENSURE(d);
    tl_gltf_destroy(d);
    size_t up_size = 0, again_size = 0;
    unsigned char* up_bytes = tl_test_read_file(up, &up_size);
    unsigned char* again_bytes = tl_test_read_file(again, &again_size);
    bool identical =
        up_bytes && again_bytes && up_size == again_size && !memcmp(up_bytes, again_bytes, up_size);
    free(up_bytes), free(again_bytes);
    printf("  %s: %u play keys removed; rigged again: frame x%lld, colliders x%lld, hit_radius "
           "x%lld, %lld ties; JSON %s, BIN %s the fresh rig's; rigged once more %s\n",
           name, removed, (long long)frames, (long long)colliders, (long long)radii,
           (long long)ties, same_json ? "equal to" : "UNLIKE", same_bin ? "equal to" : "UNLIKE",
           identical ? "byte-identical" : "CHANGED");
    ENSURE(removed >= 2 && frames == 1 && colliders == 1);
    ENSURE(hair ? radii > 0 && ties > 0 && removed == (uint32_t)radii + 3 : radii == 0);
    ENSURE_MSG(same_json, "%s: the upgraded file's JSON differs from the fresh rig's", name);
    ENSURE_MSG(same_bin, "%s: the upgraded file's buffers differ from the fresh rig's", name);
    ENSURE_MSG(identical, "%s: a file with its play keys changed when rigged again", name);
}

/* The rat under a root node turned +90 degrees about X: a Z-up file (its frame's up is +Z). */
static const char* rat_z_up(void) {
    static char path[512];
    snprintf(path, sizeof path, "%s", tl_test_scratch("rat-zup-input.glb"));
    tl_gltf* doc;
    tl_error err;
    if (tl_gltf_load(case_path("rat-tailless"), &doc, &err) != TL_OK) return NULL;
    json_t* root = tl_gltf_json(doc);
    json_t* nodes = json_object_get(root, "nodes");
    json_t* sc = json_array_get(json_object_get(root, "scenes"), 0);
    float h = sqrtf(0.5f);
    json_array_append_new(nodes,
                          json_pack("{s:s,s:O,s:[f,f,f,f]}", "name", "z_up", "children",
                                    json_object_get(sc, "nodes"), "rotation", h, 0.0, 0.0, h));
    json_object_set_new(sc, "nodes", json_pack("[I]", (json_int_t)json_array_size(nodes) - 1));
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    bool ok = tl_gltf_reindex(doc, &err) == TL_OK && tl_gltf_save(doc, path, &save, &err) == TL_OK;
    tl_gltf_destroy(doc);
    return ok ? path : NULL;
}

/* A file tailor rigged before session 23 (its parts, no frame, colliders, hit_radius or sheet):
 * `tailor rig` on it writes those keys as a fresh rig would, and nothing else (tails, a Z-up
 * tail, hair, cloth). */
static void test_play_data_brought_up_to_date(void) {
    play_upgrade_case("play-fox", case_path("fox-khronos-tailless"), false);
    const char* zup = rat_z_up();
    ENSURE(zup);
    play_upgrade_case("play-rat-zup", zup, false);
    play_upgrade_case("play-bob02", tl_test_shared("cases/mh-bob02.glb"), true);
    play_upgrade_case("play-skirt", tl_test_shared("cases/mh-suit-skirt.glb"), false);
}

/* A skin whose only part is a pendulum (`tailor rig --pendulum`, no chain): rigged before
 * session 24 it lacks the frame its gravity and H follow; `tailor rig` writes it, and nothing
 * else, equal to what `--pendulum` writes today. */
static void test_play_data_pendulum_frame(void) {
    char fresh[512], old[512], up[512];
    snprintf(fresh, sizeof fresh, "%s", tl_test_scratch("play-pendulum-fresh.glb"));
    snprintf(old, sizeof old, "%s", tl_test_scratch("play-pendulum-old.glb"));
    snprintf(up, sizeof up, "%s", tl_test_scratch("play-pendulum-up.glb"));
    ENSURE(tl_test_cli(NULL, "rig '%s' -o '%s' --force --pendulum Head > /dev/null",
                       tl_test_shared("assets/quaternius-knight/KnightCharacter.glb"), fresh) == 0);
    tl_gltf* a = NULL;
    tl_error err;
    ENSURE_OK(tl_gltf_load(fresh, &a, &err), err);
    uint32_t removed = 0;
    ENSURE_OK(save_older(a, old, &removed, &err), err);
    tl_gltf* c = rig_cli(old, up, NULL);
    ENSURE(c);
    json_t* skin = json_object_get(
        json_object_get(json_array_get(json_object_get(tl_gltf_json(c), "skins"), 0), "extras"),
        "tailor");
    bool frame = json_object_get(skin, "frame") != NULL;
    bool same = json_equal(tl_gltf_json(a), tl_gltf_json(c)) && buffers_equal(a, c);
    printf("  knight with a pendulum on Head: %u play key removed; rigged again: frame %s, the "
           "file %s the fresh rig's\n",
           removed, frame ? "written" : "MISSING", same ? "equal to" : "UNLIKE");
    tl_gltf_destroy(a), tl_gltf_destroy(c);
    ENSURE(removed == 1 && frame && same);
}

/* A frame the user typed by hand (valid to four digits: turned 30 degrees about up, up in
 * integers) on an older hair rig: kept as typed while the colliders, hit_radius and the sheet
 * are written. */
static void test_play_data_keeps_user_frame(void) {
    char fresh[512], old[512], up[512];
    snprintf(fresh, sizeof fresh, "%s", tl_test_scratch("play-user-fresh.glb"));
    snprintf(old, sizeof old, "%s", tl_test_scratch("play-user-old.glb"));
    snprintf(up, sizeof up, "%s", tl_test_scratch("play-user-up.glb"));
    tl_gltf* a = rig_cli(tl_test_shared("cases/mh-bob02.glb"), fresh, NULL);
    ENSURE(a);
    json_t* tailor = json_object_get(
        json_object_get(json_array_get(json_object_get(tl_gltf_json(a), "skins"), 0), "extras"),
        "tailor");
    ENSURE(json_object_get(tailor, "frame"));
    json_t* edited = json_pack("{s:[iii], s:[fff], s:[fff]}", "up", 0, 1, 0, "forward", 0.5, 0.0,
                               0.866, "lateral", 0.866, 0.0, -0.5);
    json_object_set(tailor, "frame", edited);
    uint32_t removed = play_keys_strip(tl_gltf_json(a), false);
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    tl_error err;
    ENSURE_OK(tl_gltf_save(a, old, &save, &err), err);
    tl_gltf_destroy(a);
    tl_gltf* c = rig_cli(old, up, NULL);
    ENSURE(c);
    json_t* skin = json_object_get(
        json_object_get(json_array_get(json_object_get(tl_gltf_json(c), "skins"), 0), "extras"),
        "tailor");
    bool kept = json_equal(json_object_get(skin, "frame"), edited);
    bool sheet = json_array_size(json_object_get(skin, "sheet")) > 0;
    bool colliders = json_array_size(json_object_get(skin, "colliders")) > 0;
    uint32_t radii = 0;
    size_t i;
    json_t* o;
    json_array_foreach(json_object_get(tl_gltf_json(c), "nodes"), i, o) radii +=
        json_object_get(json_object_get(json_object_get(o, "extras"), "tailor"), "hit_radius") != 0;
    json_decref(edited);
    tl_gltf_destroy(c);
    printf("  bob02 with an edited frame, %u keys removed: frame %s, colliders %s, sheet %s, %u "
           "hit_radius\n",
           removed, kept ? "kept" : "REPLACED", colliders ? "written" : "MISSING",
           sheet ? "written" : "MISSING", radii);
    ENSURE_MSG(kept, "the user's frame was replaced");
    ENSURE(sheet && colliders && radii + 2 == removed);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"chain_settings_checked", chain_settings_checked},
        {"cases_one_chain", test_cases_one_chain},
        {"cases_bone_distance_and_path", test_cases_bone_distance_and_path},
        {"root_band", test_root_band},
        {"junction_cases", test_junction_cases},
        {"output_invariants", test_output_invariants},
        {"rigid_mode", test_rigid_mode},
        {"analyze_modes", test_analyze_modes},
        {"controls_unchanged", test_controls_unchanged},
        {"short_tail_on_hips", test_short_tail_on_hips},
        {"two_chains", test_two_chains},
        {"fix_rigid_keeps_hair", test_fix_rigid_keeps_hair},
        {"many_chains_widen_joints", test_many_chains_widen_joints},
        {"samples_every_frame", test_samples_every_frame},
        {"sample_quadruped_tail", test_sample_quadruped_tail},
        {"cli", test_cli},
        {"play_data_brought_up_to_date", test_play_data_brought_up_to_date},
        {"play_data_keeps_user_frame", test_play_data_keeps_user_frame},
        {"play_data_pendulum_frame", test_play_data_pendulum_frame},
        {"clean_file", test_clean_file},
        {"bones_point_at_children", test_bones_point_at_children},
        {"skeleton_distances_match", test_skeleton_distances_match},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
