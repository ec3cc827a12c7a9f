/* tailor bake: the chains' motion written into the clips as rotation keys (docs/bake.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char* USAGE =
    "usage: tailor bake IN.glb -o OUT.glb [--clips all|A,B] [--rate 30] [--tolerance DEG]\n"
    "                  [--report R.json] [--vrm] [--force]\n"
    "  Simulates each clip with the file's chains (as tailor play, looping from rest), keeps a\n"
    "  cycle whose end meets its start, and writes every chain joint's rotation into the clip,\n"
    "  so viewers without tailor play the motion. The chain joints' node rotations become the\n"
    "  settled rest.\n"
    "  --clips all|A,B   which clips (default all; names case-insensitive)\n"
    "  --rate HZ         samples per second before key reduction (default 30)\n"
    "  --tolerance DEG   a dropped key and the loop's seam are within DEG degrees (default 0.1)\n"
    "  --report FILE     {\"clips\": [{\"clip\", \"cycle_start\", \"keys\", \"max_error\", ...}]}\n"
    "  --vrm             also write the chains as VRM spring bones (docs/vrm.md; a VRM runtime's\n"
    "                    springs then override the baked keys of those joints)\n"
    "  -o -, --report -  standard output (the GLB, or the report; one of them; the summary\n"
    "                    then goes to stderr)\n"
    "  --force           allow OUT to be IN\n";

static long file_size(const char* path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The clips named in "A,B" (or every clip for "all"); 0 or an exit code. */
static int pick_clips(const tl_scene* scene, const char* list, uint32_t* clips, uint32_t* count) {
    *count = 0;
    if (!list || !strcmp(list, "all")) {
        for (uint32_t c = 0; c < scene->clip_count; ++c)
            clips[(*count)++] = c;
        return 0;
    }
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    char* save = NULL;
    for (char* name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        uint32_t c;
        tl_error err; /* as every command: exact, short or case-insensitive; "did you mean" */
        if (tl_scene_find_clip(scene, name, &c, &err) != TL_OK)
            return tl_cli_fail("bake", "%s (--clips)", err.message), 2;
        clips[(*count)++] = c;
    }
    return 0;
}

int tl_cli_bake_document(const char* cmd, tl_gltf* doc, const char* clip_list,
                         const tl_bake_def* def, json_t** report) {
    tl_error err;
    tl_scene* scene = NULL;
    tl_play_chain chains[64];
    uint32_t chain_count = 0, clip_count = 0;
    uint32_t* clips = NULL;
    tl_bake_clip_report* reports = NULL;
    int code = 1;
    *report = NULL;
    if (tl_scene_create(doc, &scene, &err) ||
        tl_play_chains_find(scene, chains, 64, &chain_count, &err)) {
        tl_cli_fail(cmd, "%s", err.message);
        goto done;
    }
    if ((chain_count == 0 && scene->joint_part_count == 0) || chain_count > 64) {
        tl_cli_fail(cmd, "%s: %s", doc->path && *doc->path ? doc->path : "the document",
                    chain_count ? "more than 64 chains" : "no chains (run tailor rig first)");
        goto done;
    }
    if (tl_bake_rest(doc, scene, chains, chain_count, &err) || tl_scene_refresh(scene, &err)) {
        tl_cli_fail(cmd, "%s", err.message);
        goto done;
    }
    clips = calloc(scene->clip_count + 1, sizeof *clips);
    reports = calloc(scene->clip_count + 1, sizeof *reports);
    if (!clips || !reports) {
        tl_cli_fail(cmd, "out of memory");
        goto done;
    }
    if ((code = pick_clips(scene, clip_list, clips, &clip_count))) goto done;
    code = 1;
    json_t* list = json_array();
    *report = json_pack("{s:o,s:f}", "clips", list, "tolerance", (double)def->tolerance_deg);
    for (uint32_t i = 0; i < clip_count; ++i)
        json_array_append_new(list, json_pack("{s:s}", "clip", scene->clips[clips[i]].name));
    if (tl_bake(doc, scene, chains, chain_count, clips, clip_count, def, reports, &err)) {
        tl_cli_fail(cmd, "%s", err.message);
        goto done;
    }
    for (uint32_t i = 0; i < clip_count; ++i) {
        const tl_bake_clip_report* r = &reports[i];
        json_t* o = json_array_get(list, i);
        json_object_set_new(o, "cycle_start", json_real(r->cycle_start));
        json_object_set_new(o, "samples", json_integer(r->samples));
        json_object_set_new(o, "keys", json_integer(r->keys));
        json_object_set_new(o, "max_error", json_real(r->max_error_deg));
        json_object_set_new(o, "loop_error", json_real(r->loop_error_deg));
        json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
    }
    code = 0;
done:
    free(clips);
    free(reports);
    tl_scene_destroy(scene);
    return code;
}

