/* Stress tests of a simulated chain (measure.md "Stress"): hip shake, frame-rate independence,
 * hitch and teleport, all through the player on a real character. The runs are stress_runs.c's;
 * this file reads the chain. */
#include <tailor/colliders.h>
#include <tailor/stress.h>

#include "base/mat4.h"
#include "stress_runs.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_stress_def tl_default_stress_def(void) {
    tl_stress_def def;
    def.shake_amplitude = 0.25f;
    def.shake_yaw_deg = 45.0f;
    def.shake_frequency = 1.5f;
    def.shake_seconds = 4.0f;
    def.hold_seconds = 4.0f;
    def.shake_fps = 60.0f;
    def.settle_speed = 0.01f;
    def.fps[0] = 15.0f;
    def.fps[1] = 30.0f;
    def.fps[2] = 60.0f;
    def.fps[3] = 120.0f;
    def.fps[4] = 144.0f;
    def.compare_interval = 1.0f / 6.0f;
    def.compare_seconds = 2.0f;
    def.event_fps = 60.0f;
    def.hitch_seconds = 0.5f;
    def.teleport_distance = 100.0f;
    def.warmup_seconds = 3.0f;
    def.window_seconds = 2.0f;
    def.event_phases = 4;
    def.colliders = true;
    return def;
}

/* Watches one chain in a pose frame after frame. */
typedef struct probe {
    const tl_scene* scene;
    const tl_scene_skin* sk;
    const tl_play_chain* chain;
    uint32_t n;                                /* bones; points are n + 1 */
    float rest_length[TL_CHAIN_MAX_BONES];     /* world units */
    float length;                              /* the chain's: the sum of rest_length */
    float points[TL_CHAIN_MAX_BONES + 1][3];   /* this frame, world */
    float relative[TL_CHAIN_MAX_BONES + 1][3]; /* last frame, in the attachment's frame */
    float bones[TL_CHAIN_MAX_BONES][4];        /* last frame, relative to the attachment */
    bool has_last;
    /* this frame */
    float step_deg[TL_CHAIN_MAX_BONES];
    float peak_speed; /* of any tip relative to the attachment, world units / s */
    /* every frame so far */
    uint32_t nonfinite;
    float max_length_error;
    float max_penetration;       /* world units */
    uint32_t penetration_frames; /* frames whose particles were read against the colliders */
    uint32_t colliders;
} probe;

static void column3(const float* m, int c, float out[3]) {
    memcpy(out, m + 4 * c, 3 * sizeof(float));
}

static void probe_init(probe* p, const tl_scene* scene, const tl_play_chain* chain) {
    memset(p, 0, sizeof *p);
    p->scene = scene;
    p->sk = &scene->skins[chain->skin];
    p->chain = chain;
    p->n = chain->bone_count;
    float rest[TL_CHAIN_MAX_BONES + 1][3];
    for (uint32_t b = 0; b < p->n; ++b)
        column3(p->sk->joints[chain->bone_joints[b]].rest_world, 3, rest[b]);
    if (chain->end_joint != TL_NONE)
        column3(p->sk->joints[chain->end_joint].rest_world, 3, rest[p->n]);
    uint32_t jointed = chain->end_joint != TL_NONE ? p->n : p->n - 1; /* links ending in a joint */
    for (uint32_t b = 0; b < jointed; ++b)
        p->rest_length[b] = tl_vec3_distance(rest[b], rest[b + 1]);
    /* no end joint: the solver continues the last link as long as the one before it (sim.h) */
    if (chain->end_joint == TL_NONE && p->n >= 2)
        p->rest_length[p->n - 1] = p->rest_length[p->n - 2];
}

static float chain_length(const probe* p) {
    float sum = 0;
    for (uint32_t b = 0; b < p->n; ++b)
        sum += p->rest_length[b];
    return sum;
}

static void node_position(const tl_pose* pose, uint32_t node, float out[3]) {
    column3(pose->world + 16 * (size_t)node, 3, out);
}

