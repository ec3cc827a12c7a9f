/* Frame planning: validating a frame's input, cuts and teleports (rigid carries), hitches
 * (the skipped time relaxed as each link's spring would), the curve of the attachment's path
 * across a frame, and where each internal step falls in it (spring-chain.md §9). */
#include "chain_parts.h"

/* ---- poses ---- */

static bool pose_valid(const tl_chain_pose* p) {
    qt q = qt_load(p->rotation);
    v3 x = v3_load(p->position);
    /* (x - x: 0 for a finite x, NaN otherwise, as chain_all_finite) */
    float zero = (x.x - x.x) + (x.y - x.y) + (x.z - x.z) + (q.x - q.x) + (q.y - q.y) + (q.z - q.z) +
                 (q.w - q.w) + (p->scale - p->scale);
    return zero == 0 && qt_dot(q, q) > 1e-12f && p->scale > 0;
}

static bool pose_equal(const tl_chain_pose* a, const tl_chain_pose* b) {
    return a->position[0] == b->position[0] && a->position[1] == b->position[1] &&
           a->position[2] == b->position[2] && a->rotation[0] == b->rotation[0] &&
           a->rotation[1] == b->rotation[1] && a->rotation[2] == b->rotation[2] &&
           a->rotation[3] == b->rotation[3] && a->scale == b->scale;
}

/* (inlined: called, it copied the pose out and back through the stack) */
KERNEL tl_chain_pose pose_normalized(const tl_chain_pose* p) {
    tl_chain_pose out = *p;
    qt_store(out.rotation, qt_normalize(qt_load(p->rotation)));
    return out;
}

static tl_chain_pose pose_lerp(const tl_chain_pose* a, const tl_chain_pose* b, float t) {
    tl_chain_pose out;
    v3_store(out.position,
             v3_madd(v3_load(a->position), v3_sub(v3_load(b->position), v3_load(a->position)), t));
    qt_store(out.rotation, qt_slerp(qt_load(a->rotation), qt_load(b->rotation), t));
    out.scale = a->scale + (b->scale - a->scale) * t;
    return out;
}

/* The hips frame's world rotation under an attachment pose. */
static qt hips_world(const tl_chain* c, const tl_chain_pose* p) {
    return qt_mul(qt_load(p->rotation), c->hips_in_attachment);
}

/* World tips by forward kinematics from an attachment pose and local rotations. */
static void forward_kinematics(const tl_chain* c, const tl_chain_pose* pose, const qt* locals,
                               float* tips) {
    qt G = qt_load(pose->rotation);
    float s = pose->scale;
    v3 head = v3_madd(v3_load(pose->position), qt_rotate(G, c->root_offset), s);
    for (int i = 0; i < c->n; ++i) {
        G = qt_mul(G, locals[i]);
        head = v3_madd(head, qt_rotate(G, c->links[i].own_dir), s * c->links[i].length);
        v3_store(tips + 3 * i, head);
    }
}

/* The constant motion that takes the attachment from pose a to pose b in dt seconds. */
static rigid_motion motion_between(const tl_chain_pose* a, const tl_chain_pose* b, double dt) {
    rigid_motion m = {{0, 0, 0}, {0, 0, 0}, v3_load(b->position)};
    if (!(dt > 0)) return m;
    float inv = (float)(1.0 / dt);
    m.linear = v3_scale(v3_sub(v3_load(b->position), v3_load(a->position)), inv);
    qt turn = qt_mul(qt_load(b->rotation), qt_conj(qt_load(a->rotation)));
    if (turn.w < 0) turn = qt_neg(turn);
    v3 axis = {turn.x, turn.y, turn.z};
    float sine = v3_length(axis);
    if (sine > 1e-12f) m.angular = v3_scale(axis, 2.0f * atan2f(sine, turn.w) / sine * inv);
    return m;
}

static v3 motion_at(const rigid_motion* m, v3 x) {
    return v3_add(m->linear, v3_cross(m->angular, v3_sub(x, m->origin)));
}

/* How a link's damped spring on its own, x'' = -omega^2 x - 2 zeta omega x', moves a
 * displacement x and a velocity v in t seconds: x(t) = xx x + xv v, v(t) = vx x + vv v. */
