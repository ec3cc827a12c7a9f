/* The fit of a chain's VRM settings (docs/vrm.md): tailor's player and the VRM rule
 * (vrm_sim.c) play the same clip, and a Nelder-Mead search over six knobs brings the VRM
 * tip's path closest to tailor's in least squares. The knobs are physical so that one
 * starting point suits every size of character: the spring's frequency at the root and the
 * last bone (the VRM pull is a position step of stiffness * dt per frame, an angular
 * acceleration of stiffness / (dt * length), so stiffness = (2 pi f)^2 * length * dt), the
 * gravity as an acceleration in H / s^2 (down, or up when the clip carries the tail above the
 * rest it hangs in under the file's stored pose, which is the runtime's target), the damping rate
 * at the root and the last bone (dragForce = 1 - exp(-rate * dt)), and the hit radius as a share of
 * the skin's radius. */
#include "export/vrm_internal.h"

#include <tailor/colliders.h>

#include "base/mat4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KNOBS 6
#define PI 3.14159265358979323846

/* What the search replays: per frame the parent's and the colliders' node worlds, and
 * tailor's tip. */
typedef struct recording {
    uint32_t frames, warmup;
    double dt, height;
    double* parents;                 /* frames x 16 */
    double* colliders;               /* frames x collider_count x 16 */
    double* tips;                    /* frames x 3 */
    double lengths[VRM_MAX_JOINTS];  /* each bone's rest length, world */
    double hit_base[VRM_MAX_JOINTS]; /* the skin's radius at each bone's tail, world */
    double down[3];
    vrm_spring_def* def;
} recording;

/* Chains fitted with one set of knobs (hair locks coupled by the sheet: one head of hair, one
 * behaviour; otherwise neighbouring locks fitted apart on a clip that barely moves them get
 * settings orders of magnitude apart and part ways in any other motion), or one chain alone. */
typedef struct group {
    recording* recs;
    uint32_t count;
    uint32_t evaluations;
} group;

static double len3(const float* a, const float* b) {
    double d = 0;
    for (int k = 0; k < 3; ++k)
        d += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
    return sqrt(d);
}

/* The knobs (x) as settings: see the top of the file. */
static void knobs_to_settings(const recording* r, const double* x) {
    vrm_spring_def* def = r->def;
    uint32_t bones = def->count - 1;
    /* signed: the walk may carry the tail above the rest it hangs in under the stored pose */
    double g = x[2] * fabs(x[2]) * r->height, h = 1 / (1 + exp(-x[5]));
    for (uint32_t j = 0; j < bones; ++j) {
        double u = bones > 1 ? (double)j / (bones - 1) : 0;
        double f = exp(x[0]) + (exp(x[1]) - exp(x[0])) * u;
        double c = exp(x[3]) + (exp(x[4]) - exp(x[3])) * u;
        vrm_settings* s = &def->settings[j];
        s->stiffness = (2 * PI * f) * (2 * PI * f) * r->lengths[j] * r->dt;
        s->gravity_power = fabs(g) * r->dt;
        for (int k = 0; k < 3; ++k)
            s->gravity_dir[k] = g < 0 ? -r->down[k] : r->down[k];
        s->drag = 1 - exp(-c * r->dt);
        s->hit_radius = h * r->hit_base[j];
    }
}

/* Mean squared tip distance over the window (x H^2), and the largest distance (x H). */
static double replay(const recording* r, double* max_out) {
    const vrm_spring_def* def = r->def;
    vrm_state s;
    vrm_reset(def, &s, r->parents);
    double sum = 0, max = 0;
    uint32_t n = 0, e = def->count - 1;
    for (uint32_t f = 1; f < r->frames; ++f) {
        vrm_update(def, &s, r->parents + 16 * (size_t)f,
                   r->colliders + 16 * (size_t)f * def->collider_count, r->dt);
        if (f < r->warmup) continue;
        double d = 0;
        for (int k = 0; k < 3; ++k) {
            double x = s.world[e][12 + k] - r->tips[3 * (size_t)f + k];
            d += x * x;
        }
        d /= r->height * r->height;
        sum += d, ++n;
        if (d > max) max = d;
    }
    if (max_out) *max_out = sqrt(max);
    double mean = n ? sum / n : 0;
    return isfinite(mean) ? mean : INFINITY;
}

