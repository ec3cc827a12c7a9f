/* One scene for the native-vs-WebAssembly comparison (tests/web_sim.sh): a 6-bone chain with a
 * tip, radii, non-default settings and a scaled, swinging, turning attachment, stepped at 60
 * fps with one 1/20 s hitch; prints every joint position of every frame as "f i x y z".
 * tests/web/sim_compare.mjs runs the same scene through web/tailor-sim.js. */
#include <tailor/sim.h>

#include <math.h>
#include <stdio.h>

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
    for (int f = 1; f <= 300; ++f) {
        double s = f / 60.0, yaw = 0.6 * sin(2.1 * s);
        in.start = in.target;
        in.target.position[0] = (float)(0.3 * sin(5.0 * s));
        in.target.position[1] = (float)(0.5 + 0.1 * sin(7.0 * s));
        in.target.rotation[1] = (float)sin(yaw / 2), in.target.rotation[3] = (float)cos(yaw / 2);
        tl_chain_step(chain, &in, f == 150 ? 1.0f / 20.0f : 1.0f / 60.0f);
        const float* p = tl_chain_tip_positions(chain);
        for (int i = 0; i < N; ++i)
            printf("%d %d %.9g %.9g %.9g\n", f, i, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    }
    tl_chain_destroy(chain);
    return 0;
}
