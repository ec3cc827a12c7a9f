/* tailor sample: write a built-in test character (and, optionally, its ground truth). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void help(void) {
    printf("usage: tailor sample NAME -o OUT.glb [--up y|z] [--scale S] [--facing +z|-z]\n"
           "                     [--height H] [--seed N] [--truth TRUTH.json]\n"
           "       tailor sample --list\n"
           "  Writes a procedurally built, skinned and animated character whose tail an\n"
           "  auto-rigger bound to the legs. The same options give the same bytes.\n"
           "  --up y|z        bind space Y-up, or Z-up under an armature node turning -90 deg\n"
           "                  about X, as Blender exports (default y)\n"
           "  --scale S       bind-space units per metre; the armature node scales by 1/S\n"
           "                  (default 1; Quaternius/Blender files: 0.01)\n"
           "  --facing +z|-z  which way the character faces (default +z)\n"
           "  --height H      height in metres, the vertical extent of the skin (default 1.8)\n"
           "  --seed N        vary the proportions by up to about 10%% (default 0: canonical)\n"
           "  --truth FILE    also write the ground truth as JSON: tail vertices per primitive,\n"
           "                  tail root and tip, H, forward, up, the wrong joints\n"
           "  --list          list the samples\n"
           "  -o -, --truth -  standard output (the GLB, or the truth; one of them)\n");
}

static bool parse_float(const char* s, float* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end) return false;
    *out = (float)v;
    return true;
}

static json_t* floats_json(const float* v, size_t n) {
    json_t* a = json_array();
    for (size_t i = 0; i < n; ++i)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

/* The truth as JSON, with the fields of the shared cases' .truth.json where they mean the
 * same: "case", "source" (the command that makes the file), "H", "root", "tail_tip",
 * "forward", "up", "bind_to_world", "tail_parent", "wrong_targets" {thigh_l, thigh_r,
 * shin_l}, "shells" [{mesh, primitive, vertices}], "tail_vertices" {"mesh0/prim0": [...]},
 * plus "tail_length" and "tail_radius". */
static json_t* truth_json(const tl_sample_truth* t) {
    char source[256];
    snprintf(source, sizeof source,
             "tailor sample %s --up %s --scale %.6g --facing %s --height %.6g --seed %u", t->name,
             t->def.up == TL_SAMPLE_Z_UP ? "z" : "y", (double)t->def.scale,
             t->def.facing == TL_SAMPLE_FACING_NEG_Z ? "-z" : "+z", (double)t->def.height,
             t->def.seed);
    json_t* shells = json_array();
    json_t* vertices = json_object();
    for (uint32_t i = 0; i < t->shell_count; ++i) {
        const tl_sample_shell* s = &t->shells[i];
        json_array_append_new(shells, json_pack("{s:s,s:i,s:i,s:i}", "name", s->name, "mesh",
                                                (int)s->mesh, "primitive", (int)s->primitive,
                                                "vertices", (int)s->vertex_count));
        json_t* list = json_array();
        for (uint32_t k = 0; k < s->vertex_count; ++k)
            json_array_append_new(list, json_integer(s->vertices[k]));
        char key[32];
        snprintf(key, sizeof key, "mesh%u/prim%u", s->mesh, s->primitive);
        json_object_set_new(vertices, key, list);
    }
    json_t* j = json_object();
    json_object_set_new(j, "case", json_string(t->name));
    json_object_set_new(j, "source", json_string(source));
    json_object_set_new(j, "H", json_real(t->height));
    json_object_set_new(j, "root", floats_json(t->tail_root, 3));
    json_object_set_new(j, "tail_tip", floats_json(t->tail_tip, 3));
    json_object_set_new(j, "tail_length", json_real(t->tail_length));
    json_object_set_new(j, "tail_radius", json_real(t->tail_radius));
    json_object_set_new(j, "forward", floats_json(t->forward, 3));
    json_object_set_new(j, "up", floats_json(t->up, 3));
    json_object_set_new(j, "bind_to_world", floats_json(t->bind_to_world, 16));
    json_object_set_new(j, "tail_parent", json_string(t->tail_parent));
    json_object_set_new(j, "wrong_targets",
                        json_pack("{s:s,s:s,s:s}", "thigh_l", t->wrong_thigh_l, "thigh_r",
                                  t->wrong_thigh_r, "shin_l", t->wrong_shin_l));
    json_object_set_new(j, "shells", shells);
    json_object_set_new(j, "tail_vertices", vertices);
    return j;
}

