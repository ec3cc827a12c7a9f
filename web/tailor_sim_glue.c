/* A flat C API over tailor/sim.h for JavaScript: plain float arrays in, no structs, so
 * tailor-sim.js needs no knowledge of the C struct layout. Built only into tailor_sim.wasm.
 *
 * params (TL_WEB_PARAM_COUNT floats, filled with the defaults by tl_web_default_params):
 *   0-2 up, 3 scale, 4 floor_enabled (0/1), 5 floor_height, 6 hips_plane_enabled (0/1),
 *   7 fixed_step, 8 max_substeps, 9 teleport_distance, 10-12 hips_lateral, 13-15 hips_up,
 *   16-18 hips_forward, 19-28 the tl_chain_settings in their declaration order, 29 sleep_speed,
 *   30 sleep_seconds.
 * A pose is 8 floats: position (3), rotation (x, y, z, w), scale.
 * A collider is TL_WEB_COLLIDER_FLOATS floats (a tl_collider, world units, in the chain's world
 * frame): 0 shape (tl_collider_shape), 1-3 a, 4-6 b, 7 radius, 8-16 the three semi-axes.
 *
 * pendulum (TL_WEB_PENDULUM_PARAM_COUNT floats, tl_pendulum_def in declaration order):
 *   0 length, 1-3 rest_direction, 4-6 up, 7 scale, 8 gravity, 9 damping, 10 stiffness,
 *   11 max_angle_deg, 12 fixed_step, 13 max_substeps, 14 teleport_distance.
 * aim (5 floats): 0-2 aim_axis, 3 weight, 4 max_angle_deg.
 *
 * growth (per collider and link, tl_chain_input.collider_growth): tl_web_collider_growth's.
 * A sheet tie is TL_WEB_TIE_FLOATS floats (play_sheet_tie): 0 chain a, 1 chain b, 2 link of a,
 * 3 link of b, 4 the point along a's link, 5 along b's, 6 the seam's rest edge (world units).
 *
 * stats (TL_WEB_STATS_COUNT doubles, tl_chain_stats in declaration order; a double holds the
 * 64-bit step count exactly up to 2^53): 0 steps, 1 nonfinite_inputs, 2 nonfinite_states,
 * 3 teleports, 4 cuts, 5 clamped_frames, 6 contacts, 7 sleeps, 8 asleep (0/1).
 *
 * cloth params (TL_WEB_CLOTH_PARAM_COUNT floats, a cloth part as src/play/cloth_play.c plays it):
 *   0-2 up, 3 scale, 4 iterations, 5-18 tl_cloth_settings' floats in declaration order
 *   (damping .. collision_margin). */
#include <tailor/cloth.h>
#include <tailor/pendulum.h>
#include <tailor/sim.h>

#include "play/chain_growth.h"
#include "play/cloth_lattice.h"
#include "play/sheet_hold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TL_WEB_PARAM_COUNT 31
#define TL_WEB_STATS_COUNT 9
#define TL_WEB_PENDULUM_PARAM_COUNT 15
#define TL_WEB_COLLIDER_FLOATS 17
/* the most colliders one step takes (a skin stores at most 26, TL_BODY_COLLIDERS_MAX) */
#define TL_WEB_COLLIDERS_MAX 32
#define TL_WEB_CLOTH_PARAM_COUNT 19
#define TL_WEB_TIE_FLOATS 7

void* tl_web_alloc(size_t bytes);
void tl_web_free(void* p);
int tl_web_param_count(void);
void tl_web_default_params(float* params);
tl_chain* tl_web_chain_create(int bone_count, const float* translations, const float* rotations,
                              const float* tip, const float* radii, const float* params,
                              char* message, int message_size);
int tl_web_collider_floats(void);
int tl_web_colliders_max(void);
void tl_web_chain_step(tl_chain* chain, const float* start, const float* target, float dt,
                       const float* colliders, int collider_count);
void tl_web_chain_step_grown(tl_chain* chain, const float* start, const float* target, float dt,
                             const float* colliders, int collider_count, const float* growth);