/* The group's mean over its chains of each one's mean squared tip distance. */
static double cost(group* g, const double* x) {
    double sum = 0;
    for (uint32_t i = 0; i < g->count; ++i) {
        knobs_to_settings(&g->recs[i], x);
        sum += replay(&g->recs[i], NULL);
    }
    ++g->evaluations;
    return sum / g->count;
}

/* Nelder-Mead from x with steps `step`, at most `budget` evaluations; x becomes the best. */
static double search(group* r, double* x, double step, uint32_t budget) {
    double p[KNOBS + 1][KNOBS], v[KNOBS + 1];
    uint32_t start = r->evaluations;
    for (int i = 0; i <= KNOBS; ++i) {
        memcpy(p[i], x, sizeof p[i]);
        if (i) p[i][i - 1] += step;
        v[i] = cost(r, p[i]);
    }
    while (r->evaluations - start < budget) {
        int best = 0, worst = 0, second = 0;
        for (int i = 1; i <= KNOBS; ++i) {
            if (v[i] < v[best]) best = i;
            if (v[i] > v[worst]) worst = i;
        }
        second = best;
        for (int i = 0; i <= KNOBS; ++i)
            if (i != worst && v[i] > v[second]) second = i;
        if (v[worst] - v[best] <= 1e-12 * (v[best] + 1e-30)) break;
        double c[KNOBS] = {0}, t[KNOBS], t2[KNOBS];
        for (int i = 0; i <= KNOBS; ++i)
            for (int k = 0; k < KNOBS && i != worst; ++k)
                c[k] += p[i][k] / KNOBS;
        for (int k = 0; k < KNOBS; ++k)
            t[k] = c[k] + (c[k] - p[worst][k]);
        double vt = cost(r, t);
        if (vt < v[best]) {
            for (int k = 0; k < KNOBS; ++k)
                t2[k] = c[k] + 2 * (c[k] - p[worst][k]);
            double ve = cost(r, t2);
            bool expand = ve < vt;
            memcpy(p[worst], expand ? t2 : t, sizeof t);
            v[worst] = expand ? ve : vt;
        } else if (vt < v[second]) {
            memcpy(p[worst], t, sizeof t);
            v[worst] = vt;
        } else {
            bool outside = vt < v[worst];
            for (int k = 0; k < KNOBS; ++k)
                t2[k] = c[k] + (outside ? 0.5 : -0.5) * (c[k] - p[worst][k]);
            double vc = cost(r, t2);
            if (vc < (outside ? vt : v[worst])) {
                memcpy(p[worst], t2, sizeof t2);
                v[worst] = vc;
            } else { /* shrink towards the best */
                for (int i = 0; i <= KNOBS; ++i) {
                    if (i == best) continue;
                    for (int k = 0; k < KNOBS; ++k)
                        p[i][k] = p[best][k] + 0.5 * (p[i][k] - p[best][k]);
                    v[i] = cost(r, p[i]);
                }
            }
        }
    }
    int best = 0;
    for (int i = 1; i <= KNOBS; ++i)
        if (v[i] < v[best]) best = i;
    memcpy(x, p[best], sizeof p[best]);
    return v[best];
}

/* The landscape has many valleys (the rule's pull is relative to the parent bone, tailor's to
 * the hips, and collisions cut it): a short search from each of a few starts, then the best
 * refined with the rest of the budget. The starts: gravity down, and gravity up with springs
 * (and damping) stiffened in proportion, which lifts the tail towards where the walk carries
 * it while it still follows the hips; each with a small and a large hit radius. */