int tl_cli_sample(int argc, char** argv) {
    const char *name = NULL, *out = NULL, *truth_path = NULL;
    tl_sample_def def = tl_default_sample_def();
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (tl_cli_is_help(a)) {
            help();
            return 0;
        } else if (!strcmp(a, "--list")) {
            for (uint32_t k = 0; k < tl_sample_count(); ++k)
                printf("%-18s %s\n", tl_sample_name(k), tl_sample_summary(k));
            return 0;
        } else if (!strcmp(a, "-o") && v) {
            out = v, ++i;
        } else if (!strcmp(a, "--truth") && v) {
            truth_path = v, ++i;
        } else if (!strcmp(a, "--up") && v) {
            if (!strcmp(v, "y") || !strcmp(v, "Y"))
                def.up = TL_SAMPLE_Y_UP;
            else if (!strcmp(v, "z") || !strcmp(v, "Z"))
                def.up = TL_SAMPLE_Z_UP;
            else
                return tl_cli_fail("sample", "--up %s: expected y or z", v), 2;
            ++i;
        } else if (!strcmp(a, "--facing") && v) {
            if (!strcmp(v, "+z") || !strcmp(v, "z") || !strcmp(v, "+Z"))
                def.facing = TL_SAMPLE_FACING_POS_Z;
            else if (!strcmp(v, "-z") || !strcmp(v, "-Z"))
                def.facing = TL_SAMPLE_FACING_NEG_Z;
            else
                return tl_cli_fail("sample", "--facing %s: expected +z or -z", v), 2;
            ++i;
        } else if (!strcmp(a, "--scale") && v) {
            if (!parse_float(v, &def.scale))
                return tl_cli_fail("sample", "--scale %s: not a number", v), 2;
            ++i;
        } else if (!strcmp(a, "--height") && v) {
            if (!parse_float(v, &def.height))
                return tl_cli_fail("sample", "--height %s: not a number", v), 2;
            ++i;
        } else if (!strcmp(a, "--seed") && v) {
            char* end;
            errno = 0;
            unsigned long s = strtoul(v, &end, 10);
            if (errno || end == v || *end || s > UINT32_MAX || v[0] == '-')
                return tl_cli_fail("sample", "--seed %s: expected a whole number below 2^32", v), 2;
            def.seed = (uint32_t)s, ++i;
        } else if (a[0] != '-' && !name) {
            name = a;
        } else {
            return tl_cli_fail("sample", "unknown argument \"%s\" (see --help)", a), 2;
        }
    }
    if (!name || !out) return tl_cli_fail("sample", "expected NAME -o OUT.glb (see --help)"), 2;
    int code = tl_cli_check_outputs("sample", NULL, NULL, false, out, truth_path);
    if (code) return code;
    tl_gltf* doc;
    tl_sample_truth truth;
    tl_error err;
    tl_result r = tl_sample_build(name, &def, &doc, &truth, &err);
    if (r != TL_OK)
        return r == TL_ERROR_ARGUMENT || r == TL_ERROR_NOT_FOUND
                   ? (tl_cli_fail("sample", "%s", err.message), 2)
                   : tl_cli_fail("sample", "%s", err.message);
    /* The character and its truth are one output: both are written, or neither. */
    json_t* j = truth_path ? truth_json(&truth) : NULL;
    char* text = j ? json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    code = truth_path && !text
               ? tl_cli_fail("sample", "%s: cannot serialise the truth", truth_path)
               : tl_cli_write("sample", doc, NULL, out, true, false, truth_path, text);
    free(text);
    tl_sample_truth_free(&truth);
    tl_gltf_destroy(doc);
    return code;
}
