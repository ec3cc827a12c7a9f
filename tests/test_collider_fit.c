/* Body colliders on real skin (include/tailor/colliders.h): each collider's axis against its
 * bone, how far it reaches out of the skin it was fitted to, a round blob that must follow its
 * bone, and the hair the fit leaves out against the hair the hair finder finds. */
#include "test.h"

#include <tailor/hair.h>
#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/internal.h"

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The angle in degrees between two lines (directions of either sign). */
static double line_angle(const double a[3], const double b[3]) {
    double c = fabs(dot3(a, b)) / sqrt(dot3(a, a) * dot3(b, b));
    return acos(fmin(c, 1.0)) * 180 / 3.14159265358979;
}

/* A collider's long axis: a capsule's segment, an ellipsoid's longest semi-axis; false for a
 * sphere. */
static bool collider_axis(const tl_collider* c, double axis[3]) {
    if (c->shape == TL_COLLIDER_CAPSULE) {
        for (int k = 0; k < 3; ++k)
            axis[k] = (double)c->b[k] - c->a[k];
        return dot3(axis, axis) > 0;
    }
    if (c->shape != TL_COLLIDER_ELLIPSOID) return false;
    double best = -1;
    for (int e = 0; e < 3; ++e) {
        double v[3] = {c->axes[e][0], c->axes[e][1], c->axes[e][2]};
        if (dot3(v, v) > best) best = dot3(v, v), memcpy(axis, v, sizeof v);
    }
    return true;
}

/* The angle in degrees from the bone to the nearest of the collider's axes (a capsule's
 * segment, each of an ellipsoid's semi-axes); 0 for a sphere. */
static double bone_axis_angle(const tl_collider* c, const double bone[3]) {
    if (c->shape == TL_COLLIDER_CAPSULE) {
        double axis[3];
        return collider_axis(c, axis) ? line_angle(axis, bone) : 0;
    }
    if (c->shape != TL_COLLIDER_ELLIPSOID) return 0;
    double best = 90;
    for (int e = 0; e < 3; ++e) {
        double v[3] = {c->axes[e][0], c->axes[e][1], c->axes[e][2]};
        if (dot3(v, v) > 0) best = fmin(best, line_angle(v, bone));
    }
    return best;
}

/* The collider's six poles: a capsule's two cap tips and its radius either way across at the
 * centre (two directions), an ellipsoid's centre plus and minus each semi-axis. */
static void collider_poles(const tl_collider* c, float poles[6][3]) {
    double axis[3] = {0, 0, 0}, u[3], w[3], n;
    if (c->shape == TL_COLLIDER_ELLIPSOID) {
        for (int e = 0; e < 3; ++e)
            for (int k = 0; k < 3; ++k) {
                poles[2 * e][k] = c->a[k] + c->axes[e][k];
                poles[2 * e + 1][k] = c->a[k] - c->axes[e][k];
            }
        return;
    }
    if (!collider_axis(c, axis)) axis[1] = 1;
    n = sqrt(dot3(axis, axis));
    for (int k = 0; k < 3; ++k)
        axis[k] /= n;
    double a[3] = {fabs(axis[0]) < 0.9 ? 1 : 0, fabs(axis[0]) < 0.9 ? 0 : 1, 0};
    u[0] = axis[1] * a[2] - axis[2] * a[1], u[1] = axis[2] * a[0] - axis[0] * a[2],
    u[2] = axis[0] * a[1] - axis[1] * a[0];
    n = sqrt(dot3(u, u));
    for (int k = 0; k < 3; ++k)
        u[k] /= n;
    w[0] = axis[1] * u[2] - axis[2] * u[1], w[1] = axis[2] * u[0] - axis[0] * u[2],
    w[2] = axis[0] * u[1] - axis[1] * u[0];
    for (int k = 0; k < 3; ++k) {
        double mid = (c->a[k] + c->b[k]) / 2.0;
        poles[0][k] = (float)(c->a[k] - c->radius * axis[k]);
        poles[1][k] = (float)(c->b[k] + c->radius * axis[k]);
        poles[2][k] = (float)(mid + c->radius * u[k]),
        poles[3][k] = (float)(mid - c->radius * u[k]);
        poles[4][k] = (float)(mid + c->radius * w[k]),
        poles[5][k] = (float)(mid - c->radius * w[k]);
    }
}

