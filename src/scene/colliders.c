/* Body colliders fitted to the skin each body bone dominates (include/tailor/colliders.h). */
#include <tailor/colliders.h>
#include <tailor/hair.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mat4.h"
#include "base/order.h"
#include "scene/internal.h"

static int compare_floats(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* A fit's working memory, count + 1 of each: values to take quantiles of, and the sort's keys,
 * order, scratch and sorted copy. */
typedef struct fit_scratch {
    float *values, *sorted;
    uint32_t *keys, *order, *spare;
} fit_scratch;

static bool fit_scratch_make(fit_scratch* f, size_t count) {
    f->values = malloc(sizeof(float) * (count + 1));
    f->sorted = malloc(sizeof(float) * (count + 1));
    f->keys = malloc(sizeof(uint32_t) * (count + 1));
    f->order = malloc(sizeof(uint32_t) * (count + 1));
    f->spare = malloc(sizeof(uint32_t) * (count + 1));
    return f->values && f->sorted && f->keys && f->order && f->spare;
}

static void fit_scratch_free(fit_scratch* f) {
    free(f->values), free(f->sorted), free(f->keys), free(f->order), free(f->spare);
}

/* The q-quantile of f's count values (sorted in place). */
static float quantile(fit_scratch* f, uint32_t count, float q) {
    /* (the radix sort gives qsort's order; qsort itself when a value is NaN) */
    if (!tl_order_floats(f->values, count, f->keys, f->order, f->spare, f->sorted))
        qsort(f->values, count, sizeof *f->values, compare_floats);
    uint32_t k = (uint32_t)(q * (float)(count - 1) + 0.5f);
    return f->values[k < count ? k : count - 1];
}

/* The centroid of points (count x 3 floats) and the sums of their spread's products. */
static void spread(const float* points, uint32_t count, double centre[3], double a[3][3]) {
    centre[0] = centre[1] = centre[2] = 0;
    for (uint32_t v = 0; v < count; ++v)
        for (int c = 0; c < 3; ++c)
            centre[c] += points[3 * v + c] / count;
    memset(a, 0, sizeof(double[3][3]));
    for (uint32_t v = 0; v < count; ++v) {
        double d[3] = {points[3 * v] - centre[0], points[3 * v + 1] - centre[1],
                       points[3 * v + 2] - centre[2]};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                a[r][c] += d[r] * d[c];
    }
}

/* The eigenvectors of the symmetric a (destroyed) by cyclic Jacobi rotations, into axes' rows,
 * the largest eigenvalue first; the eigenvalues into values. */
static void eigen_frame(double a[3][3], double axes[3][3], double values[3]) {
    double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int sweep = 0; sweep < 32; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        if (!(off > 1e-300)) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0) continue;
                double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < 3; ++k) { /* A <- J^T A J, E <- E J */
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq, a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk, a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double ekp = e[k][p], ekq = e[k][q];
                    e[k][p] = c * ekp - s * ekq, e[k][q] = s * ekp + c * ekq;
                }
            }
    }
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (a[order[j]][order[j]] > a[order[i]][order[i]]) {
                int t = order[i];
                order[i] = order[j], order[j] = t;
            }
    for (int k = 0; k < 3; ++k) {
        values[k] = a[order[k]][order[k]];
        for (int c = 0; c < 3; ++c)
            axes[k][c] = e[c][order[k]];
    }
}

void tl_points_principal_frame(const float* points, uint32_t count, double centre[3],
                               double axes[3][3], double variance[3]) {
    assert(points && count > 0);
    double a[3][3];
    spread(points, count, centre, a);
    eigen_frame(a, axes, variance);
    for (int k = 0; k < 3; ++k)
        variance[k] /= count;
}

/* The frame a collider is fitted on: with a bone direction, the bone first and the principal axes
 * of the spread across it after it; else the principal axes, the largest variance first. */
