/* Writing a cloth part (docs/schema.md, kind "cloth"): one joint node per lattice bone, columns
 * of bones hanging from the attachment joint (bone (r, b) the parent of (r + 1, b)), each bone's
 * bind frame from the rest particles (cloth.md §1: x to the particle below, y from the left
 * neighbour to the right one, z = x cross y, orthonormalised), and on bone (0, 0) the part's
 * record: its bones, the lattice in bind space with each particle's reference joint, and the
 * cloth settings. */
#include "internal.h"
#include "base/mat4.h"
#include <tailor/gltf_json.h>
#include "scene/schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double det3(const double m[16]) {
    return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
           m[8] * (m[1] * m[6] - m[5] * m[2]);
}

static void to_bind(const double Minv[16], const float* p, double out[3]) {
    for (int r = 0; r < 3; ++r)
        out[r] = Minv[r] * p[0] + Minv[4 + r] * p[1] + Minv[8 + r] * p[2] + Minv[12 + r];
}

static double unit3(double v[3]) {
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k)
        v[k] = l > 0 ? v[k] / l : 0;
    return l;
}

/* The bind matrix of bone (r, c) in bind space, with the attachment's bind scale. */
static void bone_bind(const tl_rig_cloth* cl, const double* bind_particles, uint32_t r, uint32_t c,
                      double scale, bool mirrored, double B[16]) {
    uint32_t C = cl->columns, i = r * C + c;
    uint32_t left = c > 0 ? i - 1 : (cl->closed ? i + C - 1 : i);
    uint32_t right = c + 1 < C ? i + 1 : (cl->closed ? i - C + 1 : i);
    const double *h = bind_particles + 3 * i, *below = bind_particles + 3 * (i + C);
    double x[3], y[3], z[3];
    for (int k = 0; k < 3; ++k)
        x[k] = below[k] - h[k], y[k] = bind_particles[3 * right + k] - bind_particles[3 * left + k];
    unit3(x);
    double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    for (int k = 0; k < 3; ++k)
        y[k] -= d * x[k];
    if (unit3(y) < 1e-12) { /* no width: any perpendicular */
        double a[3] = {fabs(x[0]) < 0.9 ? 1 : 0, fabs(x[0]) < 0.9 ? 0 : 1, 0};
        double e = a[0] * x[0] + a[1] * x[1];
        for (int k = 0; k < 3; ++k)
            y[k] = a[k] - e * x[k];
        unit3(y);
    }
    z[0] = x[1] * y[2] - x[2] * y[1], z[1] = x[2] * y[0] - x[0] * y[2],
    z[2] = x[0] * y[1] - x[1] * y[0];
    memset(B, 0, 16 * sizeof *B);
    for (int k = 0; k < 3; ++k) {
        B[k] = scale * (mirrored ? -x[k] : x[k]);
        B[4 + k] = scale * y[k];
        B[8 + k] = scale * z[k];
        B[12 + k] = h[k];
    }
    B[15] = 1;
}

static json_t* settings_json(const tl_cloth_settings* settings) {
    tl_cloth_settings s = *settings;
    json_t* o = json_object();
    json_object_set_new(o, TL_SCHEMA_CLOTH_ITERATIONS, json_integer(s.iterations));
    for (int k = 0; k < TL_SCHEMA_CLOTH_SETTING_COUNT; ++k)
        json_object_set_new(
            o, tl_schema_cloth_settings[k].key,
            json_real((double)*tl_schema_cloth_setting_field(&tl_schema_cloth_settings[k], &s)));
    return o;
}

static json_t* lattice_json(const tl_rig_cloth* cl, const double* bind_particles,
                            const uint32_t* skin_joint_nodes) {
    uint32_t N = cl->rows * cl->columns;
    json_t *o = json_object(), *p = json_array(), *j = json_array();
    for (uint32_t i = 0; i < 3 * N; ++i)
        json_array_append_new(p, json_real((double)(float)bind_particles[i]));
    for (uint32_t i = 0; i < N; ++i)
        json_array_append_new(j,
                              json_integer((json_int_t)skin_joint_nodes[cl->particle_joints[i]]));
    json_object_set_new(o, TL_SCHEMA_CLOTH_ROWS, json_integer(cl->rows));
    json_object_set_new(o, TL_SCHEMA_CLOTH_COLUMNS, json_integer(cl->columns));
    json_object_set_new(o, TL_SCHEMA_CLOTH_CLOSED, json_boolean(cl->closed));
    json_object_set_new(o, TL_SCHEMA_CLOTH_BONE_COLUMNS, json_integer(cl->bone_columns));
    json_object_set_new(o, TL_SCHEMA_CLOTH_PARTICLES, p);
    json_object_set_new(o, TL_SCHEMA_CLOTH_PARTICLE_JOINTS, j);
    json_object_set_new(o, TL_SCHEMA_CLOTH_SETTINGS, settings_json(&cl->settings));
    return o;
}