static void spring_response(const link_const* L, double t, float* xx, float* xv, float* vx,
                            float* vv) {
    double w2 = L->omega2, a = 0.5 * L->damping, d2 = w2 - a * a;
    double cosine, sine_over; /* cos(w_d t), sin(w_d t) / w_d */
    if (d2 > 1e-9) {
        double wd = sqrt(d2);
        cosine = cos(wd * t), sine_over = sin(wd * t) / wd;
    } else if (d2 < -1e-9) { /* overdamped */
        double k = sqrt(-d2);
        cosine = cosh(k * t), sine_over = sinh(k * t) / k;
    } else {
        cosine = 1, sine_over = t;
    }
    double e = exp(-a * t);
    *xx = (float)(e * (cosine + a * sine_over)), *xv = (float)(e * sine_over);
    *vx = (float)(-e * w2 * sine_over), *vv = (float)(e * (cosine - a * sine_over));
}

/* What the skipped part of a long frame does to the chain's motion relative to the root. */
typedef struct relaxation {
    double seconds;      /* skipped */
    rigid_motion before; /* the root's motion as the state was left */
    rigid_motion after;  /* ... and where the simulation resumes */
} relaxation;

/* Pose p moved by the rigid motion (with uniform scale) that takes `from` to `to`. */
static tl_chain_pose pose_carried(const tl_chain_pose* from, const tl_chain_pose* to,
                                  const tl_chain_pose* p) {
    qt delta = qt_normalize(qt_mul(qt_load(to->rotation), qt_conj(qt_load(from->rotation))));
    float ratio = to->scale / from->scale;
    tl_chain_pose out;
    v3_store(
        out.position,
        v3_add(v3_load(to->position),
               v3_scale(qt_rotate(delta, v3_sub(v3_load(p->position), v3_load(from->position))),
                        ratio)));
    qt_store(out.rotation, qt_normalize(qt_mul(delta, qt_load(p->rotation))));
    out.scale = p->scale * ratio;
    return out;
}

/* Moves the state rigidly with the root from one pose to another (a teleport). With `relax`
 * (the skipped part of a hitch) each particle's displacement from its steady state under the
 * root's motion, and its velocity relative to the root, evolve meanwhile as its link's damped
 * spring would on its own: what simulating the skipped time along the frame's straight path
 * would do, without its cost. */
static void carry(tl_chain* c, const tl_chain_pose* from_pose, const tl_chain_pose* to_pose,
                  const relaxation* relax) {
    const tl_chain_pose from = *from_pose, to = *to_pose; /* either may be c->solved_pose */
    qt delta = qt_normalize(qt_mul(qt_load(to.rotation), qt_conj(qt_load(from.rotation))));
    float ratio = to.scale / from.scale;
    v3 a = v3_load(from.position), b = v3_load(to.position);
    float rest[3 * TL_CHAIN_MAX_BONES];
    chain_state_sync(c); /* (the state moves here: from a batch's lane first) */
    v3 gravity = v3_scale(c->up, -c->gravity);
    if (c->force.x != 0 || c->force.y != 0 || c->force.z != 0) gravity = v3_add(gravity, c->force);
    if (relax) {
        qt locals[TL_CHAIN_MAX_BONES];
        for (int i = 0; i < c->n; ++i)
            locals[i] = c->links[i].rest_local;
        forward_kinematics(c, &from, locals, rest);
    }
    c->stamp++;
    for (int i = 0; i < c->n; ++i) {
        v3 p = v3_load(c->positions + 3 * i), v = v3_load(c->velocities + 3 * i);
        if (relax) {
            /* relative to the particle's steady state under the root's motion: the rest arc
             * shifted by (g - 2 zeta omega v_root) / omega^2 */
            const link_const* L = &c->links[i];
            v3 at_rest = v3_load(rest + 3 * i);
            v3 before = v3_madd(gravity, motion_at(&relax->before, at_rest), -L->damping);
            v3 x = v3_sub(p, v3_madd(at_rest, before, 1.0f / L->omega2));
            v3 u = v3_sub(v, motion_at(&relax->before, p));
            float xx, xv, vx, vv;
            spring_response(L, relax->seconds, &xx, &xv, &vx, &vv);
            v3 x2 = v3_add(v3_scale(x, xx), v3_scale(u, xv));
            v3 u2 = v3_add(v3_scale(x, vx), v3_scale(u, vv));
            v3 rest_to = v3_add(b, v3_scale(qt_rotate(delta, v3_sub(at_rest, a)), ratio));
            v3 after = v3_madd(gravity, motion_at(&relax->after, rest_to), -L->damping);
            p = v3_add(v3_madd(rest_to, after, 1.0f / L->omega2),
                       v3_scale(qt_rotate(delta, x2), ratio));
            v = v3_add(motion_at(&relax->after, p), v3_scale(qt_rotate(delta, u2), ratio));
        } else {
            p = v3_add(b, v3_scale(qt_rotate(delta, v3_sub(p, a)), ratio));
            v = v3_scale(qt_rotate(delta, v), ratio);
        }
        v3_store(c->positions + 3 * i, p);
        v3_store(c->velocities + 3 * i, v);
    }
    c->solved_hips = qt_normalize(qt_mul(delta, c->solved_hips));
    c->solved_pose = pose_carried(&from, &to, &c->solved_pose);
}