static void fit_frame(const float* points, uint32_t count, const double* bone, double centre[3],
                      double axes[3][3]) {
    double a[3][3], values[3];
    spread(points, count, centre, a);
    double across[3][3];
    memcpy(across, a, sizeof across);
    eigen_frame(a, axes, values);
    if (!bone) return;
    /* the spread projected across the bone: the bone is its null axis */
    double q[3][3], m[3][3] = {{0}}, b[3][3] = {{0}};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            q[r][c] = (r == c) - bone[r] * bone[c];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k)
                m[r][c] += q[r][k] * across[k][c];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k)
                b[r][c] += m[r][k] * q[k][c];
    double turned[3][3];
    eigen_frame(b, turned, values);
    /* of the three, the two least along the bone (a flat spread's second value may be 0 too) */
    int skip = 0;
    for (int k = 1; k < 3; ++k)
        if (fabs(turned[k][0] * bone[0] + turned[k][1] * bone[1] + turned[k][2] * bone[2]) >
            fabs(turned[skip][0] * bone[0] + turned[skip][1] * bone[1] + turned[skip][2] * bone[2]))
            skip = k;
    memcpy(axes[0], bone, sizeof axes[0]);
    for (int k = 0, out = 1; k < 3; ++k) {
        if (k == skip) continue;
        double d = turned[k][0] * bone[0] + turned[k][1] * bone[1] + turned[k][2] * bone[2], n = 0;
        for (int c = 0; c < 3; ++c)
            axes[out][c] = turned[k][c] - d * bone[c], n += axes[out][c] * axes[out][c];
        n = sqrt(n);
        for (int c = 0; c < 3; ++c)
            axes[out][c] /= n > 0 ? n : 1;
        ++out;
    }
}

static double along(const float* point, const double centre[3], const double axis[3]) {
    return (point[0] - centre[0]) * axis[0] + (point[1] - centre[1]) * axis[1] +
           (point[2] - centre[2]) * axis[2];
}

/* One collider around the points: a capsule along the principal axis (the 5th to 95th
 * percentile of the points along it, the 75th percentile of their distances from it as the
 * radius), or an ellipsoid on the principal axes when the cross-section is flat (its half
 * extents differ by more than 1.25x) or the skin is a blob rather than a limb (shorter than
 * the capsule's diameter). *elongated: longer than 6 radii (an ellipsoid's radius here: its wide
 * half extent). False with fewer than 8 points or no thickness. */
static bool fit_one(const float* points, uint32_t count, const double* bone, fit_scratch* scratch,
                    tl_collider* out, bool* elongated) {
    if (count < 8) return false;
    double centre[3], axes[3][3], lo[3], hi[3];
    fit_frame(points, count, bone, centre, axes);
    for (int k = 0; k < 3; ++k) {
        for (uint32_t v = 0; v < count; ++v)
            scratch->values[v] = (float)along(points + 3 * v, centre, axes[k]);
        lo[k] = quantile(scratch, count, 0.05f), hi[k] = quantile(scratch, count, 0.95f);
    }
    for (uint32_t v = 0; v < count; ++v) {
        double t = along(points + 3 * v, centre, axes[0]), d2 = 0;
        for (int c = 0; c < 3; ++c) {
            double d = points[3 * v + c] - centre[c] - t * axes[0][c];
            d2 += d * d;
        }
        scratch->values[v] = (float)sqrt(d2);
    }
    float radius = quantile(scratch, count, 0.75f);
    if (!(radius > 1e-5 * (hi[0] - lo[0]))) return false; /* (a line: rounding is no thickness) */
    double h[3];
    for (int k = 0; k < 3; ++k)
        h[k] = (hi[k] - lo[k]) / 2;
    double wide = fmax(h[1], h[2]), narrow = fmin(h[1], h[2]);
    memset(out, 0, sizeof *out);
    bool ellipsoid =
        narrow > 1e-5 * (hi[0] - lo[0]) && (wide > 1.25 * narrow || hi[0] - lo[0] < 2 * radius);
    double thickness = ellipsoid ? wide : radius; /* across: the capsule's, the wide extent */
    *elongated = hi[0] - lo[0] + 2 * thickness > 6 * thickness;
    if (ellipsoid) {
        /* the ellipsoid through the percentile extents, scaled so that three quarters of the
         * skin lie inside it, as inside the capsule */
        for (uint32_t v = 0; v < count; ++v) {
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
                double q = (along(points + 3 * v, centre, axes[k]) - (lo[k] + hi[k]) / 2) / h[k];
                r2 += q * q;
            }
            scratch->values[v] = (float)sqrt(r2);
        }
        double s = quantile(scratch, count, 0.75f);
        if (!(s > 0)) return false;
        out->shape = TL_COLLIDER_ELLIPSOID;
        for (int c = 0; c < 3; ++c) {
            double x = centre[c];
            for (int k = 0; k < 3; ++k)
                x += (lo[k] + hi[k]) / 2 * axes[k][c];
            out->a[c] = out->b[c] = (float)x;
            for (int k = 0; k < 3; ++k)
                out->axes[k][c] = (float)(s * h[k] * axes[k][c]);
        }
        return true;
    }
    /* (skin is a surface: caps past its ends, not inside them) */
    out->shape = lo[0] < hi[0] ? TL_COLLIDER_CAPSULE : TL_COLLIDER_SPHERE;
    for (int c = 0; c < 3; ++c) {
        out->a[c] = (float)(centre[c] + lo[0] * axes[0][c]);
        out->b[c] = (float)(centre[c] + hi[0] * axes[0][c]);
    }
    out->radius = radius;
    return true;
}