static void multistart(group* r, double* x, uint32_t budget) {
    static const double starts[5][2] = {{-2, 1.4}, {-1, 0.7}, {-0.5, 0}, {0.5, 0}, {1, 0}};
    static const double hit[2] = {-2, 2};
    uint32_t each = budget / 15;
    double best[KNOBS], best_v = INFINITY;
    for (int g = 0; g < 5; ++g)
        for (int h = 0; h < 2; ++h) {
            double y[KNOBS];
            memcpy(y, x, sizeof y);
            y[0] += starts[g][1], y[1] += starts[g][1], y[3] += starts[g][1], y[4] += starts[g][1];
            y[2] = starts[g][0], y[5] = hit[h];
            double v = search(r, y, 0.5, each);
            if (v < best_v) best_v = v, memcpy(best, y, sizeof best);
        }
    memcpy(x, best, sizeof best);
    double step = 0.25;
    for (int round = 0; round < 2 && r->evaluations < budget; ++round, step *= 0.5)
        search(r, x, step, (budget - r->evaluations) / (uint32_t)(2 - round));
}

/* The spring's joints and the colliders it gets (those no chain joint lies in at rest). */
static void spring_layout(const tl_scene* scene, const tl_play_chain* chain, bool colliders,
                          vrm_spring_def* def, recording* r, const tl_body_collider* body,
                          uint32_t body_count) {
    const tl_scene_skin* sk = &scene->skins[chain->skin];
    def->count = chain->bone_count + 1;
    for (uint32_t j = 0; j < def->count; ++j) {
        uint32_t joint = j < chain->bone_count ? chain->bone_joints[j] : (uint32_t)chain->end_joint;
        def->nodes[j] = sk->joints[joint].node;
        def->locals[j] = scene->stored[def->nodes[j]];
    }
    def->parent_node = scene->doc->nodes[def->nodes[0]].parent;
    const float* m = sk->rest_world;
    double unit = sqrt((double)m[0] * m[0] + (double)m[1] * m[1] + (double)m[2] * m[2]);
    for (uint32_t j = 0; j < chain->bone_count; ++j) {
        r->lengths[j] = len3(scene->stored_world + 16 * (size_t)def->nodes[j] + 12,
                             scene->stored_world + 16 * (size_t)def->nodes[j + 1] + 12);
        uint32_t tail = j + 1 < chain->bone_count ? j + 1 : j;
        /* a hair lock's skin reaches its thickness around the chain (tl_play_chain.hit_radius) */
        r->hit_base[j] = fmax(chain->joint_radii[tail], chain->hit_radius) * unit;
    }
    def->collider_count = 0;
    for (uint32_t c = 0; colliders && c < body_count && def->collider_count < VRM_MAX_COLLIDERS;
         ++c) {
        bool inside = false;
        for (uint32_t j = 0; j < def->count && !inside; ++j) {
            uint32_t tail = j < chain->bone_count ? j : j - 1;
            float reach = j ? (float)(chain->joint_radii[tail] * unit) : 0;
            const float* bind = sk->joints[j < chain->bone_count ? chain->bone_joints[j]
                                                                 : (uint32_t)chain->end_joint]
                                    .rest_world +
                                12;
            const float* settled = scene->stored_world + 16 * (size_t)def->nodes[j] + 12;
            inside = tl_collider_depth(&body[c].local, bind) > -reach ||
                     tl_collider_depth(&body[c].local, settled) > -reach;
        }
        if (inside) continue;
        const tl_scene_joint* joint = &sk->joints[body[c].joint];
        double rw[16], inv[16];
        for (int k = 0; k < 16; ++k)
            rw[k] = joint->rest_world[k];
        if (!tl_mat4d_invert(inv, rw)) continue;
        vrm_collider* v = &def->colliders[def->collider_count++];
        v->node = joint->node;
        v->capsule = body[c].local.shape == TL_COLLIDER_CAPSULE;
        v->radius = body[c].local.radius;
        for (int k = 0; k < 3; ++k) {
            const float* a = body[c].local.a;
            const float* b = v->capsule ? body[c].local.b : a;
            v->offset[k] = inv[k] * a[0] + inv[4 + k] * a[1] + inv[8 + k] * a[2] + inv[12 + k];
            v->tail[k] = inv[k] * b[0] + inv[4 + k] * b[1] + inv[8 + k] * b[2] + inv[12 + k];
        }
    }
}

