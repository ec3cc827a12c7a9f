/* The spring chain's API: defaults, create and destroy, the accessors (spring-chain.md). */
#include <stdatomic.h>
#include <stdlib.h>

#include "chain_parts.h"
#include "spring_chain_internal.h"

tl_chain_settings tl_default_chain_settings(void) {
    tl_chain_settings s;
    s.root_frequency = 1.2f; /* the article's 0.9: a long tail settled late (docs/stress.md) */
    s.tip_frequency = 0.45f;
    s.damping_ratio = 0.65f;
    s.gravity = 1.0f;
    s.carry_deg = 50;
    s.rest_curve = 0;
    s.coupling_rate = 12;
    s.bend_limit_deg = 30;
    s.ground_clearance = 0.025f;
    s.slip_damping = 8;
    return s;
}

tl_chain_def tl_default_chain_def(void) {
    tl_chain_def def;
    memset(&def, 0, sizeof def);
    def.hips_lateral[0] = 1;
    def.hips_up[1] = 1;
    def.hips_forward[2] = 1;
    def.up[1] = 1;
    def.scale = 1;
    def.floor_enabled = true;
    def.floor_height = 0;
    def.hips_plane_enabled = true;
    def.settings = tl_default_chain_settings();
    def.fixed_step = 1.0f / 120.0f;
    def.max_substeps = 8;
    def.teleport_distance = 1.0f;
    def.sleep_speed = 0.01f; /* measure.md's rest bar */
    def.sleep_seconds = 0;   /* (a host opts in: tailor's player does) */
    return def;
}

static tl_chain_pose identity_pose(void) {
    tl_chain_pose p = {{0, 0, 0}, {0, 0, 0, 1}, 1};
    return p;
}

tl_chain_input tl_default_chain_input(void) {
    tl_chain_input in;
    memset(&in, 0, sizeof in);
    in.start = in.target = identity_pose();
    in.hips_start[3] = in.hips_target[3] = 1;
    return in;
}

/* ---- create ---- */

static size_t align16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

size_t tl_chain_memory_size(int n) {
    size_t N = (size_t)n;
    return align16(sizeof(tl_chain)) + align16(N * sizeof(link_const)) +
           align16(N * sizeof(link_swings)) + align16(N * 3 * sizeof(float)) * 4 +
           align16(N * 4 * sizeof(float)) + align16(N * sizeof(float)) * 3 +
           align16(N * 15 * sizeof(float)); /* (sleep_tips, sleep_sums, sleep_from) */
}

static void* default_alloc(size_t size, void* user) {
    (void)user;
    return malloc(size);
}
static void default_free(void* pointer, void* user) {
    (void)user;
    free(pointer);
}

/* Unique per create (serial), per change of a chain's constants (constants_id) and per
 * tl_chain_batch_step call. */
static atomic_uint_fast64_t next_id = 1;

uint64_t chain_new_id(void) {
    return (uint64_t)atomic_fetch_add(&next_id, 1);
}

static void assert_settings(const tl_chain_settings* s) {
    assert(s->root_frequency > 0 && s->tip_frequency > 0 && s->damping_ratio >= 0);
    assert(s->gravity >= 0 && s->rest_curve >= 0 && s->rest_curve <= 1 && s->coupling_rate >= 0);
    assert(s->bend_limit_deg > 0 && s->ground_clearance >= 0 && s->slip_damping >= 0);
    (void)s;
}

/* The floor's slip damping (spring-chain.md §7's gamma) on top of the springs' own. A link's
 * velocity is damped by 2 zeta omega_i and, beyond the root, as much again relative to its
 * head: a link on a still head has 2 (root) or 4 zeta omega_i against a critical 2 omega_i.
 * The floor's slip adds no more than the most damped link lacks of critical: on a link
 * already past it the slip only made the over-damped return slower (a long tail thrown onto
 * the floor crept back at the slow root and settled late: docs/stress.md, session 21). The
 * floor still takes the velocity into it; a body collider's contact keeps gamma (its friction). */
static float chain_floor_slip_damping(const tl_chain_settings* s, int n) {
    float lack = INFINITY;
    for (int i = 0; i < n; ++i) {
        float own = (i > 0 ? 4.0f : 2.0f) * s->damping_ratio; /* x omega_i */
        lack = fminf(lack, chain_link_omega(s, i, n) * (2.0f - own));
    }
    return fminf(s->slip_damping, fmaxf(0.0f, lack));
}

