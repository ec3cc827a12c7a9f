/* The software rasteriser and tailor render: coverage and depth order on hand-made quads,
 * views in the character's own frame, every shared case visible from every view in the PNG
 * the command writes, and the tail moving differently once rigged. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <tailor/tailor.h>

/* A camera looking down -Z at the XY plane, 1 world unit = 1 pixel in a 64-pixel-tall image. */
static tl_render_camera plane_camera(void) {
    tl_render_camera c = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 0}, 32};
    return c;
}

/* Two triangles of an axis-aligned rectangle at depth z.
 *   3 ---- 2
 *   |   /  |
 *   0 ---- 1   */
static void rect(float* p, float x0, float y0, float x1, float y1, float z) {
    float v[12] = {x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z};
    memcpy(p, v, sizeof v);
}
static const uint32_t RECT[6] = {0, 1, 2, 0, 2, 3};

/* A 20 × 20 square off the pixel grid covers exactly 400 pixel centres, supersampled or not;
 * cut into 72 irregular triangles it still does (no cracks where triangles meet). Turned by
 * 30°, the count stays within one perimeter of edge pixels of the area. */
static void square_coverage(void) {
    tl_render_def def = tl_default_render_def();
    def.width = def.height = 64;
    for (uint32_t samples = 1; samples <= 2; ++samples) {
        def.samples = samples;
        tl_renderer* r;
        tl_error err;
        ENSURE_OK(tl_renderer_create(NULL, &def, &r, &err), err);
        if (!r) return;
        tl_render_camera cam = plane_camera();
        float p[12];
        rect(p, -10.3f, -5.2f, 9.7f, 14.8f, 0);
        const float white[3] = {1, 1, 1};
        tl_renderer_draw_triangles(r, &cam, p, NULL, RECT, 2, white);
        ENSURE_NEAR(tl_renderer_coverage(r) * 64 * 64, 400.0, 1e-3);
        /* the same square turned by 30° about its centre */
        tl_renderer_clear(r);
        float c = cosf(0.5235988f), s = sinf(0.5235988f);
        for (int k = 0; k < 4; ++k) {
            float x = p[3 * k] + 0.3f, y = p[3 * k + 1] - 4.8f;
            p[3 * k] = c * x - s * y;
            p[3 * k + 1] = s * x + c * y;
        }
        tl_renderer_draw_triangles(r, &cam, p, NULL, RECT, 2, white);
        float covered = tl_renderer_coverage(r) * 64 * 64;
        ENSURE_MSG(fabsf(covered - 400) <= 80 / (float)samples, "turned square covers %.1f px",
                   covered);
        /* the first square again as a 6 × 6 grid of quads whose inner vertices are moved off
         * the grid: 72 triangles meeting at shared edges leave no crack (still 400 pixels) */
        tl_renderer_clear(r);
        float grid[7 * 7 * 3];
        uint32_t tris[6 * 6 * 6], n = 0;
        for (int j = 0; j < 7; ++j)
            for (int i = 0; i < 7; ++i) {
                bool inner = i > 0 && i < 6 && j > 0 && j < 6;
                float jitter = inner ? 0.9f * sinf((float)(i * 7 + j) * 2.3f) : 0;
                grid[3 * (j * 7 + i)] = -10.3f + 20.0f * (float)i / 6 + jitter;
                grid[3 * (j * 7 + i) + 1] = -5.2f + 20.0f * (float)j / 6 - 0.7f * jitter;
                grid[3 * (j * 7 + i) + 2] = 0;
            }
        for (uint32_t j = 0; j < 6; ++j)
            for (uint32_t i = 0; i < 6; ++i) {
                uint32_t q0 = j * 7 + i, q1 = q0 + 1, q2 = q0 + 8, q3 = q0 + 7;
                uint32_t quad[6] = {q0, q1, q2, q0, q2, q3};
                memcpy(tris + n, quad, sizeof quad);
                n += 6;
            }
        tl_renderer_draw_triangles(r, &cam, grid, NULL, tris, n / 3, white);
        ENSURE_NEAR(tl_renderer_coverage(r) * 64 * 64, 400.0, 1e-3);
        tl_renderer_destroy(r);
    }
}