/* Node `node` relative to the attachment node, in its frame (times its scale: world units), from
 * the pose's locals between the two rather than from world matrices: 100 m from the world's
 * origin (the cut, the teleport) a world matrix rounds at that distance's precision, 1e-5 of a
 * small character's chain, the locals at the character's own. False when the node is not below
 * the attachment. */
static bool relative_from_locals(const probe* p, const tl_pose* pose, uint32_t attach_node,
                                 float attach_scale, uint32_t node, float out[3]) {
    uint32_t path[64], k = 0;
    for (int32_t n = (int32_t)node; n != (int32_t)attach_node; n = p->scene->doc->nodes[n].parent)
        if (n == TL_NONE || k == 64)
            return false;
        else
            path[k++] = (uint32_t)n;
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, local[16], next[16];
    while (k > 0) {
        tl_trs_to_matrix(&pose->locals[path[--k]], local);
        tl_mat4_mul(next, m, local);
        memcpy(m, next, sizeof m);
    }
    for (int c = 0; c < 3; ++c)
        out[c] = attach_scale * m[12 + c];
    return true;
}

/* Reads the chain in `pose` (the player applied) after a frame of dt seconds. */
static void probe_frame(probe* p, const tl_pose* pose, const tl_player* player, float dt) {
    const tl_scene_joint* joints = p->sk->joints;
    for (uint32_t b = 0; b < p->n; ++b)
        node_position(pose, joints[p->chain->bone_joints[b]].node, p->points[b]);
    if (p->chain->end_joint != TL_NONE)
        node_position(pose, joints[p->chain->end_joint].node, p->points[p->n]);
    float origin[3]; /* the player's floating origin: the chain's positions are relative to it */
    tl_player_origin(player, origin);
    if (p->chain->end_joint == TL_NONE) {
        const float* tip = tl_chain_tip_positions(tl_player_chain(player, 0)) + 3 * (p->n - 1);
        for (int c = 0; c < 3; ++c)
            p->points[p->n][c] = tip[c] + origin[c];
    }
    tl_chain_pose attach =
        tl_chain_pose_from_matrix(pose->world + 16 * (size_t)joints[p->chain->attach_joint].node);
    float attach_inverse[4], bones[TL_CHAIN_MAX_BONES][4];
    tl_quat_conjugate(attach_inverse, attach.rotation);
    bool finite = true;
    for (uint32_t b = 0; b < p->n; ++b) {
        tl_chain_pose bone = tl_chain_pose_from_matrix(
            pose->world + 16 * (size_t)joints[p->chain->bone_joints[b]].node);
        tl_quat_mul(bones[b], attach_inverse, bone.rotation);
        for (int c = 0; c < 4; ++c)
            finite = finite && isfinite(bones[b][c]);
    }
    for (uint32_t i = 0; i <= p->n; ++i)
        for (int c = 0; c < 3; ++c)
            finite = finite && isfinite(p->points[i][c]);
    const tl_collider* world;
    uint32_t colliders = tl_player_colliders(player, 0, &world);
    const tl_chain* chain = tl_player_chain(player, 0);
    const float* particles = tl_chain_particle_positions(chain);
    /* the particles as the last internal step left them, against the colliders of that time: a
       frame whose last sub-frame ran no step (a render time off the player's 1/120 s clip grid:
       144 fps, the compare samples) holds a state up to a step older than its colliders, and is
       not read (the output, interpolated and kept out by output_contact, is what it shows) */
    const uint32_t read = tl_chain_state_lag(chain) <= 1e-6 ? colliders : 0;
    /* each link's colliders as it runs them: a hair link is kept out of a collider grown by
       its hit radius, or shrunk to where its tip rests (a lock lying in the chest capsule is
       modelled there), the output's contact the same (hair_sheet.c) */
    const float* growth = tl_player_collider_growth(player, 0);
    p->colliders = colliders;
    if (read > 0) p->penetration_frames++;
    for (uint32_t i = 0; i < p->n; ++i) {
        float at[3];
        for (int c = 0; c < 3; ++c)
            at[c] = particles[3 * i + c] + origin[c];
        for (uint32_t k = 0; k < read; ++k) {
            /* against the collider the link runs (an ellipsoid's semi-axes grown: its depth
               plus the growth would only approximate it) */
            tl_collider grown;
            float grow = growth ? growth[(size_t)k * p->n + i] : 0;
            if (grow == 0) /* (its own) */
                p->max_penetration = fmaxf(p->max_penetration, tl_collider_depth(&world[k], at));
            else if (tl_collider_grown(&world[k], grow, &grown)) /* (else free of it) */
                p->max_penetration = fmaxf(p->max_penetration, tl_collider_depth(&grown, at));
        }
    }
    p->peak_speed = 0;
    memset(p->step_deg, 0, sizeof p->step_deg);
    if (!finite) {
        p->nonfinite++;
        p->has_last = false;
        return;
    }
    uint32_t attach_node = joints[p->chain->attach_joint].node;
    for (uint32_t i = 0; i <= p->n; ++i) {
        float offset[3], relative[3];
        int32_t j = i < p->n ? (int32_t)p->chain->bone_joints[i] : p->chain->end_joint;
        if (j == TL_NONE ||
            !relative_from_locals(p, pose, attach_node, attach.scale, joints[j].node, relative)) {
            for (int c = 0; c < 3; ++c)
                offset[c] = p->points[i][c] - attach.position[c];
            tl_quat_rotate(relative, attach_inverse, offset);
        }
        if (p->has_last && dt > 0 && i > 0)
            p->peak_speed = fmaxf(p->peak_speed, tl_vec3_distance(relative, p->relative[i]) / dt);
        memcpy(p->relative[i], relative, sizeof relative);
    }
    /* lengths relative to the attachment (from the locals: 100 m out a world matrix rounds at
       1e-4 of a 4 cm hair link); the last link without an end joint from the solver's tips,
       which are relative to its floating origin */
    const float* tips = tl_chain_tip_positions(tl_player_chain(player, 0));
    for (uint32_t b = 0; b < p->n; ++b)
        if (p->rest_length[b] > 0) {
            float length = b + 1 == p->n && p->chain->end_joint == TL_NONE && b > 0
                               ? tl_vec3_distance(tips + 3 * (b - 1), tips + 3 * b)
                               : tl_vec3_distance(p->relative[b], p->relative[b + 1]);
            float error = fabsf(length - p->rest_length[b]) / p->rest_length[b];
            p->max_length_error = fmaxf(p->max_length_error, error);
        }
    for (uint32_t b = 0; b < p->n; ++b) {
        if (p->has_last) p->step_deg[b] = stress_step_deg(p->bones[b], bones[b]);
        memcpy(p->bones[b], bones[b], sizeof bones[b]);
    }
    p->has_last = true;
}

