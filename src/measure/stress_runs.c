/* The stress runs of measure.md "Stress" on any part, through the part's probe (stress_runs.h):
 * the chain's and the cloth's harnesses differ only in what they read. */
#include "stress_runs.h"

#include <tailor/seating.h>

#include "base/mat4.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { RATES = 5 };

typedef enum event_kind { EVENT_NONE, EVENT_HITCH, EVENT_TELEPORT } event_kind;

void stress_report_init(tl_stress_report* out, const tl_stress_def* def, const tl_scene_skin* sk) {
    memset(out, 0, sizeof *out);
    memcpy(out->fps_rates, def->fps, sizeof out->fps_rates);
    out->fps_max_diff_sampled = out->cut_error = out->fps_max_diff = out->hitch_speed_ratio =
        out->teleport_speed_ratio = out->control_speed_ratio = out->hitch_speed_ratio_later =
            out->teleport_speed_ratio_later = -1;
    out->scale = sk->height > 0 ? sk->height / 1.8f : 1.0f;
}

float stress_step_deg(const float last[4], const float now[4]) {
    float d = fabsf(tl_quat_dot(now, last));
    return (float)(2.0 * acos(d < 1 ? d : 1) * STRESS_RAD_TO_DEG);
}

static float clip_time(const tl_scene* scene, int32_t clip, double t) {
    float duration = scene->clips[clip].duration;
    return duration > 0 ? (float)fmod(t, duration) : 0.0f;
}

/* `seconds` rounded up to whole clip cycles, so two windows hold the same poses. */
static double whole_cycles(const tl_scene* scene, int32_t clip, double seconds) {
    double duration = scene->clips[clip].duration;
    return duration > 0 ? duration * ceil(seconds / duration - 1e-6) : seconds;
}

static tl_player_def player_def(const tl_stress_def* def) {
    tl_player_def pd = tl_default_player_def();
    pd.colliders = pd.fit_colliders = def->colliders;
    return pd;
}

/* The character moved along its forward axis by the teleport's distance. */
static void teleport_jump(const stress_part* part, float scale, float jump[16]) {
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(jump, identity, sizeof identity);
    const float* forward = part->scene->skins[part->skin].forward;
    for (int c = 0; c < 3; ++c)
        jump[12 + c] = part->def->teleport_distance * scale * forward[c];
}

/* The largest step rotation of a bone and, in that frame, of its lattice neighbours. */
static void step_rotations(const stress_part* part, const float* step_deg, tl_stress_report* out) {
    const uint32_t BC = part->bone_columns;
    for (uint32_t b = 0; b < part->bones; ++b) {
        if (step_deg[b] <= out->max_step_rotation_deg) continue;
        out->max_step_rotation_deg = step_deg[b];
        uint32_t r = b / BC, c = b % BC;
        float neighbour = 0;
        if (c > 0) neighbour = fmaxf(neighbour, step_deg[b - 1]);
        if (c + 1 < BC) neighbour = fmaxf(neighbour, step_deg[b + 1]);
        if (r > 0) neighbour = fmaxf(neighbour, step_deg[b - BC]);
        if (b + BC < part->bones) neighbour = fmaxf(neighbour, step_deg[b + BC]);
        out->max_neighbour_step_rotation_deg = neighbour;
    }
}

/* Hip shake, then hold: step rotations, contacts, and the time to come to rest. */
static void run_shake(const stress_part* part, tl_player* player, tl_pose* pose,
                      tl_stress_report* out) {
    const tl_stress_def* def = part->def;
    const tl_scene_skin* sk = &part->scene->skins[part->skin];
    float pivot[3], up[3] = {sk->up[0], sk->up[1], sk->up[2]};
    uint32_t pelvis = sk->body.pelvis != TL_NONE ? (uint32_t)sk->body.pelvis : sk->top;
    memcpy(pivot, sk->joints[pelvis].rest_world + 12, sizeof pivot);
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
        tl_mat4_rotation_about(move, pivot, (float)(def->shake_yaw_deg * s / STRESS_RAD_TO_DEG),
                               up);
        for (int c = 0; c < 3; ++c)
            move[12 + c] += (float)(def->shake_amplitude * out->scale * s) * sk->lateral[c];
        tl_pose_set_rest(pose, part->scene, part->skin);
        tl_pose_move_skin(pose, part->scene, part->skin, move);
        float dt = f ? 1.0f / def->shake_fps : 0.0f;
        tl_player_step_pose(player, pose, dt);
        stress_frame frame = part->read(part->probe, pose, player, dt);
        out->shake_contacts += frame.contacts > 0;
        step_rotations(part, frame.step_deg, out);
        if (t > def->shake_seconds) {
            still_at_end = frame.peak_speed < threshold;
            if (!still_at_end) last_moving = (float)t;
        }
    }
    out->settle_seconds =
        !still_at_end ? -1 : (last_moving < 0 ? 0 : last_moving - def->shake_seconds);
}