void chain_place_at_rest(tl_chain* c, const tl_chain_pose* pose, qt hips) {
    chain_state_drop(c); /* (every value of the state is replaced) */
    c->stamp++;
    qt locals[TL_CHAIN_MAX_BONES];
    for (int i = 0; i < c->n; ++i) {
        locals[i] = c->links[i].rest_local;
        SET_QT(&c->own[i], o, 0, c->links[i].rest_swing);
        SET_QT(&c->own[i], s, 0, c->links[i].rest_swing);
        SET_QT(&c->own[i], b, 0, qt_identity());
        c->out_lengths[i] = c->links[i].length * pose->scale;
        qt_store(c->out_local + 4 * i, locals[i]);
    }
    forward_kinematics(c, pose, locals, c->positions);
    memcpy(c->out_tips, c->positions, 3 * (size_t)c->n * sizeof(float));
    memset(c->velocities, 0, 3 * (size_t)c->n * sizeof(float));
    c->solved_pose = c->last_target = *pose;
    c->given_known = false;
    c->solved_hips = hips;
    c->accumulator = 0;
    c->placed = true;
    c->unseated = true;
    c->history = false;
    chain_sleep_reset(c);
}

/* The chain as placed at rest (chain_place_at_rest, then carried with any cut) kept out of
 * the frame's body colliders before a host sees it: the pose has moved the body into it, and
 * a frame shorter than a step runs no contact pass. Each link whose tip lies inside one turns
 * about its head onto the nearest point outside, by the contact pass's own sweeps with the
 * link's growth, the links beyond turning with it (the rest shape kept as far as the contact
 * allows, no length changed); from the first moved link on, the read-back swings and the
 * bends are those the step would read back there, both swings alike, so the output shows
 * that shape and no velocity comes of it (the velocities stay as they are). */
static void place_in_contact(tl_chain* c, const frame_plan* fp) {
    const tl_chain_pose* pose = &c->solved_pose;
    qt W = hips_world(c, pose); /* W_0 = R H (spring_chain_lanes.h) */
    v3 head = v3_madd(v3_load(pose->position), qt_rotate(qt_load(pose->rotation), c->root_offset),
                      pose->scale);
    bool moved = false;
    chain_state_sync(c);
    for (int i = 0; i < c->n; ++i) {
        v3 tip = v3_load(c->positions + 3 * i), p = tip;
        float len = v3_length(v3_sub(tip, head));
        if (len > 0 && chain_contact_output(fp, NULL, 0, i, head, len, NULL, &p)) {
            qt D = qt_swing(v3_scale(v3_sub(tip, head), 1.0f / len),
                            v3_normalize_or(v3_sub(p, head), v3_sub(tip, head)));
            for (int j = i; j < c->n; ++j) {
                v3 q = v3_load(c->positions + 3 * j);
                v3_store(c->positions + 3 * j, v3_add(head, qt_rotate(D, v3_sub(q, head))));
            }
            moved = true;
        }
        v3 at = v3_load(c->positions + 3 * i);
        if (moved) {
            v3 h = qt_unrotate(W, v3_normalize_or(v3_sub(at, head), v3_sub(tip, head)));
            qt S = qt_swing(c->links[i].bind_dir_hips, h);
            SET_QT(&c->own[i], s, 0, S);
            SET_QT(&c->own[i], o, 0, S);
            SET_QT(&c->own[i], b, 0, qt_swing(c->links[i].rest_dir_hips, h));
        }
        W = qt_mul(qt_mul(W, LANE_QT(&c->own[i], s, 0)), c->links[i].next_frame);
        head = at;
    }
    if (moved) c->stamp++;
}