/* The callbacks of stress_part (stress_runs.h) on a probe. */
static tl_result chain_play(void* self, const tl_player_def* pd, tl_player** out, tl_error* err) {
    const struct probe* p = self;
    return tl_player_create(p->scene, p->chain, 1, pd, out, err);
}

static stress_frame chain_read(void* self, const tl_pose* pose, const tl_player* player, float dt) {
    probe_frame(self, pose, player, dt);
    const struct probe* p = self;
    stress_frame frame = {p->peak_speed, p->step_deg,
                          tl_chain_get_stats(tl_player_chain(player, 0)).contacts};
    return frame;
}

static void chain_forget(void* self) {
    ((struct probe*)self)->has_last = false;
}

static uint32_t chain_nonfinite(void* self, const tl_player* player) {
    (void)self;
    tl_chain_stats stats = tl_chain_get_stats(tl_player_chain(player, 0));
    return stats.nonfinite_inputs + stats.nonfinite_states;
}

/* The tips: every link's end (points 1..n). */
static void chain_tips(void* self, const tl_player* player, float* out) {
    (void)player;
    const struct probe* p = self;
    memcpy(out, p->points[1], 3 * sizeof(float) * p->n);
}

static float chain_tip_length(void* self, uint32_t tip) {
    (void)tip;
    return ((const struct probe*)self)->length;
}