int tl_web_collider_growth(const float* collider, float hit, const float* tips, int tip_count,
                           int links, float* growth);
void tl_web_chain_reset(tl_chain* chain, const float* pose);
int tl_web_tie_floats(void);
typedef struct tl_web_sheet tl_web_sheet;
tl_web_sheet* tl_web_sheet_create(int chain_count, const int* bones, const float* ties,
                                  int tie_count);
void tl_web_sheet_chain(tl_web_sheet* sheet, int i, tl_chain* chain, const float* colliders,
                        const float* growth);
void tl_web_sheet_rest(tl_web_sheet* sheet, const float* starts);
void tl_web_sheet_hold(tl_web_sheet* sheet, const float* starts, const int* collider_counts);
void tl_web_sheet_destroy(tl_web_sheet* sheet);
int tl_web_sheet_sweeps(const tl_web_sheet* sheet);
int tl_web_stats_count(void);
void tl_web_chain_stats(const tl_chain* chain, double* out);
int tl_web_pendulum_param_count(void);
void tl_web_default_pendulum_params(float* params);
tl_pendulum* tl_web_pendulum_create(const float* params, char* message, int message_size);
void tl_web_pendulum_step(tl_pendulum* pendulum, const float* pivot, float dt);
void tl_web_pendulum_reset(tl_pendulum* pendulum, const float* pivot);
void tl_web_pendulum_carry(tl_pendulum* pendulum, const float* pivot);
void tl_web_aim_solve(const float* aim, const float* rotation, const float* position,
                      const float* target, float* out);
typedef struct tl_web_cloth tl_web_cloth;
int tl_web_cloth_param_count(void);
void tl_web_default_cloth_params(float* params);
tl_web_cloth* tl_web_cloth_create(int rows, int columns, int closed, const float* rest,
                                  const float* params, float* colliders, int* kept,
                                  int collider_count, const float* mesh, int mesh_count,
                                  char* message, int message_size);
void tl_web_cloth_start(tl_web_cloth* wc, const float* frame, const float* targets,
                        const float* colliders, int collider_count);
void tl_web_cloth_step(tl_web_cloth* wc, const float* frame, const float* targets,
                       const float* colliders, int collider_count, float dt, int cut);
void tl_web_cloth_bones(const tl_web_cloth* wc, int bone_columns, int count,
                        const float* rest_world, const float* attach_world, float* local);
const float* tl_web_cloth_positions(const tl_web_cloth* wc);
void tl_web_cloth_destroy(tl_web_cloth* wc);

void* tl_web_alloc(size_t bytes) {
    return malloc(bytes);
}

void tl_web_free(void* p) {
    free(p);
}

int tl_web_param_count(void) {
    return TL_WEB_PARAM_COUNT;
}

static float* settings_field(tl_chain_settings* s, int i) {
    float* f[10] = {&s->root_frequency,   &s->tip_frequency, &s->damping_ratio, &s->gravity,
                    &s->carry_deg,        &s->rest_curve,    &s->coupling_rate, &s->bend_limit_deg,
                    &s->ground_clearance, &s->slip_damping};
    return f[i];
}

void tl_web_default_params(float* p) {
    tl_chain_def d = tl_default_chain_def();
    memcpy(p, d.up, 3 * sizeof(float));
    p[3] = d.scale, p[4] = d.floor_enabled, p[5] = d.floor_height;
    p[6] = d.hips_plane_enabled, p[7] = d.fixed_step, p[8] = (float)d.max_substeps;
    p[9] = d.teleport_distance;
    memcpy(p + 10, d.hips_lateral, 3 * sizeof(float));
    memcpy(p + 13, d.hips_up, 3 * sizeof(float));
    memcpy(p + 16, d.hips_forward, 3 * sizeof(float));
    for (int i = 0; i < 10; ++i)
        p[19 + i] = *settings_field(&d.settings, i);
    p[29] = d.sleep_speed, p[30] = d.sleep_seconds;
}