void tl_chain_reset(tl_chain* chain, const tl_chain_pose* attachment) {
    assert(chain && attachment);
    /* A pose from a file may be degenerate (a joint keyed to scale 0, a singular matrix):
     * counted, and the chain placed under the last good pose instead. */
    if (!pose_valid(attachment)) {
        chain->stats.nonfinite_inputs++;
        attachment = &chain->last_target;
    }
    tl_chain_pose pose = pose_normalized(attachment);
    chain_place_at_rest(chain, &pose, hips_world(chain, &pose));
}

void tl_chain_clear(tl_chain* chain) {
    assert(chain);
    tl_chain_pose origin = tl_default_chain_input().start;
    tl_chain_reset(chain, &origin); /* finite outputs even before the first step */
    chain->placed = false;
}

/* c (t) with c = (before - a + r (b - a)) / (r (r + 1)): the parabola through a (t = 0), b (1)
 * and `before` (t = -r) is lerp(a, b, t) + t (t - 1) c. */
static float curve_of(float before, float a, float b, double r) {
    /* times the reciprocal: the calls of a frame share one division (exact for r = 1) */
    return (float)(((double)before - a + r * ((double)b - a)) * (1.0 / (r * (r + 1))));
}
/* (inlined: a call passes the quaternions by halves through the stack and stalls on them) */
KERNEL qt quaternion_curve(qt before, qt a, qt b, double r) {
    if (qt_dot(a, b) < 0) b = qt_neg(b); /* the sides the step's slerp takes */
    if (qt_dot(a, before) < 0) before = qt_neg(before);
    return (qt){curve_of(before.x, a.x, b.x, r), curve_of(before.y, a.y, b.y, r),
                curve_of(before.z, a.z, b.z, r), curve_of(before.w, a.w, b.w, r)};
}

/* The angle of the turn from unit rotation a to b, less than 1.6 times too small (2 sin(x / 2)
 * for x, exact for the small ones: what frame_still compares). */
static float turn_size(qt a, qt b) {
    qt turn = qt_mul(b, qt_conj(a));
    return 2.0f * v3_length((v3){turn.x, turn.y, turn.z});
}

/* Whether the body is still: its attachment has moved the chain's reach (the tips at most that
 * far from the root) slower than the chain's rest bar for at least a period of the root's spring.
 * Per frame, the speed at both ends of the frame's path: its translation and turn, the path's
 * bend (a swing's turning point, where the net motion over a frame may be nil), the hips' turn
 * when given apart, times the reach for the turns, and its growth. A breathing idle and a held
 * pose are still; a walk is not, nor a stop shorter than the root's period (a head turn's
 * turning point, keyed twice: the chain still swings from the motion). A frame shorter than half
 * an internal step keeps the last judgement: its poses may be equal to the bit (sample times
 * closer than a float tells apart, a sampled frame's remainder) while the body moves. */
static bool frame_still(tl_chain* c, const frame_plan* fp, double dt) {
    if (dt >= 0.5 * c->step) {
        const float bar = c->sleep_speed * (float)dt;
        v3 move = v3_sub(v3_load(fp->target.position), v3_load(fp->start.position));
        /* (the path's speed at its ends is the chord's plus the bend's, dt (t (t - 1))' = -+1; a
         * rotation's angle about twice its quaternion's bend) */
        float travel = bar; /* (a moving body stops at its translation, squared) */
        if (v3_dot(move, move) < bar * bar) {
            travel = v3_length(move) + v3_length(fp->curve_position);
            float reach = 0;
            for (int i = 0; i < c->n; ++i)
                reach += c->links[i].length;
            reach *= fmaxf(fp->start.scale, fp->target.scale);
            float turn = turn_size(qt_load(fp->start.rotation), qt_load(fp->target.rotation)) +
                         2.0f * sqrtf(qt_dot(fp->curve_rotation, fp->curve_rotation));
            if (fp->has_hips)
                turn = fmaxf(turn, turn_size(fp->hips_start, fp->hips_target) +
                                       2.0f * sqrtf(qt_dot(fp->curve_hips, fp->curve_hips)));
            float grow = fabsf(fp->target.scale - fp->start.scale) / fmaxf(fp->start.scale, 1e-30f);
            travel += (turn + grow) * reach;
        }
        c->still = travel < bar;
    }
    c->still_for = c->still ? c->still_for + dt : 0;
    return c->still && c->still_for * c->settings.root_frequency >= 1;
}