/* A nearer red quad hides a farther blue one whichever is drawn first; where only the blue
 * one lies it shows. Pixels are read back through tl_renderer_read. */
static void depth_order(void) {
    tl_render_def def = tl_default_render_def();
    def.width = def.height = 64;
    def.samples = 1;
    tl_renderer* r;
    tl_error err;
    ENSURE_OK(tl_renderer_create(NULL, &def, &r, &err), err);
    if (!r) return;
    tl_render_camera cam = plane_camera();
    float near[12], far[12];
    rect(near, -10, -10, 10, 10, 1);
    rect(far, -20, -20, 0, 0, -1);
    const float red[3] = {1, 0, 0}, blue[3] = {0, 0, 1};
    uint8_t* img = malloc(64 * 64 * 4);
    for (int order = 0; order < 2; ++order) {
        tl_renderer_clear(r);
        if (order == 0) {
            tl_renderer_draw_triangles(r, &cam, far, NULL, RECT, 2, blue);
            tl_renderer_draw_triangles(r, &cam, near, NULL, RECT, 2, red);
        } else {
            tl_renderer_draw_triangles(r, &cam, near, NULL, RECT, 2, red);
            tl_renderer_draw_triangles(r, &cam, far, NULL, RECT, 2, blue);
        }
        tl_renderer_read(r, img, 64 * 4);
        /* world (-5, -5) is pixel (27, 37): both quads, red in front */
        const uint8_t* both = img + (37 * 64 + 27) * 4;
        ENSURE_MSG(both[0] > 100 && both[2] == 0, "order %d: overlap is (%u, %u, %u)", order,
                   both[0], both[1], both[2]);
        /* world (-15, -15) is pixel (17, 47): blue only */
        const uint8_t* back = img + (47 * 64 + 17) * 4;
        ENSURE_MSG(back[2] > 100 && back[0] == 0, "order %d: blue alone is (%u, %u, %u)", order,
                   back[0], back[1], back[2]);
        /* the corner is background, opaque */
        ENSURE(img[0] > 200 && img[3] == 255);
    }
    free(img);
    tl_renderer_destroy(r);
}

static tl_gltf* load(const char* path, tl_scene** scene) {
    tl_gltf* doc = NULL;
    tl_error err;
    *scene = NULL;
    if (tl_gltf_load(path, &doc, &err) || tl_scene_create(doc, scene, &err))
        tl_test_failf(__FILE__, __LINE__, "%s", err.message);
    return doc;
}

/* Views follow the character's frame, not the file's axes: on a Y-up knight and a Z-up
 * (centimetre) fox, the front view shows the character's left thigh on the image's right and
 * the back view mirrors it; the side view has the character's forward pointing right and its
 * up pointing up (the fox's head, far ahead of its pelvis, lands right of it). */