tl_chain* tl_web_chain_create(int bone_count, const float* translations, const float* rotations,
                              const float* tip, const float* radii, const float* p, char* message,
                              int message_size) {
    tl_chain_def d = tl_default_chain_def();
    d.bone_count = bone_count;
    d.rest_translations = translations;
    d.rest_rotations = rotations;
    d.tip_translation = tip;
    d.joint_radii = radii;
    memcpy(d.up, p, 3 * sizeof(float));
    d.scale = p[3], d.floor_enabled = p[4] != 0, d.floor_height = p[5];
    d.hips_plane_enabled = p[6] != 0, d.fixed_step = p[7], d.max_substeps = (int)p[8];
    d.teleport_distance = p[9];
    memcpy(d.hips_lateral, p + 10, 3 * sizeof(float));
    memcpy(d.hips_up, p + 13, 3 * sizeof(float));
    memcpy(d.hips_forward, p + 16, 3 * sizeof(float));
    for (int i = 0; i < 10; ++i)
        *settings_field(&d.settings, i) = p[19 + i];
    d.sleep_speed = p[29], d.sleep_seconds = p[30];
    tl_chain* chain = NULL;
    tl_error err;
    const char* why = NULL;
    if (bone_count < 1 || bone_count > TL_CHAIN_MAX_BONES) why = "bone count out of range";
    /* (tl_chain_create asserts these: a page's value must not abort the module) */
    if (!(d.sleep_speed >= 0 && d.sleep_seconds >= 0))
        why = "sleep_speed and sleep_seconds must be >= 0";
    if (why) {
        if (message_size > 0) strncpy(message, why, (size_t)message_size - 1);
        return NULL;
    }
    if (tl_chain_create(&d, NULL, &chain, &err) != TL_OK) {
        if (message_size > 0) {
            strncpy(message, err.message, (size_t)message_size - 1);
            message[message_size - 1] = 0;
        }
        return NULL;
    }
    return chain;
}

static tl_chain_pose pose_of(const float* f) {
    tl_chain_pose pose;
    memcpy(pose.position, f, 3 * sizeof(float));
    memcpy(pose.rotation, f + 3, 4 * sizeof(float));
    pose.scale = f[7];
    return pose;
}

int tl_web_collider_floats(void) {
    return TL_WEB_COLLIDER_FLOATS;
}

int tl_web_colliders_max(void) {
    return TL_WEB_COLLIDERS_MAX;
}

/* n colliders packed at f (TL_WEB_COLLIDER_FLOATS each) into out. */
static void colliders_unpack(const float* f, int n, tl_collider* out) {
    for (int k = 0; k < n; ++k, f += TL_WEB_COLLIDER_FLOATS) {
        out[k].shape = (tl_collider_shape)(int)f[0];
        memcpy(out[k].a, f + 1, 3 * sizeof(float));
        memcpy(out[k].b, f + 4, 3 * sizeof(float));
        out[k].radius = f[7];
        memcpy(out[k].axes, f + 8, 9 * sizeof(float));
    }
}

/* collider_count packed colliders (none when `colliders` is NULL) into body; how many (at most
 * TL_WEB_COLLIDERS_MAX: tailor-sim.js refuses more). */
static int unpack_colliders(const float* colliders, int collider_count, tl_collider* body) {
    int n = colliders && collider_count > 0 ? collider_count : 0;
    if (n > TL_WEB_COLLIDERS_MAX) n = TL_WEB_COLLIDERS_MAX;
    colliders_unpack(colliders, n, body);
    return n;
}

static void pack_collider(const tl_collider* c, float* f) {
    f[0] = (float)c->shape;
    memcpy(f + 1, c->a, 3 * sizeof(float));
    memcpy(f + 4, c->b, 3 * sizeof(float));
    f[7] = c->radius;
    memcpy(f + 8, c->axes, 9 * sizeof(float));
}

