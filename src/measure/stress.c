/* Stress tests of a simulated chain (measure.md "Stress"): hip shake, frame-rate independence,
 * hitch and teleport, all through the player on a real character. */
#include <tailor/colliders.h>
#include <tailor/seating.h>
#include <tailor/stress.h>

#include "base/mat4.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG 57.29577951308232

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
        if (p->has_last) {
            float d = fabsf(tl_quat_dot(bones[b], p->bones[b]));
            p->step_deg[b] = (float)(2.0 * acos(d < 1 ? d : 1) * RAD_TO_DEG);
        }
        memcpy(p->bones[b], bones[b], sizeof bones[b]);
    }
    p->has_last = true;
}

static uint32_t player_nonfinite(const tl_player* player) {
    tl_chain_stats stats = tl_chain_get_stats(tl_player_chain(player, 0));
    return stats.nonfinite_inputs + stats.nonfinite_states;
}

static float clip_time(const tl_scene* scene, int32_t clip, double t) {
    float duration = scene->clips[clip].duration;
    return duration > 0 ? (float)fmod(t, duration) : 0.0f;
}

/* Hip shake, then hold. */
static void run_shake(const tl_scene* scene, tl_player* player, tl_pose* pose, probe* p,
                      const tl_stress_def* def, tl_stress_report* out) {
    const tl_scene_skin* sk = p->sk;
    float pivot[3], up[3] = {sk->up[0], sk->up[1], sk->up[2]};
    column3(sk->joints[sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top].rest_world,
            3, pivot);
    const uint32_t frames =
        (uint32_t)lround((double)(def->shake_seconds + def->hold_seconds) * def->shake_fps);
    const double omega = 2.0 * 3.14159265358979323846 * def->shake_frequency;
    const float threshold = def->settle_speed * out->scale;
    float last_moving = -1; /* time of the last hold frame with a tip at or above threshold */
    bool still_at_end = false;
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->shake_fps;
        double s = t < def->shake_seconds ? sin(omega * t) : 0.0;
        float move[16];
        tl_mat4_rotation_about(move, pivot, (float)(def->shake_yaw_deg * s / RAD_TO_DEG), up);
        for (int c = 0; c < 3; ++c)
            move[12 + c] += (float)(def->shake_amplitude * out->scale * s) * sk->lateral[c];
        tl_pose_set_rest(pose, scene, p->chain->skin);
        tl_pose_move_skin(pose, scene, p->chain->skin, move);
        float dt = f ? 1.0f / def->shake_fps : 0.0f;
        tl_player_step_pose(player, pose, dt);
        probe_frame(p, pose, player, dt);
        if (tl_chain_get_stats(tl_player_chain(player, 0)).contacts) out->shake_contacts++;
        for (uint32_t b = 0; b < p->n; ++b)
            if (p->step_deg[b] > out->max_step_rotation_deg) {
                out->max_step_rotation_deg = p->step_deg[b];
                out->max_neighbour_step_rotation_deg =
                    fmaxf(b > 0 ? p->step_deg[b - 1] : 0, b + 1 < p->n ? p->step_deg[b + 1] : 0);
            }
        if (t > def->shake_seconds) {
            still_at_end = p->peak_speed < threshold;
            if (!still_at_end) last_moving = (float)t;
        }
    }
    if (!still_at_end)
        out->settle_seconds = -1;
    else
        out->settle_seconds = last_moving < 0 ? 0 : last_moving - def->shake_seconds;
}

enum { RATES = 5 };

/* The clip at every rate of def.fps; the largest distance between two rates' tips at a common
 * time, world units. `sampled`: the player hands the chains its pose sampler (its default),
 * else the clip only at render frames, two poses a frame. `tips` holds RATES x samples x n x 3
 * floats. */
