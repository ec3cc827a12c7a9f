/* Stress tests of a cloth part (measure.md "Stress", stress.h): the chain's runs (hip shake,
 * frame rates, a reported cut, a hitch, a detected teleport) through the player, read off the
 * lattice. A cloth's "tips" are its free particles (rows 1 on), its "links" the vertical
 * tethers, its "chain length" a column's rest length (the mean over columns; each particle's
 * distance is taken as a fraction of its own column's). */
#include <tailor/colliders.h>
#include <tailor/seating.h>
#include <tailor/stress.h>

#include "base/mat4.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG 57.29577951308232
enum { RATES = 5 };

/* Watches one cloth part frame after frame. */
typedef struct cloth_probe {
    const tl_scene* scene;
    const tl_scene_part* sp;
    const tl_scene_skin* sk;
    uint32_t part, rows, columns, n, bones;
    float* column;   /* columns: rest length of each column, world units */
    float* relative; /* n x 3: last frame's particles in the character frame (solver local) */
    float* bone_rot; /* bones x 4: last frame's bone rotations relative to the attachment */
    float* step_deg; /* bones: this frame's rotation of each bone */
    bool has_last;
    float peak_speed; /* this frame: of any free particle relative to the attachment */
    uint32_t nonfinite;
    float max_length_error;
    float max_penetration; /* world units */
    uint32_t colliders, contacts;
} cloth_probe;

static void probe_free(cloth_probe* p) {
    free(p->column);
    p->column = NULL;
}

static tl_result probe_init(cloth_probe* p, const tl_scene* scene, uint32_t part, tl_error* err) {
    memset(p, 0, sizeof *p);
    p->scene = scene, p->part = part;
    p->sp = &scene->parts[part];
    p->sk = &scene->skins[p->sp->skin];
    p->rows = p->sp->cloth_rows, p->columns = p->sp->cloth_columns;
    p->n = p->rows * p->columns, p->bones = p->sp->bone_count;
    size_t floats = p->columns + 3 * (size_t)p->n + 5 * (size_t)p->bones + 1;
    p->column = calloc(floats, sizeof(float));
    if (!p->column) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    p->relative = p->column + p->columns;
    p->bone_rot = p->relative + 3 * (size_t)p->n;
    p->step_deg = p->bone_rot + 4 * (size_t)p->bones;
    /* rest particles in the skin's rest-world frame (as the player builds them) */
    for (uint32_t i = p->columns; i < p->n; ++i) {
        float a[3], b[3];
        tl_mat4_transform_point(a, p->sk->rest_world,
                                p->sp->cloth_particles + 3 * (i - p->columns));
        tl_mat4_transform_point(b, p->sk->rest_world, p->sp->cloth_particles + 3 * i);
        p->column[i % p->columns] += tl_vec3_distance(a, b);
    }
    return TL_OK;
}

static float mean_column(const cloth_probe* p) {
    float sum = 0;
    for (uint32_t c = 0; c < p->columns; ++c)
        sum += p->column[c];
    return p->columns ? sum / (float)p->columns : 0;
}

/* The player's cloth playing the part. */
static const tl_cloth* probe_cloth(const cloth_probe* p, const tl_player* player) {
    for (uint32_t i = 0; i < tl_player_cloth_count(player); ++i)
        if (tl_player_cloth_part(player, i) == p->part) return tl_player_cloth(player, i);
    return NULL;
}

static uint32_t probe_index(const cloth_probe* p, const tl_player* player) {
    for (uint32_t i = 0; i < tl_player_cloth_count(player); ++i)
        if (tl_player_cloth_part(player, i) == p->part) return i;
    return 0;
}

static uint32_t cloth_nonfinite(const cloth_probe* p, const tl_player* player) {
    tl_cloth_stats s = tl_cloth_get_stats(probe_cloth(p, player));
    return s.nonfinite_inputs + s.nonfinite_states;
}

