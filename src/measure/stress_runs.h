/* The stress runs shared by a chain (stress.c) and a cloth part (stress_cloth.c): the hip shake
 * and hold, the frame rates, the reported cut, the hitch, the teleport and the control, each
 * driving players through the pose and reading them through the part's own probe (the
 * callbacks below). Internal to src/measure. */
#ifndef TL_MEASURE_STRESS_RUNS_H
#define TL_MEASURE_STRESS_RUNS_H
#include <tailor/stress.h>

#define STRESS_RAD_TO_DEG 57.29577951308232

/* What a probe read of the frame the player just stepped. */
typedef struct stress_frame {
    float peak_speed;      /* of any tip relative to the attachment, world units / s */
    const float* step_deg; /* each bone's turn relative to the attachment since the last frame */
    uint32_t contacts;     /* the solver's contacts in the frame */
} stress_frame;

/* One part under stress. `probe` (the kind's reader) is every callback's first argument. */
typedef struct stress_part {
    const tl_scene* scene;
    const tl_stress_def* def;
    uint32_t skin;                /* the part's: the shake, the teleport and the cut move it */
    bool only_skin;               /* the pose computes only that skin (tl_pose_keep_skin) */
    uint32_t bones, bone_columns; /* the bones as a lattice (a chain: one column) */
    uint32_t tips;                /* points the frame rates compare */
    double transient;             /* seconds the later window waits after an event */
    void* probe;
    /* a player running the part */
    tl_result (*play)(void* probe, const tl_player_def* pd, tl_player** out, tl_error* err);
    /* reads the frame of dt seconds that the player just stepped to `pose` */
    stress_frame (*read)(void* probe, const tl_pose* pose, const tl_player* player, float dt);
    void (*forget)(void* probe); /* the next read has no last frame to take speeds from */
    uint32_t (*nonfinite)(void* probe, const tl_player* player); /* the solver's own count */
    /* the tips' world positions, as the last read left them: tips x 3 floats */
    void (*tips_read)(void* probe, const tl_player* player, float* out);
    float (*tip_length)(void* probe, uint32_t tip); /* a tip's distance is read over this */
    /* optional: a second probe reading the cut run while `probe` reads the control run
       (NULL on memory), and its merge back at the end; without them `probe` reads the cut run
       and the control run is not read */
    void* (*cut_begin)(void* probe);
    void (*cut_end)(void* probe, void* cut_probe);
    /* the cut's error at its frame, over the tips' lengths */
    float (*cut_error)(void* probe, void* cut_probe, const tl_pose* pose, const tl_player* control,
                       const tl_player* cut);
} stress_part;

/* `out` with the report's "not measured" values and the character's scale. */
void stress_report_init(tl_stress_report* out, const tl_stress_def* def, const tl_scene_skin* sk);

/* The turn between a bone's last and current rotation (unit quaternions), degrees. */
float stress_step_deg(const float last[4], const float now[4]);

/* Every run on the part (the clip's only when clip is not TL_NONE), into `out`: the shake's
 * step rotations, contacts and settle, the frame rates, the cut, and the event ratios; the
 * solver's non-finite counts added to out->nonfinite. The probe's own figures are the
 * caller's to read after. */
tl_result stress_runs(const stress_part* part, int32_t clip, tl_stress_report* out, tl_error* err);
#endif