static void views_follow_the_character(void) {
    const char* files[] = {"cases/knight-tailed.glb", "cases/fox-khronos-tailless.glb"};
    for (int f = 0; f < 2; ++f) {
        tl_scene* scene;
        tl_gltf* doc = load(tl_test_shared(files[f]), &scene);
        if (!scene) {
            tl_gltf_destroy(doc);
            continue;
        }
        const tl_scene_skin* sk = &scene->skins[0];
        const tl_scene_body* b = &sk->body;
        ENSURE(b->head != TL_NONE && b->thigh[0] != TL_NONE && b->pelvis != TL_NONE);
        if (b->head == TL_NONE || b->thigh[0] == TL_NONE || b->pelvis == TL_NONE) continue;
        const float* head = sk->joints[b->head].rest_world + 12;
        const float* left = sk->joints[b->thigh[TL_SIDE_LEFT]].rest_world + 12;
        const float* right = sk->joints[b->thigh[TL_SIDE_RIGHT]].rest_world + 12;
        float hp[3], lp[3], rp[3];
        tl_render_camera front = tl_render_camera_view(sk, TL_VIEW_FRONT, 10);
        tl_render_camera_project(&front, 100, 100, left, lp);
        tl_render_camera_project(&front, 100, 100, right, rp);
        ENSURE_MSG(lp[0] > rp[0], "%s front: left thigh x %.2f, right %.2f", files[f], lp[0],
                   rp[0]);
        tl_render_camera back = tl_render_camera_view(sk, TL_VIEW_BACK, 10);
        tl_render_camera_project(&back, 100, 100, left, lp);
        tl_render_camera_project(&back, 100, 100, right, rp);
        ENSURE_MSG(lp[0] < rp[0], "%s back: left thigh x %.2f, right %.2f", files[f], lp[0], rp[0]);
        /* side: the character's forward points right, its up points up the image */
        tl_render_camera side = tl_render_camera_view(sk, TL_VIEW_SIDE, 0);
        const float* pelvis = sk->joints[b->pelvis].rest_world + 12;
        float ahead[3], above[3], pp[3], fp[3], up[3];
        for (int i = 0; i < 3; ++i) {
            ahead[i] = pelvis[i] + 0.25f * sk->height * sk->forward[i];
            above[i] = pelvis[i] + 0.25f * sk->height * sk->up[i];
        }
        tl_render_camera_project(&side, 100, 100, pelvis, pp);
        tl_render_camera_project(&side, 100, 100, ahead, fp);
        tl_render_camera_project(&side, 100, 100, above, up);
        ENSURE_MSG(fp[0] > pp[0] && fabsf(fp[1] - pp[1]) < 1e-3f * fabsf(fp[0] - pp[0]) + 1e-3f,
                   "%s side: forward goes from (%.3f, %.3f) to (%.3f, %.3f)", files[f], pp[0],
                   pp[1], fp[0], fp[1]);
        ENSURE_MSG(up[1] < pp[1], "%s side: up goes from y %.3f to %.3f", files[f], pp[1], up[1]);
        tl_render_camera_project(&side, 100, 100, head, hp);
        if (f == 1)
            ENSURE_MSG(hp[0] > pp[0] + 10, "%s side: head x %.3f, pelvis x %.3f", files[f], hp[0],
                       pp[0]);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
}

/* Meshes without a skin are drawn where their node is posed: the KayKit knight's helmet,
 * cape, swords and shields hang on its hand, head and chest joints as plain nodes. Drawn
 * with them, the front view covers clearly more than its skinned body alone. */
static void rigid_props_drawn(void) {
    tl_scene* scene;
    tl_gltf* doc = load(tl_test_shared("assets/kaykit-knight/Knight.glb"), &scene);
    if (!scene) {
        tl_gltf_destroy(doc);
        return;
    }
    tl_render_def def = tl_default_render_def();
    def.width = def.height = 96;
    def.samples = 1;
    def.shadow = 0;
    tl_renderer* r;
    tl_error err;
    tl_pose* pose = tl_pose_create(scene);
    ENSURE_OK(tl_renderer_create(scene, &def, &r, &err), err);
    tl_pose_set_stored(pose, scene);
    tl_renderer_pose(r, pose);
    tl_render_camera cam = tl_render_camera_view(&scene->skins[0], TL_VIEW_FRONT, 10);
    float lo[3], hi[3];
    tl_render_extent_reset(lo, hi);
    tl_renderer_extent(r, &cam, lo, hi);
    tl_render_camera_fit(&cam, lo, hi, 1, 0.04f);
    tl_renderer_draw(r, &cam);
    float with_props = tl_renderer_coverage(r);
    tl_renderer_clear(r);
    const float grey[3] = {0.5f, 0.5f, 0.5f};
    for (uint32_t s = 0; s < scene->skin_count; ++s)
        tl_renderer_draw_triangles(r, &cam, tl_renderer_positions(r, s), NULL,
                                   scene->skins[s].triangles, scene->skins[s].triangle_count, grey);
    float body = tl_renderer_coverage(r);
    fprintf(stderr, "    knight front: %.1f%% covered with props, %.1f%% the skins alone\n",
            100 * with_props, 100 * body);
    ENSURE_MSG(body > 0.05f && with_props > 1.2f * body, "with props %.3f, body %.3f", with_props,
               body);
    tl_renderer_destroy(r);
    tl_pose_destroy(pose);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

typedef struct test_case {
    const char* name;
    const char* walk;
} test_case;

/* Every shared tail case with its walk clip. */
static const test_case CASES[] = {
    {"fox-khronos-tailless", "Walk"}, {"fox-quaternius-tailless", "Walk"},
    {"husky-tailless", "Walk"},       {"horse-tailless", "Walk"},
    {"rat-tailless", "Rat_Walk"},     {"trex-tailless", "TRex_Walk"},
    {"knight-tailed", "Walking"},
};
#define CASE_COUNT (sizeof CASES / sizeof CASES[0])

/* The case rigged by the command once per run (scratch/<name>.rigged.glb), or NULL. */
static const char* rigged(const char* name) {
    static char done[CASE_COUNT][4096];
    for (size_t c = 0; c < CASE_COUNT; ++c) {
        if (strcmp(CASES[c].name, name)) continue;
        if (!done[c][0]) {
            char file[256], in[256];
            snprintf(file, sizeof file, "%s.rigged.glb", name);
            snprintf(in, sizeof in, "cases/%s.glb", name);
            const char* out = tl_test_scratch(file);
            int rc = tl_test_cli(NULL, "rig '%s' -o '%s' > /dev/null", tl_test_shared(in), out);
            if (rc) {
                tl_test_failf(__FILE__, __LINE__, "tailor rig %s: exit %d", name, rc);
                return NULL;
            }
            snprintf(done[c], sizeof done[c], "%s", out);
        }
        return done[c];
    }
    return NULL;
}

/* A decoded PNG (RGBA8), or NULL. */
static uint8_t* read_png(const char* path, uint32_t* w, uint32_t* h) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) return NULL;
    image.format = PNG_FORMAT_RGBA;
    uint8_t* pixels = malloc(PNG_IMAGE_SIZE(image));
    if (!pixels || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        png_image_free(&image);
        return NULL;
    }
    *w = image.width;
    *h = image.height;
    return pixels;
}