static void matrix_rotation(const float* m, float q[4]) {
    tl_chain_pose pose = tl_chain_pose_from_matrix(m);
    memcpy(q, pose.rotation, sizeof pose.rotation);
}

/* The bones' rotations relative to the attachment and their turn since the last frame. */
static bool probe_bones(cloth_probe* p, const tl_pose* pose) {
    const tl_scene_joint* joints = p->sk->joints;
    float attach[4], inverse[4];
    matrix_rotation(pose->world + 16 * (size_t)joints[p->sp->attach_joint].node, attach);
    tl_quat_conjugate(inverse, attach);
    bool finite = true;
    for (uint32_t b = 0; b < p->bones; ++b) {
        float q[4], rel[4];
        matrix_rotation(pose->world + 16 * (size_t)joints[p->sp->bone_joints[b]].node, q);
        tl_quat_mul(rel, inverse, q);
        for (int k = 0; k < 4; ++k)
            finite = finite && isfinite(rel[k]);
        p->step_deg[b] = 0;
        if (p->has_last) {
            float d = fabsf(tl_quat_dot(rel, p->bone_rot + 4 * b));
            p->step_deg[b] = (float)(2.0 * acos(d < 1 ? d : 1) * RAD_TO_DEG);
        }
        memcpy(p->bone_rot + 4 * b, rel, sizeof rel);
    }
    return finite;
}

/* World units per solver unit: the attachment's scale now over its rest scale. */
static float frame_scale(const cloth_probe* p, const tl_pose* pose) {
    const tl_scene_joint* j = &p->sk->joints[p->sp->attach_joint];
    float now = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)j->node).scale;
    float rest = tl_chain_pose_from_matrix(j->rest_world).scale;
    return rest > 0 && isfinite(now) ? now / rest : 1.0f;
}

/* Reads the cloth after a frame of dt seconds (the player applied the pose). */
static void probe_frame(cloth_probe* p, const tl_pose* pose, const tl_player* player, float dt) {
    const tl_cloth* cloth = probe_cloth(p, player);
    const float* local = tl_cloth_local_positions(cloth);
    const float* world = tl_cloth_positions(cloth);
    const float* tether = tl_cloth_model_tethers(tl_cloth_get_model(cloth));
    uint32_t C = p->columns;
    bool finite = probe_bones(p, pose);
    for (uint32_t i = 0; i < 3 * p->n; ++i)
        finite = finite && isfinite(local[i]) && isfinite(world[i]);
    const tl_collider* colliders;
    p->colliders = tl_player_cloth_colliders(player, probe_index(p, player), &colliders);
    p->contacts += tl_cloth_get_stats(cloth).contacts > 0;
    p->peak_speed = 0;
    if (!finite) {
        p->nonfinite++;
        p->has_last = false;
        return;
    }
    for (uint32_t k = 0; k < p->colliders; ++k)
        for (uint32_t i = C; i < p->n; ++i)
            p->max_penetration =
                fmaxf(p->max_penetration, tl_collider_depth(&colliders[k], world + 3 * i));
    float s = frame_scale(p, pose);
    for (uint32_t i = C; i < p->n; ++i) {
        if (tether[i] > 0) {
            float e = fabsf(tl_vec3_distance(local + 3 * i, local + 3 * (i - C)) - tether[i]);
            p->max_length_error = fmaxf(p->max_length_error, e / tether[i]);
        }
        if (p->has_last && dt > 0)
            p->peak_speed =
                fmaxf(p->peak_speed, s * tl_vec3_distance(local + 3 * i, p->relative + 3 * i) / dt);
    }
    memcpy(p->relative, local, 3 * sizeof(float) * p->n);
    p->has_last = true;
}

static tl_result make_player(const tl_scene* scene, const tl_player_def* pd, tl_player** out,
                             tl_error* err) {
    return tl_player_create(scene, NULL, 0, pd, out, err);
}

static tl_player_def player_def(const tl_stress_def* def) {
    tl_player_def pd = tl_default_player_def();
    pd.colliders = pd.fit_colliders = def->colliders;
    return pd;
}