static tl_result run_frame_rates(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                                 tl_pose* pose, probe* p, float* tips, uint32_t samples,
                                 const tl_stress_def* def, bool sampled, float* largest,
                                 uint32_t* nonfinite, tl_error* err) {
    for (int r = 0; r < RATES; ++r) {
        tl_player_def pd = tl_default_player_def();
        pd.colliders = pd.fit_colliders = def->colliders;
        if (!sampled) /* the host with two poses a frame, as measure.md defines the figure */
            pd.frame_step = 1.0f / def->fps[r], pd.sample_chains = false;
        pd.loop = true;
        tl_player* player;
        tl_result res = tl_player_create(scene, chain, 1, &pd, &player, err);
        if (res != TL_OK) return res;
        tl_player_start(player, (uint32_t)clip, 0);
        p->has_last = false;
        /* render frames f / fps and sample times k · interval, merged in time order */
        uint32_t f = 0, k = 0;
        double last = 0;
        while (k < samples) {
            double frame_time = f / (double)def->fps[r],
                   sample_time = k * (double)def->compare_interval;
            double t = fmin(frame_time, sample_time);
            tl_player_advance(player, pose, (uint32_t)clip, clip_time(scene, clip, t));
            probe_frame(p, pose, player, (float)(t - last));
            last = t;
            if (sample_time - t < 1e-6) {
                for (uint32_t i = 0; i < p->n; ++i)
                    memcpy(tips + (((size_t)r * samples + k) * p->n + i) * 3, p->points[i + 1],
                           3 * sizeof(float));
                ++k;
            }
            if (frame_time - t < 1e-6) ++f;
        }
        *nonfinite += player_nonfinite(player);
        tl_player_destroy(player);
    }
    *largest = 0;
    for (uint32_t k = 0; k < samples; ++k)
        for (uint32_t i = 0; i < p->n; ++i)
            for (int a = 0; a < RATES; ++a)
                for (int b = a + 1; b < RATES; ++b)
                    *largest =
                        fmaxf(*largest,
                              tl_vec3_distance(tips + (((size_t)a * samples + k) * p->n + i) * 3,
                                               tips + (((size_t)b * samples + k) * p->n + i) * 3));
    return TL_OK;
}

typedef enum event_kind { EVENT_NONE, EVENT_HITCH, EVENT_TELEPORT } event_kind;

/* The windows: whole clip cycles, at least def.window_seconds, so both hold the same poses. */
static double event_window(const tl_scene* scene, int32_t clip, const tl_stress_def* def) {
    double duration = scene->clips[clip].duration;
    return duration > 0 ? duration * ceil(def->window_seconds / duration - 1e-6)
                        : def->window_seconds;
}

/* Warm-up, a window before, the event frame `delay` seconds later, a window after; the peak
 * tip speeds before, after, and in an equal window after the transient (whole clip cycles
 * covering one period of the root spring). */
static tl_result run_event(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                           tl_pose* pose, probe* p, event_kind kind, double delay,
                           const tl_stress_def* def, float scale, float peaks[3],
                           uint32_t* nonfinite, tl_error* err) {
    tl_player_def pd = tl_default_player_def();
    pd.colliders = pd.fit_colliders = def->colliders;
    tl_player* player;
    tl_result res = tl_player_create(scene, chain, 1, &pd, &player, err);
    if (res != TL_OK) return res;
    const tl_scene_skin* sk = p->sk;
    const uint32_t window_frames =
        (uint32_t)lround(event_window(scene, clip, def) * def->event_fps);
    const uint32_t event_frame =
        (uint32_t)lround((def->warmup_seconds + delay) * def->event_fps) + window_frames + 1;
    float jump[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int c = 0; c < 3; ++c)
        jump[12 + c] = def->teleport_distance * scale * sk->forward[c];
    /* the transient: whole clip cycles covering one period of the chain's root spring; the
       later window starts after them */
    double duration = scene->clips[clip].duration,
           period = 1.0 / chain->settings.settings.root_frequency;
    double skip = duration > 0 ? duration * ceil(period / duration - 1e-6) : period;
    const uint32_t skip_frames = (uint32_t)lround(skip * def->event_fps);
    p->has_last = false;
    peaks[0] = peaks[1] = peaks[2] = 0;
    double t = 0;
    for (uint32_t f = 0; f <= event_frame + skip_frames + window_frames; ++f) {
        double dt = f == 0                                      ? 0
                    : (f == event_frame && kind == EVENT_HITCH) ? def->hitch_seconds
                                                                : 1.0 / def->event_fps;
        /* the time from the frame count, not summed: a sum drifts across a clip's wrap, and a
           clip whose last key is not its first then plays its seam differently after a hitch */
        t = f / (double)def->event_fps + (kind == EVENT_HITCH && f >= event_frame
                                              ? def->hitch_seconds - 1.0 / def->event_fps
                                              : 0.0);
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        if (kind == EVENT_TELEPORT && f >= event_frame)
            tl_pose_move_skin(pose, scene, chain->skin, jump);
        tl_player_step_pose(player, pose, (float)dt);
        probe_frame(p, pose, player, (float)dt);
        if (f >= event_frame + skip_frames) peaks[2] = fmaxf(peaks[2], p->peak_speed);
        if (f > event_frame + window_frames) continue;
        if (f >= event_frame)
            peaks[1] = fmaxf(peaks[1], p->peak_speed);
        else if (f + window_frames >= event_frame)
            peaks[0] = fmaxf(peaks[0], p->peak_speed);
    }
    *nonfinite += player_nonfinite(player);
    tl_player_destroy(player);
    return TL_OK;
}