/* fit_one, and an elongated skin split in two at its centroid along the frame's first axis (the
 * bone's, or the principal axis), each half fitted on its own. */
static uint32_t fit_points_on(const float* points, uint32_t count, const double* bone,
                              fit_scratch* scratch, float* half, tl_collider out[2]) {
    bool elongated, unused;
    if (!fit_one(points, count, bone, scratch, &out[0], &elongated)) return 0;
    if (!elongated) return 1;
    double centre[3], axes[3][3];
    fit_frame(points, count, bone, centre, axes);
    tl_collider parts[2];
    uint32_t fitted = 0;
    for (int side = 0; side < 2; ++side) {
        uint32_t m = 0;
        for (uint32_t v = 0; v < count; ++v)
            if ((along(points + 3 * v, centre, axes[0]) < 0) == (side == 0))
                memcpy(half + 3 * m++, points + 3 * v, 12);
        fitted += fit_one(half, m, bone, scratch, &parts[fitted], &unused);
    }
    if (fitted < 2) return 1;
    out[0] = parts[0], out[1] = parts[1];
    return 2;
}

double tl_collider_volume(const tl_collider* c) {
    double len = 0, v = 1;
    for (int k = 0; k < 3; ++k)
        len += ((double)c->b[k] - c->a[k]) * ((double)c->b[k] - c->a[k]);
    if (c->shape == TL_COLLIDER_ELLIPSOID) {
        for (int e = 0; e < 3; ++e)
            v *=
                sqrt((double)c->axes[e][0] * c->axes[e][0] + (double)c->axes[e][1] * c->axes[e][1] +
                     (double)c->axes[e][2] * c->axes[e][2]);
        return 4.0 / 3.0 * v;
    }
    return (double)c->radius * c->radius * (sqrt(len) + 4.0 / 3.0 * c->radius);
}

/* fit_points_on with the bone's frame and with the spread's, keeping the smaller: both hold
 * three quarters of the skin, so the smaller reaches less past it. On round skin (a head, a
 * chest) the spread's long axis points anywhere (the knight's spine capsule lay 56 degrees off
 * its bone, a MakeHuman spine capsule across the torso) and the bone's frame is the tighter; on
 * skin that does not follow its bone (a tail the file binds to a shin) the spread's is. */
static uint32_t fit_points(const float* points, uint32_t count, const double* bone,
                           fit_scratch* scratch, float* half, tl_collider out[2]) {
    uint32_t spread_count = fit_points_on(points, count, NULL, scratch, half, out);
    if (!bone) return spread_count;
    tl_collider along[2];
    uint32_t along_count = fit_points_on(points, count, bone, scratch, half, along);
    double spread_volume = 0, along_volume = 0;
    for (uint32_t k = 0; k < spread_count; ++k)
        spread_volume += tl_collider_volume(&out[k]);
    for (uint32_t k = 0; k < along_count; ++k)
        along_volume += tl_collider_volume(&along[k]);
    if (along_count == 0 || (spread_count > 0 && spread_volume <= along_volume))
        return spread_count;
    memcpy(out, along, sizeof along);
    return along_count;
}