/* The clip fitted on: def->clip by name, else the first whose name holds "walk" (any case),
 * else clip 0; TL_NONE without clips. */
static int32_t pick_clip(const tl_scene* scene, const char* name) {
    for (uint32_t c = 0; c < scene->clip_count && name; ++c)
        if (!strcmp(scene->clips[c].name, name)) return (int32_t)c;
    if (name) {
        uint32_t c;
        tl_error ignored;
        return tl_scene_find_clip(scene, name, &c, &ignored) == TL_OK ? (int32_t)c : TL_NONE;
    }
    for (uint32_t c = 0; c < scene->clip_count; ++c) {
        const char* n = scene->clips[c].name;
        for (size_t i = 0; n[i]; ++i)
            if ((n[i] | 32) == 'w' && (n[i + 1] | 32) == 'a' && (n[i + 2] | 32) == 'l' &&
                (n[i + 3] | 32) == 'k')
                return (int32_t)c;
    }
    return scene->clip_count ? 0 : TL_NONE;
}

static void to_double(double* out, const float* m) {
    for (int k = 0; k < 16; ++k)
        out[k] = m[k];
}

/* Plays the group's chains together with tailor's player as tailor play does (looping from rest
 * at 0, the sheet coupling hair locks) and keeps what the search replays for each. */
static tl_result record(const tl_scene* scene, const tl_play_chain* chains, group* g, uint32_t clip,
                        uint32_t frames, tl_error* err) {
    tl_player_def pdef = tl_default_player_def();
    pdef.loop = true;
    tl_player* player = NULL;
    tl_result res = tl_player_create(scene, chains, g->count, &pdef, &player, err);
    if (res != TL_OK) return res;
    tl_pose* pose = tl_pose_create(scene);
    bool ok = pose != NULL;
    for (uint32_t i = 0; i < g->count; ++i) {
        recording* r = &g->recs[i];
        r->parents = malloc(frames * 16 * sizeof *r->parents);
        r->colliders = malloc(frames * 16 * (r->def->collider_count + 1) * sizeof *r->colliders);
        r->tips = malloc(frames * 3 * sizeof *r->tips);
        ok = ok && r->parents && r->colliders && r->tips;
    }
    if (!ok) {
        tl_pose_destroy(pose);
        tl_player_destroy(player);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    double duration = scene->clips[clip].duration, dt = g->recs[0].dt;
    static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t f = 0; f < frames; ++f) {
        double t = duration > 0 ? fmod(f * dt, duration) : 0;
        tl_player_advance(player, pose, clip, (float)t);
        for (uint32_t i = 0; i < g->count; ++i) {
            recording* r = &g->recs[i];
            const vrm_spring_def* def = r->def;
            if (def->parent_node == TL_NONE)
                memcpy(r->parents + 16 * (size_t)f, identity, sizeof identity);
            else
                to_double(r->parents + 16 * (size_t)f, pose->world + 16 * (size_t)def->parent_node);
            for (uint32_t c = 0; c < def->collider_count; ++c)
                to_double(r->colliders + 16 * ((size_t)f * def->collider_count + c),
                          pose->world + 16 * (size_t)def->colliders[c].node);
            const float* tip = pose->world + 16 * (size_t)def->nodes[def->count - 1] + 12;
            for (int k = 0; k < 3; ++k)
                r->tips[3 * (size_t)f + k] = tip[k];
        }
    }
    tl_pose_destroy(pose);
    tl_player_destroy(player);
    return TL_OK;
}

static void fill_fit(const recording* r, tl_vrm_fit* fit) {
    const vrm_spring_def* def = r->def;
    uint32_t last = def->count - 2;
    fit->node = def->nodes[0];
    fit->joints = def->count;
    fit->colliders = def->collider_count;
    fit->stiffness[0] = (float)def->settings[0].stiffness;
    fit->stiffness[1] = (float)def->settings[last].stiffness;
    fit->drag[0] = (float)def->settings[0].drag;
    fit->drag[1] = (float)def->settings[last].drag;
    fit->gravity_power = (float)def->settings[0].gravity_power;
    fit->hit_radius[0] = (float)def->settings[0].hit_radius;
    fit->hit_radius[1] = (float)def->settings[last].hit_radius;
}