/* The step with the body's colliders at the frame's end (collider_count of them packed at
 * `colliders`, or none), each grown per link by `growth` (NULL: not); on the stack: nothing
 * allocated. */
void tl_web_chain_step_grown(tl_chain* chain, const float* start, const float* target, float dt,
                             const float* colliders, int collider_count, const float* growth) {
    tl_chain_input in = tl_default_chain_input();
    in.start = pose_of(start);
    in.target = pose_of(target);
    tl_collider body[TL_WEB_COLLIDERS_MAX];
    int n = unpack_colliders(colliders, collider_count, body);
    in.colliders = n ? body : NULL;
    in.collider_count = n;
    in.collider_growth = n ? growth : NULL;
    tl_chain_step(chain, &in, dt);
}

void tl_web_chain_step(tl_chain* chain, const float* start, const float* target, float dt,
                       const float* colliders, int collider_count) {
    tl_web_chain_step_grown(chain, start, target, dt, colliders, collider_count, NULL);
}

/* A collider (rest-world) grown for a lock of thickness `hit` over its `links` links, whose rest
 * tips are tips[0..tip_count): play_collider_growth, the C player's rule. 1: some link meets it. */
int tl_web_collider_growth(const float* collider, float hit, const float* tips, int tip_count,
                           int links, float* growth) {
    tl_collider c;
    colliders_unpack(collider, 1, &c);
    if (tip_count < 0 || links < 1 || links > TL_CHAIN_MAX_BONES) return 0;
    return play_collider_growth(&c, hit, tips, (uint32_t)tip_count, (uint32_t)links, growth);
}

void tl_web_chain_reset(tl_chain* chain, const float* pose) {
    tl_chain_pose a = pose_of(pose);
    tl_chain_reset(chain, &a);
}

/* --- the sheet between hair chains (src/play/sheet_hold.c): all it needs made at create, so a
   hold allocates nothing --- */

struct tl_web_sheet {
    play_sheet* sheet;
    int count;
    tl_chain** chains;
    tl_chain_input* inputs;
    play_sheet_body* bodies;
    const float** packed;   /* per chain: its colliders' block (TL_WEB_COLLIDER_FLOATS each) */
    const float** growth;   /* per chain: its growth, or NULL */
    tl_collider* colliders; /* per chain: TL_WEB_COLLIDERS_MAX */
};

int tl_web_tie_floats(void) {
    return TL_WEB_TIE_FLOATS;
}

void tl_web_sheet_destroy(tl_web_sheet* w) {
    if (!w) return;
    play_sheet_destroy(w->sheet);
    free(w->chains), free(w->inputs), free(w->bodies), free(w->packed), free(w->growth);
    free(w->colliders), free(w);
}

/* The sheet of tie_count ties (packed) between chain_count chains of bones[i] bones; NULL when
 * out of memory or a tie is out of range (a chain or link past its count). */
tl_web_sheet* tl_web_sheet_create(int chain_count, const int* bones, const float* ties,
                                  int tie_count) {
    if (chain_count < 1 || tie_count < 1) return NULL;
    tl_web_sheet* w = calloc(1, sizeof *w);
    play_sheet_tie* t = calloc((size_t)tie_count, sizeof *t);
    uint32_t* b = calloc((size_t)chain_count, sizeof *b);
    bool ok = w && t && b;
    for (int i = 0; ok && i < chain_count; ++i)
        b[i] = bones[i] > 0 ? (uint32_t)bones[i] : 0;
    for (int k = 0; ok && k < tie_count; ++k) {
        const float* f = ties + (size_t)k * TL_WEB_TIE_FLOATS;
        ok = f[0] >= 0 && f[1] >= 0 && f[2] >= 0 && f[3] >= 0 && f[0] < chain_count &&
             f[1] < chain_count;
        t[k] = (play_sheet_tie){
            (uint32_t)f[0], (uint32_t)f[1], (uint32_t)f[2], (uint32_t)f[3], f[4], f[5], 1, f[6]};
    }
    if (ok) {
        w->count = chain_count;
        w->chains = calloc((size_t)chain_count, sizeof *w->chains);
        w->inputs = calloc((size_t)chain_count, sizeof *w->inputs);
        w->bodies = calloc((size_t)chain_count, sizeof *w->bodies);
        w->packed = calloc((size_t)chain_count, sizeof *w->packed);
        w->growth = calloc((size_t)chain_count, sizeof *w->growth);
        w->colliders = calloc((size_t)chain_count * TL_WEB_COLLIDERS_MAX, sizeof *w->colliders);
        ok = w->chains && w->inputs && w->bodies && w->packed && w->growth && w->colliders &&
             play_sheet_from_ties(t, (uint32_t)tie_count, (uint32_t)chain_count, b, &w->sheet) &&
             w->sheet;
    }
    for (int i = 0; ok && i < chain_count; ++i)
        w->inputs[i] = tl_default_chain_input();
    free(t), free(b);
    if (!ok) tl_web_sheet_destroy(w);
    return ok ? w : NULL;
}