uint32_t tl_colliders_fit_frame(const float* points, uint32_t count, const double* bone,
                                bool choose, tl_collider out[2]) {
    fit_scratch scratch;
    bool made = fit_scratch_make(&scratch, count);
    float* half = malloc(sizeof(float) * 3 * (count + 1));
    uint32_t n = made && half ? (choose ? fit_points : fit_points_on)(points, count, bone, &scratch,
                                                                      half, out)
                              : 0;
    fit_scratch_free(&scratch), free(half);
    return n;
}

tl_result tl_colliders_fit_points(const float* points, uint32_t count, tl_collider out[2],
                                  uint32_t* fitted, tl_error* err) {
    assert((points || count == 0) && out && fitted);
    *fitted = 0;
    fit_scratch scratch;
    bool made = fit_scratch_make(&scratch, count);
    float* half = malloc(sizeof(float) * 3 * (count + 1));
    if (!made || !half) {
        fit_scratch_free(&scratch), free(half);
        return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    }
    *fitted = fit_points(points, count, NULL, &scratch, half, out);
    fit_scratch_free(&scratch), free(half);
    return TL_OK;
}

static bool body_role(tl_role role) {
    return role == TL_ROLE_PELVIS || role == TL_ROLE_SPINE || role == TL_ROLE_CHEST ||
           role == TL_ROLE_NECK || role == TL_ROLE_HEAD || role == TL_ROLE_THIGH ||
           role == TL_ROLE_SHIN || role == TL_ROLE_UPPER_ARM;
}

bool tl_scene_skin_bone_direction(const tl_scene_skin* sk, uint32_t joint, double dir[3]) {
    assert(sk && joint < sk->joint_count && dir);
    const tl_scene_body* body = &sk->body;
    int side = sk->joints[joint].side;
    bool sided = side == TL_SIDE_LEFT || side == TL_SIDE_RIGHT;
    int32_t target = TL_NONE; /* the main joint the bone leads to */
    switch (sk->joints[joint].role) {
    case TL_ROLE_PELVIS:
    case TL_ROLE_SPINE:
    case TL_ROLE_CHEST:
    case TL_ROLE_NECK:
        target = body->head != TL_NONE ? body->head : body->neck;
        break;
    case TL_ROLE_THIGH:
        target = sided ? body->shin[side] : TL_NONE;
        break;
    case TL_ROLE_SHIN:
        target = sided ? body->foot[side] : TL_NONE;
        break;
    case TL_ROLE_UPPER_ARM:
        target = sided ? body->forearm[side] : TL_NONE;
        break;
    default:
        break;
    }
    /* the child of `joint` on the way to the target, else the bone into `joint` */
    int32_t from = (int32_t)joint, to = TL_NONE;
    for (uint32_t depth = 0; target != TL_NONE && depth <= sk->joint_count; ++depth) {
        if (sk->joints[target].parent == (int32_t)joint) {
            to = target;
            break;
        }
        target = sk->joints[target].parent;
    }
    if (to == TL_NONE) to = (int32_t)joint, from = sk->joints[joint].parent;
    if (from == TL_NONE) return false;
    const float *a = sk->joints[from].rest_world + 12, *b = sk->joints[to].rest_world + 12;
    double n = 0;
    for (int c = 0; c < 3; ++c)
        dir[c] = (double)b[c] - a[c], n += dir[c] * dir[c];
    n = sqrt(n);
    if (!(n > 1e-6 * (sk->height > 0 ? sk->height : 1))) return false;
    for (int c = 0; c < 3; ++c)
        dir[c] /= n;
    return true;
}