/* The cut run read by a copy of the probe, merged back after it. */
static void* chain_cut_begin(void* self) {
    struct probe* q = malloc(sizeof *q);
    if (!q) return NULL;
    memcpy(q, self, sizeof *q);
    q->nonfinite = 0, q->penetration_frames = 0; /* (merged back as added counts) */
    return q;
}

static void chain_cut_end(void* self, void* cut_self) {
    struct probe *p = self, *q = cut_self;
    p->nonfinite += q->nonfinite;
    p->max_length_error = fmaxf(p->max_length_error, q->max_length_error);
    p->max_penetration = fmaxf(p->max_penetration, q->max_penetration);
    p->penetration_frames += q->penetration_frames;
    free(q);
}

/* The largest distance of a tip relative to the attachment between the control run and the
 * cut run, over the chain's rest length. */
static float chain_cut_error(void* self, void* cut_self, const tl_pose* pose,
                             const tl_player* control, const tl_player* cut) {
    (void)pose, (void)control, (void)cut;
    const struct probe *p = self, *q = cut_self;
    float largest = 0;
    for (uint32_t i = 1; i <= p->n; ++i)
        largest = fmaxf(largest, tl_vec3_distance(p->relative[i], q->relative[i]));
    return p->length > 0 ? largest / p->length : 0;
}

tl_result tl_measure_stress(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                            const tl_stress_def* def, tl_stress_report* out, tl_error* err) {
    assert(scene && chain && def && out && chain->skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[chain->skin];
    stress_report_init(out, def, sk);
    probe* p = malloc(sizeof *p);
    if (!p) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    probe_init(p, scene, chain);
    out->chain_length = p->length = chain_length(p);
    stress_part part = {
        .scene = scene,
        .def = def,
        .skin = chain->skin,
        .only_skin = true,
        .bones = p->n,
        .bone_columns = 1,
        .tips = p->n,
        /* the later window waits one period of the chain's root spring */
        .transient = 1.0 / chain->settings.settings.root_frequency,
        .probe = p,
        .play = chain_play,
        .read = chain_read,
        .forget = chain_forget,
        .nonfinite = chain_nonfinite,
        .tips_read = chain_tips,
        .tip_length = chain_tip_length,
        .cut_begin = chain_cut_begin,
        .cut_end = chain_cut_end,
        .cut_error = chain_cut_error,
    };
    tl_result res = stress_runs(&part, clip, out, err);
    out->nonfinite += p->nonfinite;
    out->max_length_error = p->max_length_error;
    out->collider_penetration = sk->height > 0 ? p->max_penetration / sk->height : 0;
    out->colliders = p->colliders;
    out->collider_frames = p->penetration_frames;
    free(p);
    return res;
}
static bool contains_word(const char* name, const char* word) {
    for (const char* p = name; *p; ++p) {
        size_t k = 0;
        while (word[k] && p[k] && (p[k] | 32) == word[k])
            ++k;
        if (!word[k]) return true;
    }
    return false;
}

int32_t tl_stress_default_clip(const tl_scene* scene) {
    static const char* preferred[] = {"run", "gallop", "walk"};
    int32_t clip = TL_NONE;
    for (int w = 0; w < 3 && clip == TL_NONE; ++w)
        for (uint32_t k = 0; k < scene->clip_count && clip == TL_NONE; ++k)
            if (contains_word(scene->clips[k].name, preferred[w])) clip = (int32_t)k;
    if (clip == TL_NONE && scene->clip_count > 0) clip = 0;
    return clip;
}
