/* Batching and dispatch: tl_chain_batch_step groups chains by bone count, gathers each group's
 * constants and state into the lanes of the batch's working copy for that group, runs the
 * internal steps and scatters the state and the render-time output back; a chain alone runs in
 * a one-lane copy on the stack. */
#include "chain_parts.h"

#define LINK_T lane_link
#define OUTPUT_T lane_output
#define GS(x) x##_batch
#include "chain_gather.h"
#undef GS
#undef OUTPUT_T
#undef LINK_T
#define LINK_T lane_link1
#define OUTPUT_T lane_output1
#define GS(x) x##_1
#include "chain_gather.h"
#undef GS
#undef OUTPUT_T
#undef LINK_T

void chain_state_sync(tl_chain* c) {
    lane_group* g = c->home;
    if (!g) return;
    scatter_lane_batch(g->links, c->home_lane, c, g->lane_scale[c->home_lane]);
    g->lane_owner[c->home_lane] = NULL; /* (the lane keeps a copy: serial and stamp hold) */
    c->home = NULL;
}

void chain_state_drop(tl_chain* c) {
    if (!c->home) return;
    c->home->lane_owner[c->home_lane] = NULL;
    c->home = NULL;
}

/* Before lane l takes chain c: the state the lane alone holds of another chain goes back to
 * it, and so does c's own if another lane holds it. */
static void lane_claim(lane_group* lead, int l, tl_chain* c) {
    tl_chain* owner = lead->lane_owner[l];
    if (owner && owner != c) chain_state_sync(owner);
    if (c->home && (c->home != lead || c->home_lane != l)) chain_state_sync(c);
}

/* Whether each lane's state (particles and swings) is finite: x - x is 0 for a finite x and NaN
 * otherwise. A group's lanes all at once in the kernels' instructions; a chain alone, lane 0. */
static void lanes_finite(const lane_link* k, int n, bool* finite, int lanes) {
    if (lanes > 1) {
        chain_lanes_finite(k, n, finite);
        return;
    }
    float nan_if_not_finite = 0;
    for (int i = 0; i < n; ++i, ++k)
        nan_if_not_finite += (k->px[0] - k->px[0]) + (k->py[0] - k->py[0]) + (k->pz[0] - k->pz[0]) +
                             (k->vx[0] - k->vx[0]) + (k->vy[0] - k->vy[0]) + (k->vz[0] - k->vz[0]) +
                             (k->sx[0] - k->sx[0]) + (k->sy[0] - k->sy[0]) + (k->sz[0] - k->sz[0]) +
                             (k->sw[0] - k->sw[0]);
    finite[0] = nan_if_not_finite == 0;
}

#if defined(__SSE__)
/* Lanes l..l+3 of four rows (x, y, z, w) as four quaternions, one per lane: a transpose. */
static inline void lanes_to_qt4(const float* x, const float* y, const float* z, const float* w,
                                __m128 out[4]) {
    __m128 a = _mm_loadu_ps(x), b = _mm_loadu_ps(y), c = _mm_loadu_ps(z), d = _mm_loadu_ps(w);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}
