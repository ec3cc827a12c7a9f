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
           "  --list          list the samples\n");
}

static bool parse_float(const char* s, float* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end) return false;
    *out = (float)v;
    return true;
}

int tl_cli_sample(int argc, char** argv) {
    const char *name = NULL, *out = NULL, *truth_path = NULL;
    tl_sample_def def = tl_default_sample_def();
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
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
    if (!name || !out)
        return tl_cli_fail("sample", "usage: tailor sample NAME -o OUT.glb (see --help)"), 2;
    tl_gltf* doc;
    tl_sample_truth truth;
    tl_error err;
    tl_result r = tl_sample_build(name, &def, &doc, &truth, &err);
    if (r != TL_OK)
        return r == TL_ERROR_ARGUMENT || r == TL_ERROR_NOT_FOUND
                   ? (tl_cli_fail("sample", "%s", err.message), 2)
                   : tl_cli_fail("sample", "%s", err.message);
    /* The character and its truth are one output: both are written, or neither. */
    json_t* j = truth_path ? tl_sample_truth_json(&truth) : NULL;
    char* text = j ? json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    int code = truth_path && !text
                   ? tl_cli_fail("sample", "%s: cannot serialise the truth", truth_path)
                   : tl_cli_write("sample", doc, NULL, out, true, false, truth_path, text);
    free(text);
    tl_sample_truth_free(&truth);
    tl_gltf_destroy(doc);
    return code;
}