/* Chain i of the sheet, and where its colliders (packed, as posed for its step) and their growth
 * (NULL: none) lie. */
void tl_web_sheet_chain(tl_web_sheet* w, int i, tl_chain* chain, const float* colliders,
                        const float* growth) {
    if (!w || i < 0 || i >= w->count) return;
    w->chains[i] = chain, w->packed[i] = colliders, w->growth[i] = growth;
}

static void sheet_starts(tl_web_sheet* w, const float* starts) {
    for (int i = 0; i < w->count; ++i)
        w->inputs[i].start = pose_of(starts + 8 * (size_t)i);
}

/* The ties' rest, the chains at rest under starts (8 floats a chain: play_sheet_rest). */
void tl_web_sheet_rest(tl_web_sheet* w, const float* starts) {
    if (!w) return;
    sheet_starts(w, starts);
    play_sheet_rest(w->sheet, w->chains, w->inputs);
}

/* After every chain's step: the ties held (play_sheet_hold), chain i's attachment at starts[i]
 * and its collider_counts[i] colliders as its step saw them. */
void tl_web_sheet_hold(tl_web_sheet* w, const float* starts, const int* collider_counts) {
    if (!w) return;
    sheet_starts(w, starts);
    for (int i = 0; i < w->count; ++i) {
        int n = w->packed[i] && collider_counts[i] > 0 ? collider_counts[i] : 0;
        if (n > TL_WEB_COLLIDERS_MAX) n = TL_WEB_COLLIDERS_MAX;
        tl_collider* c = w->colliders + (size_t)i * TL_WEB_COLLIDERS_MAX;
        colliders_unpack(w->packed[i], n, c);
        w->bodies[i] = (play_sheet_body){c, (uint32_t)n, n ? w->growth[i] : NULL};
    }
    play_sheet_hold(w->sheet, w->chains, w->inputs, w->bodies);
}

/* The sweeps over the ties the last hold ran (play_sheet_sweeps). */
int tl_web_sheet_sweeps(const tl_web_sheet* w) {
    return w ? (int)play_sheet_sweeps(w->sheet) : 0;
}

int tl_web_stats_count(void) {
    return TL_WEB_STATS_COUNT;
}

void tl_web_chain_stats(const tl_chain* chain, double* out) {
    tl_chain_stats s = tl_chain_get_stats(chain);
    out[0] = (double)s.steps, out[1] = s.nonfinite_inputs, out[2] = s.nonfinite_states;
    out[3] = s.teleports, out[4] = s.cuts, out[5] = s.clamped_frames, out[6] = s.contacts;
    out[7] = s.sleeps, out[8] = s.asleep;
}

/* --- pendulum and aim parts (tailor/pendulum.h): one allocation at create, none per step --- */

int tl_web_pendulum_param_count(void) {
    return TL_WEB_PENDULUM_PARAM_COUNT;
}