static float clip_time(const tl_scene* scene, int32_t clip, double t) {
    float duration = scene->clips[clip].duration;
    return duration > 0 ? (float)fmod(t, duration) : 0.0f;
}

/* The hip shake of stress.h, then the hold: step rotations and the time to come to rest. */
static void run_shake(tl_player* player, tl_pose* pose, cloth_probe* p, const tl_stress_def* def,
                      tl_stress_report* out) {
    const tl_scene_skin* sk = p->sk;
    float pivot[3], up[3] = {sk->up[0], sk->up[1], sk->up[2]};
    uint32_t pelvis = sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top;
    memcpy(pivot, sk->joints[pelvis].rest_world + 12, sizeof pivot);
    const uint32_t frames =
        (uint32_t)lround((double)(def->shake_seconds + def->hold_seconds) * def->shake_fps);
    const double omega = 2.0 * 3.14159265358979323846 * def->shake_frequency;
    const float threshold = def->settle_speed * out->scale;
    float last_moving = -1;
    bool still_at_end = false;
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->shake_fps;
        double s = t < def->shake_seconds ? sin(omega * t) : 0.0;
        float move[16];
        tl_mat4_rotation_about(move, pivot, (float)(def->shake_yaw_deg * s / RAD_TO_DEG), up);
        for (int c = 0; c < 3; ++c)
            move[12 + c] += (float)(def->shake_amplitude * out->scale * s) * sk->lateral[c];
        tl_pose_set_rest(pose, p->scene, p->sp->skin);
        tl_pose_move_skin(pose, p->scene, p->sp->skin, move);
        float dt = f ? 1.0f / def->shake_fps : 0.0f;
        tl_player_step_pose(player, pose, dt);
        probe_frame(p, pose, player, dt);
        for (uint32_t b = 0; b < p->bones; ++b) {
            if (p->step_deg[b] <= out->max_step_rotation_deg) continue;
            out->max_step_rotation_deg = p->step_deg[b];
            uint32_t BC = p->sp->cloth_bone_columns, r = b / BC, c = b % BC;
            float neighbour = 0;
            if (c > 0) neighbour = fmaxf(neighbour, p->step_deg[b - 1]);
            if (c + 1 < BC) neighbour = fmaxf(neighbour, p->step_deg[b + 1]);
            if (r > 0) neighbour = fmaxf(neighbour, p->step_deg[b - BC]);
            if (b + BC < p->bones) neighbour = fmaxf(neighbour, p->step_deg[b + BC]);
            out->max_neighbour_step_rotation_deg = neighbour;
        }
        if (t > def->shake_seconds) {
            still_at_end = p->peak_speed < threshold;
            if (!still_at_end) last_moving = (float)t;
        }
    }
    out->shake_contacts = p->contacts;
    out->settle_seconds =
        !still_at_end ? -1 : (last_moving < 0 ? 0 : last_moving - def->shake_seconds);
}

/* The clip at every rate; the largest distance of a free particle between two rates at a
 * common time over its column's length. `sampled`: the player's default (the clip at every
 * internal step), else two poses a frame. `store` holds RATES x samples x n x 3 floats. */
