/* tailor/render.h — a small software rasteriser for thumbnails of a posed character.
 *
 * A tl_renderer draws the skinned meshes of a scene in some pose, and the meshes without a
 * skin at their nodes' posed transforms (props on a bone), into its own image: an
 * orthographic camera, a z-buffer, Lambert shading (one key light from the camera's upper
 * left plus ambient), a base colour per primitive from its material's
 * pbrMetallicRoughness.baseColorFactor (textures are not sampled; a clay grey when the
 * factor is absent), a shadow straight down on the floor, supersampled and resolved to 8-bit sRGB
 * RGBA. No GPU, no printing, no file I/O: the caller writes the pixels (tailor render writes a PNG
 * contact sheet, docs/render.md).
 *
 * Frames: vertices are skinned into the world (= rest-world) frame of tl_scene (scene.h);
 * a camera's axes come from the skin's up, forward and lateral, so "front" is what faces
 * the character whatever the file's up axis (Z-up files included) and units.
 *
 * Ownership: tl_renderer_create allocates everything (image, depth, skinning scratch, the
 * unskinned meshes' vertices and triangles, per-primitive colours); nothing else allocates. The
 * scene must outlive the renderer. Pixels are the caller's (tl_renderer_read copies them out).
 *
 * Example:
 *     tl_render_def def = tl_default_render_def();
 *     tl_renderer* r;
 *     if (tl_renderer_create(scene, &def, &r, &err) != TL_OK) return 1;
 *     tl_pose_sample(pose, scene, clip, 0.5f);        // or tl_player_advance: chains moving
 *     tl_renderer_pose(r, pose);                      // skin every skin
 *     tl_render_camera cam = tl_render_camera_view(&scene->skins[0], TL_VIEW_SIDE, 10.0f);
 *     float lo[3], hi[3];
 *     tl_render_extent_reset(lo, hi);
 *     tl_renderer_extent(r, &cam, lo, hi);            // grow over every pose to be framed
 *     tl_render_camera_fit(&cam, lo, hi, (float)def.width / def.height, 0.05f);
 *     tl_renderer_draw(r, &cam);
 *     tl_renderer_read(r, rgba, 4 * def.width);       // width × height × 4 bytes
 *     tl_renderer_destroy(r);
 */
#ifndef TAILOR_RENDER_H
#define TAILOR_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include <tailor/base.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the camera stands, in the character's own frame (tl_scene_skin up/forward/lateral). */
typedef enum tl_render_view {
    TL_VIEW_FRONT,   /* in front, looking at the face */
    TL_VIEW_SIDE,    /* at the character's right, looking at its right flank */
    TL_VIEW_BACK,    /* behind */
    TL_VIEW_LEFT,    /* at the character's left */
    TL_VIEW_TOP,     /* above, looking down, forward pointing up the image */
    TL_VIEW_QUARTER, /* front-right, 45° round from the front */
    TL_VIEW_COUNT
} tl_render_view;

/* "front", "side", "back", "left", "top", "quarter". Never NULL. */
const char* tl_render_view_string(tl_render_view view);
/* The view by that name, or TL_VIEW_COUNT when unknown. */
tl_render_view tl_render_view_from_string(const char* name);

/* An orthographic camera: the image centre sees `center`, image right is `right`, image up
 * is `up`, and the camera looks along -back (so larger dot(p, back) is nearer). */
typedef struct tl_render_camera {
    float right[3], up[3], back[3]; /* orthonormal, right-handed: right × up = back */
    float center[3];                /* world point at the image centre, scene units */
    float half_height;              /* world distance from the centre to the top edge, scene
                                       units; 1 until tl_render_camera_fit */
} tl_render_camera;

/* A camera for a view of a skin: axes from the skin's frame, tilted down by `elevation`
 * degrees (typical 10; ignored for TL_VIEW_TOP), centred at the origin, half_height 1. */
tl_render_camera tl_render_camera_view(const tl_scene_skin* skin, tl_render_view view,
                                       float elevation);

/* lo = +inf, hi = -inf: an empty extent for tl_renderer_extent to grow. */
void tl_render_extent_reset(float lo[3], float hi[3]);

