/* Placing a hair asset (hair.md §1): fitted to the head (crown to crown, scaled to the head,
 * pushed out past the head's ellipsoid) and attached to the character as a mesh skinned to the
 * head, which tailor rig's hair step then rigs. Placing, fitting, binding and motion stay four
 * jobs: this file does the first two. */
#include "internal.h"

#include <tailor/colliders.h>
#include <tailor/gltf_json.h>

#include "base/mat4.h"
#include "base/try.h"

#include <stdlib.h>
#include <string.h>

/* The head skin's box in the character's axes (lateral, up, forward): centre and half extents. */
typedef struct head_box {
    float centre[3];
    float half[3]; /* along lateral, up, forward */
    const float* axis[3];
} head_box;

static bool head_box_of(const tl_scene* scene, uint32_t skin, const uint8_t* exclude,
                        head_box* box) {
    const tl_scene_skin* sk = &scene->skins[skin];
    uint8_t* in_head = malloc(sk->joint_count + 1);
    if (!in_head || !hair_head_joints(sk, in_head)) return free(in_head), false;
    box->axis[0] = sk->lateral, box->axis[1] = sk->up, box->axis[2] = sk->forward;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint32_t n = 0;
    for (uint32_t p = 0; p < sk->primitive_count; ++p) {
        if (exclude && exclude[p]) continue;
        const tl_scene_primitive* prim = &sk->primitives[p];
        for (uint32_t v = prim->first_vertex; v < prim->first_vertex + prim->vertex_count; ++v) {
            if (!in_head[tl_scene_skin_dominant_joint(sk, v)]) continue;
            for (int k = 0; k < 3; ++k) {
                float c = tl__dot(sk->rest_positions + 3 * (size_t)v, box->axis[k]);
                lo[k] = c < lo[k] ? c : lo[k];
                hi[k] = c > hi[k] ? c : hi[k];
            }
            n++;
        }
    }
    free(in_head);
    if (n < 4) return false;
    for (int i = 0; i < 3; ++i) {
        box->centre[i] = 0;
        box->half[i] = 0.5f * (hi[i] - lo[i]);
    }
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            box->centre[i] += 0.5f * (lo[k] + hi[k]) * box->axis[k][i];
    return box->half[0] > 0 && box->half[1] > 0 && box->half[2] > 0;
}

/* Pushes p out of a sphere or capsule collider until it lies `margin` outside. */
static void push_out(const tl_collider* c, float margin, float* p) {
    if (tl_collider_depth(c, p) <= -margin) return;
    float q[3]; /* the nearest point of the collider's core */
    if (c->shape == TL_COLLIDER_CAPSULE) {
        float t;
        tl_mesh_segment_distance(p, c->a, c->b, &t);
        for (int k = 0; k < 3; ++k)
            q[k] = c->a[k] + t * (c->b[k] - c->a[k]);
    } else if (c->shape == TL_COLLIDER_SPHERE) {
        memcpy(q, c->a, sizeof q);
    } else {
        return; /* planes: not a head */
    }
    float d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    float l = sqrtf(tl__dot(d, d));
    if (!(l > 0)) return; /* on the core: no direction to push along */
    for (int k = 0; k < 3; ++k)
        p[k] = q[k] + d[k] / l * (c->radius + margin);
}

/* Every vertex out of the head's colliders (colliders.h), by the margin. */
static tl_result push_out_of_head(const tl_scene* scene, uint32_t skin, float margin,
                                  tl_hair_mesh* mesh, tl_error* err) {
    tl_body_collider body[TL_BODY_COLLIDERS_MAX];
    uint32_t n;
    TRY(tl_body_colliders_fit(scene, skin, body, TL_BODY_COLLIDERS_MAX, &n, err));
    tl_pose* pose = tl_pose_create(scene);
    if (!pose) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    tl_pose_set_rest(pose, scene, skin);
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    tl_body_colliders_pose(scene, skin, body, n, pose, world);
    tl_pose_destroy(pose);
    for (uint32_t k = 0; k < n; ++k)
        if (body[k].role == TL_ROLE_HEAD)
            for (uint32_t v = 0; v < mesh->vertex_count; ++v)
                push_out(&world[k], margin, mesh->positions + 3 * (size_t)v);
    return TL_OK;
}

