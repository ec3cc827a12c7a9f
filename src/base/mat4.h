/* The math kit the modules share outside the solver (not part of the public API): 4×4
 * column-major matrices, vectors and (x, y, z, w) quaternions. Build-time work runs in double
 * so that rest locals and new inverse binds recompose to float precision. */
#ifndef TL_BASE_MAT4_H
#define TL_BASE_MAT4_H

#include <stdbool.h>

void tl_mat4d_from_float(double out[16], const float m[16]);
void tl_mat4d_to_float(float out[16], const double m[16]);
void tl_mat4d_mul(double out[16], const double a[16], const double b[16]);
/* false when the matrix is singular (out is then the identity) */
bool tl_mat4d_invert(double out[16], const double m[16]);
/* The inverse in float by cofactors (the adjugate over the determinant), every product and sum
 * rounded in one fixed order (the figures the suite prints after a 100 m teleport depend on
 * those last bits: docs/layout.md). false when the determinant is 0 or not finite (out is then
 * the identity). */
bool tl_mat4_invert(float out[16], const float m[16]);
void tl_mat4_mul(float out[16], const float a[16], const float b[16]);
void tl_mat4_transform_point(float out[3], const float m[16], const float p[3]);
/* A rotation by `radians` about `axis` (any length > 0) through `pivot`. */
void tl_mat4_rotation_about(float out[16], const float pivot[3], float radians,
                            const float axis[3]);

/* The rotation part of a column-major matrix applied transposed (the inverse for an orthogonal
 * rotation, up to scale), normalised: a world direction in the matrix's own frame. */
void tl_mat4_local_direction(const float m[16], const float v[3], float out[3]);

float tl_vec3_distance(const float a[3], const float b[3]);
float tl_quat_dot(const float a[4], const float b[4]);
void tl_quat_conjugate(float out[4], const float q[4]);
/* out = a · b (b first, then a). */
void tl_quat_mul(float out[4], const float a[4], const float b[4]);
/* out = q v q* for a unit q. */
void tl_quat_rotate(float out[3], const float q[4], const float v[3]);

#endif