/* The background as tl_renderer_read writes it. */
static void background_rgb(uint8_t out[3]) {
    tl_render_def def = tl_default_render_def();
    def.width = def.height = 1;
    tl_renderer* r;
    uint8_t px[4] = {0, 0, 0, 0};
    if (tl_renderer_create(NULL, &def, &r, NULL) == TL_OK) {
        tl_renderer_read(r, px, 4);
        tl_renderer_destroy(r);
    }
    memcpy(out, px, 3);
}

/* tailor render of every shared case, compared with its tailor rig output, front, side and
 * back at two times: the PNG decodes at views × cell width by 2 × times × cell height, in
 * every cell the character covers a visible share of the pixels, and in each column the rows
 * together span most of the cell's width or height (framed, not a speck). The command refuses to
 * write over its input. */
static void every_case_visible_per_view(void) {
    const uint32_t cw = 80, ch = 64;
    uint8_t bg[3];
    background_rgb(bg);
    for (size_t c = 0; c < CASE_COUNT; ++c) {
        const char* out_glb = rigged(CASES[c].name);
        if (!out_glb) continue;
        char in[256], png[256];
        snprintf(in, sizeof in, "cases/%s.glb", CASES[c].name);
        snprintf(png, sizeof png, "%s.png", CASES[c].name);
        const char* out = tl_test_scratch(png);
        remove(out);
        int rc = tl_test_cli(NULL,
                             "render '%s' --compare '%s' --clip '%s' --times 0.3,0.6 "
                             "--views front,side,back --size %ux%u --samples 1 --shadow 0 -o '%s'",
                             tl_test_shared(in), out_glb, CASES[c].walk, cw, ch, out);
        ENSURE_MSG(rc == 0, "%s: tailor render exit %d", CASES[c].name, rc);
        uint32_t w = 0, h = 0;
        uint8_t* img = read_png(out, &w, &h);
        ENSURE_MSG(img, "%s: the PNG does not decode", CASES[c].name);
        if (!img) continue;
        ENSURE_MSG(w == 3 * cw && h == 4 * ch, "%s: %ux%u", CASES[c].name, w, h);
        for (uint32_t col = 0; col < 3 && w == 3 * cw && h == 4 * ch; ++col) {
            uint32_t x0 = cw, x1 = 0, y0 = ch, y1 = 0;
            for (uint32_t row = 0; row < 4; ++row) {
                uint32_t covered = 0;
                for (uint32_t y = 0; y < ch; ++y)
                    for (uint32_t x = 0; x < cw; ++x) {
                        const uint8_t* p = img + (((size_t)row * ch + y) * w + col * cw + x) * 4;
                        if (p[0] == bg[0] && p[1] == bg[1] && p[2] == bg[2]) continue;
                        ++covered;
                        x0 = x < x0 ? x : x0;
                        x1 = x > x1 ? x : x1;
                        y0 = y < y0 ? y : y0;
                        y1 = y > y1 ? y : y1;
                    }
                float share = (float)covered / (float)(cw * ch);
                fprintf(stderr, "    %-24s row %u %-5s covered %5.1f%%\n", CASES[c].name, row,
                        col == 0   ? "front"
                        : col == 1 ? "side"
                                   : "back",
                        100 * share);
                ENSURE_MSG(share >= 0.05f, "%s row %u view %u: %.1f%% covered", CASES[c].name, row,
                           col, 100 * share);
            }
            /* the column's camera frames every row: together they fill the cell */
            float span =
                x0 <= x1 ? fmaxf((float)(x1 - x0 + 1) / (float)cw, (float)(y1 - y0 + 1) / (float)ch)
                         : 0;
            fprintf(stderr, "    %-24s %-5s rows span %3.0f%% of the cell\n", CASES[c].name,
                    col == 0   ? "front"
                    : col == 1 ? "side"
                               : "back",
                    100 * span);
            ENSURE_MSG(span >= 0.85f, "%s view %u: the rows span %.0f%% of the cell", CASES[c].name,
                       col, 100 * span);
        }
        free(img);
    }
    /* the input is never the output */
    const char* out_glb = rigged(CASES[0].name);
    if (out_glb) {
        size_t before = 0, after = 0;
        free(tl_test_read_file(out_glb, &before));
        int rc =
            tl_test_cli(NULL, "render '%s' --clip Walk -o '%s' 2> /dev/null", out_glb, out_glb);
        free(tl_test_read_file(out_glb, &after));
        ENSURE_MSG(rc != 0 && before == after && before > 0, "render over its input: exit %d", rc);
    }
}

