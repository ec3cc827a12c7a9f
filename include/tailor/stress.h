/* tailor/stress.h — stress tests of one simulated chain on a real character (measure.md
 * "Stress"). Everything runs headless through the player (play.h); nothing is drawn.
 *
 *   Hip shake   the character in its rest pose, the whole skeleton moved at its root joints by
 *               a lateral swing x(t) = 0.25 m · scale · sin(2π · 1.5 Hz · t) along the skin's
 *               lateral axis and a yaw of ±45° · sin(2π · 1.5 Hz · t) about its up axis
 *               through the pelvis, for 4 s, then held still for 4 s, at 60 fps
 *               (tl_player_step_pose). scale = H / 1.8 m.
 *   Frame rate  a clip played with tl_player_advance at 15, 30, 60, 120 and 144 fps (looping);
 *               the tips' world positions compared every 1/6 s over max(clip duration, 2 s).
 *               Twice: with the clip sampled at the solver's step (the player's default
 *               frame_step, 1/120 s: fps_max_diff_sampled) and only at the render frames
 *               (frame_step = 1/fps: fps_max_diff, what a host with two poses a frame gets).
 *   Hitch       the clip at 60 fps with one 0.5 s frame after a warm-up.
 *   Teleport    the clip at 60 fps with the whole character moved 100 m · scale along its
 *               forward axis between two frames (and left there), the solver left to detect
 *               it; and once more with the jump reported as a cut (tl_player_cut).
 *   Control     the same run with no event.
 *
 * Frames. Points of the chain are the pose's joint world positions: each bone's head, then the
 * end joint (or, without one, the solver's last tip). "Relative to the attachment" means
 * expressed in the attachment joint's world rotation and position, in world units, so the
 * body's own motion (the shake's yaw, a run, a teleport) does not count.
 *
 * Speeds. A tip's speed at a frame is its displacement relative to the attachment since the
 * previous frame over the frame's dt. For the hitch and the teleport the report gives the
 * peak speed of any tip in a window after the event (the event frame and `window` seconds
 * after it) over the peak in the `window` seconds before it. The window is a whole number of
 * clip cycles, at least def.window_seconds, so both windows hold the same poses and the ratio
 * is 1 when the event injects nothing. How the chain answers a long frame depends on where in
 * the clip it falls, so each event runs at def.event_phases phases of a cycle and the worst
 * ratio is reported. control_speed_ratio is the same figure with no event: what the two
 * windows differ by themselves. The denominator is at least def.settle_speed · scale (a clip
 * that leaves the chain still would divide by zero).
 *
 * Ownership: tl_measure_stress allocates its players, poses and sample buffers and frees them
 * before it returns. The scene must be valid for the call.
 *
 * Example:
 *     tl_stress_def def = tl_default_stress_def();
 *     tl_stress_report rep;
 *     if (tl_measure_stress(scene, &chains[0], walk_clip, &def, &rep, &err) != TL_OK) ...;
 *     printf("settles in %.2f s\n", rep.settle_seconds);
 */
#ifndef TAILOR_STRESS_H
#define TAILOR_STRESS_H