/* Leaves out (owner UINT32_MAX) the hair: the primitives the hair finder finds
 * (tl_hair_find_primitives: nearly all on the head, a surface of its own), one rule for the fit
 * and the hair. The head-bound cap of a style would otherwise fit into the head's collider
 * (bob01: 4,328 of its 7,072 vertices), so the hair's own volume became body; before this rule
 * was shared, the fit left out only primitives a hair part's bone moved, and kept as body the
 * hair of the short styles and the afro, which get no chain. False when memory fails. */
static bool owner_drop_hair(const tl_scene* scene, uint32_t skin, const uint8_t* given,
                            uint32_t* owner) {
    const tl_scene_skin* sk = &scene->skins[skin];
    uint8_t* found = given ? NULL : calloc(sk->primitive_count + 1, 1);
    if (!given && !found) return false;
    if (found) tl_hair_find_primitives(scene, skin, found);
    const uint8_t* hair = given ? given : found;
    for (uint32_t p = 0; p < sk->primitive_count; ++p) {
        const tl_scene_primitive* prim = &sk->primitives[p];
        for (uint32_t v = prim->first_vertex;
             hair[p] && v < prim->first_vertex + prim->vertex_count; ++v)
            owner[v] = UINT32_MAX;
    }
    free(found);
    return true;
}

tl_result tl_body_skin_mask(const tl_scene* scene, uint32_t skin, uint8_t* body, tl_error* err) {
    assert(scene && skin < scene->skin_count && (body || scene->skins[skin].vertex_count == 0));
    const tl_scene_skin* sk = &scene->skins[skin];
    uint32_t* owner = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
    if (!owner) return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        owner[v] = tl_scene_skin_dominant_joint(sk, v);
    bool ok = owner_drop_hair(scene, skin, NULL, owner);
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        body[v] = owner[v] != UINT32_MAX;
    free(owner);
    return ok ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
}

tl_result tl_body_colliders_bound(const tl_scene* scene, uint32_t skin, tl_body_collider* colliders,
                                  uint32_t count, tl_error* err) {
    assert(scene && skin < scene->skin_count && (colliders || count == 0));
    const tl_scene_skin* sk = &scene->skins[skin];
    float slack = TL_BODY_COLLIDER_SLACK * sk->height;
    uint32_t* owner = malloc(sizeof(uint32_t) * (sk->vertex_count + 1));
    float* points = malloc(sizeof(float) * 3 * (sk->vertex_count + 1));
    uint8_t* ignore = calloc(2 * (size_t)sk->vertex_count + 1, 1);
    uint8_t* exposed = malloc(sk->vertex_count + 1);
    if (!owner || !points || !ignore || !exposed) {
        free(owner), free(points), free(ignore), free(exposed);
        return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    }
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        owner[v] = tl_scene_skin_dominant_joint(sk, v);
    if (!owner_drop_hair(scene, skin, NULL, owner)) {
        free(owner), free(points), free(ignore), free(exposed);
        return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    }
    uint8_t* query = ignore + sk->vertex_count; /* body vertices some collider holds too deep */
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        ignore[v] = owner[v] == UINT32_MAX;
        for (uint32_t c = 0; c < count && !ignore[v] && !query[v]; ++c)
            query[v] =
                owner[v] != colliders[c].joint &&
                tl_collider_depth(&colliders[c].local, sk->rest_positions + 3 * (size_t)v) > slack;
    }
    tl_result res = tl_skin_exposed(scene, skin, ignore, query, exposed, err);
    for (uint32_t c = 0; c < count && res == TL_OK; ++c) {
        uint32_t n = 0;
        for (uint32_t v = 0; v < sk->vertex_count; ++v)
            if (exposed[v] && owner[v] != colliders[c].joint)
                memcpy(points + 3 * (size_t)n++, sk->rest_positions + 3 * (size_t)v, 12);
        tl_collider_bound(&colliders[c].local, points, n, slack);
    }
    free(owner), free(points), free(ignore), free(exposed);
    return res;
}

/* tl_body_colliders_fit, and with `bones` tl_body_colliders_fit_bones; hair: the skin's
 * tl_hair_find_primitives flags when known (NULL: found here). */
