/* The spring settings of extras.tailor.chain: key, field and range (docs/schema.md). The
 * ranges are what the solver accepts (tl_chain_create asserts them). */
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

float* tl_schema_setting_field(const tl_schema_setting* s, tl_chain_settings* settings) {
    return (float*)((char*)settings + s->offset);
}

bool tl_schema_setting_check(const tl_schema_setting* s, double value, char* why, size_t size) {
    if (!isfinite((float)value))
        snprintf(why, size, "must be a finite number");
    else if (s->min_open ? !(value > s->min) : !(value >= s->min))
        snprintf(why, size, "must be %s %g", s->min_open ? ">" : ">=", (double)s->min);
    else if (!(value <= s->max))
        snprintf(why, size, "must be <= %g", (double)s->max);
    else
        return true;
    return false;
}