/* Area-weighted vertex normals of the rest skin (not unit). */
static float* skin_normals(const tl_scene_skin* sk) {
    float* n = calloc(3 * (size_t)sk->vertex_count + 1, sizeof *n);
    for (uint32_t t = 0; n && t < sk->triangle_count; ++t) {
        const uint32_t* i = sk->triangles + 3 * (size_t)t;
        const float *p = sk->rest_positions + 3 * (size_t)i[0],
                    *q = sk->rest_positions + 3 * (size_t)i[1],
                    *r = sk->rest_positions + 3 * (size_t)i[2];
        float u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        float v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
        float c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                      u[0] * v[1] - u[1] * v[0]};
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < 3; ++d)
                n[3 * (size_t)i[k] + d] += c[d];
    }
    return n;
}

/* How far (over H) the farthest pole of collider c lies outside its own skin: the distance to
 * the nearest vertex of the skin it was fitted to, counted when the pole lies on that vertex's
 * outer side (its normal); 0 when every pole is inside. */
static double pole_reach(const tl_scene_skin* sk, const tl_collider* c, const uint32_t* own,
                         uint32_t n, const float* normals) {
    float poles[6][3];
    collider_poles(c, poles);
    double reach = 0;
    for (int p = 0; p < 6; ++p) {
        double best = INFINITY;
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const float* x = sk->rest_positions + 3 * (size_t)own[i];
            double d2 = 0;
            for (int k = 0; k < 3; ++k)
                d2 += ((double)poles[p][k] - x[k]) * ((double)poles[p][k] - x[k]);
            if (d2 < best) best = d2, at = own[i];
        }
        const float *x = sk->rest_positions + 3 * (size_t)at, *m = normals + 3 * (size_t)at;
        double out = 0;
        for (int k = 0; k < 3; ++k)
            out += ((double)poles[p][k] - x[k]) * m[k];
        if (out > 0) reach = fmax(reach, sqrt(best) / sk->height);
    }
    return reach;
}

/* Per collider of skin 0: role, shape, the two largest variances' ratio of its joint's skin,
 * the angle of the skin's principal axis and of the collider's axis to the bone, the pole
 * reach. Adds to the worst reach, the summed reach and the largest angle from a bone to its
 * collider's nearest axis. */
static void axes_print(const char* name, const tl_scene* scene, bool bones, double* worst_reach,
                       double* worst_angle, double* sum_reach) {
    const tl_scene_skin* sk = &scene->skins[0];
    tl_error err;
    tl_body_collider body[TL_BODY_COLLIDERS_MAX];
    uint32_t n = 0;
    ENSURE_OK((bones ? tl_body_colliders_fit_bones
                     : tl_body_colliders_fit)(scene, 0, body, TL_BODY_COLLIDERS_MAX, &n, &err),
              err);
    uint8_t* mask = malloc(sk->vertex_count + 1);
    uint32_t* own = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
    float* points = malloc(3 * sizeof(float) * (sk->vertex_count + 1));
    float* normals = skin_normals(sk);
    ENSURE(mask && own && points && normals);
    ENSURE_OK(tl_body_skin_mask(scene, 0, mask, &err), err);
    double file_reach = 0;
    for (uint32_t c = 0; c < n; ++c) {
        uint32_t m = 0;
        for (uint32_t v = 0; v < sk->vertex_count; ++v)
            if (mask[v] && tl_scene_skin_dominant_joint(sk, v) == body[c].joint)
                own[m] = v,
                memcpy(points + 3 * (size_t)m++, sk->rest_positions + 3 * (size_t)v, 12);
        double centre[3], axes[3][3], var[3], bone[3], axis[3];
        tl_points_principal_frame(points, m, centre, axes, var);
        bool has_bone = tl_scene_skin_bone_direction(sk, body[c].joint, bone);
        bool has_axis = collider_axis(&body[c].local, axis);
        double ratio = var[1] > 0 ? var[0] / var[1] : INFINITY;
        double spread_angle = has_bone ? line_angle(axes[0], bone) : NAN;
        double fit_angle = has_bone && has_axis ? line_angle(axis, bone) : NAN;
        double reach = pole_reach(sk, &body[c].local, own, m, normals);
        file_reach = fmax(file_reach, reach);
        *sum_reach += reach;
        double off = has_bone ? bone_axis_angle(&body[c].local, bone) : 0;
        *worst_angle = fmax(*worst_angle, off);
        const tl_collider* l = &body[c].local;
        fprintf(stderr,
                "  %-24s %-16s %-9s %-5s %-9s var ratio %6.2f, spread axis %5.1f deg, collider "
                "axis %5.1f deg from the bone (nearest axis %4.1f), poles out %.4f H\n",
                name, sk->joints[body[c].joint].name, tl_role_string(body[c].role),
                tl_side_string(body[c].side),
                l->shape == TL_COLLIDER_ELLIPSOID ? "ellipsoid"
                : l->shape == TL_COLLIDER_CAPSULE ? "capsule"
                                                  : "sphere",
                ratio, spread_angle, fit_angle, off, reach);
    }
    *worst_reach = fmax(*worst_reach, file_reach);
    free(mask), free(own), free(points), free(normals);
}

