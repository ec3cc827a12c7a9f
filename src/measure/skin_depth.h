/* How deep a region's vertices go inside the body's posed skin: what a viewer sees of a thigh
 * through a skirt, a tail through a leg or hair through a neck, where the colliders (which stand
 * off the skin) say only how deep the region is in them. Internal to src/measure. */
#ifndef TL_MEASURE_SKIN_DEPTH_H
#define TL_MEASURE_SKIN_DEPTH_H
#include <tailor/measure.h>

typedef struct skin_depth skin_depth;

/* The body: the triangles of `skin` whose three vertices are in `body`. A vertex of region r
 * (`regions[r]`, union vertices) is measured when it is not inside that skin at rest (a point
 * the skin's modelled layers already hold inside is not the motion's doing). Depths are found
 * within TL_SKIN_DEPTH_REACH x H of the surface. NULL on memory. */
#define TL_SKIN_DEPTH_REACH 0.05f
skin_depth* skin_depth_create(const tl_scene* scene, uint32_t skin, const uint8_t* const* regions,
                              uint32_t region_count, const uint8_t* body);

/* One sample: the skin posed by `pose` (`scene`'s weights; any scene with the same skin union
 * and triangles); each region keeps its deepest. False on memory. */
bool skin_depth_add(skin_depth* d, const tl_scene* scene, const tl_pose* pose);

/* Region r's deepest vertex inside the body skin over the samples since the last clear, in the
 * skin's world units (0: none inside). */
float skin_depth_deepest(const skin_depth* d, uint32_t r);
void skin_depth_clear(skin_depth* d);
void skin_depth_destroy(skin_depth* d);
#endif