tl_result vrm_fit_group(const tl_scene* scene, const tl_play_chain* chains, uint32_t count,
                        const tl_vrm_def* vdef, vrm_spring_def* defs, tl_vrm_fit* fits,
                        tl_error* err) {
    for (uint32_t i = 0; i < count; ++i)
        if (chains[i].end_joint == TL_NONE || chains[i].bone_count + 1 > VRM_MAX_JOINTS)
            return tl_error_set(err, TL_ERROR_INVALID,
                                "the chain from %s has no end joint: a VRM spring needs one",
                                scene->skins[chains[i].skin].joints[chains[i].bone_joints[0]].name);
    group g = {calloc(count, sizeof *g.recs), count, 0};
    if (!g.recs) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    tl_result res = TL_OK;
    for (uint32_t i = 0; i < count && res == TL_OK; ++i) {
        const tl_scene_skin* sk = &scene->skins[chains[i].skin];
        recording* r = &g.recs[i];
        memset(&defs[i], 0, sizeof defs[i]);
        memset(&fits[i], 0, sizeof fits[i]);
        r->def = &defs[i];
        r->dt = 1.0 / vdef->fps;
        r->height = sk->height > 0 ? sk->height : 1;
        for (int k = 0; k < 3; ++k)
            r->down[k] = -sk->up[k];
        tl_body_collider body[TL_BODY_COLLIDERS_MAX];
        uint32_t body_count = 0;
        if (vdef->colliders)
            res = tl_body_colliders_fit(scene, chains[i].skin, body, TL_BODY_COLLIDERS_MAX,
                                        &body_count, err);
        if (res == TL_OK)
            spring_layout(scene, &chains[i], vdef->colliders, &defs[i], r, body, body_count);
    }
    /* the starting knobs: the first chain's settings (a group's chains share their part's) */
    const tl_chain_settings* cs = &chains[0].settings.settings;
    double x[KNOBS] = {log(cs->root_frequency),
                       log(cs->tip_frequency),
                       sqrt(cs->gravity / 1.8),
                       log(2 * cs->damping_ratio * 2 * PI * cs->root_frequency),
                       log(2 * cs->damping_ratio * 2 * PI * cs->tip_frequency),
                       0};
    int32_t clip = pick_clip(scene, vdef->clip);
    for (uint32_t i = 0; i < count; ++i) {
        knobs_to_settings(&g.recs[i], x);
        fits[i].clip = clip;
        fits[i].error_rms = fits[i].error_max = fits[i].error_default = NAN;
    }
    if (res == TL_OK && clip != TL_NONE) {
        uint32_t frames =
            (uint32_t)lround((vdef->warmup_seconds + vdef->fit_seconds) * vdef->fps) + 1;
        for (uint32_t i = 0; i < count; ++i) {
            g.recs[i].frames = frames;
            g.recs[i].warmup = (uint32_t)lround(vdef->warmup_seconds * vdef->fps);
        }
        res = record(scene, chains, &g, (uint32_t)clip, frames, err);
        if (res == TL_OK) {
            for (uint32_t i = 0; i < count; ++i)
                fits[i].error_default = sqrt(replay(&g.recs[i], NULL));
            g.evaluations = 1; /* (the starting knobs' run, counted in the budget) */
            multistart(&g, x, vdef->evaluations);
            for (uint32_t i = 0; i < count; ++i) {
                knobs_to_settings(&g.recs[i], x);
                double max;
                fits[i].error_rms = sqrt(replay(&g.recs[i], &max));
                fits[i].error_max = max;
                fits[i].evaluations = g.evaluations;
            }
        }
    }
    for (uint32_t i = 0; i < count; ++i) {
        if (res == TL_OK) fill_fit(&g.recs[i], &fits[i]);
        free(g.recs[i].parents);
        free(g.recs[i].colliders);
        free(g.recs[i].tips);
    }
    free(g.recs);
    return res;
}