void tl_web_default_pendulum_params(float* p) {
    tl_pendulum_def d = tl_default_pendulum_def();
    p[0] = d.length;
    memcpy(p + 1, d.rest_direction, 3 * sizeof(float));
    memcpy(p + 4, d.up, 3 * sizeof(float));
    p[7] = d.scale, p[8] = d.gravity, p[9] = d.damping, p[10] = d.stiffness;
    p[11] = d.max_angle_deg, p[12] = d.fixed_step, p[13] = (float)d.max_substeps;
    p[14] = d.teleport_distance;
}

tl_pendulum* tl_web_pendulum_create(const float* p, char* message, int message_size) {
    tl_pendulum_def d;
    d.length = p[0];
    memcpy(d.rest_direction, p + 1, 3 * sizeof(float));
    memcpy(d.up, p + 4, 3 * sizeof(float));
    d.scale = p[7], d.gravity = p[8], d.damping = p[9], d.stiffness = p[10];
    d.max_angle_deg = p[11], d.fixed_step = p[12], d.max_substeps = (int)p[13];
    d.teleport_distance = p[14];
    tl_pendulum* pendulum = malloc(sizeof *pendulum);
    tl_error err;
    const char* why = "out of memory";
    if (pendulum && tl_pendulum_init(pendulum, &d, &err) == TL_OK) return pendulum;
    if (pendulum) why = err.message;
    free(pendulum);
    if (message_size > 0) {
        strncpy(message, why, (size_t)message_size - 1);
        message[message_size - 1] = 0;
    }
    return NULL;
}

void tl_web_pendulum_step(tl_pendulum* pendulum, const float* pivot, float dt) {
    tl_chain_pose a = pose_of(pivot);
    tl_pendulum_step(pendulum, &a, dt);
}

void tl_web_pendulum_reset(tl_pendulum* pendulum, const float* pivot) {
    tl_chain_pose a = pose_of(pivot);
    tl_pendulum_reset(pendulum, &a);
}

void tl_web_pendulum_carry(tl_pendulum* pendulum, const float* pivot) {
    tl_chain_pose a = pose_of(pivot);
    tl_pendulum_carry(pendulum, &a);
}

void tl_web_aim_solve(const float* aim, const float* rotation, const float* position,
                      const float* target, float* out) {
    tl_aim_def d;
    memcpy(d.aim_axis, aim, 3 * sizeof(float));
    d.weight = aim[3], d.max_angle_deg = aim[4];
    tl_aim_solve(&d, rotation, position, target, out);
}

/* --- cloth parts (tailor/cloth.h) as src/play/cloth_play.c plays them: the lattice set-up and
 * the bones' motion are src/play/cloth_lattice.c's; one allocation at create, none per step --- */

struct tl_web_cloth {
    tl_cloth_model* model;
    tl_cloth* cloth;
    int rows, columns;
    bool closed;
    float* rest; /* rows x columns x 3, rest-world */
    tl_cloth_input in;
    tl_collider world[TL_WEB_COLLIDERS_MAX];
};

int tl_web_cloth_param_count(void) {
    return TL_WEB_CLOTH_PARAM_COUNT;
}

static float* cloth_setting(tl_cloth_settings* s, int i) {
    float* f[14] = {&s->damping,
                    &s->edge_damping,
                    &s->contact_damping,
                    &s->stretch_stiffness,
                    &s->shear_stiffness,
                    &s->gravity,
                    &s->wind,
                    &s->edge_wind,
                    &s->world_motion,
                    &s->edge_world_motion,
                    &s->max_distance_top,
                    &s->max_distance_bottom,
                    &s->edge_max_distance,
                    &s->collision_margin};
    return f[i];
}

void tl_web_default_cloth_params(float* p) {
    tl_cloth_def d = tl_default_cloth_def();
    memcpy(p, d.up, 3 * sizeof(float));
    p[3] = d.scale, p[4] = (float)d.settings.iterations;
    for (int i = 0; i < 14; ++i)
        p[5 + i] = *cloth_setting(&d.settings, i);
}

/* Why the settings would trip tl_cloth_model_create's asserts (the file's ranges,
 * src/scene/schema.c), or NULL: a page's value must not abort the module. */
