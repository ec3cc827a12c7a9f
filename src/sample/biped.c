/* tailed-biped: a Mixamo-named humanoid in T-pose with a tail hanging down and back from its
 * pelvis. Natural size about 1.85 m; document.c scales it to the def's height. */
#include "sample/internal.h"

/* The joint tables, one line per limb. */
/* clang-format off */
enum {
    HIPS, SPINE, SPINE1, SPINE2, NECK, HEAD,
    L_SHOULDER, L_ARM, L_FOREARM, L_HAND,
    R_SHOULDER, R_ARM, R_FOREARM, R_HAND,
    L_UPLEG, L_LEG, L_FOOT, L_TOE,
    R_UPLEG, R_LEG, R_FOOT, R_TOE,
    JOINT_COUNT
};

static const char* const names[JOINT_COUNT] = {
    "mixamorig:Hips", "mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2",
    "mixamorig:Neck", "mixamorig:Head",
    "mixamorig:LeftShoulder", "mixamorig:LeftArm", "mixamorig:LeftForeArm", "mixamorig:LeftHand",
    "mixamorig:RightShoulder", "mixamorig:RightArm", "mixamorig:RightForeArm", "mixamorig:RightHand",
    "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot", "mixamorig:LeftToeBase",
    "mixamorig:RightUpLeg", "mixamorig:RightLeg", "mixamorig:RightFoot", "mixamorig:RightToeBase",
};
static const int parents[JOINT_COUNT] = {
    -1, HIPS, SPINE, SPINE1, SPINE2, NECK,
    SPINE2, L_SHOULDER, L_ARM, L_FOREARM,
    SPINE2, R_SHOULDER, R_ARM, R_FOREARM,
    HIPS, L_UPLEG, L_LEG, L_FOOT,
    HIPS, R_UPLEG, R_LEG, R_FOOT,
};
static const int aims[JOINT_COUNT] = {
    SPINE, SPINE1, SPINE2, NECK, HEAD, -1,
    L_ARM, L_FOREARM, L_HAND, -1,
    R_ARM, R_FOREARM, R_HAND, -1,
    L_LEG, L_FOOT, L_TOE, -1,
    R_LEG, R_FOOT, R_TOE, -1,
};
/* clang-format on */

static dquat rx(double deg) {
    return quat_axis_angle(v3(1, 0, 0), deg * SAMPLE_DEG);
}
static dquat ry(double deg) {
    return quat_axis_angle(v3(0, 1, 0), deg * SAMPLE_DEG);
}
static dquat rz(double deg) {
    return quat_axis_angle(v3(0, 0, 1), deg * SAMPLE_DEG);
}

/* Legs, arms and hips of a gait with the given amplitudes; phase p in radians. */
typedef struct gait {
    double thigh, knee, foot, arm_down, arm_swing, elbow, lean, yaw, bob;
} gait;

static void pose_gait(const gait* g, double p, double height, sample_pose* out) {
    double s = height / SAMPLE_REF_HEIGHT;
    for (int side = 0; side < 2; ++side) {
        double q = p + side * SAMPLE_PI, sign = side ? -1 : 1; /* the right leg half a cycle on */
        double knee = 0.5 + 0.5 * cos(q);
        out->rotation[side ? R_UPLEG : L_UPLEG] = rx(-g->thigh * sin(q));
        out->rotation[side ? R_LEG : L_LEG] = rx(5 + g->knee * knee * knee);
        out->rotation[side ? R_FOOT : L_FOOT] = rx(-g->foot * sin(q));
        /* arms hang down, then swing against the leg of their side */
        out->rotation[side ? R_ARM : L_ARM] =
            quat_mul(rx(g->arm_swing * sin(q)), rz(-sign * g->arm_down));
        out->rotation[side ? R_FOREARM : L_FOREARM] = ry(-sign * g->elbow);
    }
    out->rotation[SPINE] = rx(g->lean);
    out->rotation[SPINE1] = ry(-g->yaw * sin(p));
    out->rotation[HIPS] = ry(g->yaw * sin(p));
    out->hips_offset = v3(0, g->bob * s * cos(2 * p), 0);
}

static void pose_walk(double t, double height, sample_pose* out) {
    static const gait g = {25, 40, 10, 70, 15, 20, 0, 6, 0.02};
    pose_gait(&g, 2 * SAMPLE_PI * t / 1.0, height, out);
}

static void pose_run(double t, double height, sample_pose* out) {
    static const gait g = {45, 85, 20, 75, 35, 80, 12, 10, 0.05};
    pose_gait(&g, 2 * SAMPLE_PI * t / 0.6, height, out);
}

static sample_station st(double x, double y, double z, double ra, double rb) {
    return (sample_station){v3(x, y, z), ra, rb};
}

