/* tailed-quadruped: a four-legged animal, body horizontal, tail drooping to the floor.
 * Natural size about 1.0 m to the top of the head; document.c scales it to the def's height. */
#include "sample/internal.h"

/* The joint tables, one line per limb. */
/* clang-format off */
enum {
    HIPS, SPINE, CHEST, NECK, HEAD,
    BACK_THIGH_L, BACK_SHIN_L, BACK_FOOT_L,
    BACK_THIGH_R, BACK_SHIN_R, BACK_FOOT_R,
    FRONT_UPPER_ARM_L, FRONT_FOREARM_L, FRONT_FOOT_L,
    FRONT_UPPER_ARM_R, FRONT_FOREARM_R, FRONT_FOOT_R,
    JOINT_COUNT
};

static const char* const names[JOINT_COUNT] = {
    "Hips", "Spine", "Chest", "Neck", "Head",
    "BackThigh.L", "BackShin.L", "BackFoot.L",
    "BackThigh.R", "BackShin.R", "BackFoot.R",
    "FrontUpperArm.L", "FrontForearm.L", "FrontFoot.L",
    "FrontUpperArm.R", "FrontForearm.R", "FrontFoot.R",
};
static const int parents[JOINT_COUNT] = {
    -1, HIPS, SPINE, CHEST, NECK,
    HIPS, BACK_THIGH_L, BACK_SHIN_L,
    HIPS, BACK_THIGH_R, BACK_SHIN_R,
    CHEST, FRONT_UPPER_ARM_L, FRONT_FOREARM_L,
    CHEST, FRONT_UPPER_ARM_R, FRONT_FOREARM_R,
};
static const int aims[JOINT_COUNT] = {
    SPINE, CHEST, NECK, HEAD, -1,
    BACK_SHIN_L, BACK_FOOT_L, -1,
    BACK_SHIN_R, BACK_FOOT_R, -1,
    FRONT_FOREARM_L, FRONT_FOOT_L, -1,
    FRONT_FOREARM_R, FRONT_FOOT_R, -1,
};
/* clang-format on */

static dquat rx(double deg) {
    return quat_axis_angle(v3(1, 0, 0), deg * SAMPLE_DEG);
}

/* Leg swing amplitudes (degrees) and phases (radians) of a four-beat gait. */
typedef struct gait {
    double thigh, shin, back_phase_r, front_phase_l, front_phase_r, spine, neck, bob;
} gait;

static void pose_gait(const gait* g, double p, double height, sample_pose* out) {
    const double phase[4] = {0, g->back_phase_r, g->front_phase_l, g->front_phase_r};
    const int thigh[4] = {BACK_THIGH_L, BACK_THIGH_R, FRONT_UPPER_ARM_L, FRONT_UPPER_ARM_R};
    for (int k = 0; k < 4; ++k) {
        double q = p + phase[k], lift = 0.5 + 0.5 * cos(q);
        out->rotation[thigh[k]] = rx(-g->thigh * sin(q));
        /* hind shins fold forward, fore shins fold back, most while the leg swings forward */
        out->rotation[thigh[k] + 1] = rx((k < 2 ? -1 : 1) * g->shin * lift * lift);
    }
    out->rotation[SPINE] = rx(g->spine * sin(p));
    out->rotation[CHEST] = rx(-g->spine * sin(p));
    out->rotation[NECK] = rx(g->neck * sin(2 * p));
    out->hips_offset = v3(0, g->bob * (height / SAMPLE_REF_HEIGHT) * cos(2 * p), 0);
}

static void pose_walk(double t, double height, sample_pose* out) {
    /* diagonal pairs: left hind with right fore */
    static const gait g = {20, 20, SAMPLE_PI, SAMPLE_PI, 0, 0, 4, 0.012};
    pose_gait(&g, 2 * SAMPLE_PI * t / 1.0, height, out);
}

static void pose_gallop(double t, double height, sample_pose* out) {
    /* hind legs together, fore legs together, half a cycle apart; the back flexes */
    static const gait g = {40, 40, 0.5, SAMPLE_PI, SAMPLE_PI - 0.5, 10, 8, 0.06};
    pose_gait(&g, 2 * SAMPLE_PI * t / 0.5, height, out);
}

static sample_station st(double x, double y, double z, double ra, double rb) {
    return (sample_station){v3(x, y, z), ra, rb};
}