typedef struct posed {
    tl_gltf* doc;
    tl_scene* scene;
    tl_renderer* renderer;
    tl_player* player;
    tl_pose* pose;
    uint32_t clip;
} posed;

static bool posed_open(posed* s, const char* path, const char* clip, const tl_render_def* def) {
    memset(s, 0, sizeof *s);
    tl_error err;
    s->doc = load(path, &s->scene);
    if (!s->scene) return false;
    tl_play_chain chains[16];
    uint32_t count = 0;
    tl_player_def pdef = tl_default_player_def();
    if (tl_scene_find_clip(s->scene, clip, &s->clip, &err) ||
        tl_play_chains_find(s->scene, chains, 16, &count, &err) ||
        (count && tl_player_create(s->scene, chains, count, &pdef, &s->player, &err)) ||
        tl_renderer_create(s->scene, def, &s->renderer, &err)) {
        tl_test_failf(__FILE__, __LINE__, "%s: %s", path, err.message);
        return false;
    }
    s->pose = tl_pose_create(s->scene);
    return s->pose != NULL;
}

/* The clip at time t, chains (if any) played from the clip's start at the player's step. */
static void posed_at(posed* s, float t) {
    if (s->player) {
        tl_player_start(s->player, s->clip, 0);
        tl_player_advance(s->player, s->pose, s->clip, t);
    } else {
        tl_pose_sample(s->pose, s->scene, s->clip, t);
    }
    tl_renderer_pose(s->renderer, s->pose);
}

