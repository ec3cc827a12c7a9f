/* One scene for the native-vs-WebAssembly comparison (tests/web_sim.sh): a 6-bone chain with a
 * tip, radii, non-default settings and sleep, and a scaled, swinging, turning attachment,
 * stepped at 60 fps with one 1/20 s hitch for 300 frames, then held exactly still for HOLD
 * frames (the chain falls asleep), then moving again; prints every joint position of every
 * frame as "f i x y z" and the frame's stats as "f s asleep sleeps steps".
 * tests/web/sim_compare.mjs runs the same scene through web/tailor-sim.js. */
#include <tailor/sim.h>

#include <math.h>
#include <stdio.h>

enum { HOLD = 300 }; /* frames 301 .. 300 + HOLD repeat frame 300's pose */

int main(void) {
    enum { N = 6 };
    float t[3 * N], q[4 * N], radii[N], tip[3] = {0, -0.1f, 0.02f};
    for (int i = 0; i < N; ++i) {
        t[3 * i] = 0.01f * i, t[3 * i + 1] = i ? -0.1f : -0.04f, t[3 * i + 2] = i ? 0 : -0.06f;
        float a = 0.1f * i; /* an authored curl */
        q[4 * i] = sinf(a / 2), q[4 * i + 1] = q[4 * i + 2] = 0, q[4 * i + 3] = cosf(a / 2);
        radii[i] = 0.03f - 0.004f * i;
    }
    tl_chain_def def = tl_default_chain_def();
    def.bone_count = N;
    def.rest_translations = t;
    def.rest_rotations = q;
    def.tip_translation = tip;
    def.joint_radii = radii;
    def.scale = 1.3f;
    def.floor_height = 0.05f;
    def.settings.damping_ratio = 0.4f;
    def.settings.gravity = 2.0f;
    def.settings.carry_deg = 35.0f;
    def.sleep_speed = 0.02f; /* (neither default, nor equal: a swap in the glue shows) */
    def.sleep_seconds = 0.8f;
    tl_chain* chain;
    tl_error err;
    if (tl_chain_create(&def, NULL, &chain, &err) != TL_OK) {
        printf("create: %s\n", err.message);
        return 1;
    }
    tl_chain_input in = tl_default_chain_input();
    in.target.position[1] = 0.5f;
    in.target.scale = 1.3f;
    in.start = in.target;
    tl_chain_reset(chain, &in.target);
    double length = 0;
    for (int i = 0; i < N; ++i)
        length += tl_chain_link_lengths(chain)[i];
    printf("length %.9g\n", length);
    for (int f = 1; f <= 360 + HOLD; ++f) {
        int moving = f <= 300 || f > 300 + HOLD;
        double s = (f > 300 ? f - HOLD : f) / 60.0, yaw = 0.6 * sin(2.1 * s);
        in.start = in.target;
        if (moving) {
            in.target.position[0] = (float)(0.3 * sin(5.0 * s));
            in.target.position[1] = (float)(0.5 + 0.1 * sin(7.0 * s));
            in.target.rotation[1] = (float)sin(yaw / 2);
            in.target.rotation[3] = (float)cos(yaw / 2);
        }
        tl_chain_step(chain, &in, f == 150 ? 1.0f / 20.0f : 1.0f / 60.0f);
        const float* p = tl_chain_tip_positions(chain);
        for (int i = 0; i < N; ++i)
            printf("%d %d %.9g %.9g %.9g\n", f, i, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        tl_chain_stats st = tl_chain_get_stats(chain);
        printf("%d s %d %u %llu\n", f, st.asleep, st.sleeps, (unsigned long long)st.steps);
    }
    tl_chain_destroy(chain);
    return 0;
}