/* The largest distance of a tip between two rates at a common time over its length. */
static float rates_largest(const stress_part* part, const float* store, uint32_t samples) {
    const size_t per = 3 * (size_t)part->tips;
    float largest = 0;
    for (uint32_t k = 0; k < samples; ++k)
        for (uint32_t i = 0; i < part->tips; ++i)
            for (int a = 0; a < RATES; ++a)
                for (int b = a + 1; b < RATES; ++b) {
                    float d = tl_vec3_distance(store + ((size_t)a * samples + k) * per + 3 * i,
                                               store + ((size_t)b * samples + k) * per + 3 * i);
                    float length = part->tip_length(part->probe, i);
                    if (length > 0) largest = fmaxf(largest, d / length);
                }
    return largest;
}

/* The clip at every rate of def.fps, the tips stored at sample times k · interval (`store`:
 * RATES x samples x tips x 3 floats), into rates_largest. `sampled`: the player hands the
 * part its pose sampler (its default), else the clip only at render frames, two poses a
 * frame (what a host with two poses a frame gets, as measure.md defines the figure). */
static tl_result run_frame_rates(const stress_part* part, int32_t clip, tl_pose* pose, float* store,
                                 uint32_t samples, bool sampled, float* largest,
                                 uint32_t* nonfinite, tl_error* err) {
    const tl_stress_def* def = part->def;
    const size_t per = 3 * (size_t)part->tips;
    for (int r = 0; r < RATES; ++r) {
        tl_player_def pd = player_def(def);
        if (!sampled) pd.frame_step = 1.0f / def->fps[r], pd.sample_chains = false;
        pd.loop = true;
        tl_player* player;
        tl_result res = part->play(part->probe, &pd, &player, err);
        if (res != TL_OK) return res;
        tl_player_start(player, (uint32_t)clip, 0);
        part->forget(part->probe);
        /* render frames f / fps and sample times k · interval, merged in time order */
        uint32_t f = 0, k = 0;
        double last = 0;
        while (k < samples) {
            double frame_time = f / (double)def->fps[r],
                   sample_time = k * (double)def->compare_interval;
            double t = fmin(frame_time, sample_time);
            tl_player_advance(player, pose, (uint32_t)clip, clip_time(part->scene, clip, t));
            part->read(part->probe, pose, player, (float)(t - last));
            last = t;
            if (sample_time - t < 1e-6) {
                part->tips_read(part->probe, player, store + ((size_t)r * samples + k) * per);
                ++k;
            }
            if (frame_time - t < 1e-6) ++f;
        }
        *nonfinite += part->nonfinite(part->probe, player);
        tl_player_destroy(player);
    }
    *largest = rates_largest(part, store, samples);
    return TL_OK;
}

/* The teleport reported as a cut (tl_player_cut) against the run without it: part->cut_error
 * on the cut's frame (after it the two runs part as two runs in contact with the body do, from
 * float rounding on). */
