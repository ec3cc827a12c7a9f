/* 4×4 column-major matrix helpers shared by the modules (not part of the public API).
 * Build-time work runs in double so that rest locals and new inverse binds recompose to
 * float precision. */
#ifndef TL_BASE_MAT4_H
#define TL_BASE_MAT4_H

#include <stdbool.h>

void tl_mat4d_from_float(double out[16], const float m[16]);
void tl_mat4d_to_float(float out[16], const double m[16]);
void tl_mat4d_mul(double out[16], const double a[16], const double b[16]);
/* false when the matrix is singular (out is then the identity) */
bool tl_mat4d_invert(double out[16], const double m[16]);
void tl_mat4_mul(float out[16], const float a[16], const float b[16]);
void tl_mat4_transform_point(float out[3], const float m[16], const float p[3]);

#endif