static tl_result run_frame_rates(const tl_scene* scene, int32_t clip, tl_pose* pose, cloth_probe* p,
                                 float* store, uint32_t samples, const tl_stress_def* def,
                                 bool sampled, float* largest, uint32_t* nonfinite, tl_error* err) {
    size_t per = 3 * (size_t)p->n;
    for (int r = 0; r < RATES; ++r) {
        tl_player_def pd = player_def(def);
        if (!sampled) pd.frame_step = 1.0f / def->fps[r], pd.sample_chains = false;
        pd.loop = true;
        tl_player* player;
        tl_result res = make_player(scene, &pd, &player, err);
        if (res != TL_OK) return res;
        tl_player_start(player, (uint32_t)clip, 0);
        p->has_last = false;
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
                memcpy(store + ((size_t)r * samples + k) * per,
                       tl_cloth_positions(probe_cloth(p, player)), per * sizeof(float));
                ++k;
            }
            if (frame_time - t < 1e-6) ++f;
        }
        *nonfinite += cloth_nonfinite(p, player);
        tl_player_destroy(player);
    }
    *largest = 0;
    for (uint32_t k = 0; k < samples; ++k)
        for (uint32_t i = p->columns; i < p->n; ++i)
            for (int a = 0; a < RATES; ++a)
                for (int b = a + 1; b < RATES; ++b) {
                    float d = tl_vec3_distance(store + ((size_t)a * samples + k) * per + 3 * i,
                                               store + ((size_t)b * samples + k) * per + 3 * i);
                    float length = p->column[i % p->columns];
                    if (length > 0) *largest = fmaxf(*largest, d / length);
                }
    return TL_OK;
}

/* A reported cut against the run without it: the largest distance of a free particle in the
 * character frame between the two (the solver's own coordinates, so the world's float spacing
 * 100 m away does not count) at the cut's frame, over its column's length (as the chain's
 * harness measures it: after it the two runs part as any two runs of a lattice in contact
 * with the body do, from float rounding on). */
static tl_result run_cut(const tl_scene* scene, int32_t clip, tl_pose* pose, cloth_probe* p,
                         const tl_stress_def* def, float scale, float* largest, uint32_t* nonfinite,
                         tl_error* err) {
    tl_player_def pd = player_def(def);
    tl_player *control = NULL, *cut = NULL;
    tl_result res = make_player(scene, &pd, &control, err);
    if (res == TL_OK) res = make_player(scene, &pd, &cut, err);
    if (res != TL_OK) {
        tl_player_destroy(control);
        return res;
    }
    const uint32_t event_frame = (uint32_t)lround(def->warmup_seconds * def->event_fps);
    const uint32_t frames = event_frame + (uint32_t)lround(def->event_fps);
    float jump[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int c = 0; c < 3; ++c)
        jump[12 + c] = def->teleport_distance * scale * p->sk->forward[c];
    *largest = 0;
    p->has_last = false;
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->event_fps;
        float dt = f ? 1.0f / def->event_fps : 0.0f;
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        tl_player_step_pose(control, pose, dt);
        if (f == event_frame) { /* the last frame's pose, moved: where the next one starts */
            tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t - dt));
            tl_pose_move_skin(pose, scene, p->sp->skin, jump);
            tl_player_cut(cut, pose);
        }
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        if (f >= event_frame) tl_pose_move_skin(pose, scene, p->sp->skin, jump);
        tl_player_step_pose(cut, pose, dt);
        probe_frame(p, pose, cut, dt);
        if (f != event_frame) continue; /* (the chain's harness: the cut's own frame) */
        const float* a = tl_cloth_local_positions(probe_cloth(p, control));
        const float* b = tl_cloth_local_positions(probe_cloth(p, cut));
        for (uint32_t i = p->columns; i < p->n; ++i)
            if (p->column[i % p->columns] > 0)
                *largest =
                    fmaxf(*largest, frame_scale(p, pose) * tl_vec3_distance(a + 3 * i, b + 3 * i) /
                                        p->column[i % p->columns]);
    }
    *nonfinite += cloth_nonfinite(p, control) + cloth_nonfinite(p, cut);
    tl_player_destroy(control);
    tl_player_destroy(cut);
    return TL_OK;
}

typedef enum event_kind { EVENT_NONE, EVENT_HITCH, EVENT_TELEPORT } event_kind;

static double whole_cycles(const tl_scene* scene, int32_t clip, double seconds) {
    double duration = scene->clips[clip].duration;
    return duration > 0 ? duration * ceil(seconds / duration - 1e-6) : seconds;
}

/* Warm-up, a window before, the event `delay` seconds later, a window after, and an equal
 * window after the transient (whole clip cycles covering one period of the lattice as a
 * pendulum of its column length): the peak speeds before, after and later. */