static tl_result run_cut(const stress_part* part, int32_t clip, tl_pose* pose, float scale,
                         float* error, uint32_t* nonfinite, tl_error* err) {
    const tl_stress_def* def = part->def;
    const tl_scene* scene = part->scene;
    tl_player_def pd = player_def(def);
    tl_player *control = NULL, *cut = NULL;
    tl_result res = part->play(part->probe, &pd, &control, err);
    if (res == TL_OK) res = part->play(part->probe, &pd, &cut, err);
    void* cut_probe = part->cut_begin ? NULL : part->probe;
    if (res == TL_OK && part->cut_begin) {
        cut_probe = part->cut_begin(part->probe);
        if (!cut_probe) res = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    if (res != TL_OK) {
        tl_player_destroy(control);
        tl_player_destroy(cut);
        return res;
    }
    void* control_probe = part->cut_begin ? part->probe : NULL;
    const uint32_t event_frame = (uint32_t)lround(def->warmup_seconds * def->event_fps);
    const uint32_t frames = event_frame + (uint32_t)lround(def->event_fps);
    float jump[16];
    teleport_jump(part, scale, jump);
    if (control_probe) part->forget(control_probe);
    part->forget(cut_probe);
    *error = 0;
    for (uint32_t f = 0; f <= frames; ++f) {
        double t = f / (double)def->event_fps;
        float dt = f ? 1.0f / def->event_fps : 0.0f;
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        tl_player_step_pose(control, pose, dt);
        if (control_probe) part->read(control_probe, pose, control, dt);
        if (f == event_frame) { /* the last frame's pose, moved: where the next one starts */
            tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t - dt));
            tl_pose_move_skin(pose, scene, part->skin, jump);
            tl_player_cut(cut, pose);
        }
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        if (f >= event_frame) tl_pose_move_skin(pose, scene, part->skin, jump);
        tl_player_step_pose(cut, pose, dt);
        part->read(cut_probe, pose, cut, dt);
        if (f == event_frame) *error = part->cut_error(part->probe, cut_probe, pose, control, cut);
    }
    *nonfinite += part->nonfinite(part->probe, control) + part->nonfinite(part->probe, cut);
    if (part->cut_end) part->cut_end(part->probe, cut_probe);
    tl_player_destroy(control);
    tl_player_destroy(cut);
    return TL_OK;
}

/* Warm-up, a window before, the event frame `delay` seconds later, a window after; the peak
 * tip speeds before, after, and in an equal window after the transient (whole clip cycles
 * covering part->transient). */
static tl_result run_event(const stress_part* part, int32_t clip, tl_pose* pose, event_kind kind,
                           double delay, float scale, float peaks[3], uint32_t* nonfinite,
                           tl_error* err) {
    const tl_stress_def* def = part->def;
    const tl_scene* scene = part->scene;
    tl_player_def pd = player_def(def);
    tl_player* player;
    tl_result res = part->play(part->probe, &pd, &player, err);
    if (res != TL_OK) return res;
    const uint32_t window_frames =
        (uint32_t)lround(whole_cycles(scene, clip, def->window_seconds) * def->event_fps);
    const uint32_t event_frame =
        (uint32_t)lround((def->warmup_seconds + delay) * def->event_fps) + window_frames + 1;
    float jump[16];
    teleport_jump(part, scale, jump);
    const uint32_t skip_frames =
        (uint32_t)lround(whole_cycles(scene, clip, part->transient) * def->event_fps);
    part->forget(part->probe);
    peaks[0] = peaks[1] = peaks[2] = 0;
    for (uint32_t f = 0; f <= event_frame + skip_frames + window_frames; ++f) {
        double dt = f == 0                                      ? 0
                    : (f == event_frame && kind == EVENT_HITCH) ? def->hitch_seconds
                                                                : 1.0 / def->event_fps;
        /* the time from the frame count, not summed: a sum drifts across a clip's wrap, and a
           clip whose last key is not its first then plays its seam differently after a hitch */
        double t = f / (double)def->event_fps + (kind == EVENT_HITCH && f >= event_frame
                                                     ? def->hitch_seconds - 1.0 / def->event_fps
                                                     : 0.0);
        tl_pose_sample(pose, scene, (uint32_t)clip, clip_time(scene, clip, t));
        if (kind == EVENT_TELEPORT && f >= event_frame)
            tl_pose_move_skin(pose, scene, part->skin, jump);
        tl_player_step_pose(player, pose, (float)dt);
        float speed = part->read(part->probe, pose, player, (float)dt).peak_speed;
        if (f >= event_frame + skip_frames) peaks[2] = fmaxf(peaks[2], speed);
        if (f > event_frame + window_frames) continue;
        if (f >= event_frame)
            peaks[1] = fmaxf(peaks[1], speed);
        else if (f + window_frames >= event_frame)
            peaks[0] = fmaxf(peaks[0], speed);
    }
    *nonfinite += part->nonfinite(part->probe, player);
    tl_player_destroy(player);
    return TL_OK;
}

