/* Body colliders (include/tailor/colliders.h): fits on exact geometry, the colliders tailor rig
 * stores in the file and reads back, and a real tail kept out of a thigh. */
#include "test.h"

#include <tailor/gltf_json.h>
#include <tailor/tailor.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/order.h"
#include "scene/internal.h"

/* ---- fits on exact geometry ---- */

/* A turned frame: rows are the three axes. */
static void turned_frame(double frame[3][3]) {
    double a = 0.7, b = 0.4; /* about z, then about x */
    double rz[3][3] = {{cos(a), sin(a), 0}, {-sin(a), cos(a), 0}, {0, 0, 1}};
    double rx[3][3] = {{1, 0, 0}, {0, cos(b), sin(b)}, {0, -sin(b), cos(b)}};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            frame[r][c] = 0;
            for (int k = 0; k < 3; ++k)
                frame[r][c] += rz[r][k] * rx[k][c];
        }
}

static const double centre[3] = {0.3, 1.1, -0.4};

/* The point centre + sum u_k frame[k]. */
static void place(float* out, double frame[3][3], const double u[3]) {
    for (int c = 0; c < 3; ++c)
        out[c] = (float)(centre[c] + u[0] * frame[0][c] + u[1] * frame[1][c] + u[2] * frame[2][c]);
}

/* n points on the ellipsoid with semi-axes r along the turned frame: a Fibonacci sphere (equal
 * areas) scaled, so each coordinate over r is spread evenly in [-1, 1]. */
static float* ellipsoid_points(uint32_t n, const double r[3], double frame[3][3]) {
    turned_frame(frame);
    float* p = malloc(sizeof(float) * 3 * n);
    for (uint32_t i = 0; i < n; ++i) {
        double z = 1 - (2 * i + 1.0) / n, phi = 2.399963229728653 * i, s = sqrt(1 - z * z);
        double u[3] = {r[0] * z, r[1] * s * cos(phi), r[2] * s * sin(phi)};
        place(p + 3 * i, frame, u);
    }
    return p;
}

/* n points on a cylinder of radius r and length L along the frame's first axis (rings of
 * `around` points). */
static float* cylinder_points(uint32_t rings, uint32_t around, double r, double L,
                              double frame[3][3]) {
    turned_frame(frame);
    float* p = malloc(sizeof(float) * 3 * rings * around);
    for (uint32_t i = 0; i < rings; ++i)
        for (uint32_t k = 0; k < around; ++k) {
            double phi = 6.283185307179586 * k / around;
            double u[3] = {L * ((i + 0.5) / rings - 0.5), r * cos(phi), r * sin(phi)};
            place(p + 3 * (i * around + k), frame, u);
        }
    return p;
}