/* (x, y, z, -) to three floats. */
static inline void store_xyz(float* p, __m128 v) {
    _mm_storel_pi((__m64*)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
#endif

/* Writes the state of every lane l with chains[l] back into that chain (scale[l]: the last
 * step's) and says in finite[] whether it was finite. Four lanes at a time by transposes
 * where the four lanes all go back. */
static void scatter_states(lane_group* lead, int n, tl_chain* const* chains, const float* scale,
                           bool* finite) {
    const lane_link* links = lead->links;
    int lanes = LANES;
    while (lanes > 1 && !chains[lanes - 1])
        --lanes;
    if (lanes == 1 && chains[0]) { /* a chain alone: the check and the copy in one pass */
        tl_chain* c = chains[0];
        const lane_link* k = links;
        float nan_if_not_finite = 0;
        lead->lane_state_serial[0] = c->serial;
        lead->lane_state_stamp[0] = ++c->stamp;
        for (int i = 0; i < n; ++i, ++k) {
            v3 p = LANE_V3(k, p, 0), v = LANE_V3(k, v, 0);
            qt S = LANE_QT(k, s, 0);
            v3_store(c->positions + 3 * i, p);
            v3_store(c->velocities + 3 * i, v);
            SET_QT(&c->own[i], b, 0, LANE_QT(k, b, 0));
            SET_QT(&c->own[i], s, 0, S);
            SET_QT(&c->own[i], o, 0, LANE_QT(k, o, 0));
            c->out_lengths[i] = k->len[0] * scale[0];
            nan_if_not_finite += (p.x - p.x) + (p.y - p.y) + (p.z - p.z) + (v.x - v.x) +
                                 (v.y - v.y) + (v.z - v.z) + (S.x - S.x) + (S.y - S.y) +
                                 (S.z - S.z) + (S.w - S.w);
        }
        finite[0] = nan_if_not_finite == 0;
        return;
    }
    lanes_finite(links, n, finite, lanes);
    for (int l = 0; l < lanes; ++l)
        if (chains[l]) {
            lead->lane_state_serial[l] = chains[l]->serial;
            lead->lane_state_stamp[l] = ++chains[l]->stamp;
        }
    int l = 0;
#if defined(__SSE__)
    for (; l + 4 <= lanes && chains[l] && chains[l + 1] && chains[l + 2] && chains[l + 3]; l += 4) {
        /* (the chains' arrays in locals: stores through them cannot move them) */
        float *positions[4], *velocities[4], *lengths[4];
        link_swings* own[4];
        for (int j = 0; j < 4; ++j) {
            const tl_chain* c = chains[l + j];
            positions[j] = c->positions, velocities[j] = c->velocities;
            lengths[j] = c->out_lengths, own[j] = c->own;
        }
        const __m128 scales = _mm_loadu_ps(scale + l);
        const lane_link* k = links;
        for (int i = 0; i < n; ++i, ++k) {
            __m128 q[4];
            lanes_to_qt4(k->px + l, k->py + l, k->pz + l, k->pz + l, q);
            for (int j = 0; j < 4; ++j)
                store_xyz(positions[j] + 3 * i, q[j]);
            lanes_to_qt4(k->vx + l, k->vy + l, k->vz + l, k->vz + l, q);
            for (int j = 0; j < 4; ++j)
                store_xyz(velocities[j] + 3 * i, q[j]);
            lanes_to_qt4(k->bx + l, k->by + l, k->bz + l, k->bw + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(own[j][i].bx, q[j]); /* (bx..bw: one qt) */
            lanes_to_qt4(k->sx + l, k->sy + l, k->sz + l, k->sw + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(own[j][i].sx, q[j]);
            lanes_to_qt4(k->ox + l, k->oy + l, k->oz + l, k->ow + l, q);
            for (int j = 0; j < 4; ++j)
                _mm_storeu_ps(own[j][i].ox, q[j]);
            float length[4];
            _mm_storeu_ps(length, _mm_mul_ps(_mm_loadu_ps(k->len + l), scales));
            for (int j = 0; j < 4; ++j)
                lengths[j][i] = length[j];
        }
    }
#endif
    for (; l < lanes; ++l)
        if (chains[l]) scatter_lane_batch(links, l, chains[l], scale[l]);
}

/* A group's settings' rows into its frame. A struct assignment of this size became an inline
 * `rep movsq` (44% of group_begin's samples in perf); this loop becomes a call of the C
 * library's memmove (gcc 12), whose vector copy is faster. */
static void settings_copy(lane_settings* restrict to, const lane_settings* restrict from) {
#if defined(__SSE__)
    _Static_assert(sizeof(lane_settings) % 16 == 0, "whole vectors");
    const float* a = (const float*)from;
    float* b = (float*)to;
    for (size_t i = 0; i < sizeof(lane_settings) / sizeof(float); i += 4)
        _mm_storeu_ps(b + i, _mm_loadu_ps(a + i));
#else
    *to = *from;
#endif
}

/* Lane l of the settings' rows from a chain with n bones (lane_group.settings keeps them
 * across frames). */
static void settings_lane(lane_settings* f, int l, const tl_chain* c, int n) {
    f->dt[l] = c->step, f->alpha[l] = n > 1 ? c->coupling_alpha : 0, f->slip[l] = c->slip_decay;
    f->floor_slip[l] = c->floor_slip_decay;
    f->floor_level[l] = c->floor_level;
    SET_V3(f, g, l, v3_scale(c->up, -c->gravity));
    f->lift[l] = c->gravity;
    SET_V3(f, up, l, c->up);
    f->plane[l] = c->plane_enabled, f->floor[l] = c->floor_enabled;
    SET_V3(f, off, l, c->root_offset);
    SET_QT(f, hip, l, c->hips_in_attachment);
}

/* Lane l of a frame's poses from a chain's plan (its settings' rows already in f). */
static void setup_lane(lane_frame* f, int l, const frame_plan* fp, int n, bool poses) {
    const tl_chain* c = fp->chain;
    if (c->force.x != 0 || c->force.y != 0 || c->force.z != 0)
        SET_V3(f, g, l, v3_add(LANE_V3(f, g, l), c->force));
    if (poses) { /* (else setup_poses4 made them) */
        SET_V3(f, ps, l, v3_load(fp->start.position));
        SET_V3(f, pt, l, v3_load(fp->target.position));
        SET_QT(f, rs, l, qt_load(fp->start.rotation));
        SET_QT(f, rt, l, qt_load(fp->target.rotation));
        SET_QT(f, hs, l, fp->hips_start);
        SET_QT(f, ht, l, fp->hips_target);
        f->ss[l] = fp->start.scale, f->st[l] = fp->target.scale;
        SET_V3(f, cp, l, fp->curve_position);
        SET_QT(f, cr, l, fp->curve_rotation);
        SET_QT(f, ch, l, fp->curve_hips);
    }
    f->has_hips[l] = fp->has_hips, f->still[l] = fp->still;
    f->colliders[l] = fp->colliders, f->collider_count[l] = fp->collider_count;
    f->growth[l] = fp->collider_growth, f->links = n; /* (the cull: chain_cull_setup) */
    f->memo[l] = NULL;
}

#if defined(__SSE__)
/* Four lanes' values (from a, b, c, d: four floats read from each) as rows x, y, z (and w
 * unless NULL): a transpose, as lanes_to_qt4 the other way. */
static inline void lanes_from_4(const float* a, const float* b, const float* c, const float* d,
                                float* x, float* y, float* z, float* w) {
    __m128 p = _mm_loadu_ps(a), q = _mm_loadu_ps(b), r = _mm_loadu_ps(c), s = _mm_loadu_ps(d);
    _MM_TRANSPOSE4_PS(p, q, r, s);
    _mm_storeu_ps(x, p), _mm_storeu_ps(y, q), _mm_storeu_ps(z, r);
    if (w) _mm_storeu_ps(w, s);
}

/* setup_lane's poses of lanes l..l+3 from four plans, four lanes a transpose. (A point's fourth
 * float read is the plan's next field.) */
static void setup_poses4(lane_frame* f, int l, const frame_plan* p) {
#define FROM_4(row, field, w)                                                                      \
    lanes_from_4((const float*)&p[0].field, (const float*)&p[1].field, (const float*)&p[2].field,  \
                 (const float*)&p[3].field, f->row##x + l, f->row##y + l, f->row##z + l, w)
    FROM_4(ps, start.position, NULL);
    FROM_4(pt, target.position, NULL);
    FROM_4(rs, start.rotation, f->rsw + l);
    FROM_4(rt, target.rotation, f->rtw + l);
    FROM_4(hs, hips_start, f->hsw + l);
    FROM_4(ht, hips_target, f->htw + l);
    FROM_4(cp, curve_position, NULL);
    FROM_4(cr, curve_rotation, f->crw + l);
    FROM_4(ch, curve_hips, f->chw + l);
#undef FROM_4
    for (int j = 0; j < 4; ++j)
        f->ss[l + j] = p[j].start.scale, f->st[l + j] = p[j].target.scale;
}
#endif

/* What the frame's last internal step of lane l leaves in the plan and the chain's stats (the
 * steps before it leave nothing that lasts). */
static void record_step(const lane_frame* f, int l, frame_plan* fp) {
    tl_chain_pose* pose = &fp->last_pose;
    v3_store(pose->position, LANE_V3(f, pp, l));
    qt_store(pose->rotation, LANE_QT(f, pr, l));
    pose->scale = f->scale[l];
    fp->last_hips = LANE_QT(f, pk, l);
    fp->chain->stats.contacts = (uint32_t)f->contacts[l];
    fp->chain->stats.steps += (uint64_t)fp->steps;
}

/* The chain's bookkeeping after its frame's steps (its state written back: scattered, finite). */
static void finish_frame(frame_plan* fp, bool scattered, bool finite) {
    tl_chain* c = fp->chain;
    double owed = fp->owed;
    for (long j = 0; j < fp->steps; ++j)
        owed -= c->step;
    c->accumulator = owed < 0 ? 0 : owed;
    c->last_target = fp->target;
    if (fp->steps > 0) c->solved_pose = fp->last_pose, c->solved_hips = fp->last_hips;
    if (scattered && !finite) {
        c->stats.nonfinite_states++;
        chain_place_at_rest(c, &fp->target, fp->hips_target);
    }
    c->given_known = true; /* (last_given: this frame's target as given, chain_frame_begin) */
    c->given_hips_known = !fp->has_hips, c->given_hips = fp->hips_target;
}

/* The render-time output's inputs of lane l: where the frame is between the last two steps,
 * the attachment's rotation, the root, the scale. */
static void output_lane(const frame_plan* fp, int l, float* t, float* gx, float* gy, float* gz,
                        float* gw, float* hx, float* hy, float* hz, float* s) {
    const tl_chain* c = fp->chain;
    const tl_chain_pose* pose = &fp->target;
    qt G = qt_load(pose->rotation);
    v3 root = v3_madd(v3_load(pose->position), qt_rotate(G, c->root_offset), pose->scale);
    t[l] = (float)(c->accumulator / c->step);
    gx[l] = G.x, gy[l] = G.y, gz[l] = G.z, gw[l] = G.w;
    hx[l] = root.x, hy[l] = root.y, hz[l] = root.z, s[l] = pose->scale;
}

/* output_lane for every lane of a group from its frame's rows (setup_lane put each plan's
 * target there), as one loop over the lanes (SIMD), but for t. */
static void output_rows(const lane_frame* restrict f, int lanes, float* restrict gx,
                        float* restrict gy, float* restrict gz, float* restrict gw,
                        float* restrict hx, float* restrict hy, float* restrict hz,
                        float* restrict s) {
    assert(lanes % 4 == 0);
    for (int first = 0; first < lanes; first += 4)
        for (int l = first; l < first + 4; ++l) { /* (four at a time: gcc -O2 vectorises it) */
            qt G = LANE_QT(f, rt, l);
            v3 root = v3_madd(LANE_V3(f, pt, l), qt_rotate(G, LANE_V3(f, off, l)), f->st[l]);
            gx[l] = G.x, gy[l] = G.y, gz[l] = G.z, gw[l] = G.w;
            hx[l] = root.x, hy[l] = root.y, hz[l] = root.z, s[l] = f->st[l];
        }
}

/* The render-time output kept out of the frame's body colliders. The output lags the pose by
 * up to a step (it interpolates the last two steps' swings, carried by the frame's attachment),
 * while the colliders are the frame's: a link whose tip lies inside one turns about its head
 * onto the nearest point outside, the links beyond it turning with it (their own rotations
 * kept), so no length changes. Only the output moves (the state stays the steps'); an output
 * outside every collider keeps its bits. */
static void output_contact(const frame_plan* fp, const lane_frame* f, int l, uint64_t near_mask) {
    tl_chain* c = fp->chain;
    if (fp->collider_count == 0) return;
#ifdef NDEBUG /* (Debug builds go on, asserting below that every tip stays) */
    if (!f->cull_all[l] && near_mask == 0) return; /* no tip near: the pass would move none */
#endif
    const tl_chain_pose* pose = &fp->target;
    qt G = qt_load(pose->rotation);
    v3 head = v3_madd(v3_load(pose->position), qt_rotate(G, c->root_offset), pose->scale);
    bool near[TL_CHAIN_MAX_BONES], moved = false;        /* (near: of the tips as they were) */
    const lane_frame* slots = f->cull_all[l] ? NULL : f; /* (the contact's candidates) */
    if (f->cull_all[l]) {                                /* no cull slots: from the colliders */
        chain_output_near(fp, c->out_tips, c->n, near);
    } else { /* the output kernel's cull by the lane's slots (lanes_output) */
        assert(f->collider_count[l] == fp->collider_count && f->cull_count > 0);
        for (int i = 0; i < c->n; ++i)
            near[i] = (near_mask >> i) & 1;
    }
    for (int i = 0; i < c->n; ++i) {
        qt L = qt_load(c->out_local + 4 * i);
        v3 tip = v3_load(c->out_tips + 3 * i), p = tip;
        if (!near[i] && !moved) { /* outside every collider: the pass would leave it */
#ifndef NDEBUG
            float to_tip = v3_length(v3_sub(tip, head));
            assert(!(to_tip > 0 && chain_contact_output(fp, NULL, l, i, head, to_tip, NULL, &p)));
#endif
            G = qt_mul(G, L);
            head = tip;
            continue;
        }
        float len = v3_length(v3_sub(tip, head));
        if (len > 0 && chain_contact_output(fp, slots, l, i, head, len, f->memo[l], &p)) {
            moved = true;
            qt D = qt_swing(v3_scale(v3_sub(tip, head), 1.0f / len),
                            v3_normalize_or(v3_sub(p, head), v3_sub(tip, head)));
            L = qt_normalize(qt_mul(qt_mul(qt_conj(G), qt_mul(D, G)), L));
            qt_store(c->out_local + 4 * i, L);
            for (int j = i; j < c->n; ++j) {
                v3 q = v3_load(c->out_tips + 3 * j);
                v3_store(c->out_tips + 3 * j, v3_add(head, qt_rotate(D, v3_sub(q, head))));
            }
        }
        G = qt_mul(G, L);
        head = v3_load(c->out_tips + 3 * i);
    }
}

/* Writes a chain alone's working copy back (its last step's scale), the finiteness check and
 * the copy in one pass; returns whether the state is finite. The copy holds the chain's state
 * as of the stamp it leaves in *serial, *stamp. */
static bool scatter_alone(const lane_link1* k, tl_chain* c, float scale, uint64_t* serial,
                          uint64_t* stamp) {
    float nan_if_not_finite = 0;
    *serial = c->serial;
    *stamp = ++c->stamp;
    for (int i = 0; i < c->n; ++i, ++k) {
        v3 p = LANE_V3(k, p, 0), v = LANE_V3(k, v, 0);
        qt S = LANE_QT(k, s, 0);
        v3_store(c->positions + 3 * i, p);
        v3_store(c->velocities + 3 * i, v);
        SET_QT(&c->own[i], b, 0, LANE_QT(k, b, 0));
        SET_QT(&c->own[i], s, 0, S);
        SET_QT(&c->own[i], o, 0, LANE_QT(k, o, 0));
        c->out_lengths[i] = k->len[0] * scale;
        nan_if_not_finite += (p.x - p.x) + (p.y - p.y) + (p.z - p.z) + (v.x - v.x) + (v.y - v.y) +
                             (v.z - v.z) + (S.x - S.x) + (S.y - S.y) + (S.z - S.z) + (S.w - S.w);
    }
    return nan_if_not_finite == 0;
}

/* Steps one chain through its frame in a working copy of one lane on the stack. */
static void step_alone(frame_plan* fp) {
    tl_chain* c = fp->chain;
    const int n = c->n;
    lane_link1 links[TL_CHAIN_MAX_BONES];
    uint64_t serial = 0, stamp = 0; /* whose state the copy holds, as of which change */
    lane_frame f;
    chain_state_sync(c);
    gather_constants_1(links, 0, c);
    gather_state_1(links, 0, c, &serial, &stamp);
    settings_lane(&f.settings, 0, c, n);
    setup_lane(&f, 0, fp, n, true);
    chain_cull_setup(&f, 1);
    f.memo[0] = c->memo;
    if (c->memo && f.cull_all[0]) /* (a lane with slots culls by them) */
        chain_contact_memo_balls(c->memo, fp->colliders, fp->collider_count, fp->collider_growth,
                                 n);
    for (long j = 1; j <= fp->steps; ++j) {
        f.t[0] = chain_step_time(fp, j);
        chain_lanes_steps(links, n, &f, 1, c->velocity_feedback);
    }
    if (fp->steps > 0) record_step(&f, 0, fp);
    bool scattered = fp->steps > 0,
         finite = scattered ? scatter_alone(links, c, fp->last_pose.scale, &serial, &stamp) : true;
    finish_frame(fp, scattered, finite);
    gather_state_1(links, 0, c, &serial, &stamp); /* (only if the frame reset the chain) */
    float t[1], gx[1], gy[1], gz[1], gw[1], hx[1], hy[1], hz[1], s[1];
    output_lane(fp, 0, t, gx, gy, gz, gw, hx, hy, hz, s);
    lane_output1 out[TL_CHAIN_MAX_BONES];
    chain_lanes_outputs(links, out, n, t, gx, gy, gz, gw, hx, hy, hz, s, &f, 1);
    copy_output_1(out, 0, c, 0, n);
    uint64_t near_mask = 0;
    for (int i = 0; i < n && f.cull_count > 0; ++i)
        near_mask |= (uint64_t)(out[i].N[0] != 0) << i;
    output_contact(fp, &f, 0, near_mask);
    if (c->memo) c->memo->balls_of = NULL, c->memo->ball_count = 0; /* (this frame's only) */
}

/* Asks the cache for the lines a chain's output stores to (with many chains they were
 * evicted since its last frame), so that they arrive while the kernels run. (Its state stays
 * in the lane: chain_state_sync.) */
static void prefetch_write_back(const tl_chain* c) {
#if defined(__GNUC__)
    const int n = c->n;
    for (int i = 0; i < 3 * n; i += 16)
        __builtin_prefetch(c->out_tips + i, 1);
    for (int i = 0; i < 4 * n; i += 16)
        __builtin_prefetch(c->out_local + i, 1);
#else
    (void)c;
#endif
}

/* One group's frame in a batch's working copy, in parts (group_begin, then each internal
 * step's times, kernel and group_after_step, then group_end), so that two groups' kernels
 * can run interleaved (step_pair). */
typedef struct group_run {
    lane_group* lead;
    frame_plan* plans;
    int count, n, lanes;
    long max_steps;
    bool early[LANES]; /* done before the others (state written back then) */
    lane_frame f;
} group_run;

/* Takes the lanes for 2 to LANES chains with the same bone count and sets up their frame. */
static void group_begin(group_run* r, lane_group* lead, frame_plan* plans, int count) {
    const int n = plans[0].chain->n;
    lane_link* links = lead->links;
    r->lead = lead, r->plans = plans, r->count = count, r->n = n;
    r->lanes = chain_lanes_for(count);
    r->max_steps = 0;
    for (int l = 0; l < LANES; ++l)
        r->early[l] = false;
    for (int l = 0; l < count; ++l) {
        prefetch_write_back(plans[l].chain);
        if (plans[l].steps > r->max_steps) r->max_steps = plans[l].steps;
    }
    for (int l = 0; l < r->lanes; ++l) {
        const frame_plan* fp = &plans[l < count ? l : 0]; /* spare lanes repeat lane 0 */
        tl_chain* c = fp->chain;
        lane_claim(lead, l, c);
        /* a lane the padding steps run over keeps no chain's only state */
        if (l < count && fp->steps < r->max_steps) chain_state_sync(c);
        if (lead->lane_serial[l] != c->constants_id) {
            gather_constants_batch(links, l, c);
            lead->lane_serial[l] = c->constants_id;
        }
        gather_state_batch(links, l, c, &lead->lane_state_serial[l], &lead->lane_state_stamp[l]);
        if (lead->lane_settings_id[l] != c->settings_id) {
            settings_lane(&lead->settings, l, c, n);
            lead->lane_settings_id[l] = c->settings_id;
        }
    }
    settings_copy(&r->f.settings, &lead->settings);
    int quads = 0; /* lanes whose poses go four at a time */
#if defined(__SSE__)
    for (; quads + 4 <= count; quads += 4)
        setup_poses4(&r->f, quads, plans + quads);
#endif
    for (int l = 0; l < r->lanes; ++l)
        setup_lane(&r->f, l, &plans[l < count ? l : 0], n, l >= quads);
    chain_cull_setup(&r->f, r->lanes);
}

/* Where internal step j falls in each lane's frame. */
static void group_times(group_run* r, long j) {
    for (int l = 0; l < r->lanes; ++l) {
        const frame_plan* fp = &r->plans[l < r->count ? l : 0];
        r->f.t[l] = chain_step_time(fp, j <= fp->steps ? j : fp->steps);
    }
}

/* After internal step j: the lanes whose frame it ends record it, and those done before the
 * others write their state back now (the padding steps run over it). */
static void group_after_step(group_run* r, long j) {
    frame_plan* plans = r->plans;
    for (int l = 0; l < r->count; ++l) {
        if (j != plans[l].steps) continue;
        record_step(&r->f, l, &plans[l]);
        if (j < r->max_steps) {
            tl_chain* c = plans[l].chain;
            r->early[l] = true;
            tl_chain* only[LANES] = {NULL};
            float scale[LANES] = {0};
            bool finite[LANES];
            only[l] = c, scale[l] = plans[l].last_pose.scale;
            scatter_states(r->lead, r->n, only, scale, finite);
            if (!finite[l]) {
                c->stats.nonfinite_states++;
                chain_place_at_rest(c, &plans[l].target, plans[l].hips_target);
            }
        }
    }
}

/* The lanes' bookkeeping after the group's steps and the render-time output. */
static void group_end(group_run* r) {
    lane_group* lead = r->lead;
    frame_plan* plans = r->plans;
    const int n = r->n, count = r->count, lanes = r->lanes;
    const long max_steps = r->max_steps;
    lane_link* links = lead->links;
    const lane_frame* f = &r->f;
    /* lanes the padding steps ran over no longer hold their chain's state */
    for (int l = 0; l < lanes; ++l)
        if (l >= count || plans[l].steps < max_steps) lead->lane_state_serial[l] = 0;
    /* the render-time output, from the state of each lane's own last step */
    float t[LANES], gx[LANES], gy[LANES], gz[LANES], gw[LANES], hx[LANES], hy[LANES], hz[LANES],
        s[LANES];
    tl_chain* back[LANES] = {NULL}; /* the chains whose state goes back now */
    float back_scale[LANES] = {0};
    bool finite[LANES];
    for (int l = 0; l < count; ++l) {
        frame_plan* fp = &plans[l];
        if (fp->steps > 0 && !r->early[l]) back[l] = fp->chain, back_scale[l] = fp->last_pose.scale;
    }
    /* their state stays in the lanes, checked there (written back when read: chain_state_sync) */
    lanes_finite(links, n, finite, lanes);
    for (int l = 0; l < count; ++l)
        if (back[l]) {
            tl_chain* c = back[l];
            lead->lane_state_serial[l] = c->serial;
            lead->lane_state_stamp[l] = ++c->stamp;
            lead->lane_owner[l] = c, lead->lane_scale[l] = back_scale[l];
            c->home = lead, c->home_lane = l;
        }
    for (int l = 0; l < lanes; ++l) {
        frame_plan* fp = &plans[l < count ? l : 0];
        if (l < count) {
            finish_frame(fp, back[l] != NULL, back[l] ? finite[l] : true);
            /* (only where the lane is not the chain's state) */
            gather_state_batch(links, l, fp->chain, &lead->lane_state_serial[l],
                               &lead->lane_state_stamp[l]);
        }
        t[l] = (float)(fp->chain->accumulator / fp->chain->step); /* (as output_lane) */
    }
    output_rows(f, lanes, gx, gy, gz, gw, hx, hy, hz, s);
    /* a few links at a time (the outputs' G and head carried in gx..hz), each block then
     * transposed into the chains four lanes at a time, as scatter_states */
    lane_output out[OUTPUT_BLOCK];
    uint64_t near_mask[LANES] = {0}; /* the output tips that may be inside a collider */
    for (int first = 0; first < n; first += OUTPUT_BLOCK) {
        const int m = n - first < OUTPUT_BLOCK ? n - first : OUTPUT_BLOCK;
        chain_lanes_outputs(links + first, out, m, t, gx, gy, gz, gw, hx, hy, hz, s, f, lanes);
        for (int l = 0; l < count && f->cull_count > 0; ++l)
            for (int i = 0; i < m; ++i)
                near_mask[l] |= (uint64_t)(out[i].N[l] != 0) << (first + i);
        int l = 0;
#if defined(__SSE__)
        for (; l + 4 <= count; l += 4) {
            float *local[4], *tips[4];
            for (int j = 0; j < 4; ++j)
                local[j] = plans[l + j].chain->out_local + 4 * first,
                tips[j] = plans[l + j].chain->out_tips + 3 * first;
            const lane_output* o = out;
            /* (the four chains written out one by one: gcc -O2 kept the loops over them) */
            float *l0 = local[0], *l1 = local[1], *l2 = local[2], *l3 = local[3];
            float *t0 = tips[0], *t1 = tips[1], *t2 = tips[2], *t3 = tips[3];
            for (int i = 0; i < m; ++i, ++o) {
                __m128 q[4];
                lanes_to_qt4(o->Lx + l, o->Ly + l, o->Lz + l, o->Lw + l, q);
                _mm_storeu_ps(l0 + 4 * i, q[0]), _mm_storeu_ps(l1 + 4 * i, q[1]);
                _mm_storeu_ps(l2 + 4 * i, q[2]), _mm_storeu_ps(l3 + 4 * i, q[3]);
                lanes_to_qt4(o->Tx + l, o->Ty + l, o->Tz + l, o->Tz + l, q);
                if (first + i + 1 < n) { /* (the fourth float: the next tip's x, written next) */
                    _mm_storeu_ps(t0 + 3 * i, q[0]), _mm_storeu_ps(t1 + 3 * i, q[1]);
                    _mm_storeu_ps(t2 + 3 * i, q[2]), _mm_storeu_ps(t3 + 3 * i, q[3]);
                } else {
                    store_xyz(t0 + 3 * i, q[0]), store_xyz(t1 + 3 * i, q[1]);
                    store_xyz(t2 + 3 * i, q[2]), store_xyz(t3 + 3 * i, q[3]);
                }
            }
        }
#endif
        for (; l < count; ++l)
            copy_output_batch(out, l, plans[l].chain, first, m);
    }
    for (int l = 0; l < count; ++l)
        output_contact(&plans[l], f, l, near_mask[l]);
}

/* Steps 2 to LANES chains with the same bone count through one frame each in a batch's
 * working copy. */
static void step_group(lane_group* lead, frame_plan* plans, int count) {
    group_run r;
    group_begin(&r, lead, plans, count);
    for (long j = 1; j <= r.max_steps; ++j) {
        group_times(&r, j);
        chain_lanes_steps(lead->links, r.n, &r.f, r.lanes, false);
        group_after_step(&r, j);
    }
    group_end(&r);
}

/* Two full groups with the same bone count in two working copies: as step_group each (the
 * same operations, so the same bits), their kernels interleaved while both have steps. */
static void step_pair(lane_group* lead_a, frame_plan* plans_a, int count_a, lane_group* lead_b,
                      frame_plan* plans_b, int count_b) {
    group_run a, b;
    group_begin(&a, lead_a, plans_a, count_a);
    group_begin(&b, lead_b, plans_b, count_b);
    assert(a.lanes == LANES && b.lanes == LANES && a.n == b.n && lead_a != lead_b);
    const long steps = a.max_steps > b.max_steps ? a.max_steps : b.max_steps;
    for (long j = 1; j <= steps; ++j) {
        const bool in_a = j <= a.max_steps, in_b = j <= b.max_steps;
        if (in_a) group_times(&a, j);
        if (in_b) group_times(&b, j);
        if (in_a && in_b)
            chain_lanes_steps2(lead_a->links, &a.f, lead_b->links, &b.f, a.n);
        else
            chain_lanes_steps(in_a ? lead_a->links : lead_b->links, a.n, in_a ? &a.f : &b.f, LANES,
                              false);
        if (in_a) group_after_step(&a, j);
        if (in_b) group_after_step(&b, j);
    }
    group_end(&a);
    group_end(&b);
}

/* The groups of one tl_chain_batch_step call: which working copy the next takes, and a full
 * group held back (its plans in a row of the call's) until another can step beside it. */
typedef struct batch_call {
    tl_chain_batch* batch;
    int next;         /* groups so far: they take the batch's working copies in turn */
    frame_plan* held; /* the group held back, or NULL */
    int held_count;
    lane_group* held_lead;
    frame_plan* spare; /* the row a held group's plans leave free */
} batch_call;

static void plans_unlist(frame_plan* plans, int count) {
    for (int l = 0; l < count; ++l)
        plans[l].chain->listed = 0;
}

/* Steps the held group, if any, alone. */
static void call_flush(batch_call* call) {
    if (!call->held) return;
    step_group(call->held_lead, call->held, call->held_count);
    plans_unlist(call->held, call->held_count);
    call->spare = call->held, call->held = NULL;
}

/* Steps the group of plans in *row (a row of the call's). A full group with the same bone
 * count as a held one steps beside it; without one it is held (*row then gets the spare row). */
static void step_plans(batch_call* call, frame_plan** row, int count) {
    frame_plan* plans = *row;
    if (count == 1) {
        plans_unlist(plans, count);
        step_alone(&plans[0]);
        return;
    }
    tl_chain_batch* batch = call->batch;
    lane_group* lead = &batch->groups[call->next % batch->group_count];
    ++call->next;
    const bool pairs = chain_lanes_for(count) == LANES;
    if (pairs && call->held && call->held_lead != lead &&
        call->held[0].chain->n == plans[0].chain->n) {
        step_pair(call->held_lead, call->held, call->held_count, lead, plans, count);
        plans_unlist(call->held, call->held_count);
        plans_unlist(plans, count);
        call->spare = call->held, call->held = NULL;
        return;
    }
    call_flush(call);
    if (pairs) {
        call->held = plans, call->held_count = count, call->held_lead = lead;
        *row = call->spare, call->spare = NULL;
        return;
    }
    step_group(lead, plans, count);
    plans_unlist(plans, count);
}

void tl_chain_step(tl_chain* c, const tl_chain_input* in, float dt) {
    frame_plan plan;
    if (chain_frame_begin(c, in, dt, &plan)) step_alone(&plan);
}

void tl_chain_step_many(tl_chain* const* chains, const tl_chain_input* inputs, int count,
                        float dt) {
    assert(count >= 0 && (count == 0 || (chains && inputs)));
    for (int k = 0; k < count; ++k)
        tl_chain_step(chains[k], &inputs[k], dt);
}

/* How many chains ahead tl_chain_batch_step asks for a chain's own fields. */
enum { PLAN_AHEAD = 4 };

void tl_chain_batch_step(tl_chain_batch* batch, tl_chain* const* chains,
                         const tl_chain_input* inputs, int count, float dt) {
    assert(batch && count >= 0 && (count == 0 || (chains && inputs)));
    frame_plan rows[OPEN_GROUPS + 1][LANES]; /* (one more: a held group's) */
    frame_plan* groups[OPEN_GROUPS];
    batch_call call = {batch, 0, NULL, 0, NULL, rows[OPEN_GROUPS]};
    int used[OPEN_GROUPS] = {0};
    for (int g = 0; g < OPEN_GROUPS; ++g)
        groups[g] = rows[g];
    const int capacity = chain_batch_lanes();
    const uint64_t id = chain_new_id();
    for (int k = 0; k < count; ++k) {
        tl_chain* c = chains[k];
        assert(c->n <= batch->max_bones && "the batch was made for fewer bones");
#if defined(__GNUC__)
        if (k + PLAN_AHEAD < count) { /* the frame plan's reads of a chain, from the cache */
#pragma GCC unroll 16 /* (gcc -O2 kept a loop: about four instructions a prefetch) */
            for (size_t at = 0; at < sizeof(tl_chain); at += 64)
                __builtin_prefetch((const char*)chains[k + PLAN_AHEAD] + at, 1);
            /* ... of its input a little further ahead (a caller's array, often written frames
             * before), so that its colliders can be asked for now: the cull's first reads */
            if (k + 2 * PLAN_AHEAD < count)
#pragma GCC unroll 4
                for (size_t at = 0; at < sizeof(tl_chain_input); at += 64)
                    __builtin_prefetch((const char*)&inputs[k + 2 * PLAN_AHEAD] + at, 0);
            const tl_chain_input* ahead = &inputs[k + PLAN_AHEAD];
            const int count_ahead = ahead->colliders ? ahead->collider_count : 0;
            const size_t colliders = count_ahead <= 0               ? 0
                                     : count_ahead < CULL_COLLIDERS ? (size_t)count_ahead
                                                                    : CULL_COLLIDERS;
            for (size_t at = 0; at < colliders * sizeof(tl_collider); at += 64)
                __builtin_prefetch((const char*)ahead->colliders + at, 0);
        }
#endif
        /* a chain listed twice steps twice, one frame after the other */
        if (c->listed == id) {
            for (int g = 0; g < OPEN_GROUPS; ++g)
                for (int l = 0; l < used[g]; ++l)
                    if (groups[g][l].chain == c) {
                        step_plans(&call, &groups[g], used[g]);
                        used[g] = 0;
                    }
            call_flush(&call); /* (it may be held) */
        }
        /* the group first, so that the plan is made in its place (not copied) */
        int g = 0;
        while (g < OPEN_GROUPS && !(used[g] > 0 && groups[g][0].chain->n == c->n))
            ++g;
        if (g == OPEN_GROUPS) {
            g = 0;
            while (g < OPEN_GROUPS && used[g] > 0)
                ++g;
            if (g == OPEN_GROUPS) { /* every group open for other bone counts */
                g = 0;
                step_plans(&call, &groups[0], used[0]);
                used[0] = 0;
            }
        }
        if (c->velocity_feedback) { /* (a test's variant: alone, in its own kernel) */
            tl_chain_step(c, &inputs[k], dt);
            continue;
        }
        if (!chain_frame_begin(c, &inputs[k], dt, &groups[g][used[g]])) continue;
        c->listed = id;
        if (++used[g] == capacity) {
            step_plans(&call, &groups[g], used[g]);
            used[g] = 0;
        }
    }
    for (int g = 0; g < OPEN_GROUPS; ++g)
        if (used[g] > 0) step_plans(&call, &groups[g], used[g]);
    call_flush(&call);
}