bool sample_quadruped_build(sample_character* c, uint32_t seed) {
    sample_rng rng = {seed};
    double leg = sample_rng_factor(&rng, 0.08), body = sample_rng_factor(&rng, 0.08);
    double girth = sample_rng_factor(&rng, 0.10), neck_len = sample_rng_factor(&rng, 0.08);
    double tail_len = sample_rng_factor(&rng, 0.10), tail_girth = sample_rng_factor(&rng, 0.15);

    c->name = "tailed-quadruped";
    c->joint_count = JOINT_COUNT;
    for (int j = 0; j < JOINT_COUNT; ++j) {
        c->joint_name[j] = names[j];
        c->parent[j] = parents[j];
        c->aim[j] = aims[j];
    }
    double hy = 0.60 * leg, g = girth, b = body;
    c->joint[HIPS] = v3(0, hy, -0.42 * b);
    c->joint[SPINE] = v3(0, hy + 0.02, -0.08 * b);
    c->joint[CHEST] = v3(0, hy + 0.02, 0.18 * b);
    c->joint[NECK] = v3(0, hy + 0.08, 0.32 * b);
    c->joint[HEAD] = v3(0, hy + 0.08 + 0.26 * neck_len, 0.32 * b + 0.16 * neck_len);
    dv3 head = c->joint[HEAD];
    for (int side = 0; side < 2; ++side) {
        double x = (side ? -1 : 1) * 0.11 * g;
        int o = side ? 3 : 0;
        c->joint[BACK_THIGH_L + o] = v3(x, hy - 0.04, -0.41 * b);
        c->joint[BACK_SHIN_L + o] = v3(x, hy * 0.58, -0.30 * b);
        c->joint[BACK_FOOT_L + o] = v3(x, hy * 0.20, -0.42 * b);
        c->joint[FRONT_UPPER_ARM_L + o] = v3(x, hy - 0.03, 0.20 * b);
        c->joint[FRONT_FOREARM_L + o] = v3(x, hy * 0.55, 0.15 * b);
        c->joint[FRONT_FOOT_L + o] = v3(x, hy * 0.15, 0.17 * b);
    }

    /* The barrel along +Z, the neck and head, four legs. The barrel's centre line is straight
     * (a kink folds the rings on its inner side into near-zero edges); the spine joints run
     * along it and the hips sit near its back end, so the rump is within about
     * 0.15 H of a bone. On the Quaternius animals the 90th percentile of body skin sits
     * 0.14-0.23 H from the bones; here 0.15 H. A rump far behind the hips is a long far patch
     * hanging from them: a second, false tail. */
    sample_station body_st[] = {
        st(0, hy + 0.01, -0.48 * b, 0.09 * g, 0.10 * g),
        st(0, hy + 0.01, -0.40 * b, 0.145 * g, 0.16 * g),
        st(0, hy + 0.01, -0.10 * b, 0.14 * g, 0.16 * g),
        st(0, hy + 0.01, 0.15 * b, 0.16 * g, 0.19 * g),
        st(0, hy + 0.01, 0.32 * b, 0.14 * g, 0.16 * g),
    };
    sample_chain body_chain = {.joint = {HIPS, SPINE, CHEST},
                               .start = {c->joint[HIPS], c->joint[SPINE], c->joint[CHEST]},
                               .count = 3,
                               .blend = 0.06};
    sample_tube body_tube = {body_st,          5,           24,   40,  4, v3(1, 0, 0),
                             {0, 0, 0.5, 0.5}, &body_chain, NULL, NULL};
    if (!sample_tube_add(&c->body, &body_tube)) return false;

    sample_station neck_st[] = {
        st(0, hy + 0.02, 0.22 * b, 0.09 * g, 0.10 * g),
        st(0, hy + 0.08, 0.32 * b, 0.08, 0.085),
        st(0, head.y, head.z, 0.075, 0.08),
        st(0, head.y + 0.01, head.z + 0.10, 0.07, 0.075),
        st(0, head.y - 0.04, head.z + 0.22, 0.04, 0.045),
    };
    sample_chain neck_chain = {.joint = {CHEST, NECK, HEAD},
                               .start = {c->joint[CHEST], c->joint[NECK], c->joint[HEAD]},
                               .count = 3,
                               .blend = 0.05};
    sample_tube neck_tube = {neck_st,           5,           18,   30,  3, v3(1, 0, 0),
                             {0.5, 0, 1, 0.25}, &neck_chain, NULL, NULL};
    if (!sample_tube_add(&c->body, &neck_tube)) return false;

    for (int leg_index = 0; leg_index < 4; ++leg_index) {
        int side = leg_index & 1, front = leg_index >> 1, o = side ? 3 : 0;
        int j0 = (front ? FRONT_UPPER_ARM_L : BACK_THIGH_L) + o, parent = front ? CHEST : HIPS;
        dv3 a = c->joint[j0], k = c->joint[j0 + 1], f = c->joint[j0 + 2];
        double toe = front ? 0.06 : 0.04;
        sample_station leg_st[] = {
            st(a.x, a.y + 0.06, a.z, 0.075 * g, 0.08 * g),
            st(k.x, k.y, k.z, 0.05 * g, 0.055 * g),
            st(f.x, f.y, f.z, 0.035, 0.038),
            st(f.x, 0.035, f.z + toe, 0.035, 0.04),
        };
        sample_chain leg_chain = {.joint = {parent, j0, j0 + 1, j0 + 2},
                                  .start = {c->joint[parent], a, k, f},
                                  .count = 4,
                                  .blend = 0.04};
        double u = 0.25 * leg_index;
        sample_tube leg_tube = {leg_st,     4,    14,  30, 3, v3(1, 0, 0), {u, 0.5, u + 0.25, 0.75},
                                &leg_chain, NULL, NULL};
        if (!sample_tube_add(&c->body, &leg_tube)) return false;
    }

    /* The tail: up and back from the rump, drooping until its last part lies along the floor. */
    enum { TAIL_STATIONS = 48 };
    sample_station tail[TAIL_STATIONS], fur[TAIL_STATIONS];
    double rump = -0.47 * b, floor_y = 0.035;
    dv3 p0 = v3(0, hy + 0.05, rump), p1 = v3(0, hy + 0.10, rump - 0.30 * tail_len);
    dv3 p2 = v3(0, floor_y, rump - 0.38 * tail_len), p3 = v3(0, floor_y, rump - 0.62 * tail_len);
    sample_bezier_stations(tail, TAIL_STATIONS, p0, p1, p2, p3, 0.035 * tail_girth,
                           0.011 * tail_girth);
    return sample_tail_add(c, tail, fur, TAIL_STATIONS, BACK_THIGH_L, BACK_THIGH_R, BACK_SHIN_L,
                           HIPS) &&
           sample_clip_add(c, "Walk", 30, pose_walk) &&
           sample_clip_add(c, "Gallop", 15, pose_gallop) &&
           sample_clip_add(c, "Shake", 20, sample_pose_shake);
}
