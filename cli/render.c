/* tailor render: a PNG contact sheet of a clip at chosen times and views, chains simulated. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

static const char* USAGE =
    "usage: tailor render FILE [FILE2] --clip NAME -o OUT.png [--times T1,T2,...]\n"
    "                     [--views front,side,back] [--size WxH] [--compare RIGGED]\n"
    "                     [--samples N] [--elevation DEG] [--shadow S] [--force]\n"
    "  Draws the character at each time of the clip from each view, with every bone chain\n"
    "  the file holds simulated from the clip's start (the same motion as tailor play), and\n"
    "  writes a PNG contact sheet: one row per time, one column per view.\n"
    "  --times T,...     seconds into the clip (default: 1/4, 1/2 and 3/4 of its duration;\n"
    "                    past the end the clip loops, as in tailor play)\n"
    "  --views V,...     front, side (the character's right), back, left, top, quarter\n"
    "                    (default front,side,back)\n"
    "  --size WxH        pixels per cell (default 256x256)\n"
    "  --compare FILE    a second file (e.g. the tailor rig output of FILE): each time gets\n"
    "                    two rows, FILE then the second file, framed by the same camera\n"
    "  --samples N       supersampling per axis, 1..4 (default 2)\n"
    "  --elevation DEG   camera height above the horizontal, degrees (default 10)\n"
    "  --shadow S        floor shadow darkness 0..1 (default 0.25; 0: none)\n"
    "  -o -              write the PNG to standard output\n"
    "  --force           allow OUT to be an input file\n";

#define MAX_TIMES 64
#define MAX_CHAINS 64

typedef struct source {
    const char* path;
    tl_gltf* doc;
    tl_scene* scene;
    tl_renderer* renderer;
    tl_player* player; /* NULL: no chains, the clip as bound */
    tl_pose* pose;
    uint32_t clip;
} source;

static int open_source(source* s, const char* clip_name, const tl_render_def* def) {
    tl_error err;
    tl_play_chain chains[MAX_CHAINS];
    uint32_t count = 0;
    if (tl_gltf_load(s->path, &s->doc, &err) || tl_scene_create(s->doc, &s->scene, &err) ||
        tl_scene_find_clip(s->scene, clip_name, &s->clip, &err) ||
        tl_play_chains_find(s->scene, chains, MAX_CHAINS, &count, &err))
        return tl_cli_fail("render", "%s", err.message);
    if (s->scene->skin_count == 0) return tl_cli_fail("render", "%s: no skinned mesh", s->path);
    if (count > MAX_CHAINS) count = MAX_CHAINS;
    if (count) {
        tl_player_def pdef = tl_default_player_def();
        pdef.loop = true; /* times past the clip's end play it again, as tailor play does */
        if (tl_player_create(s->scene, chains, count, &pdef, &s->player, &err))
            return tl_cli_fail("render", "%s", err.message);
    }
    if (!(s->pose = tl_pose_create(s->scene)))
        return tl_cli_fail("render", "%s: out of memory", s->path);
    if (tl_renderer_create(s->scene, def, &s->renderer, &err))
        return tl_cli_fail("render", "%s", err.message);
    return 0;
}

static void close_source(source* s) {
    tl_renderer_destroy(s->renderer);
    tl_pose_destroy(s->pose);
    tl_player_destroy(s->player);
    tl_scene_destroy(s->scene);
    tl_gltf_destroy(s->doc);
}

/* The pose at `time` and skinned: the chains warmed up from the clip's start in the frames
 * tailor play uses (1/60 s; the player samples the clip every 1/120 s inside them). */
static void pose_at(source* s, double time) {
    double duration = s->scene->clips[s->clip].duration;
    if (!s->player) {
        tl_pose_sample(s->pose, s->scene, s->clip,
                       duration > 0 ? (float)fmod(time, duration) : 0.0f);
    } else {
        tl_player_start(s->player, s->clip, 0.0f);
        long frames = (long)floor(time * 60 + 1e-6);
        for (long f = 1; f <= frames; ++f)
            tl_player_advance(s->player, s->pose, s->clip,
                              duration > 0 ? (float)fmod((double)f / 60, duration) : 0.0f);
        tl_player_advance(s->player, s->pose, s->clip,
                          duration > 0 ? (float)fmod(time, duration) : 0.0f);
    }
    tl_renderer_pose(s->renderer, s->pose);
}

