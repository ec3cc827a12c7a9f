/* Bind maths: poses from matrices, neutral locals from inverse bind matrices, the hips frame
 * and the rest arc with every per-link constant (spring-chain.md §3, §5, §6). */
#include "chain_parts.h"

/* ---- matrices (only at create and for the caller's convenience) ---- */

tl_chain_pose tl_chain_pose_from_matrix(const float m[16]) {
    tl_chain_pose pose;
    v3 x = m4_column(m, 0), y = m4_column(m, 1), z = m4_column(m, 2);
    float sx = v3_length(x), sy = v3_length(y), sz = v3_length(z);
    pose.scale = (sx + sy + sz) / 3.0f;
    x = v3_normalize_or(x, v3_make(1, 0, 0));
    y = v3_normalize_or(y, v3_make(0, 1, 0));
    z = v3_normalize_or(z, v3_make(0, 0, 1));
    qt_store(pose.rotation, qt_from_basis(x, y, z));
    v3_store(pose.position, m4_column(m, 3));
    return pose;
}

void tl_chain_local_from_binds(const float parent_inverse_bind[16], const float inverse_bind[16],
                               float translation[3], float rotation[4]) {
    /* L = W_parent^-1 W = IBM_parent * IBM^-1 */
    float world[16], local[16];
    m4_affine_inverse(world, inverse_bind);
    m4_mul(local, parent_inverse_bind, world);
    tl_chain_pose pose = tl_chain_pose_from_matrix(local);
    memcpy(translation, pose.position, sizeof pose.position);
    memcpy(rotation, pose.rotation, sizeof pose.rotation);
}

/* The hips axes as an orthonormal right-handed frame built from up and forward
 * (lateral = up x forward: the character's left when it faces +Z with +Y up). */
tl_result chain_hips_frame(const tl_chain_def* def, qt* out, tl_error* err) {
    v3 lateral = v3_load(def->hips_lateral), up = v3_load(def->hips_up);
    v3 forward = v3_load(def->hips_forward);
    if (!v3_finite(lateral) || !v3_finite(up) || !v3_finite(forward))
        return tl_error_set(err, TL_ERROR_INVALID, "chain: hips axes are not finite");
    up = v3_normalize_or(up, v3_make(0, 0, 0));
    forward = v3_normalize_or(v3_madd(forward, up, -v3_dot(forward, up)), v3_make(0, 0, 0));
    v3 side = v3_cross(up, forward);
    if (v3_dot(side, side) < 0.5f)
        return tl_error_set(err, TL_ERROR_INVALID,
                            "chain: hips up and forward are parallel or zero");
    if (v3_dot(side, lateral) < 0)
        return tl_error_set(err, TL_ERROR_INVALID,
                            "chain: hips axes are left-handed (lateral should be up x forward)");
    *out = qt_from_basis(side, up, forward);
    return TL_OK;
}

/* Builds the rest arc (spring-chain.md §3, §6) and every per-link constant. */
tl_result chain_build_links(tl_chain* chain, const tl_chain_def* def, tl_error* err) {
    int n = def->bone_count;
    link_const* L = chain->links;
    /* bind geometry: each bone's own-frame tip direction and length */
    for (int i = 0; i < n; ++i) {
        qt q = qt_load(def->rest_rotations + 4 * i);
        if (qt_dot(q, q) < 1e-12f)
            return tl_error_set(err, TL_ERROR_INVALID, "chain: bone %d: zero rest rotation", i);
        L[i].neutral = qt_normalize(q);
        v3 tip;
        if (i + 1 < n) {
            tip = v3_load(def->rest_translations + 3 * (i + 1));
        } else if (def->tip_translation) {
            tip = v3_load(def->tip_translation);
        } else {
            /* No Tail_End: continue the incoming tangent, expressed in the last bone's own
             * frame (copying the parent-frame vector is wrong once the bone is rotated). */
            v3 incoming = v3_load(def->rest_translations + 3 * i);
            tip = qt_unrotate(L[i].neutral, incoming);
            if (i > 0) /* as long as the link before it */
                tip = v3_scale(v3_normalize_or(tip, tip),
                               v3_length(v3_load(def->rest_translations + 3 * i)));
        }
        float len = v3_length(tip);
        if (!(len > 0) || !isfinite(len))
            return tl_error_set(err, TL_ERROR_INVALID, "chain: bone %d: link has zero length", i);
        L[i].length = len;
        L[i].own_dir = v3_scale(tip, 1.0f / len);
        L[i].bind_dir = qt_rotate(L[i].neutral, L[i].own_dir);
    }
    /* Zero length relative to the chain, so a 1 mm character's links are as long as any. */
    float longest = 0;
    for (int i = 0; i < n; ++i)
        longest = fmaxf(longest, L[i].length);
    for (int i = 0; i < n; ++i)
        if (!(L[i].length > 1e-6f * longest))
            return tl_error_set(err, TL_ERROR_INVALID,
                                "chain: bone %d: link has zero length (%g, the longest is %g)", i,
                                (double)L[i].length, (double)longest);
    if (def->joint_radii) memcpy(chain->radii, def->joint_radii, (size_t)n * sizeof(float));
    chain_build_rest(chain, &def->settings);
    return TL_OK;
}