static void posed_close(posed* s) {
    tl_renderer_destroy(s->renderer);
    tl_pose_destroy(s->pose);
    tl_player_destroy(s->player);
    tl_scene_destroy(s->scene);
    tl_gltf_destroy(s->doc);
}

/* The truth's tail vertices as union indices of skin 0 (marks[v] = 1). Tailless cases list
 * them per "meshM/primP"; the knight names whole primitives (shells) with their counts. */
static uint32_t tail_marks(const tl_scene* scene, const char* name, uint8_t* marks) {
    char path[256];
    snprintf(path, sizeof path, "cases/%s.truth.json", name);
    json_error_t jerr;
    json_t* truth = json_load_file(tl_test_shared(path), 0, &jerr);
    if (!truth) {
        tl_test_failf(__FILE__, __LINE__, "%s: %s", path, jerr.text);
        return 0;
    }
    const tl_scene_skin* sk = &scene->skins[0];
    uint32_t count = 0;
    json_t* lists = json_object_get(truth, "tail_vertices");
    json_t* shells = json_object_get(truth, "shells");
    for (uint32_t p = 0; p < sk->primitive_count; ++p) {
        const tl_scene_primitive* prim = &sk->primitives[p];
        char key[64];
        snprintf(key, sizeof key, "mesh%u/prim%u", prim->mesh, prim->primitive);
        size_t i;
        json_t* v;
        json_array_foreach(json_object_get(lists, key), i, v) {
            json_int_t k = json_integer_value(v);
            if (k >= 0 && k < (json_int_t)prim->vertex_count) {
                marks[prim->first_vertex + (uint32_t)k] = 1;
                ++count;
            }
        }
        json_array_foreach(shells, i, v) {
            if (json_integer_value(json_object_get(v, "primitive")) != prim->primitive ||
                json_integer_value(json_object_get(v, "vertices")) != prim->vertex_count)
                continue;
            memset(marks + prim->first_vertex, 1, prim->vertex_count);
            count += prim->vertex_count;
        }
    }
    json_decref(truth);
    return count;
}

/* Mid-stride (half the walk clip), from the side, the input (the tail bound to the legs) and
 * its tailor rig output (the tail on a simulated chain) framed by one camera: the tail region
 * (pixels within 2 px of a projected tail vertex of either pose) differs in a good share of
 * its pixels, while the same render repeated differs nowhere (the comparison can tell). */