static double length3(const float v[3]) {
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

/* A flat ellipsoid's skin (semi-axes 0.3, 0.16, 0.1, turned) gets an ellipsoid on its axes with
 * its radii (the scaled sphere spreads every coordinate alike, so the percentile extents are
 * in proportion to the radii) and its centre. */
static void test_fit_ellipsoid(void) {
    const uint32_t n = 4000;
    const double r[3] = {0.3, 0.16, 0.1};
    double frame[3][3];
    float* p = ellipsoid_points(n, r, frame);
    tl_collider out[2];
    uint32_t fitted;
    tl_error err;
    ENSURE_OK(tl_colliders_fit_points(p, n, out, &fitted, &err), err);
    free(p);
    ENSURE(fitted == 1 && out[0].shape == TL_COLLIDER_ELLIPSOID);
    double worst_radius = 0, worst_angle = 0, off = 0;
    for (int k = 0; k < 3; ++k) {
        double len = length3(out[0].axes[k]), dot = 0;
        for (int c = 0; c < 3; ++c)
            dot += out[0].axes[k][c] / len * frame[k][c];
        worst_radius = fmax(worst_radius, fabs(len - r[k]) / r[k]);
        worst_angle = fmax(worst_angle, acos(fmin(1, fabs(dot))));
        off = fmax(off, fabs(out[0].a[k] - centre[k]));
    }
    fprintf(stderr, "  ellipsoid: radii within %.2g, axes within %.2g rad, centre within %.2g\n",
            worst_radius, worst_angle, off);
    ENSURE(worst_radius <= 0.01 && worst_angle <= 1e-3 && off <= 1e-3);
}

/* A round limb (a cylinder of radius 0.05, 0.2 long: with its caps 5.6 radii) gets a capsule
 * on its axis with its radius exactly and its 5th to 95th percentile span; one 0.6 long (12
 * radii) is split into two such capsules, one per half. */
static void test_fit_capsule(void) {
    for (int split = 0; split < 2; ++split) {
        const double radius = 0.05, L = split ? 0.6 : 0.2;
        const uint32_t rings = 200, around = 24;
        double frame[3][3];
        float* p = cylinder_points(rings, around, radius, L, frame);
        tl_collider out[2];
        uint32_t fitted;
        tl_error err;
        ENSURE_OK(tl_colliders_fit_points(p, rings * around, out, &fitted, &err), err);
        free(p);
        ENSURE(fitted == (split ? 2u : 1u));
        double off_axis = 0, worst_radius = 0, span = 0;
        for (uint32_t k = 0; k < fitted; ++k) {
            ENSURE(out[k].shape == TL_COLLIDER_CAPSULE);
            worst_radius = fmax(worst_radius, fabs(out[k].radius - radius) / radius);
            const float* ends[2] = {out[k].a, out[k].b};
            double t[2];
            for (int e = 0; e < 2; ++e) {
                double d[3], along = 0, d2 = 0;
                for (int c = 0; c < 3; ++c)
                    d[c] = ends[e][c] - centre[c], along += d[c] * frame[0][c];
                for (int c = 0; c < 3; ++c)
                    d2 += (d[c] - along * frame[0][c]) * (d[c] - along * frame[0][c]);
                off_axis = fmax(off_axis, sqrt(d2));
                t[e] = along;
            }
            span += fabs(t[1] - t[0]);
        }
        /* the 5th to 95th percentile of each part: 90% of it */
        double want = split ? 2 * 0.9 * (L / 2) : 0.9 * L;
        fprintf(stderr,
                "  cylinder %.2f long: %u capsules, radius within %.2g, ends %.2g off the axis, "
                "span %.4f (%.4f)\n",
                L, fitted, worst_radius, off_axis, span, want);
        ENSURE(worst_radius <= 1e-5 && off_axis <= 1e-5);
        ENSURE(fabs(span - want) <= 0.01 * L);
    }
}

/* The capsule around an ellipsoid (0.3, 0.16, 0.1, turned) holds every point of its surface and
 * touches it at both ends of the longest axis and across the middle one. */
static void test_capsule_around_ellipsoid(void) {
    const uint32_t n = 4000;
    const double r[3] = {0.3, 0.16, 0.1};
    double frame[3][3];
    float* p = ellipsoid_points(n, r, frame);
    tl_collider e = {TL_COLLIDER_ELLIPSOID, {0, 0, 0}, {0, 0, 0}, 0, {{0}}}, c;
    for (int k = 0; k < 3; ++k) {
        e.a[k] = (float)centre[k];
        for (int i = 0; i < 3; ++i)
            e.axes[k][i] = (float)(r[k] * frame[k][i]);
    }
    tl_collider_capsule_around(&e, &c);
    double shallowest = INFINITY; /* the nearest a surface point comes to leaving it */
    for (uint32_t v = 0; v < n; ++v)
        shallowest = fmin(shallowest, tl_collider_depth(&c, p + 3 * v));
    free(p);
    float tip[3], side[3];
    for (int k = 0; k < 3; ++k) {
        tip[k] = (float)(centre[k] + r[0] * frame[0][k]);
        side[k] = (float)(centre[k] + r[1] * frame[1][k]);
    }
    double at_tip = tl_collider_depth(&c, tip), at_side = tl_collider_depth(&c, side);
    fprintf(stderr,
            "  capsule around an ellipsoid: radius %.4f, every surface point inside (the "
            "closest to leaving %.2g inside); the long axis's end %.2g, the middle axis's %.2g "
            "from its surface\n",
            (double)c.radius, shallowest, at_tip, at_side);
    ENSURE(c.shape == TL_COLLIDER_CAPSULE && fabs(c.radius - r[1]) <= 1e-6);
    ENSURE(shallowest >= -1e-6); /* no surface point outside the capsule */
    ENSURE(fabs(at_tip) <= 1e-6 && fabs(at_side) <= 1e-6);
}

/* Points on a line (no thickness) and too few points get none. */
static void test_fit_degenerate(void) {
    float p[3 * 64];
    for (int i = 0; i < 64; ++i)
        p[3 * i] = 0.5f * (float)i, p[3 * i + 1] = 0.25f * (float)i, p[3 * i + 2] = 1;
    tl_collider out[2];
    uint32_t fitted = 9;
    tl_error err;
    ENSURE_OK(tl_colliders_fit_points(p, 64, out, &fitted, &err), err);
    ENSURE(fitted == 0);
    ENSURE_OK(tl_colliders_fit_points(p, 7, out, &fitted, &err), err);
    ENSURE(fitted == 0);
}

/* tl_collider_bound on exact shapes: a point past a capsule's end pulls that end back (radius
 * and the other end kept) until the point lies `slack` deep; a point beside the segment's middle
 * shrinks the radius instead (shortening would cost more); a point off an ellipsoid's centre
 * along one axis scales that semi-axis alone; a point already shallower than the slack changes
 * nothing. */
static void test_bound_one_axis(void) {
    tl_collider cap = {
        .shape = TL_COLLIDER_CAPSULE, .a = {0, 0, 0}, .b = {1, 0, 0}, .radius = 0.2f};
    float past[3] = {1.1f, 0.05f, 0}, slack = 0.01f;
    tl_collider c = cap;
    tl_collider_bound(&c, past, 1, slack);
    ENSURE_NEAR(tl_collider_depth(&c, past), slack, 1e-5);
    ENSURE(c.radius == cap.radius && c.a[0] == 0 && c.b[0] < 1 && c.b[1] == 0);
    float beside[3] = {0.5f, 0.15f, 0};
    c = cap;
    tl_collider_bound(&c, beside, 1, slack);
    ENSURE_NEAR(c.radius, 0.15 + slack, 1e-6);
    ENSURE(c.a[0] == 0 && c.b[0] == 1);
    tl_collider e = {.shape = TL_COLLIDER_ELLIPSOID,
                     .axes = {{0.3f, 0, 0}, {0, 0.2f, 0}, {0, 0, 0.1f}}};
    float up[3] = {0.02f, 0.15f, 0};
    c = e;
    tl_collider_bound(&c, up, 1, slack);
    ENSURE(fabsf(tl_collider_depth(&c, up) - slack) < 1e-4f);
    ENSURE(c.axes[1][1] < 0.2f && c.axes[0][0] == 0.3f && c.axes[2][2] == 0.1f);
    float shallow[3] = {0, 0, 0.095f};
    c = e;
    tl_collider_bound(&c, shallow, 1, slack);
    ENSURE(!memcmp(&c, &e, sizeof c));
}

/* ---- a real tail and a thigh ---- */

/* Deepest particle of chain 0 inside the skin's stored thigh colliders posed at `pose` (over
 * H), after a step. */
static double thigh_penetration(const tl_scene* scene, const tl_player* player,
                                const tl_pose* pose) {
    const tl_play_chain* d = tl_player_chain_desc(player, 0);
    const tl_scene_skin* sk = &scene->skins[d->skin];
    tl_body_collider thighs[TL_BODY_COLLIDERS_MAX];
    uint32_t n = 0;
    for (uint32_t k = 0; k < sk->collider_count; ++k)
        if (sk->colliders[k].role == TL_ROLE_THIGH) thighs[n++] = sk->colliders[k];
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    tl_body_colliders_pose(scene, d->skin, thighs, n, pose, world);
    const float* p = tl_chain_particle_positions(tl_player_chain(player, 0));
    double deepest = -INFINITY;
    for (uint32_t k = 0; k < n; ++k)
        for (uint32_t i = 0; i < d->bone_count; ++i)
            deepest = fmax(deepest, tl_collider_depth(&world[k], p + 3 * i));
    return deepest / sk->height;
}

/* The clip played once at the solver's step (about one internal step a frame, each step end
 * checked): the steps ending with a particle deeper than 0.002 H in a thigh, and the deepest
 * (< 0: the nearest any particle came, as a depth). */
static bool play_against_thighs(const tl_scene* scene, const tl_play_chain* chains, bool with,
                                uint32_t clip, int* deep_steps, double* deepest) {
    tl_player_def def = tl_default_player_def();
    def.colliders = with;
    tl_player* player;
    tl_error err;
    if (tl_player_create(scene, chains, 1, &def, &player, &err) != TL_OK) return false;
    tl_pose* pose = tl_pose_create(scene);
    tl_player_start(player, clip, 0);
    *deep_steps = 0, *deepest = -INFINITY;
    const float dt = def.frame_step, duration = scene->clips[clip].duration;
    uint64_t steps = 0;
    for (int k = 1; (float)k * dt <= duration; ++k) {
        tl_player_advance(player, pose, clip, (float)k * dt);
        /* a frame the solver's clock ran no step in (float rounding of the grid) leaves the
         * last step's particles under colliders posed later: only step ends count */
        uint64_t now = tl_chain_get_stats(tl_player_chain(player, 0)).steps;
        if (now == steps) continue;
        steps = now;
        double d = thigh_penetration(scene, player, pose);
        *deep_steps += d > 0.002;
        *deepest = fmax(*deepest, d);
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    return true;
}

/* A real tail that enters a thigh: the T-rex after `tailor rig`, falling over in its death
 * clip with the tail's default settings. Without colliders its particles end steps deep in a
 * thigh; with the colliders the file stores (the player's default) no particle ends a step
 * inside one (within 1e-5 H of float rounding; issue 11 asks <= 0.002 H). */
static void test_tail_enters_thigh(void) {
    const char* path = tl_test_rigged_case("trex-tailless");
    ENSURE(path);
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    tl_play_chain chains[4];
    uint32_t n, clip;
    ENSURE_OK(tl_play_chains_find(scene, chains, 4, &n, &err), err);
    ENSURE_OK(tl_scene_find_clip(scene, "TRex_Death", &clip, &err), err);
    ENSURE(n == 1 && scene->skins[chains[0].skin].collider_count > 0);
    int steps[2];
    double deepest[2];
    for (int with = 0; with < 2; ++with)
        ENSURE(play_against_thighs(scene, chains, with, clip, &steps[with], &deepest[with]));
    fprintf(stderr,
            "  trex-tailless %s: steps ending with a particle > 0.002 H inside a thigh: without "
            "colliders %d (deepest %.4f H), with them %d (deepest %.5f H)\n",
            scene->clips[clip].name, steps[0], deepest[0], steps[1], deepest[1]);
    ENSURE(steps[0] > 10 && deepest[0] > 0.01);
    ENSURE(steps[1] == 0 && deepest[1] <= 1e-5); /* (float rounding; the issue asks 0.002 H) */
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
}

/* ---- the body's own skin inside its colliders ---- */

/* Exposed skin (tl_skin_exposed) inside one collider, over H: the deepest vertex the
 * collider's joint dominates (its own skin, three quarters inside by the fit) and the deepest
 * other body vertex, at rest and over the clips' sampled poses; how many other vertices lie
 * deeper than the penetration bar at rest, the joint that dominates the deepest one, and the
 * deepest other vertex that is not exposed (inside the body: teeth, a limb's sunk end). */
typedef struct skin_inside {
    double own_rest, other_rest, own_posed, other_posed, hidden_rest;
    uint32_t over_bar, other_joint;
} skin_inside;

/* Depths of the skin's body vertices (hair left out) in the colliders posed as `world`, into
 * the rest or the posed fields. */
static void skin_depths(const tl_scene_skin* sk, const tl_body_collider* body, uint32_t n,
                        const tl_collider* world, const float* positions, const uint8_t* hair,
                        const uint8_t* exposed, bool rest, skin_inside* out) {
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        if (hair[v]) continue;
        uint32_t j = tl_scene_skin_dominant_joint(sk, v);
        for (uint32_t c = 0; c < n; ++c) {
            double d = tl_collider_depth(&world[c], positions + 3 * (size_t)v) / sk->height;
            bool own = j == body[c].joint;
            if (!exposed[v]) {
                if (!own && rest) out[c].hidden_rest = fmax(out[c].hidden_rest, d);
                continue;
            }
            double* slot = own ? (rest ? &out[c].own_rest : &out[c].own_posed)
                               : (rest ? &out[c].other_rest : &out[c].other_posed);
            if (!own && rest && d > out[c].other_rest) out[c].other_joint = j;
            if (!own && rest) out[c].over_bar += d > 0.002;
            if (d > *slot) *slot = d;
        }
    }
}

/* skin_depths of the colliders `body` of skin 0 at rest and at `samples` times of every clip. */
static bool measure_skin_inside(const tl_scene* scene, uint32_t samples,
                                const tl_body_collider* body, uint32_t n, skin_inside* out) {
    const tl_scene_skin* sk = &scene->skins[0];
    tl_error err;
    memset(out, 0, sizeof *out * n);
    uint8_t* hair = calloc(sk->vertex_count + 1, 1);
    uint8_t* all = malloc(sk->vertex_count + 1);
    uint8_t* exposed = calloc(sk->vertex_count + 1, 1);
    float* joints = malloc(16 * sizeof(float) * (sk->joint_count + 1));
    float* skinned = malloc(3 * sizeof(float) * (sk->vertex_count + 1));
    tl_pose* pose = tl_pose_create(scene);
    bool ok = hair && all && exposed && joints && skinned && pose &&
              tl_body_skin_mask(scene, 0, all, &err) == TL_OK;
    for (uint32_t v = 0; ok && v < sk->vertex_count; ++v)
        hair[v] = !all[v], all[v] = 1;
    ok = ok && tl_skin_exposed(scene, 0, hair, all, exposed, &err) == TL_OK;
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    if (ok) {
        tl_pose_set_rest(pose, scene, 0);
        tl_body_colliders_pose(scene, 0, body, n, pose, world);
        skin_depths(sk, body, n, world, sk->rest_positions, hair, exposed, true, out);
    }
    for (uint32_t clip = 0; ok && clip < scene->clip_count; ++clip)
        for (uint32_t s = 0; s < samples; ++s) {
            tl_pose_sample(pose, scene, clip, scene->clips[clip].duration * (float)s / samples);
            tl_pose_joint_matrices(pose, scene, 0, joints);
            tl_scene_skin_positions(scene, 0, joints, skinned);
            tl_body_colliders_pose(scene, 0, body, n, pose, world);
            skin_depths(sk, body, n, world, skinned, hair, exposed, false, out);
        }
    tl_pose_destroy(pose);
    free(hair), free(all), free(exposed), free(joints), free(skinned);
    return ok;
}

/* The deepest rest and posed other skin over a file's colliders. */
static void skin_inside_worst(const skin_inside* in, uint32_t n, double worst[2]) {
    worst[0] = worst[1] = 0;
    for (uint32_t c = 0; c < n; ++c)
        worst[0] = fmax(worst[0], in[c].other_rest), worst[1] = fmax(worst[1], in[c].other_posed);
}

/* One line per collider whose bounded form still holds other skin (over the slack at rest, the
 * bar posed): shape, own and other depths (plain fit -> bounded). */
static void skin_inside_print(const char* name, const tl_scene_skin* sk,
                              const tl_body_collider* body, const skin_inside* plain,
                              const skin_inside* bound, uint32_t n) {
    for (uint32_t c = 0; c < n; ++c) {
        if (plain[c].other_rest <= TL_BODY_COLLIDER_SLACK && plain[c].other_posed <= 0.002)
            continue;
        fprintf(stderr,
                "  %-24s %-9s %-5s %-9s own %.4f -> %.4f, other at rest %.4f (%u > bar, %s) -> "
                "%.4f, posed %.4f -> %.4f H (hidden %.4f)\n",
                name, tl_role_string(body[c].role), tl_side_string(body[c].side),
                body[c].local.shape == TL_COLLIDER_ELLIPSOID ? "ellipsoid"
                : body[c].local.shape == TL_COLLIDER_CAPSULE ? "capsule"
                                                             : "sphere",
                plain[c].own_rest, bound[c].own_rest, plain[c].other_rest, plain[c].over_bar,
                sk->joints[plain[c].other_joint].name, bound[c].other_rest, plain[c].other_posed,
                bound[c].other_posed, plain[c].hidden_rest);
    }
}

/* The body's own skin inside its colliders, on every shared body (and the tailless cases after
 * `tailor rig`, whose tails are skin of their own bones then): per collider the depth over H of
 * the exposed skin its joint dominates and of the exposed skin other joints dominate, at rest
 * and over 16 poses of every clip, for the plain fit and after tl_body_colliders_bound. The
 * plain fit reaches past the other joints' skin (mh-body's head capsule by 0.05 H in front of
 * its lips, the neck by 0.010 H); bounded, no exposed other skin lies deeper than
 * TL_BODY_COLLIDER_SLACK x H at rest in any file. */
static void test_skin_inside(void) {
    const char** files;
    size_t count = tl_test_shared_files(&files);
    static const char* tailless[] = {"fox-khronos-tailless", "fox-quaternius-tailless",
                                     "horse-tailless",       "husky-tailless",
                                     "rat-tailless",         "trex-tailless"};
    size_t total = count + sizeof tailless / sizeof *tailless;
    double worst[2][2] = {{0, 0}, {0, 0}}; /* plain, bound x rest, posed */
    for (size_t f = 0; f < total; ++f) {
        const char* path = f < count ? files[f] : tl_test_rigged_case(tailless[f - count]);
        ENSURE(path);
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        tl_body_collider plain[TL_BODY_COLLIDERS_MAX], bound[TL_BODY_COLLIDERS_MAX];
        skin_inside in[2][TL_BODY_COLLIDERS_MAX];
        uint32_t n = 0;
        if (scene->skin_count)
            ENSURE_OK(tl_body_colliders_fit(scene, 0, plain, TL_BODY_COLLIDERS_MAX, &n, &err), err);
        memcpy(bound, plain, sizeof *plain * n);
        if (n) ENSURE_OK(tl_body_colliders_bound(scene, 0, bound, n, &err), err);
        ENSURE(!n || (measure_skin_inside(scene, 16, plain, n, in[0]) &&
                      measure_skin_inside(scene, 16, bound, n, in[1])));
        const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (n) skin_inside_print(name, &scene->skins[0], plain, in[0], in[1], n);
        double w[2][2];
        for (int b = 0; b < 2; ++b) {
            skin_inside_worst(in[b], n, w[b]);
            worst[b][0] = fmax(worst[b][0], w[b][0]), worst[b][1] = fmax(worst[b][1], w[b][1]);
        }
        fprintf(stderr,
                "  %-24s %2u colliders, other skin at rest %.4f -> %.4f H, posed %.4f -> %.4f H\n",
                name, n, w[0][0], w[1][0], w[0][1], w[1][1]);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        /* (float rounding of the depth at the slack) */
        ENSURE_MSG(w[1][0] <= TL_BODY_COLLIDER_SLACK * 1.001 + 1e-6, "%s: other skin %.5f H deep",
                   name, w[1][0]);
    }
    fprintf(stderr,
            "  every file: other skin at rest %.4f -> %.4f H, posed %.4f -> %.4f H (plain fit -> "
            "bounded)\n",
            worst[0][0], worst[1][0], worst[0][1], worst[1][1]);
    ENSURE(worst[0][0] > 10 * TL_BODY_COLLIDER_SLACK); /* the plain fit does reach past it */
}

/* ---- stored in the file ---- */

static double max_difference(const float* a, const float* b, int count) {
    double worst = 0;
    for (int k = 0; k < count; ++k)
        worst = fmax(worst, fabs((double)a[k] - b[k]));
    return worst;
}

/* tailor rig stores the fitted colliders; the file is valid glTF, the scene reads back what a
 * fit of the rigged skin gives (through the joint frames: within 1e-5 H), and tailor inspect
 * lists them in its text and its JSON. */
static void test_stored_round_trip(void) {
    const char* path = tl_test_rigged_case("horse-tailless");
    ENSURE(path);
    /* no validator issue the source file does not have (the horse's skeleton is not a common
     * root already) */
    json_t* before = tl_test_validate(tl_test_shared("cases/horse-tailless.glb"));
    json_t* after = tl_test_validate(path);
    bool validated = before && after, fresh = false;
    const char* code;
    json_t* count_json;
    if (validated) json_object_foreach(json_object_get(after, "codes"), code, count_json) {
            json_int_t was =
                json_integer_value(json_object_get(json_object_get(before, "codes"), code));
            if (json_integer_value(count_json) > was) {
                fprintf(stderr, "  new validator issue %s\n", code);
                fresh = true;
            }
        }
    json_decref(before);
    json_decref(after);
    ENSURE(validated && !fresh);
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    const tl_scene_skin* sk = &scene->skins[0];
    tl_body_collider fit[TL_BODY_COLLIDERS_MAX];
    uint32_t n;
    ENSURE_OK(tl_body_colliders_fit(scene, 0, fit, TL_BODY_COLLIDERS_MAX, &n, &err), err);
    ENSURE(n > 0 && sk->collider_count == n && scene->note_count == 0);
    double worst = 0;
    int roles[TL_ROLE_COUNT] = {0}, shapes[4] = {0};
    for (uint32_t k = 0; k < n; ++k) {
        const tl_body_collider *a = &sk->colliders[k], *b = &fit[k];
        ENSURE(a->joint == b->joint && a->role == b->role && a->side == b->side);
        ENSURE(a->local.shape == b->local.shape && a->vertices == b->vertices);
        worst = fmax(worst, max_difference(a->local.a, b->local.a, 3));
        if (a->local.shape == TL_COLLIDER_CAPSULE)
            worst = fmax(worst, max_difference(a->local.b, b->local.b, 3));
        worst = fmax(worst, fabs((double)a->local.radius - b->local.radius));
        worst = fmax(worst, max_difference(&a->local.axes[0][0], &b->local.axes[0][0], 9));
        roles[a->role]++, shapes[a->local.shape]++;
    }
    fprintf(stderr,
            "  horse-tailless: %u stored colliders (%d capsules, %d ellipsoids; thighs %d, shins "
            "%d, upper arms %d, neck %d, head %d, pelvis %d), within %.2g H of a fit of the "
            "rigged skin\n",
            n, shapes[TL_COLLIDER_CAPSULE], shapes[TL_COLLIDER_ELLIPSOID], roles[TL_ROLE_THIGH],
            roles[TL_ROLE_SHIN], roles[TL_ROLE_UPPER_ARM], roles[TL_ROLE_NECK], roles[TL_ROLE_HEAD],
            roles[TL_ROLE_PELVIS], worst / sk->height);
    ENSURE(worst <= 1e-5 * sk->height);
    ENSURE(roles[TL_ROLE_THIGH] >= 2 && roles[TL_ROLE_SHIN] >= 2 && roles[TL_ROLE_HEAD] >= 1);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);

    char* out = NULL;
    ENSURE(tl_test_cli(&out, "inspect --json '%s'", path) == 0 && out);
    json_t* j = json_loads(out, 0, NULL);
    free(out);
    ENSURE(j);
    json_t* listed = json_object_get(json_array_get(json_object_get(j, "skins"), 0), "colliders");
    size_t count = json_array_size(listed);
    const char* shape = json_string_value(json_object_get(json_array_get(listed, 0), "shape"));
    bool shaped = shape && !strcmp(shape, "capsule");
    json_decref(j);
    ENSURE(count == n && shaped);
    out = NULL;
    ENSURE(tl_test_cli(&out, "inspect '%s'", path) == 0 && out);
    char line[64];
    snprintf(line, sizeof line, "body colliders: %u", n);
    bool said = strstr(out, line) && strstr(out, "capsule   on 1 'Back' (pelvis)");
    if (!said) fprintf(stderr, "%s", out);
    free(out);
    ENSURE(said);
}