static const char* cloth_settings_check(const tl_cloth_settings* s) {
    if (!(s->iterations >= 0 && s->iterations <= 1000)) return "iterations out of 0..1000";
    for (int i = 0; i < 14; ++i)
        if (!isfinite(*cloth_setting((tl_cloth_settings*)s, i))) return "a setting is not finite";
    if (!(s->damping >= 0 && s->damping <= 0.999f && s->edge_damping >= 0 &&
          s->edge_damping <= 0.999f && s->contact_damping >= 0 && s->contact_damping <= 1 &&
          s->stretch_stiffness >= 0 && s->stretch_stiffness <= 1 && s->shear_stiffness >= 0 &&
          s->shear_stiffness <= 1 && s->world_motion >= 0 && s->world_motion <= 1 &&
          s->edge_world_motion >= 0 && s->edge_world_motion <= 1 && s->max_distance_top > 0 &&
          s->max_distance_bottom > 0 && s->edge_max_distance > 0 && s->collision_margin >= 0))
        return "a setting is out of its range (docs/schema.md)";
    return NULL;
}

static void cloth_message(char* message, int size, const char* why) {
    if (size <= 0) return;
    strncpy(message, why, (size_t)size - 1);
    message[size - 1] = 0;
}

/* A cloth part: its rest lattice (rest-world), its params, its skin's colliders (rest-world,
 * packed; each one kept is shrunk in place and flagged in kept[k], as the C player fits them:
 * none given, none used) and the rest-world skin its bones drive (mesh: mesh_count x 3, the
 * skin points of an open lattice). NULL with the message on a bad def. */
tl_web_cloth* tl_web_cloth_create(int rows, int columns, int closed, const float* rest,
                                  const float* p, float* colliders, int* kept, int collider_count,
                                  const float* mesh, int mesh_count, char* message,
                                  int message_size) {
    if (!(rows >= 2 && rows <= TL_CLOTH_MAX_SIDE && columns >= 2 && columns <= TL_CLOTH_MAX_SIDE) ||
        collider_count < 0 || collider_count > TL_WEB_COLLIDERS_MAX || mesh_count < 0) {
        cloth_message(message, message_size, "lattice, collider or mesh count out of range");
        return NULL;
    }
    tl_cloth_def def = tl_default_cloth_def();
    def.rows = rows, def.columns = columns, def.closed = closed != 0;
    memcpy(def.up, p, 3 * sizeof(float));
    def.scale = p[3], def.settings.iterations = (int)p[4];
    for (int i = 0; i < 14; ++i)
        *cloth_setting(&def.settings, i) = p[5 + i];
    const char* why = cloth_settings_check(&def.settings);
    if (!(def.scale > 0 && isfinite(def.scale))) why = "scale must be > 0";
    if (why) {
        cloth_message(message, message_size, why);
        return NULL;
    }
    play_lattice_player_step(&def);
    uint32_t R = (uint32_t)rows, C = (uint32_t)columns, n = R * C;
    size_t bins = play_lattice_skin_bins(R, C);
    tl_web_cloth* wc = calloc(1, sizeof *wc);
    float* slack = malloc(2 * (size_t)n * sizeof *slack);
    int* bin = malloc(bins * sizeof *bin);
    tl_cloth_skin_point* points = malloc(((size_t)mesh_count + 1) * sizeof *points);
    if (wc) wc->rest = malloc(3 * (size_t)n * sizeof *wc->rest);
    tl_error err;
    tl_result r = TL_ERROR_MEMORY;
    if (wc && wc->rest && slack && bin && points) {
        memcpy(wc->rest, rest, 3 * (size_t)n * sizeof *rest);
        def.rest_positions = wc->rest;
        float margin = def.settings.collision_margin * def.scale;
        tl_collider fitted[TL_WEB_COLLIDERS_MAX];
        uint32_t count = 0;
        unpack_colliders(colliders, collider_count, wc->world);
        for (int k = 0; k < collider_count; ++k) {
            kept[k] = play_lattice_fit_collider(&wc->world[k], wc->rest, R, C, margin);
            if (kept[k]) {
                pack_collider(&wc->world[k], colliders + (size_t)k * TL_WEB_COLLIDER_FLOATS);
                fitted[count++] = wc->world[k];
            }
        }
        if (collider_count > 0) { /* (the C player without colliders: no slack, no points) */
            play_lattice_link_slack(fitted, count, wc->rest, R, C, def.closed, margin, slack);
            def.link_slack = slack;
            if (!def.closed) /* a closed ring pushes no links and no skin */
                def.skin_point_count = play_lattice_skin_points(
                    fitted, count, wc->rest, R, C, margin, mesh, (uint32_t)mesh_count, bin, points);
            def.skin_points = points;
        }
        r = tl_cloth_model_create(&def, NULL, &wc->model, &err);
        if (r == TL_OK) r = tl_cloth_create(wc->model, NULL, &wc->cloth, &err);
    }
    free(slack), free(bin), free(points);
    if (r == TL_OK) {
        wc->rows = rows, wc->columns = columns, wc->closed = def.closed;
        return wc;
    }
    cloth_message(message, message_size, r == TL_ERROR_MEMORY ? "out of memory" : err.message);
    tl_web_cloth_destroy(wc);
    return NULL;
}

