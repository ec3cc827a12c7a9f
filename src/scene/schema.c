/* The spring settings of extras.tailor.chain and the cloth settings of extras.tailor.cloth:
 * key, field and range (docs/schema.md). The ranges are what the solvers accept
 * (tl_chain_create and tl_cloth_create assert them). */
#include "scene/schema.h"

#include <math.h>
#include <stdio.h>

#define SETTING(name, lo, open, hi)                                                                \
    { #name, offsetof(tl_chain_settings, name), lo, open, hi }

const tl_schema_setting tl_schema_settings[TL_SCHEMA_SETTING_COUNT] = {
    SETTING(root_frequency, 0, true, INFINITY),     SETTING(tip_frequency, 0, true, INFINITY),
    SETTING(damping_ratio, 0, false, INFINITY),     SETTING(gravity, 0, false, INFINITY),
    SETTING(carry_deg, -INFINITY, false, INFINITY), SETTING(rest_curve, 0, false, 1),
    SETTING(coupling_rate, 0, false, INFINITY),     SETTING(bend_limit_deg, 0, true, INFINITY),
    SETTING(ground_clearance, 0, false, INFINITY),  SETTING(slip_damping, 0, false, INFINITY),
};

const char* const tl_schema_collider_shapes[4] = {"sphere", "capsule", "plane", "ellipsoid"};

#define CLOTH(name, lo, open, hi)                                                                  \
    { #name, offsetof(tl_cloth_settings, name), lo, open, hi }

/* the ranges tl_cloth_create asserts */
const tl_schema_setting tl_schema_cloth_settings[TL_SCHEMA_CLOTH_SETTING_COUNT] = {
    CLOTH(damping, 0, false, 0.999f),
    CLOTH(edge_damping, 0, false, 0.999f),
    CLOTH(contact_damping, 0, false, 1),
    CLOTH(stretch_stiffness, 0, false, 1),
    CLOTH(shear_stiffness, 0, false, 1),
    CLOTH(gravity, -INFINITY, false, INFINITY),
    CLOTH(wind, -INFINITY, false, INFINITY),
    CLOTH(edge_wind, -INFINITY, false, INFINITY),
    CLOTH(world_motion, 0, false, 1),
    CLOTH(edge_world_motion, 0, false, 1),
    CLOTH(max_distance_top, 0, true, INFINITY),
    CLOTH(max_distance_bottom, 0, true, INFINITY),
    CLOTH(edge_max_distance, 0, true, INFINITY),
    CLOTH(collision_margin, 0, false, INFINITY),
};

float* tl_schema_cloth_setting_field(const tl_schema_setting* s, tl_cloth_settings* settings) {
    return (float*)((char*)settings + s->offset);
}

float* tl_schema_setting_field(const tl_schema_setting* s, tl_chain_settings* settings) {
    return (float*)((char*)settings + s->offset);
}

bool tl_schema_setting_check(const tl_schema_setting* s, double number, char* why, size_t size) {
    /* judged as stored: 1e-60 > 0 but is 0 as a float */
    float value = (float)number;
    if (!isfinite(value))
        snprintf(why, size, "must be a finite number");
    else if (s->min_open ? !(value > s->min) : !(value >= s->min))
        snprintf(why, size, "must be %s %g", s->min_open ? ">" : ">=", (double)s->min);
    else if (!(value <= s->max))
        snprintf(why, size, "must be <= %g", (double)s->max);
    else
        return true;
    return false;
}

#define PENDULUM(name, lo, open, hi)                                                               \
    { #name, offsetof(tl_pendulum_def, name), lo, open, hi }

/* length, gravity and teleport_distance in metres of a 1.8 m character (x H / 1.8 m at play) */
const tl_schema_setting tl_schema_pendulum_settings[TL_SCHEMA_PENDULUM_SETTING_COUNT] = {
    PENDULUM(length, 0, true, INFINITY),   PENDULUM(gravity, -INFINITY, false, INFINITY),
    PENDULUM(damping, 0, false, 0.999f),   PENDULUM(stiffness, 0, false, 1),
    PENDULUM(max_angle_deg, 0, true, 180), PENDULUM(teleport_distance, 0, true, INFINITY),
};

#define AIM(name, lo, open, hi)                                                                    \
    { #name, offsetof(tl_aim_def, name), lo, open, hi }

const tl_schema_setting tl_schema_aim_settings[TL_SCHEMA_AIM_SETTING_COUNT] = {
    AIM(weight, 0, false, 1),
    AIM(max_angle_deg, 0, false, 180),
};
