/* The spring-chain solver as a WebAssembly program: shakes a 4-link and an 8-link chain whose
 * tips reach the floor, and prints their tip positions. tests/wasm_sim.sh builds it natively
 * and for wasm32-wasi and compares the two outputs. */
#include <tailor/sim.h>

#include <math.h>
#include <stdio.h>

static int run(int links) {
    float t[3 * 8], q[4 * 8];
    for (int i = 0; i < links; ++i) {
        t[3 * i] = 0, t[3 * i + 1] = i ? -0.12f : -0.05f, t[3 * i + 2] = i ? 0 : -0.05f;
        q[4 * i] = q[4 * i + 1] = q[4 * i + 2] = 0, q[4 * i + 3] = 1;
    }
    tl_chain_def def = tl_default_chain_def();
    def.bone_count = links;
    def.rest_translations = t;
    def.rest_rotations = q;
    tl_chain* chain;
    tl_error err;
    if (tl_chain_create(&def, NULL, &chain, &err) != TL_OK) {
        printf("create: %s\n", err.message);
        return 1;
    }
    tl_chain_input in = tl_default_chain_input();
    in.target.position[1] = 0.3f; /* low hips: the 8-link tail lies on the floor */
    for (int f = 0; f <= 480; ++f) {
        double s = f / 60.0, yaw = 0.39 * sin(3 * 3.14159265358979 * s);
        in.start = in.target;
        in.target.position[0] = (float)(0.25 * sin(3 * 3.14159265358979 * s));
        in.target.rotation[1] = (float)sin(yaw / 2), in.target.rotation[3] = (float)cos(yaw / 2);
        tl_chain_step(chain, &in, 1.0f / 60.0f);
        if (f % 120 == 0)
            for (int i = 0; i < links; ++i) {
                const float* p = tl_chain_tip_positions(chain) + 3 * i;
                printf("%d %d %d %.9g %.9g %.9g\n", links, f, i, p[0], p[1], p[2]);
            }
    }
    tl_chain_stats st = tl_chain_get_stats(chain);
    printf("%d steps %llu contacts %u nonfinite %u\n", links, (unsigned long long)st.steps,
           st.contacts, st.nonfinite_inputs + st.nonfinite_states);
    tl_chain_destroy(chain);
    return 0;
}

int main(void) {
    return run(4) || run(8);
}