/* The settings' values for one internal step (the per-link ones: chain_build_rest). */
static void chain_apply_settings(tl_chain* c, const tl_chain_settings* s) {
    c->settings = *s;
    c->coupling_alpha = 1.0f - expf(-s->coupling_rate * c->step);
    c->slip_decay = expf(-s->slip_damping * c->step);
    c->floor_slip_decay = expf(-chain_floor_slip_damping(s, c->n) * c->step);
    c->gravity = s->gravity * c->scale;
    c->floor_level = c->floor_height + s->ground_clearance * c->scale;
}

void tl_chain_set_floor(tl_chain* c, float height) {
    assert(c && isfinite(height));
    c->sleep_dirty = c->sleep_dirty || height != c->floor_height; /* (a move wakes it) */
    c->floor_height = height;
    c->floor_level = height + c->settings.ground_clearance * c->scale;
    c->settings_id = chain_new_id(); /* (lanes holding its settings take them again) */
}

void tl_chain_particles_move(tl_chain* c, const float* offsets) {
    assert(c && offsets);
    if (!chain_all_finite(offsets, 3 * (size_t)c->n)) return; /* a host's NaN moves nothing */
    chain_state_sync(c); /* (the state may be in a batch's lane: write it back first) */
    for (int k = 0; k < 3 * c->n; ++k) {
        c->positions[k] += offsets[k];
        c->sleep_dirty = c->sleep_dirty || offsets[k] != 0; /* (moving nothing wakes nothing) */
    }
    c->stamp++; /* lanes holding the state gather it again */
}

void tl_chain_set_settings(tl_chain* c, const tl_chain_settings* settings) {
    assert(c && settings);
    assert_settings(settings);
    chain_apply_settings(c, settings);
    chain_build_rest(c, settings);
    /* every lane holding this chain's constants gathers them again; its state is kept */
    c->constants_id = chain_new_id();
    c->settings_id = chain_new_id();
    c->sleep_dirty = true;
}

tl_chain_settings tl_chain_get_settings(const tl_chain* c) {
    return c->settings;
}

tl_result tl_chain_create(const tl_chain_def* def, const tl_allocator* allocator, tl_chain** out,
                          tl_error* err) {
    assert(def && out);
    *out = NULL;
    int n = def->bone_count;
    assert(n >= 1 && n <= TL_CHAIN_MAX_BONES);
    assert(def->rest_translations && def->rest_rotations);
    assert_settings(&def->settings);
    assert(def->scale > 0 && def->fixed_step > 0 && def->max_substeps >= 1);
    assert(def->teleport_distance > 0);
    assert(def->sleep_speed >= 0 && def->sleep_seconds >= 0);
    if (!chain_all_finite(def->rest_translations, 3 * (size_t)n) ||
        !chain_all_finite(def->rest_rotations, 4 * (size_t)n) ||
        (def->tip_translation && !chain_all_finite(def->tip_translation, 3)) ||
        (def->joint_radii && !chain_all_finite(def->joint_radii, (size_t)n)))
        return tl_error_set(err, TL_ERROR_INVALID, "chain: rest geometry has a non-finite value");
    v3 up = v3_normalize_or(v3_load(def->up), v3_make(0, 0, 0));
    assert(v3_dot(up, up) > 0.5f && "def.up must be a non-zero vector");
    qt H;
    tl_result r = chain_hips_frame(def, &H, err);
    if (r != TL_OK) return r;

    tl_allocator a = allocator ? *allocator : (tl_allocator){default_alloc, default_free, NULL};
    unsigned char* block = a.alloc(tl_chain_memory_size(n), a.user);
    if (!block) return tl_error_set(err, TL_ERROR_MEMORY, "chain: out of memory");
    memset(block, 0, tl_chain_memory_size(n));
    tl_chain* c = (tl_chain*)block;
    size_t at = align16(sizeof(tl_chain)), N = (size_t)n;
#define CARVE(field, type, count)                                                                  \
    c->field = (type*)(block + at);                                                                \
    at += align16((count) * sizeof(type))
    CARVE(links, link_const, N);
    CARVE(own, link_swings, N);
    CARVE(positions, float, 3 * N);
    CARVE(velocities, float, 3 * N);
    CARVE(out_tips, float, 3 * N);
    CARVE(rest_dirs, float, 3 * N);
    CARVE(out_local, float, 4 * N);
    CARVE(out_lengths, float, N);
    CARVE(limits, float, N);
    CARVE(radii, float, N);
    c->sleep_tips = (float*)(block + at); /* (one carve: the size adds them as one block) */
    c->sleep_sums = c->sleep_tips + 3 * N;
    c->sleep_from = c->sleep_sums + 6 * N;
    at += align16(15 * N * sizeof(float));
#undef CARVE
    assert(at <= tl_chain_memory_size(n));

    c->allocator = a;
    c->n = n;
    c->serial = chain_new_id();
    c->constants_id = c->serial;
    c->settings_id = c->serial;
    c->step = def->fixed_step;
    c->scale = def->scale;
    c->floor_height = def->floor_height;
    chain_apply_settings(c, &def->settings);
    c->sleep_speed = def->sleep_speed * def->scale;
    c->sleep_seconds = def->sleep_seconds;
    c->teleport2 = def->teleport_distance * def->scale * def->teleport_distance * def->scale;
    c->max_substeps = def->max_substeps;
    c->floor_enabled = def->floor_enabled;
    c->plane_enabled = def->hips_plane_enabled;
    c->up = up;
    c->root_offset = v3_load(def->rest_translations);
    c->hips_in_attachment = H;
    r = chain_build_links(c, def, err);
    if (r != TL_OK) {
        a.free(block, a.user);
        return r;
    }
    tl_chain_clear(c);
    *out = c;
    return TL_OK;
}