/* The teleport reported as a cut (tl_player_cut) against the run without it: the largest
 * distance of a tip relative to the attachment between the two, over the cut's frame and one
 * second after it, world units. */
static tl_result run_cut(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                         tl_pose* pose, probe* p, const tl_stress_def* def, float scale,
                         float* largest, uint32_t* nonfinite, tl_error* err) {
    tl_player_def pd = tl_default_player_def();
    pd.colliders = pd.fit_colliders = def->colliders;
    tl_player *control = NULL, *cut = NULL;
    tl_result res = tl_player_create(scene, chain, 1, &pd, &control, err);
    if (res == TL_OK) res = tl_player_create(scene, chain, 1, &pd, &cut, err);
    probe* q = malloc(sizeof *q);
    if (res == TL_OK && !q) res = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (res != TL_OK) {
        free(q);
        tl_player_destroy(control);
        tl_player_destroy(cut);
        return res;
    }
    memcpy(q, p, sizeof *q);
    const uint32_t q_frames = q->penetration_frames;
    const uint32_t event_frame = (uint32_t)lround(def->warmup_seconds * def->event_fps);
    const uint32_t frames = event_frame + (uint32_t)lround(def->event_fps);
    float jump[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int c = 0; c < 3; ++c)
        jump[12 + c] = def->teleport_distance * scale * p->sk->forward[c];
    p->has_last = q->has_last = false;
    *largest = 0;
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->event_fps;
        float dt = f ? 1.0f / def->event_fps : 0.0f;
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        tl_player_step_pose(control, pose, dt);
        probe_frame(p, pose, control, dt);
        if (f == event_frame) { /* the last frame's pose, moved: where the next one starts */
            tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t - dt));
            tl_pose_move_skin(pose, scene, chain->skin, jump);
            tl_player_cut(cut, pose);
        }
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        if (f >= event_frame) tl_pose_move_skin(pose, scene, chain->skin, jump);
        tl_player_step_pose(cut, pose, dt);
        probe_frame(q, pose, cut, dt);
        if (f == event_frame)
            for (uint32_t i = 1; i <= p->n; ++i)
                *largest = fmaxf(*largest, tl_vec3_distance(p->relative[i], q->relative[i]));
    }
    *nonfinite += player_nonfinite(control) + player_nonfinite(cut) + q->nonfinite;
    p->max_length_error = fmaxf(p->max_length_error, q->max_length_error);
    p->max_penetration = fmaxf(p->max_penetration, q->max_penetration);
    p->penetration_frames += q->penetration_frames - q_frames; /* (q began as p's copy) */
    free(q);
    tl_player_destroy(control);
    tl_player_destroy(cut);
    return TL_OK;
}

/* The event at def.event_phases phases of a clip cycle; the worst after/before ratio and its
 * peaks (ratio, before, after), and the worst ratio after the transient (worst[3]). */
static tl_result run_events(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                            tl_pose* pose, probe* p, event_kind kind, const tl_stress_def* def,
                            float scale, float worst[4], uint32_t* nonfinite, tl_error* err) {
    const float floor_speed = def->settle_speed * scale;
    worst[0] = worst[3] = -1;
    for (uint32_t k = 0; k < def->event_phases; ++k) {
        float peaks[3];
        double delay = scene->clips[clip].duration * k / def->event_phases;
        tl_result res =
            run_event(scene, chain, clip, pose, p, kind, delay, def, scale, peaks, nonfinite, err);
        if (res != TL_OK) return res;
        float ratio = peaks[1] / fmaxf(peaks[0], floor_speed);
        if (ratio > worst[0]) worst[0] = ratio, worst[1] = peaks[0], worst[2] = peaks[1];
        worst[3] = fmaxf(worst[3], peaks[2] / fmaxf(peaks[0], floor_speed));
    }
    return TL_OK;
}

