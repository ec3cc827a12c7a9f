/* The copies between chains and a working copy of type LINK_T (lane_link: a batch's,
 * lane_link1: a chain alone's; OUTPUT_T: its output's), included by chain_batch.c once per type;
 * every function is named GS(x) = x_<suffix>. */

static inline void GS(gather_constants)(LINK_T* k, int l, const tl_chain* c) {
    for (int i = 0; i < c->n; ++i, ++k) {
        const link_const* L = &c->links[i];
        SET_V3(k, u, l, L->rest_dir_hips);
        SET_V3(k, c, l, L->bind_dir_hips);
        SET_QT(k, k, l, L->next_frame);
        SET_QT(k, a, l, L->hips_from_parent);
        SET_QT(k, n, l, L->neutral);
        SET_V3(k, e, l, L->own_dir);
        k->len[l] = L->length, k->omega2[l] = L->omega2, k->damping[l] = L->damping;
        k->cos_lim[l] = L->cos_half_limit, k->sin_lim[l] = L->sin_half_limit;
    }
}

/* Copies a chain's state into lane l of a working copy, unless the lane holds it already (the
 * chain was stepped in that lane last and has not changed since: *serial, *stamp). */
static inline void GS(gather_state)(LINK_T* k, int l, const tl_chain* c, uint64_t* serial,
                                    uint64_t* stamp) {
    if (*serial == c->serial && *stamp == c->stamp) return;
    *serial = c->serial;
    *stamp = c->stamp;
    for (int i = 0; i < c->n; ++i, ++k) {
        SET_V3(k, p, l, v3_load(c->positions + 3 * i));
        SET_V3(k, v, l, v3_load(c->velocities + 3 * i));
        const link_swings* own = &c->own[i];
        SET_QT(k, b, l, LANE_QT(own, b, 0));
        SET_QT(k, s, l, LANE_QT(own, s, 0));
        SET_QT(k, o, l, LANE_QT(own, o, 0));
    }
}

/* Writes lane l's state back into its chain. */
static inline void GS(scatter_lane)(const LINK_T* k, int l, tl_chain* c, float scale) {
    for (int i = 0; i < c->n; ++i, ++k) {
        v3_store(c->positions + 3 * i, LANE_V3(k, p, l));
        v3_store(c->velocities + 3 * i, LANE_V3(k, v, l));
        link_swings* own = &c->own[i];
        SET_QT(own, b, 0, LANE_QT(k, b, l));
        SET_QT(own, s, 0, LANE_QT(k, s, l));
        SET_QT(own, o, 0, LANE_QT(k, o, l));
        c->out_lengths[i] = k->len[l] * scale;
    }
}

/* The render-time output of lane l for links first..first+count-1 into its chain. */
static inline void GS(copy_output)(const OUTPUT_T* o, int l, tl_chain* c, int first, int count) {
    for (int i = first; i < first + count; ++i, ++o) {
        qt_store(c->out_local + 4 * i, LANE_QT(o, L, l));
        v3_store(c->out_tips + 3 * i, LANE_V3(o, T, l));
    }
}