static tl_result run_event(const tl_scene* scene, int32_t clip, tl_pose* pose, cloth_probe* p,
                           event_kind kind, double delay, const tl_stress_def* def,
                           const tl_stress_report* out, float peaks[3], uint32_t* nonfinite,
                           tl_error* err) {
    tl_player_def pd = player_def(def);
    tl_player* player;
    tl_result res = make_player(scene, &pd, &player, err);
    if (res != TL_OK) return res;
    const uint32_t window_frames =
        (uint32_t)lround(whole_cycles(scene, clip, def->window_seconds) * def->event_fps);
    const uint32_t event_frame =
        (uint32_t)lround((def->warmup_seconds + delay) * def->event_fps) + window_frames + 1;
    float jump[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int c = 0; c < 3; ++c)
        jump[12 + c] = def->teleport_distance * out->scale * p->sk->forward[c];
    double g = 9.81 * out->scale;
    double period = 2 * 3.14159265358979323846 * sqrt(fmax(out->chain_length, 1e-6) / g);
    const uint32_t skip_frames =
        (uint32_t)lround(whole_cycles(scene, clip, period) * def->event_fps);
    p->has_last = false;
    peaks[0] = peaks[1] = peaks[2] = 0;
    double t = 0;
    for (uint32_t f = 0; f <= event_frame + skip_frames + window_frames; ++f) {
        double dt = f == 0                                      ? 0
                    : (f == event_frame && kind == EVENT_HITCH) ? def->hitch_seconds
                                                                : 1.0 / def->event_fps;
        /* the time from the frame count, as the chain's harness (stress.c run_event): a sum
           drifts across a clip's wrap and plays a seam differently after the hitch */
        t = f / (double)def->event_fps + (kind == EVENT_HITCH && f >= event_frame
                                              ? def->hitch_seconds - 1.0 / def->event_fps
                                              : 0.0);
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        if (kind == EVENT_TELEPORT && f >= event_frame)
            tl_pose_move_skin(pose, scene, p->sp->skin, jump);
        tl_player_step_pose(player, pose, (float)dt);
        probe_frame(p, pose, player, (float)dt);
        if (f >= event_frame + skip_frames) peaks[2] = fmaxf(peaks[2], p->peak_speed);
        if (f > event_frame + window_frames) continue;
        if (f >= event_frame)
            peaks[1] = fmaxf(peaks[1], p->peak_speed);
        else if (f + window_frames >= event_frame)
            peaks[0] = fmaxf(peaks[0], p->peak_speed);
    }
    *nonfinite += cloth_nonfinite(p, player);
    tl_player_destroy(player);
    return TL_OK;
}

/* The event at def.event_phases phases: worst ratio, its peaks, and the worst later ratio. */
static tl_result run_events(const tl_scene* scene, int32_t clip, tl_pose* pose, cloth_probe* p,
                            event_kind kind, const tl_stress_def* def, const tl_stress_report* out,
                            float worst[4], uint32_t* nonfinite, tl_error* err) {
    const float floor_speed = def->settle_speed * out->scale;
    worst[0] = worst[3] = -1;
    for (uint32_t k = 0; k < def->event_phases; ++k) {
        float peaks[3];
        double delay = scene->clips[clip].duration * k / def->event_phases;
        tl_result res =
            run_event(scene, clip, pose, p, kind, delay, def, out, peaks, nonfinite, err);
        if (res != TL_OK) return res;
        float ratio = peaks[1] / fmaxf(peaks[0], floor_speed);
        if (ratio > worst[0]) worst[0] = ratio, worst[1] = peaks[0], worst[2] = peaks[1];
        worst[3] = fmaxf(worst[3], peaks[2] / fmaxf(peaks[0], floor_speed));
    }
    return TL_OK;
}