/* Sets root/path (keys and array indices split by '/') to the JSON `value`, or removes it. */
static bool json_edit(json_t* root, const char* path, const char* value) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t* at = root;
    char* key = strtok(buf, "/");
    for (char* next; key && (next = strtok(NULL, "/")); key = next)
        at = json_is_array(at) ? json_array_get(at, (size_t)atoi(key)) : json_object_get(at, key);
    if (!at || !key) return false;
    json_t* v = value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL;
    if (value && !v) return false;
    if (json_is_array(at))
        return v ? json_array_set_new(at, (size_t)atoi(key), v) == 0
                 : json_array_remove(at, (size_t)atoi(key)) == 0;
    return v ? json_object_set_new(at, key, v) == 0 : json_object_del(at, key) == 0;
}

/* Every malformed stored collider is refused with the file and the JSON pointer of the value;
 * a stale joint index beside its node's name is followed by the name. */
static void test_stored_refusals(void) {
    const char* path = tl_test_rigged_case("horse-tailless");
    ENSURE(path);
    char big[32];
    snprintf(big, sizeof big, "%g", (double)TL_SCENE_MAX_MAGNITUDE);
    /* collider 0 is the pelvis capsule on node 3 'Back' (skin joint 1), collider 1 an
     * ellipsoid */
    static const char* const P = "/skins/0/extras/tailor/colliders";
    struct {
        const char *path, *value, *message;
    } cases[] = {
        {"0/shape", "\"cube\"",
         "0/shape: must be \"sphere\", \"capsule\", \"plane\" or \"ellipsoid\", is cube"},
        {"0/shape", NULL,
         "0/shape: must be \"sphere\", \"capsule\", \"plane\" or \"ellipsoid\", is missing"},
        {"0/radius", "-1", "0/radius: must be > 0 and within BIG, is -1"},
        {"0/radius", "\"thick\"", "0/radius: must be a number, is a string"},
        /* numbers judged as the solver stores them: these are zero as floats */
        {"0/radius", "1e-60", "0/radius: must be > 0 and within BIG, is 1e-60"},
        {"1/axes", "[[1, 0, 0], [0, 1, 0], [0, 0, 1e-60]]",
         "1/axes/2: a semi-axis must not be zero"},
        {"0/a", "[1, 2]", "0/a: must be an array of 3 numbers, is an array of another length"},
        {"0/a/1", "1e300", "0/a/1: must be finite and within BIG, is 1e+300"},
        {"0/b", NULL, "0/b: must be an array of 3 numbers, is missing"},
        {"1/axes/2", "[0, 0, 0]", "1/axes/2: a semi-axis must not be zero"},
        {"1/axes/1", "[1, 1, 0]", "1/axes/1: must be orthogonal to semi-axis 0"},
        {"1/axes", "[[1, 0, 0]]", "1/axes: must be an array of 3 semi-axes, is an array"},
        {"0/joint_name", "\"RootNode\"", "0/joint: node 0 is not a joint of skin 0"},
        {"0/joint_name", "\"NoSuchBone\"",
         "0/joint_name: no node is named \"NoSuchBone\" (the index says node 3)"},
        {"0/joint", "\"Back\"", "0/joint: must be a node index, is a string"},
        {"0/role", "\"wing\"", "0/role: must be a role name (docs/schema.md), is wing"},
        {"0/side", "3", "0/side: must be a side name (docs/schema.md), is a number"},
        {"0/vertices", "-3", "0/vertices: must be a count >= 0, is a number"},
        {"0", "7", "0: must be an object, is a number"},
        {"", "{}", ": must be an array of colliders, is an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tl_gltf* doc;
        tl_scene* scene = NULL;
        tl_error err = {0};
        ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
        char at[160], message[400], expected[512];
        snprintf(at, sizeof at, "skins/0/extras/tailor/colliders%s%s", *cases[i].path ? "/" : "",
                 cases[i].path);
        ENSURE(json_edit(tl_gltf_json(doc), at, cases[i].value));
        tl_result r = tl_scene_create(doc, &scene, &err);
        snprintf(message, sizeof message, "%s", cases[i].message);
        char* b = strstr(message, "BIG");
        if (b) {
            char tail[256];
            snprintf(tail, sizeof tail, "%s", b + 3);
            snprintf(b, sizeof message - (size_t)(b - message), "%s%s", big, tail);
        }
        snprintf(expected, sizeof expected, "horse-tailless.rigged.glb: %s%s%s", P,
                 *cases[i].path ? "/" : "", message);
        bool ok = r == TL_ERROR_INVALID && !strncmp(err.message, expected, strlen(expected));
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
        ENSURE_MSG(ok, "%s = %s: %s \"%s\", expected \"%s\"", at,
                   cases[i].value ? cases[i].value : "(removed)", tl_result_string(r), err.message,
                   expected);
    }
    /* a stale index with the right name: followed by name, noted once */
    tl_gltf* doc;
    tl_scene* scene;
    tl_error err;
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    ENSURE(json_edit(tl_gltf_json(doc), "skins/0/extras/tailor/colliders/0/joint", "4"));
    ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
    const tl_scene_skin* sk = &scene->skins[0];
    bool followed =
        sk->collider_count > 0 && !strcmp(sk->joints[sk->colliders[0].joint].name, "Back");
    bool noted =
        scene->note_count == 1 && strstr(scene->notes[0], "colliders: node indices disagree");
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    ENSURE(followed && noted);
}

/* Every malformed skins[s].extras.tailor.frame of tests/data/scene/frame_refusals.json is refused
 * with the file, the JSON pointer and the message web/tailor-sim.js gives for it (the same table:
 * tests/web/frame_refusals.mjs); the table's accepted edits load. */
static void test_stored_frame_refusals(void) {
    const char* path = tl_test_rigged_case("horse-tailless");
    ENSURE(path);
    json_t* table = json_load_file(tl_test_source("tests/data/scene/frame_refusals.json"), 0, NULL);
    ENSURE(table);
    size_t i, failed = 0;
    json_t* c;
    json_array_foreach(json_object_get(table, "cases"), i, c) {
        const char* rel = json_string_value(json_object_get(c, "path"));
        const char* message = json_string_value(json_object_get(c, "message"));
        json_t* value = json_object_get(c, "value");
        tl_gltf* doc = NULL;
        tl_scene* scene = NULL;
        tl_error err = {0};
        char at[160], expected[512];
        snprintf(at, sizeof at, "skins/0/extras/tailor/frame%s%s", rel && *rel ? "/" : "",
                 rel ? rel : "");
        snprintf(expected, sizeof expected,
                 "horse-tailless.rigged.glb: /skins/0/extras/tailor/frame%s",
                 message ? message : "");
        char* text = value ? json_dumps(value, JSON_ENCODE_ANY) : NULL;
        bool ok = tl_gltf_load(path, &doc, &err) == TL_OK && json_edit(tl_gltf_json(doc), at, text);
        tl_result r = ok ? tl_scene_create(doc, &scene, &err) : TL_ERROR_INVALID;
        ok = ok && (message ? r == TL_ERROR_INVALID && !strcmp(err.message, expected) : r == TL_OK);
        if (!ok)
            fprintf(stderr, "  %s = %s: %s \"%s\", expected %s\n", at, text ? text : "(removed)",
                    tl_result_string(r), r == TL_OK ? "" : err.message,
                    message ? expected : "it accepted");
        failed += !ok;
        free(text);
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    json_decref(table);
    ENSURE(failed == 0);
}

/* tailor rig stores each chained skin's frame as the roles take it (so a reader playing by the
 * stored frame plays as before), and a frame edited in the file replaces the roles': up, forward,
 * lateral, and H and the floor along the new up. */
static void test_stored_frame_used(void) {
    const char* path = tl_test_rigged_case("horse-tailless");
    ENSURE(path);
    tl_gltf* doc;
    tl_scene *stored = NULL, *roles = NULL, *edited = NULL;
    tl_error err;
    ENSURE_OK(tl_gltf_load(path, &doc, &err), err);
    json_t* tailor = json_object_get(
        json_object_get(json_array_get(json_object_get(tl_gltf_json(doc), "skins"), 0), "extras"),
        "tailor");
    bool written = json_is_object(json_object_get(tailor, "frame"));
    bool ok = tl_scene_create(doc, &stored, &err) == TL_OK &&
              json_edit(tl_gltf_json(doc), "skins/0/extras/tailor/frame", NULL) &&
              tl_scene_create(doc, &roles, &err) == TL_OK &&
              json_edit(tl_gltf_json(doc), "skins/0/extras/tailor/frame",
                        "{\"up\": [0, 0, 1], \"forward\": [0, -1, 0], \"lateral\": [1, 0, 0]}") &&
              tl_scene_create(doc, &edited, &err) == TL_OK;
    bool same = false, used = false;
    if (ok) {
        const tl_scene_skin *a = &stored->skins[0], *b = &roles->skins[0], *e = &edited->skins[0];
        same = !memcmp(a->up, b->up, sizeof a->up) &&
               !memcmp(a->forward, b->forward, sizeof a->up) &&
               !memcmp(a->lateral, b->lateral, sizeof a->up) && a->height == b->height &&
               a->floor == b->floor;
        float lo = INFINITY, hi = -INFINITY;
        for (uint32_t v = 0; v < e->vertex_count; ++v)
            lo = fminf(lo, e->rest_positions[3 * v + 2]),
            hi = fmaxf(hi, e->rest_positions[3 * v + 2]);
        used = e->up[2] == 1 && e->up[1] == 0 && e->forward[1] == -1 && e->lateral[0] == 1 &&
               e->height == hi - lo && e->floor == lo && e->height != b->height;
    }
    tl_scene_destroy(stored), tl_scene_destroy(roles), tl_scene_destroy(edited);
    tl_gltf_destroy(doc);
    ENSURE(ok && written && same && used);
}

/* The fit's quantiles sort by tl_order_floats (a radix sort) where they used qsort: the same
 * floats in the same order, bit for bit (-0 and +0 left as qsort, a stable merge sort here, left
 * them), on arrays with repeats, both zeros in both orders, infinities and denormals; an array
 * with a NaN is refused and left as it was. */
static int floats_by_lt(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

static void test_fit_sort_matches_qsort(void) {
    enum { MAX = 5000 };
    static float plain[MAX], fast[MAX], sorted[MAX];
    static uint32_t keys[MAX], order[MAX], spare[MAX];
    const float pick[] = {-0.0f,   0.0f,     1.0f,      -1.0f, 0.25f, 1e-40f,
                          -1e-40f, INFINITY, -INFINITY, 3e38f, 0.0f,  -0.0f};
    const uint32_t counts[] = {0, 1, 2, 7, 1000, MAX};
    uint32_t r = 17, differ = 0, checked = 0, zeros = 0;
    for (int c = 0; c < 6; ++c) {
        uint32_t n = counts[c];
        for (uint32_t i = 0; i < n; ++i) {
            r = r * 1664525u + 1013904223u;
            plain[i] = (r >> 28) < 6 ? pick[(r >> 8) % 12] : (float)((int32_t)r >> 12) * 1e-3f;
            zeros += plain[i] == 0;
        }
        memcpy(fast, plain, sizeof(float) * n);
        qsort(plain, n, sizeof *plain, floats_by_lt);
        ENSURE(tl_order_floats(fast, n, keys, order, spare, sorted));
        for (uint32_t i = 0; i < n; ++i)
            differ += memcmp(plain + i, fast + i, sizeof *plain) != 0, ++checked;
    }
    float with_nan[3] = {1, NAN, 0}, kept[3];
    memcpy(kept, with_nan, sizeof kept);
    bool refused = !tl_order_floats(with_nan, 3, keys, order, spare, sorted) &&
                   !memcmp(kept, with_nan, sizeof kept);
    printf("  %u positions (%u zeros), %u differ from qsort; NaN refused: %d\n", checked, zeros,
           differ, refused);
    ENSURE(differ == 0 && checked == 6010 && zeros > 100 && refused);
}

/* tl_collider_grown: an ellipsoid's every semi-axis grown, as the chain solver grows it for a
 * link (the stress measures a link against it). A point on the grown surface off the axes is at
 * depth 0 there, where the base ellipsoid's depth plus the growth (the measure's former reading)
 * is millimetres off; a shrink past a size frees the link; a plane stays as it is. */
static void test_grown_ellipsoid(void) {
    tl_collider e = {TL_COLLIDER_ELLIPSOID,
                     {0.1f, 1.2f, 0.05f},
                     {0, 0, 0},
                     0,
                     {{0.15f, 0, 0}, {0, 0.06f, 0}, {0, 0, 0.03f}}};
    const float g = 0.02f, inv = 0.57735027f; /* 1 / sqrt(3): a diagonal of the unit sphere */
    tl_collider grown;
    ENSURE(tl_collider_grown(&e, g, &grown));
    const float want[3] = {0.17f, 0.08f, 0.05f};
    for (int k = 0; k < 3; ++k)
        ENSURE(fabsf(grown.axes[k][k] - want[k]) <= 1e-6f);
    float p[3];
    for (int i = 0; i < 3; ++i)
        p[i] = e.a[i] + inv * (grown.axes[0][i] + grown.axes[1][i] + grown.axes[2][i]);
    float exact = tl_collider_depth(&grown, p), approx = tl_collider_depth(&e, p) + g;
    fprintf(stderr, "  grown surface point: depth %.2g m; base depth + growth %.4f m\n", exact,
            approx);
    ENSURE(fabsf(exact) <= 1e-6f && fabsf(approx) > 1e-3f);
    ENSURE(!tl_collider_grown(&e, -0.03f, &grown)); /* the shortest semi-axis gone */
    tl_collider s = {TL_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.1f, {{0}}};
    ENSURE(tl_collider_grown(&s, g, &grown) && fabsf(grown.radius - 0.12f) <= 1e-7f);
    ENSURE(!tl_collider_grown(&s, -INFINITY, &grown)); /* a link free of it */
    tl_collider plane = {TL_COLLIDER_PLANE, {0, 0, 0}, {0, 1, 0}, 0, {{0}}};
    ENSURE(tl_collider_grown(&plane, g, &grown) && memcmp(&grown, &plane, sizeof plane) == 0);
}

/* tl_collider_sphere, the sheet's early out (src/play/sheet_hold.c): every point whose depth is
 * above -g lies within the sphere's radius + g, for turned ellipsoids, capsules and spheres
 * and growths from a shrink to a lock's thickness; the sphere is no larger than the shape's
 * own reach (the longest semi-axis; half the segment plus the radius); a plane has none. */
static void test_sphere_holds_depth(void) {
    uint32_t seed = 12345u;
#define RND() ((seed = seed * 1664525u + 1013904223u), (float)(seed >> 8) / 16777216.0f)
    uint32_t inside = 0;
    for (int c = 0; c < 300; ++c) {
        float q[4], n = 0;
        for (int k = 0; k < 4; ++k)
            q[k] = RND() - 0.5f, n += q[k] * q[k];
        n = sqrtf(n);
        for (int k = 0; k < 4; ++k)
            q[k] /= n;
        float r[3] = {0.02f + 0.2f * RND(), 0.02f + 0.1f * RND(), 0.01f + 0.05f * RND()};
        float mid[3] = {RND() - 0.5f, 1 + RND(), RND() - 0.5f};
        float m[3][3] = {{1 - 2 * (q[1] * q[1] + q[2] * q[2]), 2 * (q[0] * q[1] + q[2] * q[3]),
                          2 * (q[0] * q[2] - q[1] * q[3])},
                         {2 * (q[0] * q[1] - q[2] * q[3]), 1 - 2 * (q[0] * q[0] + q[2] * q[2]),
                          2 * (q[1] * q[2] + q[0] * q[3])},
                         {2 * (q[0] * q[2] + q[1] * q[3]), 2 * (q[1] * q[2] - q[0] * q[3]),
                          1 - 2 * (q[0] * q[0] + q[1] * q[1])}};
        tl_collider col;
        memset(&col, 0, sizeof col);
        float reach = 0;
        memcpy(col.a, mid, sizeof mid);
        if (c % 3 == 0) {
            col.shape = TL_COLLIDER_ELLIPSOID;
            for (int k = 0; k < 3; ++k)
                for (int i = 0; i < 3; ++i)
                    col.axes[k][i] = r[k] * m[k][i];
            reach = r[0] > r[1] ? (r[0] > r[2] ? r[0] : r[2]) : (r[1] > r[2] ? r[1] : r[2]);
        } else {
            col.shape = c % 3 == 1 ? TL_COLLIDER_CAPSULE : TL_COLLIDER_SPHERE;
            col.radius = r[2];
            float half = col.shape == TL_COLLIDER_CAPSULE ? r[0] : 0;
            for (int i = 0; i < 3; ++i)
                col.a[i] = mid[i] - half * m[0][i], col.b[i] = mid[i] + half * m[0][i];
            reach = half + r[2];
        }
        float sphere[4];
        ENSURE(tl_collider_sphere(&col, sphere));
        ENSURE_MSG(sphere[3] >= reach && sphere[3] <= 1.002f * reach,
                   "collider %d: sphere radius %g for a reach of %g", c, sphere[3], reach);
        for (int t = 0; t < 400; ++t) {
            float g = -0.5f * r[2] + 0.06f * RND(), p[3], d2 = 0;
            for (int i = 0; i < 3; ++i) {
                p[i] = mid[i] + (2 * RND() - 1) * (reach + 0.06f);
                d2 += (p[i] - sphere[i]) * (p[i] - sphere[i]);
            }
            if (!(tl_collider_depth(&col, p) + g > 0)) continue;
            ++inside;
            float far = sphere[3] + g;
            ENSURE_MSG(far > 0 && d2 < far * far,
                       "collider %d: a point at depth %g (growth %g) lies %g from the sphere's "
                       "mid, past its radius %g",
                       c, tl_collider_depth(&col, p), g, sqrtf(d2), far);
        }
    }
#undef RND
    fprintf(stderr, "  %u points inside a grown collider, each within its sphere\n", inside);
    ENSURE(inside > 1000);
    tl_collider plane = {TL_COLLIDER_PLANE, {0, 0, 0}, {0, 1, 0}, 0, {{0}}};
    float none[4];
    ENSURE(!tl_collider_sphere(&plane, none));
}

/* The body colliders fitted with the skin's hair flags given (tl_body_colliders_fit_hair, as
 * tl_rig_apply passes the flags it found once for the fit and the guide layer) against found
 * by the fit itself: the same colliders to the bit on the hair styles, a body and a fox; and
 * with flags that name no hair, bob01's differ (the flags are read). */
static void fit_given_hair_matches_found(void) {
    const char* files[] = {"cases/mh-bob01.glb", "cases/mh-braid01.glb", "cases/mh-short02.glb",
                           "cases/mh-body.glb", "cases/fox-khronos-tailless.glb"};
    uint32_t fits = 0, colliders = 0, differ = 0, hair_skins = 0;
    bool none_differs = false;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        tl_gltf* doc;
        tl_scene* scene;
        tl_error err;
        ENSURE_OK(tl_gltf_load(tl_test_shared(files[f]), &doc, &err), err);
        ENSURE_OK(tl_scene_create(doc, &scene, &err), err);
        for (uint32_t k = 0; k < scene->skin_count; ++k) {
            uint32_t prims = scene->skins[k].primitive_count;
            uint8_t* hair = calloc(prims + 1, 1);
            uint8_t* none = calloc(prims + 1, 1);
            ENSURE(hair && none);
            hair_skins += tl_hair_find_primitives(scene, k, hair) > 0;
            tl_body_collider a[TL_BODY_COLLIDERS_MAX], b[TL_BODY_COLLIDERS_MAX],
                c[TL_BODY_COLLIDERS_MAX];
            uint32_t na = 0, nb = 0, nc = 0;
            memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(c, 0, sizeof c);
            ENSURE_OK(tl_body_colliders_fit(scene, k, a, TL_BODY_COLLIDERS_MAX, &na, &err), err);
            ENSURE_OK(
                tl_body_colliders_fit_hair(scene, k, hair, b, TL_BODY_COLLIDERS_MAX, &nb, &err),
                err);
            ENSURE_OK(
                tl_body_colliders_fit_hair(scene, k, none, c, TL_BODY_COLLIDERS_MAX, &nc, &err),
                err);
            fits++, colliders += na;
            differ += na != nb || memcmp(a, b, sizeof a) != 0;
            if (f == 0) none_differs = na != nc || memcmp(a, c, sizeof a) != 0;
            free(hair), free(none);
        }
        tl_scene_destroy(scene);
        tl_gltf_destroy(doc);
    }
    printf("  %u fits (%u skins with hair), %u colliders, %u differ; bob01 without its hair "
           "flags %s\n",
           fits, hair_skins, colliders, differ, none_differs ? "differs" : "DOES NOT DIFFER");
    ENSURE(hair_skins >= 3 && colliders > 40);
    ENSURE(differ == 0 && none_differs);
}

static const tl_test_case cases[] = {
    {"fit_ellipsoid", test_fit_ellipsoid},
    {"fit_given_hair_matches_found", fit_given_hair_matches_found},
    {"fit_capsule", test_fit_capsule},
    {"fit_degenerate", test_fit_degenerate},
    {"capsule_around_ellipsoid", test_capsule_around_ellipsoid},
    {"bound_one_axis", test_bound_one_axis},
    {"tail_enters_thigh", test_tail_enters_thigh},
    {"skin_inside", test_skin_inside},
    {"stored_round_trip", test_stored_round_trip},
    {"stored_refusals", test_stored_refusals},
    {"stored_frame_refusals", test_stored_frame_refusals},
    {"stored_frame_used", test_stored_frame_used},
    {"fit_sort_matches_qsort", test_fit_sort_matches_qsort},
    {"grown_ellipsoid", test_grown_ellipsoid},
    {"sphere_holds_depth", test_sphere_holds_depth},
};

int main(int argc, char** argv) {
    return tl_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