/* Frames an extent (in camera axes: right, up, back; from tl_renderer_extent): centres it and
 * sets half_height so it fits an image of width / height = `aspect` with `margin` (a fraction
 * of the image, typical 0.05) free on every side. An empty or flat extent keeps the scale. */
void tl_render_camera_fit(tl_render_camera* camera, const float lo[3], const float hi[3],
                          float aspect, float margin);

/* Where a world point lands in an image of width × height: out[0] = x, out[1] = y in pixels
 * (0,0 the top-left corner, y down; pixel centres at +0.5), out[2] = depth (dot with back). */
void tl_render_camera_project(const tl_render_camera* camera, uint32_t width, uint32_t height,
                              const float point[3], float out[3]);

typedef struct tl_render_def {
    uint32_t width, height; /* image size, pixels; 256 × 256 */
    uint32_t samples;       /* supersampling per axis (samples² per pixel), 1..4; 2 */
    float background[3];    /* linear RGB 0..1 of uncovered pixels; (0.93, 0.94, 0.96) */
    float light[3];         /* direction towards the key light in camera axes (right, up,
                               back), any length; (-0.45, 0.65, 0.6): upper left, in front */
    float key;              /* key light intensity, 0..1; 0.75 */
    float ambient;          /* ambient intensity, 0..1; 0.3 */
    float shadow;           /* darkening of the floor under the character (its silhouette
                               dropped straight down onto the plane at the skin's floor),
                               0..1; 0.25 (0: no shadow) */
} tl_render_def;

tl_render_def tl_default_render_def(void);

typedef struct tl_renderer tl_renderer;

/* Allocates a renderer for the scene's skins and unskinned triangle meshes (scene may be
 * NULL: then only tl_renderer_draw_triangles draws). TL_ERROR_ARGUMENT for a zero size,
 * samples out of 1..4 or an image beyond 16384² samples; TL_ERROR_INVALID (file, accessor,
 * element) when an unskinned mesh's accessor is unreadable or an index is past its vertices;
 * TL_ERROR_MEMORY when allocation fails. */
tl_result tl_renderer_create(const tl_scene* scene, const tl_render_def* def, tl_renderer** out,
                             tl_error* err);

void tl_renderer_destroy(tl_renderer* renderer);

/* Skins every skin of the scene in `pose` (world updated) into the renderer's positions,
 * places the unskinned meshes by their nodes' world matrices, and recomputes normals. */
void tl_renderer_pose(tl_renderer* renderer, const tl_pose* pose);

/* The skinned positions of a skin from the last tl_renderer_pose (vertex_count × 3, world). */
const float* tl_renderer_positions(const tl_renderer* renderer, uint32_t skin);

/* Grows lo/hi by every posed vertex (skins and unskinned meshes), in the camera's axes
 * (right, up, back). */
void tl_renderer_extent(const tl_renderer* renderer, const tl_render_camera* camera, float lo[3],
                        float hi[3]);

/* Clears the image to the background and draws every posed mesh, with its shadow. */
void tl_renderer_draw(tl_renderer* renderer, const tl_render_camera* camera);

/* Clears the image to the background and the depth to far. */
void tl_renderer_clear(tl_renderer* renderer);

/* Draws triangles (triangle_count × 3 indices into positions) in linear RGB `color`, depth
 * tested against what is drawn. `normals` (one per vertex, any length) are interpolated
 * (Gouraud); NULL shades each triangle flat. Both faces are lit (winding is not trusted).
 * A pixel centre on an edge two triangles share is drawn once (exact fixed-point edges);
 * triangles with a vertex beyond 2^20 pixels of the image, or not finite, are skipped. */
void tl_renderer_draw_triangles(tl_renderer* renderer, const tl_render_camera* camera,
                                const float* positions, const float* normals,
                                const uint32_t* triangles, uint32_t triangle_count,
                                const float color[3]);

/* Copies the image out: width × height RGBA8 (sRGB, opaque: alpha 255; the background is a
 * colour) with rows `stride` bytes apart. */
void tl_renderer_read(const tl_renderer* renderer, uint8_t* rgba, size_t stride);

/* The fraction of pixels any triangle covers (after the last draw), 0..1. */
float tl_renderer_coverage(const tl_renderer* renderer);

#ifdef __cplusplus
}
#endif

#endif