tl_result tl_hair_fit(const tl_scene* scene, uint32_t skin, const uint8_t* exclude, float margin_mm,
                      tl_hair_mesh* mesh, tl_error* err) {
    assert(scene && mesh && skin < scene->skin_count);
    head_box head;
    if (!head_box_of(scene, skin, exclude, &head))
        return tl_error_set(err, TL_ERROR_NOT_FOUND, "skin %u: no head skin to fit the hair to",
                            skin);
    if (mesh->vertex_count == 0) return TL_OK;
    /* the hair's box in the same axes */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        for (int k = 0; k < 3; ++k) {
            float c = tl__dot(mesh->positions + 3 * (size_t)v, head.axis[k]);
            lo[k] = c < lo[k] ? c : lo[k];
            hi[k] = c > hi[k] ? c : hi[k];
        }
    /* scale: the style's width over the head's (a style is wider than its head by its volume,
       which the push-out restores); crown to crown: the tops and the lateral and front-back
       centres meet */
    float width = hi[0] - lo[0];
    float s = width > 0 ? 2 * head.half[0] / width : 1;
    float margin = margin_mm * scene->skins[skin].height / TL_HAIR_HUMAN_MM;
    float crown_hair[3] = {0.5f * (lo[0] + hi[0]), hi[1], 0.5f * (lo[2] + hi[2])};
    float crown_head[3] = {tl__dot(head.centre, head.axis[0]),
                           tl__dot(head.centre, head.axis[1]) + head.half[1] + margin,
                           tl__dot(head.centre, head.axis[2])};
    for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
        float* p = mesh->positions + 3 * (size_t)v;
        float c[3], q[3] = {0, 0, 0};
        for (int k = 0; k < 3; ++k)
            c[k] = crown_head[k] + s * (tl__dot(p, head.axis[k]) - crown_hair[k]);
        /* push out past the head's ellipsoid, grown by the margin */
        float r2 = 0, e[3];
        for (int k = 0; k < 3; ++k) {
            e[k] = (c[k] - tl__dot(head.centre, head.axis[k])) / (head.half[k] + margin);
            r2 += e[k] * e[k];
        }
        if (r2 < 1 && r2 > 0) {
            float f = 1 / sqrtf(r2);
            for (int k = 0; k < 3; ++k)
                c[k] = tl__dot(head.centre, head.axis[k]) + f * e[k] * (head.half[k] + margin);
        }
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < 3; ++i)
                q[i] += c[k] * head.axis[k][i];
        memcpy(p, q, sizeof q);
    }
    return push_out_of_head(scene, skin, margin, mesh, err);
}

