/* Shared between the files of the scene module; not part of the public API. */
#ifndef TL_SCENE_INTERNAL_H
#define TL_SCENE_INTERNAL_H

#include <tailor/scene.h>

#include "base/mat4.h"

/* Assigns roles, landmarks, axes, height and floor of one skin whose joints (parents,
 * names, rest_world, deforming) and rest_positions are filled in. */
void tl_scene_skin_classify(tl_scene_skin* skin, tl_scene_joint* joints);

#endif