static const char* mh_cases[] = {"mh-afro01",  "mh-bob01",      "mh-bob02",   "mh-braid01",
                                 "mh-long01",  "mh-ponytail01", "mh-short01", "mh-short02",
                                 "mh-short03", "mh-short04",    "mh-body",    "mh-suit-skirt"};
static const char* tailless[] = {
    "fox-khronos-tailless", "fox-quaternius-tailless", "horse-tailless", "husky-tailless",
    "rat-tailless",         "trex-tailless",           "knight-tailed"};

/* The measure on every shared asset, the MakeHuman cases rigged (their hair is a part then)
 * and the tailless cases rigged, of tl_body_colliders_fit (with TL_FIT_BONES=1 in the
 * environment: of tl_body_colliders_fit_bones); prints, asserts nothing of the figures. */
static void test_axes(void) {
    const char* env = getenv("TL_FIT_BONES");
    bool bones = env && env[0] == '1';
    const char** files;
    size_t count = tl_test_shared_files(&files);
    size_t mh = sizeof mh_cases / sizeof *mh_cases, tl = sizeof tailless / sizeof *tailless;
    double worst_reach = 0, worst_angle = 0, sum_reach = 0;
    for (size_t f = 0; f < count + mh + tl; ++f) {
        const char* path = f < count        ? files[f]
                           : f < count + mh ? tl_test_rigged_case(mh_cases[f - count])
                                            : tl_test_rigged_case(tailless[f - count - mh]);
        ENSURE(path);
        if (f < count && strstr(path, "/cases/")) continue; /* (rigged below) */
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (scene->skin_count)
            axes_print(name, scene, bones, &worst_reach, &worst_angle, &sum_reach);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    fprintf(stderr,
            "  every file: poles out of their own skin at most %.4f H (sum %.4f H), a bone at most "
            "%.2f deg from its collider's nearest axis\n",
            worst_reach, sum_reach, worst_angle);
}

/* On every shared body (the cases rigged), tl_body_colliders_fit_bones gives each body joint a
 * collider no larger than either fit it chooses from, along the bone and on the spread's axes
 * (tl_colliders_fit_frame; both hold three quarters of the skin), and somewhere the bone's frame
 * is the smaller (the spread's axes alone: the knight's spine capsule 0.127 against 0.094). */
static void test_smaller_frame(void) {
    const char** files;
    size_t count = tl_test_shared_files(&files);
    size_t mh = sizeof mh_cases / sizeof *mh_cases, tl = sizeof tailless / sizeof *tailless;
    uint32_t joints = 0, along_smaller = 0;
    double spread_total = 0, chosen_total = 0;
    for (size_t f = 0; f < count + mh + tl; ++f) {
        const char* path = f < count        ? files[f]
                           : f < count + mh ? tl_test_rigged_case(mh_cases[f - count])
                                            : tl_test_rigged_case(tailless[f - count - mh]);
        ENSURE(path);
        if (f < count && strstr(path, "/cases/")) continue;
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        const tl_scene_skin* sk = scene->skin_count ? &scene->skins[0] : NULL;
        tl_body_collider body[TL_BODY_COLLIDERS_MAX];
        uint32_t n = 0;
        if (sk)
            ENSURE_OK(tl_body_colliders_fit_bones(scene, 0, body, TL_BODY_COLLIDERS_MAX, &n, &err),
                      err);
        uint8_t* mask = malloc(sk ? sk->vertex_count + 1 : 1);
        float* points = malloc(3 * sizeof(float) * (sk ? sk->vertex_count + 1 : 1));
        ENSURE(mask && points);
        if (sk) ENSURE_OK(tl_body_skin_mask(scene, 0, mask, &err), err);
        for (uint32_t c = 0; c < n; ++c) {
            if (c > 0 && body[c - 1].joint == body[c].joint) continue; /* (a split bone) */
            uint32_t m = 0;
            for (uint32_t v = 0; v < sk->vertex_count; ++v)
                if (mask[v] && tl_scene_skin_dominant_joint(sk, v) == body[c].joint)
                    memcpy(points + 3 * (size_t)m++, sk->rest_positions + 3 * (size_t)v, 12);
            double bone[3];
            if (!tl_scene_skin_bone_direction(sk, body[c].joint, bone)) continue;
            tl_collider spread[2], along[2];
            uint32_t ns = tl_colliders_fit_frame(points, m, NULL, false, spread);
            uint32_t na = tl_colliders_fit_frame(points, m, bone, false, along);
            double vs = 0, va = 0, chosen = 0;
            for (uint32_t k = 0; k < ns; ++k)
                vs += tl_collider_volume(&spread[k]);
            for (uint32_t k = 0; k < na; ++k)
                va += tl_collider_volume(&along[k]);
            for (uint32_t k = c; k < n && body[k].joint == body[c].joint; ++k)
                chosen += tl_collider_volume(&body[k].local);
            ++joints, along_smaller += na && ns && va < vs;
            spread_total += vs, chosen_total += chosen;
            double least = ns && na ? fmin(vs, va) : ns ? vs : va; /* (of the fits there are) */
            ENSURE_MSG(chosen <= least * (1 + 1e-6), "%s %s: volume %g, spread %g, bone %g", path,
                       sk->joints[body[c].joint].name, chosen, vs, va);
        }
        free(mask), free(points);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    fprintf(stderr,
            "  %u body joints: the bone's frame smaller on %u; summed volume over the spread's "
            "%.4f\n",
            joints, along_smaller, chosen_total / spread_total);
    ENSURE(along_smaller > 0);
}

/* The hair the collider fit leaves out (tl_body_skin_mask) is the hair the hair finder finds
 * (tl_hair_find_primitives), vertex for vertex, on every MakeHuman case rigged (the hair a part
 * then) and on the raw long01 (hair bound to the head, no part yet). Prints both counts. */
static void test_hair_rule(void) {
    size_t mh = sizeof mh_cases / sizeof *mh_cases;
    uint32_t total = 0;
    for (size_t f = 0; f <= mh; ++f) {
        const char* path =
            f < mh ? tl_test_rigged_case(mh_cases[f]) : tl_test_shared("cases/mh-long01.glb");
        ENSURE(path);
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        const tl_scene_skin* sk = &scene->skins[0];
        uint8_t* mask = malloc(sk->vertex_count + 1);
        uint8_t* flags = calloc(sk->primitive_count + 1, 1);
        ENSURE(mask && flags);
        ENSURE_OK(tl_body_skin_mask(scene, 0, mask, &err), err);
        tl_hair_find_primitives(scene, 0, flags);
        uint32_t left_out = 0, found = 0, differ = 0;
        for (uint32_t p = 0; p < sk->primitive_count; ++p)
            for (uint32_t i = 0; i < sk->primitives[p].vertex_count; ++i) {
                uint32_t v = sk->primitives[p].first_vertex + i;
                left_out += !mask[v], found += flags[p], differ += !mask[v] != !!flags[p];
            }
        const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        fprintf(stderr,
                "  %-24s hair left out of the fit %6u, found by the hair finder %6u, differ %u\n",
                name, left_out, found, differ);
        total += differ;
        free(mask), free(flags);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    ENSURE_MSG(total == 0, "%u vertices differ", total);
}

static const tl_test_case cases[] = {
    {"axes", test_axes},
    {"hair_rule", test_hair_rule},
    {"smaller_frame", test_smaller_frame},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