/* One bone node: its local transform from its parent's inverse bind and its own (as stored). */
static json_t* bone_node(const char* name, const double parent_ibm[16], const float ibm[16]) {
    double stored[16], bind[16], local[16];
    tl_mat4d_from_float(stored, ibm);
    tl_mat4d_invert(bind, stored);
    tl_mat4d_mul(local, parent_ibm, bind);
    json_t* node =
        json_pack("{s:s, s:[f,f,f]}", "name", name, "translation", (double)(float)local[12],
                  (double)(float)local[13], (double)(float)local[14]);
    float local_f[16];
    tl_mat4d_to_float(local_f, local);
    tl_trs trs = tl_trs_from_matrix(local_f);
    if (trs.rotation[3] < 1.0f)
        json_object_set_new(node, "rotation",
                            json_pack("[f,f,f,f]", (double)trs.rotation[0], (double)trs.rotation[1],
                                      (double)trs.rotation[2], (double)trs.rotation[3]));
    return node;
}

bool rig_cloth_add(tl_gltf* doc, const tl_rig_part* part, const uint32_t* skin_joint_nodes,
                   const double Minv[16], const double ibm_attach[16], float* ibm,
                   json_t* skin_joints) {
    const tl_rig_cloth* cl = &part->cloth;
    json_t* nodes = json_object_get(doc->json, "nodes");
    uint32_t attach_node = skin_joint_nodes[part->attach_joint];
    uint32_t BR = cl->rows - 1, BC = cl->bone_columns, N = cl->rows * cl->columns;
    size_t base = json_array_size(nodes);
    double* bp = malloc(3 * (size_t)N * sizeof *bp);
    if (!bp) return false;
    for (uint32_t i = 0; i < N; ++i)
        to_bind(Minv, cl->particles + 3 * i, bp + 3 * i);
    double B_attach[16];
    tl_mat4d_invert(B_attach, ibm_attach);
    double scale = cbrt(fabs(det3(B_attach)));
    bool mirrored = det3(B_attach) < 0;
    json_t *bones = json_array(), *names = json_array();
    for (uint32_t r = 0; r < BR; ++r)
        for (uint32_t b = 0; b < BC; ++b) {
            uint32_t k = r * BC + b;
            double B[16], inv[16];
            bone_bind(cl, bp, r, 2 * b, scale, mirrored, B);
            tl_mat4d_invert(inv, B);
            float* out = ibm + 16 * (size_t)k;
            tl_mat4d_to_float(out, inv);
            out[3] = out[7] = out[11] = 0, out[15] = 1;
            double parent_ibm[16];
            if (r == 0)
                memcpy(parent_ibm, ibm_attach, sizeof parent_ibm);
            else
                tl_mat4d_from_float(parent_ibm, ibm + 16 * (size_t)(k - BC));
            char name[64];
            snprintf(name, sizeof name, "%s_%u_%u", part->bone_prefix, r, b);
            json_t* node = bone_node(name, parent_ibm, out);
            if (r + 1 < BR)
                json_object_set_new(node, "children",
                                    json_pack("[I]", (json_int_t)(base + k + BC)));
            json_array_append_new(nodes, node);
            json_array_append_new(skin_joints, json_integer((json_int_t)(base + k)));
            json_array_append_new(bones, json_integer((json_int_t)(base + k)));
            json_array_append_new(names, json_string(name));
        }
    json_t* tailor = json_object();
    json_object_set_new(tailor, TL_SCHEMA_VERSION_KEY, json_integer(TL_SCHEMA_VERSION));
    json_object_set_new(tailor, TL_SCHEMA_KIND, json_string(tl_part_kind_string(TL_PART_CLOTH)));
    json_object_set_new(tailor, TL_SCHEMA_ATTACHMENT, json_integer((json_int_t)attach_node));
    if (doc->nodes[attach_node].name)
        json_object_set_new(tailor, TL_SCHEMA_ATTACHMENT_NAME,
                            json_string(doc->nodes[attach_node].name));
    json_object_set_new(tailor, TL_SCHEMA_BONES, bones);
    json_object_set_new(tailor, TL_SCHEMA_BONE_NAMES, names);
    json_object_set_new(tailor, TL_SCHEMA_CLOTH, lattice_json(cl, bp, skin_joint_nodes));
    json_object_set_new(json_array_get(nodes, base), "extras",
                        json_pack("{s:o}", TL_SCHEMA_KEY, tailor));
    free(bp);
    json_t* parent = json_array_get(nodes, attach_node);
    json_t* children = json_object_get(parent, "children");
    if (!children) {
        children = json_array();
        json_object_set_new(parent, "children", children);
    }
    for (uint32_t b = 0; b < BC; ++b)
        json_array_append_new(children, json_integer((json_int_t)(base + b)));
    return true;
}