tl_result hair_mesh_add(tl_gltf* doc, const tl_scene_skin* sk, const char* name,
                        const float* positions, uint32_t vertex_count, const uint16_t* joints,
                        const float* weights, const uint32_t* indices, size_t index_count, int mode,
                        tl_error* err) {
    size_t n = vertex_count;
    float* bind = malloc(3 * sizeof(float) * (n + 1));
    if (!bind) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    /* rest-world to bind space: M^-1 */
    double M[16], Minv_d[16];
    float Minv[16];
    tl_mat4d_from_float(M, sk->rest_world);
    tl_mat4d_invert(Minv_d, M);
    tl_mat4d_to_float(Minv, Minv_d);
    for (size_t v = 0; v < n; ++v)
        tl_mat4_transform_point(bind + 3 * v, Minv, positions + 3 * v);
    uint32_t acc[4];
    tl_gltf_accessor_def def = tl_default_gltf_accessor_def();
    def.count = n, def.target = 34962;
    def.data = bind, def.type = TL_GLTF_VEC3, def.component_type = TL_GLTF_FLOAT,
    def.min_max = true;
    tl_result r = tl_gltf_accessor_add(doc, &def, &acc[0], err);
    def.min_max = false;
    def.data = joints, def.type = TL_GLTF_VEC4, def.component_type = TL_GLTF_UNSIGNED_SHORT;
    if (r == TL_OK) r = tl_gltf_accessor_add(doc, &def, &acc[1], err);
    def.data = weights, def.component_type = TL_GLTF_FLOAT;
    if (r == TL_OK) r = tl_gltf_accessor_add(doc, &def, &acc[2], err);
    def.data = indices, def.count = index_count;
    def.type = TL_GLTF_SCALAR, def.component_type = TL_GLTF_UNSIGNED_INT, def.target = 34963;
    if (r == TL_OK) r = tl_gltf_accessor_add(doc, &def, &acc[3], err);
    free(bind);
    TRY(r);
    json_t* root = tl_gltf_json(doc);
    json_t* meshes = json_object_get(root, "meshes");
    json_t* nodes = json_object_get(root, "nodes");
    if (!json_is_array(meshes)) json_object_set_new(root, "meshes", meshes = json_array());
    if (!json_is_array(nodes)) json_object_set_new(root, "nodes", nodes = json_array());
    json_t* prim = json_pack("{s:{s:I,s:I,s:I},s:I,s:i}", "attributes", "POSITION",
                             (json_int_t)acc[0], "JOINTS_0", (json_int_t)acc[1], "WEIGHTS_0",
                             (json_int_t)acc[2], "indices", (json_int_t)acc[3], "mode", mode);
    json_array_append_new(meshes, json_pack("{s:s,s:[o]}", "name", name, "primitives", prim));
    json_int_t node = (json_int_t)json_array_size(nodes);
    json_array_append_new(nodes, json_pack("{s:s,s:I,s:I}", "name", name, "mesh",
                                           (json_int_t)json_array_size(meshes) - 1, "skin",
                                           (json_int_t)sk->skin));
    /* a skinned mesh's node is a root of the scene (its own transform is ignored) */
    json_t* scenes = json_object_get(root, "scenes");
    int32_t s = doc->scene != TL_NONE ? doc->scene : 0;
    json_t* roots = json_object_get(json_array_get(scenes, (size_t)s), "nodes");
    if (!json_is_array(roots))
        return tl_error_set(err, TL_ERROR_INVALID, "%s: /scenes/%d: no scene to put the %s in",
                            doc->path, s, name);
    json_array_append_new(roots, json_integer(node));
    return tl_gltf_reindex(doc, err);
}

tl_result tl_hair_attach(tl_gltf* doc, const tl_scene* scene, uint32_t skin,
                         const tl_hair_mesh* mesh, tl_error* err) {
    assert(doc && scene && mesh && skin < scene->skin_count && scene->doc == doc);
    const tl_scene_skin* sk = &scene->skins[skin];
    if (sk->body.head == TL_NONE)
        return tl_error_set(err, TL_ERROR_NOT_FOUND, "skin %u has no head joint", skin);
    if (mesh->vertex_count == 0 || mesh->triangle_count == 0)
        return tl_error_set(err, TL_ERROR_INVALID, "the hair mesh has no triangle");
    size_t n = mesh->vertex_count;
    uint16_t* joints = calloc(4 * n, sizeof(uint16_t));
    float* weights = calloc(4 * n, sizeof(float));
    tl_result r = TL_OK;
    if (!joints || !weights) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (size_t v = 0; r == TL_OK && v < n; ++v) {
        joints[4 * v] = (uint16_t)sk->body.head;
        weights[4 * v] = 1;
    }
    if (r == TL_OK)
        r = hair_mesh_add(doc, sk, "hair", mesh->positions, mesh->vertex_count, joints, weights,
                          mesh->triangles, 3 * (size_t)mesh->triangle_count, 4, err);
    free(joints), free(weights);
    return r;
}