#include <tailor/base.h>
#include <tailor/play.h>
#include <tailor/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How hard to shake. Lengths and speeds are for a 1.8 m human and scale with H / 1.8 m. */
typedef struct tl_stress_def {
    /* --- hip shake --- */
    float shake_amplitude; /* lateral swing amplitude, m (x scale); 0.25 */
    float shake_yaw_deg;   /* yaw amplitude about up through the pelvis, degrees; 45 */
    float shake_frequency; /* of both, Hz; 1.5 (sin(3π t)) */
    float shake_seconds;   /* shaking, s; 4 */
    float hold_seconds;    /* then still, s; 4 */
    float shake_fps;       /* render frames per second of the shake; 60 */
    float settle_speed;    /* at rest: every tip slower than this relative to the attachment,
                              m/s (x scale); 0.01 */
    /* --- frame-rate independence --- */
    float fps[5];           /* the frame rates compared; 15, 30, 60, 120, 144 */
    float compare_interval; /* common sample times, s (a whole number of frames at each
                               rate, else the sample time is its own short frame); 1/6 */
    float compare_seconds;  /* compared over max(this, clip duration), s; 2 */
    /* --- hitch and teleport --- */
    float event_fps;         /* render frames per second around the events; 60 */
    float hitch_seconds;     /* the long frame, s; 0.5 */
    float teleport_distance; /* the jump, m (x scale); 100 */
    float warmup_seconds;    /* played before the `before` window, so it holds no start-up
                                transient, s; 3 */
    float window_seconds;    /* the shortest window before and after an event (rounded up to
                                whole clip cycles), s; 2 */
    uint32_t event_phases;   /* runs per event, the event moved by 1/event_phases of a clip
                                cycle each time; 4 */
    bool colliders;          /* every run with the skin's body colliders (tl_player_def: the
                                stored ones, else fitted at create); true */
} tl_stress_def;

tl_stress_def tl_default_stress_def(void);

/* What the stress tests found. Lengths are fractions, angles degrees, times seconds. */
typedef struct tl_stress_report {
    uint32_t nonfinite;          /* over every run: the chain's stats.nonfinite_inputs +
                                    nonfinite_states + frames with a non-finite chain joint; 0 */
    float max_length_error;      /* over every run: the largest |link - rest link| / rest link of
                                    the pose's joint positions; must be <= 1e-4 */
    float fps_max_diff;          /* the largest tip distance between two frame rates at a common
                                    time / chain length, render poses only (two a frame); target
                                    <= 0.01; -1 without a clip */
    float fps_max_diff_sampled;  /* ... with the clip sampled at the solver's step; must be
                                    <= 0.001; -1 without a clip */
    float fps_rates[5];          /* the frame rates compared (def.fps) */
    float cut_error;             /* a reported cut: the largest distance of a tip relative to
                                    the attachment from the run without the jump, over the
                                    cut's frame and one second after it / chain length; must
                                    be <= 1e-5; -1 without a clip */
    float max_step_rotation_deg; /* shake: the largest rotation of one bone, relative
                                    to the attachment, between two frames */
    float max_neighbour_step_rotation_deg; /* shake: in that frame, the largest rotation of
                                              the bone's neighbours (the article's bug: one
                                              bone 95°, its neighbours 3°) */
    float hitch_speed_ratio;    /* peak tip speed after / before the hitch, the worst of the
                                   phases; -1 without a clip */
    float teleport_speed_ratio; /* ... the teleport; -1 without a clip */
    float settle_seconds;       /* from the end of the shake until every tip stays slower than
                                   settle_speed; -1 if it never does within hold_seconds */
    /* context for the figures */
    float scale;             /* H / 1.8 m, world units per metre */
    float chain_length;      /* sum of the rest links, world units */
    uint32_t shake_contacts; /* shake frames with a tip on the floor */
    float hitch_peak_before; /* the two peaks behind hitch_speed_ratio, world units / s */
    float hitch_peak_after;
    float teleport_peak_before; /* ... teleport_speed_ratio */
    float teleport_peak_after;
    float control_speed_ratio;        /* the same ratio with no event: how much two windows of the
                                         clip differ by themselves; -1 without a clip */
    float hitch_speed_ratio_later;    /* hitch_speed_ratio in an equal window that starts
                                         after the transient (whole clip cycles covering one
                                         period of the chain's root spring): whether the
                                         chain is back to its own motion; -1 without a clip */
    float teleport_speed_ratio_later; /* ... teleport_speed_ratio */
    float collider_penetration;       /* over every run: the deepest particle inside a body
                                         collider after a frame's last internal step / H;
                                         must be <= 0.002 (0 without colliders) */
    uint32_t colliders;               /* the body colliders the chain ran with */
    uint32_t collider_frames;         /* the frames collider_penetration read, over every run (a
                                         frame whose state is older than its colliders is not
                                         read); 0 with colliders: the penetration is unmeasured */
} tl_stress_report;