/* Working copies for max_chains chains: one per full group, one per group a call may leave
 * partly filled. */
static int batch_groups(int max_chains) {
    return (max_chains + chain_batch_lanes() - 1) / chain_batch_lanes() + OPEN_GROUPS;
}

size_t tl_chain_batch_memory_size(int max_bones, int max_chains) {
    size_t groups = (size_t)batch_groups(max_chains);
    return align16(sizeof(tl_chain_batch)) + align16(groups * sizeof(lane_group)) +
           groups * align16((size_t)max_bones * sizeof(lane_link));
}

tl_result tl_chain_batch_create(int max_bones, int max_chains, const tl_allocator* allocator,
                                tl_chain_batch** out, tl_error* err) {
    assert(out && max_bones >= 1 && max_bones <= TL_CHAIN_MAX_BONES && max_chains >= 1);
    *out = NULL;
    tl_allocator a = allocator ? *allocator : (tl_allocator){default_alloc, default_free, NULL};
    size_t size = tl_chain_batch_memory_size(max_bones, max_chains);
    unsigned char* block = a.alloc(size, a.user);
    if (!block) return tl_error_set(err, TL_ERROR_MEMORY, "chain batch: out of memory");
    memset(block, 0, size);
    tl_chain_batch* b = (tl_chain_batch*)block;
    b->allocator = a;
    b->max_bones = max_bones;
    b->group_count = batch_groups(max_chains);
    size_t at = align16(sizeof(tl_chain_batch));
    b->groups = (lane_group*)(block + at);
    at += align16((size_t)b->group_count * sizeof(lane_group));
    for (int g = 0; g < b->group_count; ++g) {
        b->groups[g].links = (lane_link*)(block + at);
        at += align16((size_t)max_bones * sizeof(lane_link));
    }
    assert(at <= size);
    *out = b;
    return TL_OK;
}

void tl_chain_batch_destroy(tl_chain_batch* batch) {
    if (!batch) return;
    for (int g = 0; g < batch->group_count; ++g) /* the state only its lanes hold goes back */
        for (int l = 0; l < LANES; ++l)
            if (batch->groups[g].lane_owner[l]) chain_state_sync(batch->groups[g].lane_owner[l]);
    batch->allocator.free(batch, batch->allocator.user);
}

void tl_chain_destroy(tl_chain* chain) {
    if (!chain) return;
    chain_state_drop(chain); /* (a batch's lane no longer names it) */
    chain->allocator.free(chain, chain->allocator.user);
}

/* ---- output ---- */

int tl_chain_bone_count(const tl_chain* c) {
    return c->n;
}
const float* tl_chain_local_rotations(const tl_chain* c) {
    return c->out_local;
}
const float* tl_chain_tip_positions(const tl_chain* c) {
    return c->out_tips;
}
/* (The state a batch's lane still holds is written back first: the chain was made writable by
 * tl_chain_create, so the cast is sound.) */
const float* tl_chain_particle_positions(const tl_chain* c) {
    chain_state_sync((tl_chain*)c);
    return c->positions;
}
const float* tl_chain_particle_velocities(const tl_chain* c) {
    chain_state_sync((tl_chain*)c);
    return c->velocities;
}
const float* tl_chain_link_lengths(const tl_chain* c) {
    chain_state_sync((tl_chain*)c);
    return c->out_lengths;
}
const float* tl_chain_rest_directions(const tl_chain* c) {
    return c->rest_dirs;
}
const float* tl_chain_bend_limits(const tl_chain* c) {
    return c->limits;
}
double tl_chain_state_lag(const tl_chain* c) {
    return c->accumulator;
}
tl_chain_stats tl_chain_get_stats(const tl_chain* c) {
    return c->stats;
}

void tl_chain_debug_velocity_feedback(tl_chain* chain, bool on) {
    chain->velocity_feedback = on;
}
