/* The stretch of a cloth region's mesh edges split by direction against its lattice (vertical:
 * along the lattice's columns, down the garment; horizontal: along its rows). Internal to
 * src/measure. */
#ifndef TL_MEASURE_CLOTH_STRETCH_H
#define TL_MEASURE_CLOTH_STRETCH_H
#include <tailor/measure.h>

typedef struct cloth_stretch cloth_stretch;

/* Classes the `edge_count` edges (union index pairs of `skin`) against the part's lattice
 * (its rest particles, bind space) and holds `samples` samples of each. NULL on memory. */
cloth_stretch* cloth_stretch_create(const tl_scene* scene, uint32_t skin, const tl_scene_part* part,
                                    const uint32_t* edges, size_t edge_count, uint32_t samples);
/* One sample: the skin posed by `pose` (the player's bones written into it). */
void cloth_stretch_add(cloth_stretch* cs, const tl_pose* pose);
/* The skin posed by `pose` for cloth_stretch_depth only: no sample taken. */
void cloth_stretch_pose(cloth_stretch* cs, const tl_pose* pose);
/* The deepest of the region's vertices (the edges' ends), as the last sample skinned them, inside
 * any of the `count` world colliders (world units; 0: none inside). */
double cloth_stretch_depth(const cloth_stretch* cs, const tl_collider* colliders, uint32_t count);
/* The two stats over the samples taken. */
void cloth_stretch_stats(cloth_stretch* cs, tl_stretch_stats* vertical,
                         tl_stretch_stats* horizontal);
void cloth_stretch_destroy(cloth_stretch* cs);
#endif