/* The size the output will have: a .glb or .vrm serialised in memory as the writer will write
 * it; -1 for a .gltf (its size is split over the .gltf and its buffers). */
static long output_size(const tl_gltf* doc, const char* out) {
    size_t n = strlen(out);
    bool glb = (n > 4 && !strcmp(out + n - 4, ".glb")) || (n > 4 && !strcmp(out + n - 4, ".vrm")) ||
               tl_cli_is_stdout(out);
    uint8_t* bytes = NULL;
    size_t size = 0;
    tl_error err;
    if (!glb || tl_gltf_save_glb_memory(doc, NULL, &bytes, &size, &err) != TL_OK) return -1;
    free(bytes);
    return (long)size;
}

int tl_cli_bake(int argc, char** argv) {
    const char *in = NULL, *out = NULL, *report_path = NULL, *clip_list = NULL;
    bool force = false, vrm = false;
    tl_bake_def def = tl_default_bake_def();
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (tl_cli_is_help(a)) {
            fputs(USAGE, stdout);
            return 0;
        } else if ((!strcmp(a, "--rate") || !strcmp(a, "--tolerance")) && v) {
            char* end;
            errno = 0;
            double x = strtod(argv[++i], &end);
            bool rate = !strcmp(a, "--rate");
            if (errno || *end || end == v || !(rate ? x >= 1 && x <= 1000 : x >= 0 && x <= 45))
                return tl_cli_fail("bake", "%s: expected %s", a, rate ? "1..1000" : "0..45"), 2;
            *(rate ? &def.rate : &def.tolerance_deg) = (float)x;
        } else if (!strcmp(a, "-o") && v)
            out = argv[++i];
        else if (!strcmp(a, "--report") && v)
            report_path = argv[++i];
        else if (!strcmp(a, "--clips") && v)
            clip_list = argv[++i];
        else if (!strcmp(a, "--force"))
            force = true;
        else if (!strcmp(a, "--vrm"))
            vrm = true;
        else if (a[0] != '-' && !in)
            in = a;
        else
            return tl_cli_fail("bake", "unexpected argument \"%s\" (see --help)", a), 2;
    }
    if (!in || !out) return fprintf(stderr, "%s", USAGE), 2;
    int code = tl_cli_check_outputs("bake", in, NULL, force, out, report_path);
    if (code) return code;
    FILE* summary = tl_cli_is_stdout(out) || tl_cli_is_stdout(report_path) ? stderr : stdout;
    tl_error err;
    tl_gltf* doc = NULL;
    json_t* report = NULL;
    if (tl_gltf_load(in, &doc, &err)) {
        code = tl_cli_fail("bake", "%s", err.message);
        goto done;
    }
    if ((code = tl_cli_bake_document("bake", doc, clip_list, &def, &report))) goto done;
    if (vrm && (code = tl_cli_vrm_document("bake", doc, report, summary))) goto done;
    size_t i;
    json_t* c;
    json_array_foreach(json_object_get(report, "clips"), i, c) {
        fprintf(summary,
                "%s: %d keys of %d samples, cycle from %.3f s, max error %.3g deg, loop %.3g "
                "deg\n",
                json_string_value(json_object_get(c, "clip")),
                (int)json_integer_value(json_object_get(c, "keys")),
                (int)json_integer_value(json_object_get(c, "samples")),
                json_real_value(json_object_get(c, "cycle_start")),
                json_real_value(json_object_get(c, "max_error")),
                json_real_value(json_object_get(c, "loop_error")));
    }
    long before = file_size(in), after = output_size(doc, out);
    fprintf(summary, "%s: %ld bytes -> %s: %ld bytes (+%.1f%%)\n", in, before,
            tl_cli_is_stdout(out) ? "standard output" : out, after,
            before > 0 ? 100.0 * (double)(after - before) / (double)before : 0.0);
    json_object_set_new(report, "bytes_before", json_integer(before));
    if (after >= 0) json_object_set_new(report, "bytes_after", json_integer(after));
    /* The baked file and its report are one output: both renamed into place, or neither. */
    char* report_text =
        report_path ? json_dumps(report, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) : NULL;
    if (report_path && !report_text)
        code = tl_cli_fail("bake", "%s: cannot serialise the report", report_path);
    else
        code = tl_cli_write("bake", doc, in, out, force, false, report_path, report_text);
    free(report_text);
done:
    json_decref(report);
    tl_gltf_destroy(doc);
    return code;
}