/* The main skin (most vertices) gives the camera its axes. */
static const tl_scene_skin* main_skin(const tl_scene* scene) {
    const tl_scene_skin* best = &scene->skins[0];
    for (uint32_t i = 1; i < scene->skin_count; ++i)
        if (scene->skins[i].vertex_count > best->vertex_count) best = &scene->skins[i];
    return best;
}

typedef struct png_buffer {
    uint8_t* data;
    size_t size, capacity;
    bool failed;
} png_buffer;

static void png_buffer_write(png_structp png, png_bytep bytes, png_size_t n) {
    png_buffer* b = png_get_io_ptr(png);
    if (b->failed) return;
    if (b->size + n > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 65536;
        while (cap < b->size + n)
            cap *= 2;
        uint8_t* grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown, b->capacity = cap;
    }
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
}

static void png_buffer_flush(png_structp png) {
    (void)png;
}

/* The sheet as PNG bytes in memory (the writer then puts them in place, or on stdout). */
static int encode_png(png_buffer* out, const uint8_t* rgba, uint32_t w, uint32_t h) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep* rows = malloc(sizeof(png_bytep) * h);
    if (!png || !info || !rows || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        return tl_cli_fail("render", "could not encode the PNG");
    }
    png_set_write_fn(png, out, png_buffer_write, png_buffer_flush);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 9);
    for (uint32_t y = 0; y < h; ++y)
        rows[y] = (png_bytep)(rgba + (size_t)y * w * 4);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    return out->failed ? tl_cli_fail("render", "out of memory encoding the PNG") : 0;
}

static bool parse_times(const char* list, double* out, uint32_t* count) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    char* save = NULL;
    *count = 0;
    for (char* s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        char* end;
        double t = strtod(s, &end);
        if (*end || end == s || !(t >= 0 && t <= 3600) || *count == MAX_TIMES) return false;
        out[(*count)++] = t;
    }
    return *count > 0;
}

static bool parse_views(const char* list, tl_render_view* out, uint32_t* count) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char* save = NULL;
    *count = 0;
    for (char* s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        tl_render_view v = tl_render_view_from_string(s);
        if (v == TL_VIEW_COUNT || *count == 16) return false;
        out[(*count)++] = v;
    }
    return *count > 0;
}