/* Validates the input, handles teleports and hitches and counts the internal steps. False
 * when the input was not finite: the chain was reset and is done for this frame. */
bool chain_frame_begin(tl_chain* c, const tl_chain_input* in, float dt, frame_plan* fp) {
    assert(c && in);
    if (chain_sleep_frame(c, in, dt)) return false; /* asleep through a still frame */
    /* the start as the last frame's target was given (the usual frame): already checked, no
     * cut, and its normalised pose is last_target (the same operations on the same bits) */
    const bool given = c->given_known && memcmp(&in->start, &c->last_given, sizeof in->start) == 0;
    bool finite = isfinite(dt) && (given || pose_valid(&in->start)) && pose_valid(&in->target) &&
                  chain_all_finite(in->force, 3);
    if (finite && in->has_hips) {
        qt a = qt_load(in->hips_start), b = qt_load(in->hips_target);
        finite = qt_finite(a) && qt_finite(b) && qt_dot(a, a) > 1e-12f && qt_dot(b, b) > 1e-12f;
    }
    if (!finite) {
        c->stats.nonfinite_inputs++;
        tl_chain_pose last = c->last_target;
        bool placed = c->placed;
        tl_chain_reset(c, &last);
        c->placed = placed;
        return false;
    }
    assert(dt >= 0 && "dt must not be negative");
    fp->chain = c;
    c->force = v3_load(in->force);
    fp->colliders = in->collider_count > 0 ? in->colliders : NULL;
    fp->collider_count = fp->colliders ? in->collider_count : 0;
    fp->collider_growth = fp->colliders ? in->collider_growth : NULL;
    fp->start = given ? c->last_target : pose_normalized(&in->start);
    fp->target = pose_normalized(&in->target);
    c->last_given = in->target; /* (known once finish_frame makes fp->target last_target) */
    c->given_known = false;
    fp->has_hips = in->has_hips;
    fp->hips_start = in->has_hips                   ? qt_normalize(qt_load(in->hips_start))
                     : given && c->given_hips_known ? c->given_hips
                                                    : hips_world(c, &fp->start);
    fp->hips_target =
        in->has_hips ? qt_normalize(qt_load(in->hips_target)) : hips_world(c, &fp->target);
    fp->dt = dt;
    fp->curve_position = v3_make(0, 0, 0);
    fp->curve_rotation = fp->curve_hips = (qt){0, 0, 0, 0};

    bool history = c->placed && c->history;
    if (!c->placed) {
        chain_place_at_rest(c, &fp->start, fp->hips_start);
    } else if (!given && !pose_equal(&fp->start, &c->last_target) &&
               !pose_equal(&in->start, &c->last_target)) {
        /* (a start that is the last target as the chain stored it, normalized, is no cut:
           normalizing it again may move its last bit; tl_chain_step_sampled passes it so) */
        /* A cut between frames (a looping clip's wrap, a teleport, a blend snapping): the
         * caller says the attachment jumped there, so the chain jumps with it rigidly, whatever
         * the frame rate; left to the springs, the jump's response would depend on how many
         * frames it was spread over. */
        const tl_chain_pose before = c->last_target;
        carry(c, &before, &fp->start, NULL);
        /* the previous frame's path, moved by the same jump, still guides this one */
        c->last_start = pose_carried(&before, &fp->start, &c->last_start);
        qt delta =
            qt_normalize(qt_mul(qt_load(fp->start.rotation), qt_conj(qt_load(before.rotation))));
        c->last_hips_start = qt_normalize(qt_mul(delta, c->last_hips_start));
        v3 cut = v3_sub(v3_load(fp->start.position), v3_load(before.position));
        if (v3_dot(cut, cut) > c->teleport2) c->stats.teleports++;
        c->stats.cuts++;
    }
    /* the previous frame is a guide to this one when it was about as long */
    double r = history && dt > 0 ? c->last_dt / (double)dt : 0;
    bool smooth = r >= 0.25 && r <= 4;
    /* A jump within the frame (a teleport: a translation) is the frame's target position minus
     * the frame's own motion, taken as the previous frame's velocity (without one: none). Carry
     * the chain by the jump alone and simulate the frame from there as usual, its own turn
     * included; a turn of more than 45 degrees in one frame is taken to be part of the jump. */
    v3 jump = v3_sub(v3_load(fp->target.position), v3_load(fp->start.position));
    bool teleported = v3_dot(jump, jump) > c->teleport2;
    if (teleported) {
        tl_chain_pose jumped = fp->target;
        qt r0 = qt_load(fp->start.rotation), r1 = qt_load(fp->target.rotation);
        if (fabsf(qt_dot(r0, r1)) > JUMP_TURN_COS_HALF) {
            qt_store(jumped.rotation, r0);
            jumped.scale = fp->start.scale;
            if (smooth) {
                v3 velocity = v3_scale(
                    v3_sub(v3_load(c->last_target.position), v3_load(c->last_start.position)),
                    (float)(1.0 / c->last_dt));
                v3_store(jumped.position, v3_madd(v3_load(fp->target.position), velocity, -dt));
            }
        }
        qt turn = qt_mul(qt_load(jumped.rotation), qt_conj(r0));
        fp->hips_start =
            in->has_hips ? qt_normalize(qt_mul(turn, fp->hips_start)) : hips_world(c, &jumped);
        carry(c, &fp->start, &jumped, NULL);
        fp->start = jumped;
        c->stats.teleports++;
        smooth = false;
    }

    double owed = c->accumulator + (double)dt;
    long steps = (long)(owed / c->step + 1e-6); /* 1/60 s is two steps, not 1.9999 */
    fp->begin = 0; /* fraction of the frame where the simulated window starts */
    bool clamped = steps > c->max_substeps;
    if (clamped) {
        /* A hitch: simulate only the frame's last max_substeps steps at the real speed of the
         * pose. Over the rest the chain is carried with the root and relaxes as its springs
         * would, so a long frame can neither explode nor inject energy. */
        c->stats.clamped_frames++;
        steps = c->max_substeps;
        fp->begin = 1.0 - (double)steps * c->step / (double)dt;
        owed = (double)steps * c->step;
        tl_chain_pose window = pose_lerp(&fp->start, &fp->target, (float)fp->begin);
        relaxation relax;
        relax.seconds = c->accumulator + fp->begin * (double)dt;
        relax.before = motion_between(&c->last_start, &c->last_target, history ? c->last_dt : 0);
        relax.after = motion_between(&fp->start, &fp->target, dt);
        relax.after.origin = v3_load(window.position);
        carry(c, &c->solved_pose, &window, &relax);
        smooth = false;
    } else if (steps > 0) {
        fp->begin = -c->accumulator / (double)dt;
    }
    if (smooth) {
        const tl_chain_pose *a = &fp->start, *b = &fp->target, *before = &c->last_start;
        fp->curve_position =
            v3_make(curve_of(before->position[0], a->position[0], b->position[0], r),
                    curve_of(before->position[1], a->position[1], b->position[1], r),
                    curve_of(before->position[2], a->position[2], b->position[2], r));
        fp->curve_rotation = quaternion_curve(qt_load(before->rotation), qt_load(a->rotation),
                                              qt_load(b->rotation), r);
        if (fp->has_hips)
            fp->curve_hips =
                quaternion_curve(c->last_hips_start, fp->hips_start, fp->hips_target, r);
    }
    if (c->unseated && fp->colliders) place_in_contact(c, fp);
    c->unseated = false;
    c->last_start = fp->start;
    c->last_hips_start = fp->hips_start;
    c->last_dt = dt;
    /* after a teleport this frame's path is partly a guess (its own motion): a curve through
     * it would turn the guess's error into a swerve of the next frame (docs/stress.md, session
     * 21), so the next frame, like the first after a hitch, is taken straight */
    c->history = dt > 0 && !clamped && !teleported;
    fp->still = frame_still(c, fp, dt);
    fp->steps = steps;
    fp->owed = owed;
    return true;
}