static tl_result fit_skin(const tl_scene* scene, uint32_t skin, bool bones, const uint8_t* hair,
                          tl_body_collider* out, uint32_t capacity, uint32_t* count,
                          tl_error* err) {
    assert(scene && skin < scene->skin_count && count && (out || capacity == 0));
    const tl_scene_skin* sk = &scene->skins[skin];
    *count = 0;
    if (sk->vertex_count == 0) return TL_OK;
    float* points = malloc(sizeof(float) * 3 * sk->vertex_count);
    float* half = malloc(sizeof(float) * 3 * sk->vertex_count);
    fit_scratch scratch;
    bool made = fit_scratch_make(&scratch, sk->vertex_count);
    uint32_t* owner = malloc(sizeof(uint32_t) * sk->vertex_count);
    if (!points || !half || !made || !owner) {
        free(points), free(half), fit_scratch_free(&scratch), free(owner);
        return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    }
    for (uint32_t v = 0; v < sk->vertex_count; ++v)
        owner[v] = tl_scene_skin_dominant_joint(sk, v);
    if (!owner_drop_hair(scene, skin, hair, owner)) {
        free(points), free(half), fit_scratch_free(&scratch), free(owner);
        return tl_error_set(err, TL_ERROR_MEMORY, "colliders: out of memory");
    }
    for (uint32_t j = 0; j < sk->joint_count && *count < capacity; ++j) {
        if (!body_role(sk->joints[j].role)) continue;
        uint32_t n = 0;
        for (uint32_t v = 0; v < sk->vertex_count; ++v)
            if (owner[v] == j) memcpy(points + 3 * n++, sk->rest_positions + 3 * (size_t)v, 12);
        tl_collider parts[2];
        double bone[3];
        bool has_bone = bones && tl_scene_skin_bone_direction(sk, j, bone);
        uint32_t part_count = fit_points(points, n, has_bone ? bone : NULL, &scratch, half, parts);
        if (*count + part_count > capacity) part_count = 0;
        for (uint32_t k = 0; k < part_count; ++k) {
            tl_body_collider* b = &out[(*count)++];
            b->joint = j;
            b->role = sk->joints[j].role;
            b->side = sk->joints[j].side;
            b->local = parts[k];
            b->vertices = n;
        }
    }
    free(points), free(half), fit_scratch_free(&scratch), free(owner);
    return TL_OK;
}

tl_result tl_body_colliders_fit(const tl_scene* scene, uint32_t skin, tl_body_collider* out,
                                uint32_t capacity, uint32_t* count, tl_error* err) {
    return fit_skin(scene, skin, false, NULL, out, capacity, count, err);
}

tl_result tl_body_colliders_fit_hair(const tl_scene* scene, uint32_t skin, const uint8_t* hair,
                                     tl_body_collider* out, uint32_t capacity, uint32_t* count,
                                     tl_error* err) {
    return fit_skin(scene, skin, false, hair, out, capacity, count, err);
}

tl_result tl_body_colliders_fit_bones(const tl_scene* scene, uint32_t skin, tl_body_collider* out,
                                      uint32_t capacity, uint32_t* count, tl_error* err) {
    return fit_skin(scene, skin, true, NULL, out, capacity, count, err);
}

void tl_body_colliders_pose(const tl_scene* scene, uint32_t skin, const tl_body_collider* in,
                            uint32_t count, const tl_pose* pose, tl_collider* out) {
    assert(scene && skin < scene->skin_count && pose && (count == 0 || (in && out)));
    const tl_scene_skin* sk = &scene->skins[skin];
    for (uint32_t k = 0; k < count; ++k) {
        const tl_scene_joint* j = &sk->joints[in[k].joint];
        /* world(joint) · rest_world(joint)^-1 */
        double rest[16], inverse[16], now[16], move[16];
        tl_mat4d_from_float(rest, j->rest_world);
        tl_mat4d_invert(inverse, rest);
        tl_mat4d_from_float(now, pose->world + 16 * (size_t)j->node);
        tl_mat4d_mul(move, now, inverse);
        /* (rounded to float first, as the move always was) */
        float m[16];
        tl_mat4d_to_float(m, move);
        tl_mat4d_from_float(move, m);
        tl_collider_transform(&in[k].local, move, &out[k]);
    }
}
