/* Shared between the files of the scene module; not part of the public API. */
#ifndef TL_SCENE_INTERNAL_H
#define TL_SCENE_INTERNAL_H

#include <tailor/scene.h>

/* 4×4 column-major helpers. Build-time work runs in double so that rest locals recompose
 * to the inverse bind matrices to float precision. */
void tl_mat4d_from_float(double out[16], const float m[16]);
void tl_mat4d_to_float(float out[16], const double m[16]);
void tl_mat4d_mul(double out[16], const double a[16], const double b[16]);
/* false when the matrix is singular (out is then the identity) */
bool tl_mat4d_invert(double out[16], const double m[16]);
void tl_mat4_mul(float out[16], const float a[16], const float b[16]);
void tl_mat4_transform_point(float out[3], const float m[16], const float p[3]);

/* Assigns roles, landmarks, axes, height and floor of one skin whose joints (parents,
 * names, rest_world, deforming) and rest_positions are filled in. */
void tl_scene_skin_classify(tl_scene_skin* skin, tl_scene_joint* joints);

#endif