/* The settings' part of the per-link constants: the rest arc (carry, rest curve), the springs
 * and the bend limits. Also what tl_chain_set_settings redoes. */
void chain_build_rest(tl_chain* chain, const tl_chain_settings* settings) {
    const int n = chain->n;
    link_const* L = chain->links;
    qt H = chain->hips_in_attachment;
    /* authored directions in hips space (x lateral, y up, z forward) */
    v3 authored[TL_CHAIN_MAX_BONES] = {{0}}, centred[TL_CHAIN_MAX_BONES] = {{0}};
    qt G = qt_identity();
    for (int i = 0; i < n; ++i) {
        G = qt_mul(G, L[i].neutral);
        authored[i] = qt_unrotate(H, qt_rotate(G, L[i].own_dir));
        centred[i] = v3_normalize_or(v3_make(0, authored[i].y, authored[i].z), v3_make(0, -1, 0));
    }
    /* The carry lifts the rest to carry_deg from straight down: a tail already further back
     * (quadrupeds) gets none. phi is signed, positive backwards (-z), in the sagittal plane. */
    float phi = atan2f(-centred[0].z, -centred[0].y); /* n >= 1 */
    float carry = settings->carry_deg * DEG_TO_RAD - phi;
    if (carry < 0) carry = 0;
    /* rest arc and the corrected rest frames A_i */
    float k_limit = settings->bend_limit_deg * DEG_TO_RAD;
    G = qt_identity();
    for (int i = 0; i < n; ++i) {
        qt Q = qt_slerp(qt_identity(), qt_swing(centred[i], authored[i]), settings->rest_curve);
        qt R = qt_axis_angle(v3_make(1, 0, 0), carry * (float)(i + 1) / (float)n);
        v3 u = qt_rotate(R, qt_rotate(Q, centred[i]));
        L[i].rest_dir_hips = u;
        L[i].hips_from_parent = qt_normalize(qt_mul(qt_conj(H), G));
        L[i].rest_dir = qt_unrotate(G, qt_rotate(H, u));
        L[i].rest_local =
            qt_normalize(qt_mul(qt_swing(L[i].bind_dir, L[i].rest_dir), L[i].neutral));
        G = qt_normalize(qt_mul(G, L[i].rest_local));
        v3_store(chain->rest_dirs + 3 * i, qt_rotate(H, u));

        float omega = chain_link_omega(settings, i, n);
        L[i].omega2 = omega * omega;
        L[i].damping = 2.0f * settings->damping_ratio * omega;

        float limit = k_limit;
        float radius = chain->radii[i];
        if (radius > 0) {
            float shortest = i > 0 && L[i - 1].length < L[i].length ? L[i - 1].length : L[i].length;
            float thick = 0.15f * shortest / radius;
            if (thick < limit) limit = thick;
        }
        L[i].limit = limit;
        L[i].cos_half_limit = cosf(0.5f * limit);
        L[i].sin_half_limit = sinf(0.5f * limit);
        chain->limits[i] = limit;
        L[i].bind_dir_hips = qt_rotate(L[i].hips_from_parent, L[i].bind_dir);
        L[i].rest_swing = qt_swing(L[i].bind_dir_hips, L[i].rest_dir_hips);
    }
    for (int i = 0; i < n; ++i) {
        qt next = i + 1 < n ? L[i + 1].hips_from_parent : qt_identity();
        L[i].next_frame =
            qt_normalize(qt_mul(qt_mul(L[i].hips_from_parent, L[i].neutral), qt_conj(next)));
    }
}