/* The event at def.event_phases phases of a clip cycle; the worst after/before ratio and its
 * peaks (ratio, before, after), and the worst ratio after the transient (worst[3]). */
static tl_result run_events(const stress_part* part, int32_t clip, tl_pose* pose, event_kind kind,
                            float scale, float worst[4], uint32_t* nonfinite, tl_error* err) {
    const tl_stress_def* def = part->def;
    const float floor_speed = def->settle_speed * scale;
    worst[0] = worst[3] = -1;
    for (uint32_t k = 0; k < def->event_phases; ++k) {
        float peaks[3];
        double delay = part->scene->clips[clip].duration * k / def->event_phases;
        tl_result res = run_event(part, clip, pose, kind, delay, scale, peaks, nonfinite, err);
        if (res != TL_OK) return res;
        float ratio = peaks[1] / fmaxf(peaks[0], floor_speed);
        if (ratio > worst[0]) worst[0] = ratio, worst[1] = peaks[0], worst[2] = peaks[1];
        worst[3] = fmaxf(worst[3], peaks[2] / fmaxf(peaks[0], floor_speed));
    }
    return TL_OK;
}

/* Frame rates, cut, hitch, teleport and control on a clip. `store`: see run_frame_rates. */
static tl_result run_clip(const stress_part* part, int32_t clip, tl_pose* pose, float* store,
                          uint32_t samples, tl_stress_report* out, tl_error* err) {
    float worst[4];
    tl_result res = run_frame_rates(part, clip, pose, store, samples, false, &out->fps_max_diff,
                                    &out->nonfinite, err);
    if (res == TL_OK)
        res = run_frame_rates(part, clip, pose, store, samples, true, &out->fps_max_diff_sampled,
                              &out->nonfinite, err);
    if (res == TL_OK)
        res = run_cut(part, clip, pose, out->scale, &out->cut_error, &out->nonfinite, err);
    if (res != TL_OK) return res;
    res = run_events(part, clip, pose, EVENT_HITCH, out->scale, worst, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->hitch_speed_ratio = worst[0], out->hitch_peak_before = worst[1];
    out->hitch_peak_after = worst[2], out->hitch_speed_ratio_later = worst[3];
    res = run_events(part, clip, pose, EVENT_TELEPORT, out->scale, worst, &out->nonfinite, err);
    if (res != TL_OK) return res;
    out->teleport_speed_ratio = worst[0], out->teleport_peak_before = worst[1];
    out->teleport_peak_after = worst[2], out->teleport_speed_ratio_later = worst[3];
    res = run_events(part, clip, pose, EVENT_NONE, out->scale, worst, &out->nonfinite, err);
    out->control_speed_ratio = worst[0];
    return res;
}

tl_result stress_runs(const stress_part* part, int32_t clip, tl_stress_report* out, tl_error* err) {
    const tl_stress_def* def = part->def;
    const tl_scene* scene = part->scene;
    assert(clip == TL_NONE || (clip >= 0 && (uint32_t)clip < scene->clip_count));
    assert(def->shake_fps > 0 && def->event_fps > 0 && def->compare_interval > 0 &&
           def->event_phases >= 1);
    for (int r = 0; r < RATES; ++r)
        assert(def->fps[r] > 0);
    assert(part->bone_columns > 0);
    uint32_t samples = 0;
    if (clip != TL_NONE) {
        double span = fmax(def->compare_seconds, scene->clips[clip].duration);
        samples = (uint32_t)floor(span / def->compare_interval + 1e-6) + 1;
    }
    tl_player_def pd = player_def(def);
    pd.frame_step = 1.0f / def->shake_fps;
    tl_player* player = NULL;
    tl_result res = part->play(part->probe, &pd, &player, err);
    if (res != TL_OK) return res;
    tl_pose* pose = tl_pose_create(scene);
    if (pose && part->only_skin) tl_pose_keep_skin(pose, scene, part->skin);
    float* store = malloc(sizeof *store * (RATES * (size_t)samples * part->tips * 3 + 1));
    if (!pose || !store) {
        res = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    } else {
        run_shake(part, player, pose, out);
        out->nonfinite += part->nonfinite(part->probe, player);
        if (clip != TL_NONE) res = run_clip(part, clip, pose, store, samples, out, err);
    }
    free(store);
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    return res;
}