bool sample_biped_build(sample_character* c, uint32_t seed) {
    sample_rng rng = {seed};
    double leg = sample_rng_factor(&rng, 0.08), torso = sample_rng_factor(&rng, 0.06);
    double girth = sample_rng_factor(&rng, 0.10), arm = sample_rng_factor(&rng, 0.06);
    double tail_len = sample_rng_factor(&rng, 0.12), tail_girth = sample_rng_factor(&rng, 0.15);

    c->name = "tailed-biped";
    c->joint_count = JOINT_COUNT;
    for (int j = 0; j < JOINT_COUNT; ++j) {
        c->joint_name[j] = names[j];
        c->parent[j] = parents[j];
        c->aim[j] = aims[j];
    }
    double ankle = 0.09, knee = ankle + 0.41 * leg, hip = knee + 0.42 * leg;
    double hips = hip + 0.06, spine = hips + 0.10 * torso, spine1 = spine + 0.12 * torso;
    double spine2 = spine1 + 0.12 * torso, neck = spine2 + 0.18 * torso, head = neck + 0.10;
    double shoulder_y = neck - 0.06, arm_x = 0.18, elbow_x = arm_x + 0.28 * arm;
    double wrist_x = elbow_x + 0.26 * arm, hand_end = wrist_x + 0.18 * arm;
    double hip_x = 0.09 * girth;
    c->joint[HIPS] = v3(0, hips, 0);
    c->joint[SPINE] = v3(0, spine, -0.01);
    c->joint[SPINE1] = v3(0, spine1, -0.01);
    c->joint[SPINE2] = v3(0, spine2, -0.01);
    c->joint[NECK] = v3(0, neck, -0.01);
    c->joint[HEAD] = v3(0, head, 0.01);
    for (int side = 0; side < 2; ++side) {
        double m = side ? -1 : 1;
        int o = side ? R_SHOULDER - L_SHOULDER : 0, l = side ? R_UPLEG - L_UPLEG : 0;
        c->joint[L_SHOULDER + o] = v3(m * 0.06, shoulder_y, -0.01);
        c->joint[L_ARM + o] = v3(m * arm_x, shoulder_y - 0.01, -0.02);
        c->joint[L_FOREARM + o] = v3(m * elbow_x, shoulder_y - 0.01, -0.03);
        c->joint[L_HAND + o] = v3(m * wrist_x, shoulder_y - 0.01, -0.02);
        c->joint[L_UPLEG + l] = v3(m * hip_x, hip, 0);
        c->joint[L_LEG + l] = v3(m * hip_x, knee, 0.01);
        c->joint[L_FOOT + l] = v3(m * hip_x, ankle, -0.01);
        c->joint[L_TOE + l] = v3(m * hip_x, 0.03, 0.11);
    }

    /* The body: one tube up the middle (pelvis to the crown), one per arm, leg and foot. */
    double g = girth;
    sample_station torso_st[] = {
        st(0, hip - 0.08, 0, 0.10 * g, 0.09 * g),     st(0, hip, 0, 0.17 * g, 0.11 * g),
        st(0, hips + 0.04, 0, 0.165 * g, 0.105 * g),  st(0, spine + 0.04, 0, 0.15 * g, 0.10 * g),
        st(0, spine1 + 0.04, 0, 0.165 * g, 0.11 * g), st(0, spine2 + 0.06, 0, 0.185 * g, 0.115 * g),
        st(0, neck - 0.04, 0, 0.17 * g, 0.105 * g),   st(0, neck, 0, 0.065, 0.065),
        st(0, head - 0.02, 0.005, 0.06, 0.06),        st(0, head + 0.02, 0.01, 0.085, 0.095),
        st(0, head + 0.10, 0.01, 0.095, 0.105),       st(0, head + 0.18, 0.01, 0.065, 0.075),
    };
    sample_chain torso_chain = {.joint = {HIPS, SPINE, SPINE1, SPINE2, NECK, HEAD},
                                .start = {c->joint[HIPS], c->joint[SPINE], c->joint[SPINE1],
                                          c->joint[SPINE2], c->joint[NECK], c->joint[HEAD]},
                                .count = 6,
                                .blend = 0.04};
    sample_tube torso_tube = {torso_st,
                              sizeof torso_st / sizeof *torso_st,
                              24,
                              48,
                              4,
                              v3(1, 0, 0),
                              {0, 0, 0.5, 0.5},
                              &torso_chain,
                              NULL,
                              NULL};
    if (!sample_tube_add(&c->body, &torso_tube)) return false;

    for (int side = 0; side < 2; ++side) {
        double m = side ? -1 : 1, x = m * hip_x, u = side ? 0.75 : 0.5;
        int o = side ? R_SHOULDER - L_SHOULDER : 0, l = side ? R_UPLEG - L_UPLEG : 0;
        sample_station arm_st[] = {
            st(m * 0.02, shoulder_y, -0.02, 0.06, 0.06),
            st(m * arm_x, shoulder_y - 0.01, -0.02, 0.055 * g, 0.055 * g),
            st(m * elbow_x, shoulder_y - 0.01, -0.03, 0.042 * g, 0.042 * g),
            st(m * wrist_x, shoulder_y - 0.01, -0.02, 0.03 * g, 0.034 * g),
            st(m * (wrist_x + 0.08 * arm), shoulder_y - 0.01, -0.02, 0.018, 0.044),
            st(m * hand_end, shoulder_y - 0.01, -0.02, 0.012, 0.035),
        };
        sample_chain arm_chain = {
            .joint = {SPINE2, L_SHOULDER + o, L_ARM + o, L_FOREARM + o, L_HAND + o},
            .start = {c->joint[SPINE2], c->joint[L_SHOULDER + o], c->joint[L_ARM + o],
                      c->joint[L_FOREARM + o], c->joint[L_HAND + o]},
            .count = 5,
            .blend = 0.04};
        sample_tube arm_tube = {arm_st,     6,    14,  36, 3, v3(0, 1, 0), {u, 0, u + 0.25, 0.25},
                                &arm_chain, NULL, NULL};
        if (!sample_tube_add(&c->body, &arm_tube)) return false;

        sample_station leg_st[] = {
            st(x, hips - 0.01, 0, 0.085 * g, 0.085 * g),
            st(x, hip - 0.05, 0, 0.08 * g, 0.08 * g),
            st(x, knee + 0.05, 0.01, 0.055 * g, 0.058 * g),
            st(x, knee, 0.01, 0.05 * g, 0.052 * g),
            st(x, ankle + 0.08, 0, 0.04 * g, 0.042 * g),
            st(x, ankle - 0.02, -0.01, 0.04, 0.04),
        };
        sample_chain leg_chain = {.joint = {HIPS, L_UPLEG + l, L_LEG + l, L_FOOT + l},
                                  .start = {c->joint[HIPS], c->joint[L_UPLEG + l],
                                            c->joint[L_LEG + l], c->joint[L_FOOT + l]},
                                  .count = 4,
                                  .blend = 0.05};
        sample_tube leg_tube = {leg_st,     6,    16,  32, 3, v3(1, 0, 0), {u, 0.25, u + 0.25, 0.5},
                                &leg_chain, NULL, NULL};
        if (!sample_tube_add(&c->body, &leg_tube)) return false;

        sample_station foot_st[] = {
            st(x, 0.050, -0.05, 0.042, 0.045),
            st(x, 0.040, 0.11, 0.048, 0.035),
            st(x, 0.035, 0.18, 0.040, 0.028),
        };
        sample_chain foot_chain = {.joint = {L_FOOT + l, L_TOE + l},
                                   .start = {c->joint[L_FOOT + l], c->joint[L_TOE + l]},
                                   .count = 2,
                                   .blend = 0.03};
        sample_tube foot_tube = {
            foot_st, 3, 12, 10, 3, v3(1, 0, 0), {u, 0.5, u + 0.25, 0.625}, &foot_chain, NULL, NULL};
        if (!sample_tube_add(&c->body, &foot_tube)) return false;
    }

    /* The tail: from inside the back of the pelvis (about 0.04 H behind the hips), out
     * backwards, then down and back, clear of the legs, to low on the shins. As on real tailed
     * humanoids its skin stays well behind the legs' plane (0.15-0.2 H at mid-length): a tail
     * kept near the legs is body skin to the rig's limb test, not a tail. */
    enum { TAIL_STATIONS = 40 };
    sample_station tail[TAIL_STATIONS], fur[TAIL_STATIONS];
    dv3 p0 = v3(0, hip - 0.01, -0.08), p1 = v3(0, hip - 0.06, -0.08 - 0.25 * tail_len);
    dv3 p2 = v3(0, hip - 0.48 * tail_len, -0.45), p3 = v3(0, hip - 0.68 * tail_len, -0.38);
    sample_bezier_stations(tail, TAIL_STATIONS, p0, p1, p2, p3, 0.042 * tail_girth,
                           0.014 * tail_girth);
    return sample_tail_add(c, tail, fur, TAIL_STATIONS, L_UPLEG, R_UPLEG, L_LEG, HIPS) &&
           sample_clip_add(c, "Walk", 30, pose_walk) && sample_clip_add(c, "Run", 18, pose_run) &&
           sample_clip_add(c, "Shake", 20, sample_pose_shake);
}