static tl_result run_clip(const tl_scene* scene, int32_t clip, tl_pose* pose, cloth_probe* p,
                          float* store, uint32_t samples, const tl_stress_def* def,
                          tl_stress_report* out, tl_error* err) {
    float largest, worst[4];
    tl_result res = run_frame_rates(scene, clip, pose, p, store, samples, def, false,
                                    &out->fps_max_diff, &out->nonfinite, err);
    if (res == TL_OK)
        res = run_frame_rates(scene, clip, pose, p, store, samples, def, true,
                              &out->fps_max_diff_sampled, &out->nonfinite, err);
    if (res == TL_OK)
        res = run_cut(scene, clip, pose, p, def, out->scale, &largest, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->cut_error = largest;
    res = run_events(scene, clip, pose, p, EVENT_HITCH, def, out, worst, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->hitch_speed_ratio = worst[0], out->hitch_peak_before = worst[1];
    out->hitch_peak_after = worst[2], out->hitch_speed_ratio_later = worst[3];
    res = run_events(scene, clip, pose, p, EVENT_TELEPORT, def, out, worst, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->teleport_speed_ratio = worst[0], out->teleport_peak_before = worst[1];
    out->teleport_peak_after = worst[2], out->teleport_speed_ratio_later = worst[3];
    res = run_events(scene, clip, pose, p, EVENT_NONE, def, out, worst, &out->nonfinite, err);
    out->control_speed_ratio = worst[0];
    return res;
}

static void report_init(tl_stress_report* out, const tl_stress_def* def, const tl_scene_skin* sk) {
    memset(out, 0, sizeof *out);
    memcpy(out->fps_rates, def->fps, sizeof out->fps_rates);
    out->fps_max_diff_sampled = out->cut_error = out->fps_max_diff = out->hitch_speed_ratio =
        out->teleport_speed_ratio = out->control_speed_ratio = out->hitch_speed_ratio_later =
            out->teleport_speed_ratio_later = -1;
    out->scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
}

tl_result tl_measure_stress_cloth(const tl_scene* scene, uint32_t part, int32_t clip,
                                  const tl_stress_def* def, tl_stress_report* out, tl_error* err) {
    assert(scene && def && out && part < scene->part_count);
    assert(scene->parts[part].kind == TL_PART_CLOTH);
    assert(clip == TL_NONE || (clip >= 0 && (uint32_t)clip < scene->clip_count));
    assert(def->shake_fps > 0 && def->event_fps > 0 && def->compare_interval > 0 &&
           def->event_phases >= 1);
    const tl_scene_skin* sk = &scene->skins[scene->parts[part].skin];
    report_init(out, def, sk);
    cloth_probe p;
    tl_result res = probe_init(&p, scene, part, err);
    if (res != TL_OK) return res;
    out->chain_length = mean_column(&p);
    uint32_t samples = 0;
    if (clip != TL_NONE) {
        double span = fmax(def->compare_seconds, scene->clips[clip].duration);
        samples = (uint32_t)floor(span / def->compare_interval + 1e-6) + 1;
    }
    tl_player_def pd = player_def(def);
    pd.frame_step = 1.0f / def->shake_fps;
    tl_player* player = NULL;
    res = make_player(scene, &pd, &player, err);
    tl_pose* pose = res == TL_OK ? tl_pose_create(scene) : NULL;
    float* store = malloc(sizeof(float) * (RATES * (size_t)samples * 3 * p.n + 1));
    if (res == TL_OK && (!pose || !store))
        res = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (res == TL_OK) {
        run_shake(player, pose, &p, def, out);
        out->nonfinite += cloth_nonfinite(&p, player);
        if (clip != TL_NONE) res = run_clip(scene, clip, pose, &p, store, samples, def, out, err);
        out->nonfinite += p.nonfinite;
        out->max_length_error = p.max_length_error;
        out->collider_penetration = sk->height > 0 ? p.max_penetration / sk->height : 0;
        out->colliders = p.colliders;
    }
    free(store);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    probe_free(&p);
    return res;
}