/* Frame rate, hitch, teleport and control on a clip. `tips`: see run_frame_rates. */
static tl_result run_clip(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                          tl_pose* pose, probe* p, float* tips, uint32_t samples,
                          const tl_stress_def* def, tl_stress_report* out, tl_error* err) {
    float largest, worst[4];
    tl_result res = run_frame_rates(scene, chain, clip, pose, p, tips, samples, def, false,
                                    &largest, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->fps_max_diff = out->chain_length > 0 ? largest / out->chain_length : 0;
    res = run_frame_rates(scene, chain, clip, pose, p, tips, samples, def, true, &largest,
                          &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->fps_max_diff_sampled = out->chain_length > 0 ? largest / out->chain_length : 0;
    res = run_cut(scene, chain, clip, pose, p, def, out->scale, &largest, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->cut_error = out->chain_length > 0 ? largest / out->chain_length : 0;
    res = run_events(scene, chain, clip, pose, p, EVENT_HITCH, def, out->scale, worst,
                     &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->hitch_speed_ratio = worst[0];
    out->hitch_peak_before = worst[1];
    out->hitch_peak_after = worst[2];
    out->hitch_speed_ratio_later = worst[3];
    res = run_events(scene, chain, clip, pose, p, EVENT_TELEPORT, def, out->scale, worst,
                     &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->teleport_speed_ratio = worst[0];
    out->teleport_peak_before = worst[1];
    out->teleport_peak_after = worst[2];
    out->teleport_speed_ratio_later = worst[3];
    res = run_events(scene, chain, clip, pose, p, EVENT_NONE, def, out->scale, worst,
                     &out->nonfinite, err);
    out->control_speed_ratio = worst[0];
    return res;
}

tl_result tl_measure_stress(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                            const tl_stress_def* def, tl_stress_report* out, tl_error* err) {
    assert(scene && chain && def && out && chain->skin < scene->skin_count);
    assert(clip == TL_NONE || (clip >= 0 && (uint32_t)clip < scene->clip_count));
    assert(def->shake_fps > 0 && def->event_fps > 0 && def->compare_interval > 0 &&
           def->event_phases >= 1);
    for (int r = 0; r < RATES; ++r)
        assert(def->fps[r] > 0);
    memset(out, 0, sizeof *out);
    memcpy(out->fps_rates, def->fps, sizeof out->fps_rates);
    out->fps_max_diff_sampled = out->cut_error = -1;
    out->fps_max_diff = out->hitch_speed_ratio = out->teleport_speed_ratio =
        out->control_speed_ratio = out->hitch_speed_ratio_later = out->teleport_speed_ratio_later =
            -1;
    const tl_scene_skin* sk = &scene->skins[chain->skin];
    out->scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
    uint32_t samples = 0;
    if (clip != TL_NONE) {
        double span = fmax(def->compare_seconds, scene->clips[clip].duration);
        samples = (uint32_t)floor(span / def->compare_interval + 1e-6) + 1;
    }

    tl_player_def pd = tl_default_player_def();
    pd.frame_step = 1.0f / def->shake_fps;
    pd.colliders = pd.fit_colliders = def->colliders;
    tl_player* player = NULL;
    tl_result res = tl_player_create(scene, chain, 1, &pd, &player, err);
    if (res != TL_OK) return res;
    tl_pose* pose = tl_pose_create(scene);
    if (pose) tl_pose_keep_skin(pose, scene, chain->skin); /* only the chain's skin is read */
    probe* p = malloc(sizeof *p);
    float* tips = malloc(sizeof *tips * (RATES * (size_t)samples * chain->bone_count * 3 + 1));
    if (!pose || !p || !tips) {
        res = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    } else {
        probe_init(p, scene, chain);
        out->chain_length = chain_length(p);
        run_shake(scene, player, pose, p, def, out);
        out->nonfinite += player_nonfinite(player);
        if (clip != TL_NONE)
            res = run_clip(scene, chain, clip, pose, p, tips, samples, def, out, err);
        out->nonfinite += p->nonfinite;
        out->max_length_error = p->max_length_error;
        out->collider_penetration = sk->height > 0 ? p->max_penetration / sk->height : 0;
        out->colliders = p->colliders;
        out->collider_frames = p->penetration_frames;
    }
    free(tips);
    free(p);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
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