static void tail_region_differs(void) {
    const uint32_t size = 128;
    tl_render_def def = tl_default_render_def();
    def.width = def.height = size;
    def.samples = 1;
    def.shadow = 0; /* the tail's own pixels, not its shadow */
    uint8_t* a = malloc(size * size * 4);
    uint8_t* b = malloc(size * size * 4);
    uint8_t* mask = malloc(size * size);
    for (size_t c = 0; c < CASE_COUNT; ++c) {
        const char* out_glb = rigged(CASES[c].name);
        if (!out_glb) continue;
        char in[256];
        snprintf(in, sizeof in, "cases/%s.glb", CASES[c].name);
        posed src, dst;
        bool ok = posed_open(&src, tl_test_shared(in), CASES[c].walk, &def);
        ok = posed_open(&dst, out_glb, CASES[c].walk, &def) && ok;
        ENSURE_MSG(dst.player, "%s: the rigged file has no chain", CASES[c].name);
        if (!ok || !dst.player) {
            posed_close(&src);
            posed_close(&dst);
            continue;
        }
        float t = 0.5f * src.scene->clips[src.clip].duration;
        posed_at(&src, t);
        posed_at(&dst, t);
        tl_render_camera cam = tl_render_camera_view(&src.scene->skins[0], TL_VIEW_SIDE, 10);
        float lo[3], hi[3];
        tl_render_extent_reset(lo, hi);
        tl_renderer_extent(src.renderer, &cam, lo, hi);
        tl_renderer_extent(dst.renderer, &cam, lo, hi);
        tl_render_camera_fit(&cam, lo, hi, 1, 0.04f);
        tl_renderer_draw(src.renderer, &cam);
        tl_renderer_read(src.renderer, a, size * 4);
        tl_renderer_draw(dst.renderer, &cam);
        tl_renderer_read(dst.renderer, b, size * 4);

        memset(mask, 0, size * size);
        uint32_t n = src.scene->skins[0].vertex_count;
        ENSURE(dst.scene->skins[0].vertex_count == n);
        uint8_t* marks = calloc(n, 1);
        uint32_t tail = tail_marks(src.scene, CASES[c].name, marks);
        ENSURE_MSG(tail > 0, "%s: no tail vertices in the truth", CASES[c].name);
        for (int which = 0; which < 2 && dst.scene->skins[0].vertex_count == n; ++which) {
            const float* pos = tl_renderer_positions(which ? dst.renderer : src.renderer, 0);
            for (uint32_t v = 0; v < n; ++v) {
                if (!marks[v]) continue;
                float px[3];
                tl_render_camera_project(&cam, size, size, pos + 3 * (size_t)v, px);
                int cx = (int)floorf(px[0]), cy = (int)floorf(px[1]);
                for (int dy = -2; dy <= 2; ++dy)
                    for (int dx = -2; dx <= 2; ++dx) {
                        int x = cx + dx, y = cy + dy;
                        if (x >= 0 && y >= 0 && x < (int)size && y < (int)size)
                            mask[(size_t)y * size + (size_t)x] = 1;
                    }
            }
        }
        free(marks);
        uint32_t region = 0, differ = 0, elsewhere = 0, rest = 0;
        for (size_t i = 0; i < (size_t)size * size; ++i) {
            bool d = abs(a[4 * i] - b[4 * i]) + abs(a[4 * i + 1] - b[4 * i + 1]) +
                         abs(a[4 * i + 2] - b[4 * i + 2]) >
                     24;
            if (mask[i]) {
                ++region;
                differ += d;
            } else {
                ++rest;
                elsewhere += d;
            }
        }
        float share = region ? (float)differ / (float)region : 0;
        fprintf(stderr,
                "    %-24s t %.2f s: tail region %4u px, %5.1f%% differ; elsewhere %.2f%%\n",
                CASES[c].name, t, region, 100 * share, rest ? 100.0 * elsewhere / rest : 0.0);
        ENSURE_MSG(region >= 20, "%s: tail region %u px", CASES[c].name, region);
        ENSURE_MSG(share >= 0.15f, "%s: %.1f%% of the tail region differs", CASES[c].name,
                   100 * share);
        /* the same pose drawn again is the same image */
        tl_renderer_draw(src.renderer, &cam);
        tl_renderer_read(src.renderer, b, size * 4);
        ENSURE_MSG(!memcmp(a, b, (size_t)size * size * 4), "%s: redraw differs", CASES[c].name);
        posed_close(&src);
        posed_close(&dst);
    }
    free(a);
    free(b);
    free(mask);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"square_coverage", square_coverage},
        {"depth_order", depth_order},
        {"views_follow_the_character", views_follow_the_character},
        {"rigid_props_drawn", rigid_props_drawn},
        {"every_case_visible_per_view", every_case_visible_per_view},
        {"tail_region_differs", tail_region_differs},
    };
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