int tl_cli_render(int argc, char** argv) {
    const char *files[2] = {NULL, NULL}, *clip_name = NULL, *output = NULL;
    const char *times_arg = NULL, *views_arg = "front,side,back";
    uint32_t file_count = 0;
    bool force = false;
    tl_render_def def = tl_default_render_def();
    double elevation = 10;
    for (int i = 1; i < argc; ++i) {
        bool value = i + 1 < argc;
        if (tl_cli_is_help(argv[i]))
            return printf("%s", USAGE), 0;
        else if (!strcmp(argv[i], "--force"))
            force = true;
        else if (!strcmp(argv[i], "--clip") && value)
            clip_name = argv[++i];
        else if (!strcmp(argv[i], "-o") && value)
            output = argv[++i];
        else if (!strcmp(argv[i], "--times") && value)
            times_arg = argv[++i];
        else if (!strcmp(argv[i], "--views") && value)
            views_arg = argv[++i];
        else if (!strcmp(argv[i], "--compare") && value && file_count < 2 && !files[1])
            files[1] = argv[++i];
        else if (!strcmp(argv[i], "--size") && value) {
            unsigned w, h;
            char tail;
            if (sscanf(argv[++i], "%ux%u%c", &w, &h, &tail) != 2 || w < 8 || h < 8 || w > 4096 ||
                h > 4096)
                return tl_cli_fail("render", "--size: expected WxH, 8..4096 each"), 2;
            def.width = w;
            def.height = h;
        } else if (!strcmp(argv[i], "--samples") && value) {
            char* end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 4) return tl_cli_fail("render", "--samples: expected 1..4"), 2;
            def.samples = (uint32_t)n;
        } else if (!strcmp(argv[i], "--shadow") && value) {
            char* end;
            double d = strtod(argv[++i], &end);
            if (*end || !(d >= 0 && d <= 1))
                return tl_cli_fail("render", "--shadow: expected 0..1"), 2;
            def.shadow = (float)d;
        } else if (!strcmp(argv[i], "--elevation") && value) {
            char* end;
            elevation = strtod(argv[++i], &end);
            if (*end || !(elevation >= -89 && elevation <= 89))
                return tl_cli_fail("render", "--elevation: expected -89..89 degrees"), 2;
        } else if (argv[i][0] != '-' && file_count < 2 && !(file_count == 1 && files[1])) {
            files[file_count++] = argv[i];
        } else
            return tl_cli_fail("render", "unexpected argument \"%s\" (see --help)", argv[i]), 2;
    }
    if (!files[0] || !clip_name || !output) return fprintf(stderr, "%s", USAGE), 2;
    uint32_t source_count = files[1] ? 2 : 1;
    int code = tl_cli_check_outputs("render", files[0], files[1], force, output, NULL);
    if (code) return code;
    double times[MAX_TIMES];
    uint32_t time_count = 0;
    if (times_arg && !parse_times(times_arg, times, &time_count))
        return tl_cli_fail("render",
                           "--times: expected seconds 0..3600, comma separated (at most "
                           "%d)",
                           MAX_TIMES),
               2;
    tl_render_view views[16];
    uint32_t view_count = 0;
    if (!parse_views(views_arg, views, &view_count))
        return tl_cli_fail("render",
                           "--views: expected front, side, back, left, top or quarter, comma "
                           "separated (at most 16)"),
               2;

    source sources[2];
    memset(sources, 0, sizeof sources);
    uint8_t* sheet = NULL;
    png_buffer png = {0};
    for (uint32_t k = 0; k < source_count && !code; ++k) {
        sources[k].path = files[k];
        code = open_source(&sources[k], clip_name, &def);
    }
    if (code) goto done;
    if (!times_arg) {
        double d = sources[0].scene->clips[sources[0].clip].duration;
        times[0] = 0.25 * d;
        times[1] = 0.5 * d;
        times[2] = 0.75 * d;
        time_count = 3;
    }

    /* One camera per view, framing every row: the same pixels see the same place. */
    tl_render_camera cameras[16];
    float lo[16][3], hi[16][3];
    const tl_scene_skin* frame = main_skin(sources[0].scene);
    for (uint32_t v = 0; v < view_count; ++v) {
        cameras[v] = tl_render_camera_view(frame, views[v], (float)elevation);
        tl_render_extent_reset(lo[v], hi[v]);
    }
    for (uint32_t t = 0; t < time_count; ++t)
        for (uint32_t k = 0; k < source_count; ++k) {
            pose_at(&sources[k], times[t]);
            for (uint32_t v = 0; v < view_count; ++v)
                tl_renderer_extent(sources[k].renderer, &cameras[v], lo[v], hi[v]);
        }
    float aspect = (float)def.width / (float)def.height;
    for (uint32_t v = 0; v < view_count; ++v)
        tl_render_camera_fit(&cameras[v], lo[v], hi[v], aspect, 0.04f);

    uint32_t rows = time_count * source_count;
    size_t sheet_w = (size_t)def.width * view_count, sheet_h = (size_t)def.height * rows;
    if (sheet_w > 32768 || sheet_h > 32768) {
        code = tl_cli_fail("render", "the sheet would be %zux%zu pixels (at most 32768 a side)",
                           sheet_w, sheet_h);
        goto done;
    }
    sheet = malloc(sheet_w * sheet_h * 4);
    if (!sheet) {
        code = tl_cli_fail("render", "out of memory for a %zux%zu sheet", sheet_w, sheet_h);
        goto done;
    }
    for (uint32_t t = 0; t < time_count; ++t)
        for (uint32_t k = 0; k < source_count; ++k) {
            pose_at(&sources[k], times[t]);
            size_t row = (size_t)t * source_count + k;
            for (uint32_t v = 0; v < view_count; ++v) {
                tl_renderer_draw(sources[k].renderer, &cameras[v]);
                tl_renderer_read(sources[k].renderer,
                                 sheet + (row * def.height * sheet_w + (size_t)v * def.width) * 4,
                                 sheet_w * 4);
            }
        }
    code = encode_png(&png, sheet, (uint32_t)sheet_w, (uint32_t)sheet_h);
    if (!code)
        code = tl_cli_write_data("render", files[0], files[1], force, output, png.data, png.size);
done:
    free(png.data);
    free(sheet);
    for (uint32_t k = 0; k < 2; ++k)
        close_source(&sources[k]);
    return code;
}