/* Runs the stress tests on one chain (tl_play_chains_find, or filled by hand). `clip` is the
 * clip of the frame-rate, hitch and teleport runs, or TL_NONE to run the shake only.
 * TL_ERROR_INVALID when the player rejects the chain (joint out of range, zero-length link),
 * TL_ERROR_MEMORY. */
tl_result tl_measure_stress(const tl_scene* scene, const tl_play_chain* chain, int32_t clip,
                            const tl_stress_def* def, tl_stress_report* out, tl_error* err);

/* The same runs on a cloth part (scene->parts[part], kind TL_PART_CLOTH) played by the player
 * with the scene's cloth parts and no chain. Read off the lattice: the "tips" are its free
 * particles (rows 1 on) relative to the attachment (the solver's coordinates, the character
 * frame), the links its vertical tethers (max_length_error), the bones its cloth bones
 * (step rotations; neighbours: the bones beside, above and below), chain_length the mean rest
 * length of a column; fps_max_diff(_sampled) and cut_error take each particle's distance over
 * its own column's length; cut_error is measured in the character frame (the solver's state;
 * the world copy 100 m away rounds to the float spacing there). The transient window covers
 * one period of a pendulum of the column's length. shake_contacts counts shake frames with a
 * particle on a collider; collider_penetration the deepest free particle inside one of the
 * player's cloth colliders. TL_ERROR_INVALID when the player rejects the part, TL_ERROR_MEMORY. */
tl_result tl_measure_stress_cloth(const tl_scene* scene, uint32_t part, int32_t clip,
                                  const tl_stress_def* def, tl_stress_report* out, tl_error* err);

/* The stress figures of a part that turns an existing joint (kinds pendulum and aim,
 * scene->joint_parts order), docs/cloth.md "Pendulum and aim". */
typedef struct tl_joint_part_report {
    uint32_t part;           /* index into scene->parts */
    tl_part_kind kind;       /* TL_PART_PENDULUM or TL_PART_AIM */
    float swing_max_deg;     /* pendulum: its largest swing from the rest direction over the
                                clip played from rest, looped, max(2 s, two cycles) at
                                def.event_fps; 0 without a clip */
    float settle_seconds;    /* pendulum: from the end of the hip shake (the chain's, def.shake_*)
                                until its particle stays slower than settle_speed relative to
                                its joint; -1 if it never does within hold_seconds (and for an
                                aim) */
    float aim_error_max_deg; /* aim: the largest angle between its joint's aim axis and the
                                direction to its target over the clip and the shake (0 when
                                every frame reaches it: max_angle_deg and weight allowing) */
    uint32_t nonfinite;      /* frames with a non-finite swing or aim error */
} tl_joint_part_report;

/* The angle between an aim part's axis (its joint's world rotation) and the direction from its
 * joint to its target in the pose (world current), degrees. */
float tl_measure_aim_error_deg(const tl_scene* scene, const tl_scene_part* part,
                               const tl_pose* pose);

/* Plays every pendulum and aim part of the scene (a player with no chain) through `clip`
 * (TL_NONE: the shake only) and the hip shake; one report per part into out (capacity at least
 * scene->joint_part_count, the count written to *count). TL_ERROR_INVALID when there are more
 * parts than capacity or the player refuses one, TL_ERROR_MEMORY. */
tl_result tl_measure_stress_joint_parts(const tl_scene* scene, int32_t clip,
                                        const tl_stress_def* def, tl_joint_part_report* out,
                                        uint32_t capacity, uint32_t* count, tl_error* err);

/* The clip the stress runs use when none is named (measure.md "Stress"): the first whose name
 * holds "run" (case-insensitive), else "gallop", else "walk", else the first; TL_NONE when the
 * scene has none. */
int32_t tl_stress_default_clip(const tl_scene* scene);

#ifdef __cplusplus
}
#endif

#endif