static void cloth_input(tl_web_cloth* wc, const float* frame, const float* targets,
                        const float* colliders, int collider_count) {
    wc->in = tl_default_cloth_input();
    wc->in.frame = pose_of(frame);
    wc->in.targets = targets;
    int n = unpack_colliders(colliders, collider_count, wc->world);
    wc->in.colliders = n ? wc->world : NULL;
    wc->in.collider_count = n;
}

/* The cloth at rest on its targets under the pose (play_cloths_start). */
void tl_web_cloth_start(tl_web_cloth* wc, const float* frame, const float* targets,
                        const float* colliders, int collider_count) {
    tl_cloth_clear(wc->cloth);
    cloth_input(wc, frame, targets, colliders, collider_count);
    tl_cloth_step(wc->cloth, &wc->in, 0.0f);
}

static void cloth_sample(void* user, float t, tl_cloth_input* in) {
    (void)t;
    *in = ((const tl_web_cloth*)user)->in;
}

/* One frame (or a cut: dt 0, cut 1) ending at the pose given, each internal step under it: the
 * C player's tl_cloth_step_sampled with the pose at the step's own time, the same when the page
 * steps the cloth at its fixed step (tailor-sim.js samples the clip there). targets must stay
 * valid through the call only. */
void tl_web_cloth_step(tl_web_cloth* wc, const float* frame, const float* targets,
                       const float* colliders, int collider_count, float dt, int cut) {
    cloth_input(wc, frame, targets, colliders, collider_count);
    tl_cloth_step_sampled(wc->cloth, cloth_sample, wc, dt, cut != 0);
}

/* The bones' locals (count x 16) from the lattice now (play_lattice_bone_locals). */
void tl_web_cloth_bones(const tl_web_cloth* wc, int bone_columns, int count,
                        const float* rest_world, const float* attach_world, float* local) {
    if (bone_columns < 1 || count < 1 || count > TL_CHAIN_MAX_BONES + 1) return;
    play_lattice_bone_locals(wc->rest, tl_cloth_positions(wc->cloth), (uint32_t)wc->rows,
                             (uint32_t)wc->columns, wc->closed, (uint32_t)bone_columns,
                             (uint32_t)count, rest_world, attach_world, local);
}

const float* tl_web_cloth_positions(const tl_web_cloth* wc) {
    return tl_cloth_positions(wc->cloth);
}

void tl_web_cloth_destroy(tl_web_cloth* wc) {
    if (!wc) return;
    tl_cloth_destroy(wc->cloth);
    tl_cloth_model_destroy(wc->model);
    free(wc->rest);
    free(wc);
}
