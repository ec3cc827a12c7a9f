/* Stress tests of a cloth part (measure.md "Stress", stress.h): the chain's runs (hip shake,
 * frame rates, a reported cut, a hitch, a detected teleport) through the player, read off the
 * lattice. A cloth's "tips" are its free particles (rows 1 on), its "links" the vertical
 * tethers, its "chain length" a column's rest length (the mean over columns; each particle's
 * distance is taken as a fraction of its own column's). The runs are stress_runs.c's; this
 * file reads the lattice. */
#include <tailor/colliders.h>
#include <tailor/stress.h>

#include "base/mat4.h"
#include "stress_runs.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Watches one cloth part frame after frame. */
typedef struct cloth_probe {
    const tl_scene* scene;
    const tl_scene_part* sp;
    const tl_scene_skin* sk;
    uint32_t part, rows, columns, n, bones;
    float* column;   /* columns: rest length of each column, world units */
    float* relative; /* n x 3: last frame's particles in the character frame (solver local) */
    float* bone_rot; /* bones x 4: last frame's bone rotations relative to the attachment */
    float* step_deg; /* bones: this frame's rotation of each bone */
    bool has_last;
    float peak_speed; /* this frame: of any free particle relative to the attachment */
    uint32_t nonfinite;
    float max_length_error;
    float max_penetration;       /* world units */
    uint32_t penetration_frames; /* frames whose particles were read against the colliders */
    uint32_t colliders;
} cloth_probe;

static void probe_free(cloth_probe* p) {
    free(p->column);
    p->column = NULL;
}

static tl_result probe_init(cloth_probe* p, const tl_scene* scene, uint32_t part, tl_error* err) {
    memset(p, 0, sizeof *p);
    p->scene = scene, p->part = part;
    p->sp = &scene->parts[part];
    p->sk = &scene->skins[p->sp->skin];
    p->rows = p->sp->cloth_rows, p->columns = p->sp->cloth_columns;
    p->n = p->rows * p->columns, p->bones = p->sp->bone_count;
    size_t floats = p->columns + 3 * (size_t)p->n + 5 * (size_t)p->bones + 1;
    p->column = calloc(floats, sizeof(float));
    if (!p->column) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    p->relative = p->column + p->columns;
    p->bone_rot = p->relative + 3 * (size_t)p->n;
    p->step_deg = p->bone_rot + 4 * (size_t)p->bones;
    /* rest particles in the skin's rest-world frame (as the player builds them) */
    for (uint32_t i = p->columns; i < p->n; ++i) {
        float a[3], b[3];
        tl_mat4_transform_point(a, p->sk->rest_world,
                                p->sp->cloth_particles + 3 * (i - p->columns));
        tl_mat4_transform_point(b, p->sk->rest_world, p->sp->cloth_particles + 3 * i);
        p->column[i % p->columns] += tl_vec3_distance(a, b);
    }
    return TL_OK;
}

static float mean_column(const cloth_probe* p) {
    float sum = 0;
    for (uint32_t c = 0; c < p->columns; ++c)
        sum += p->column[c];
    return p->columns ? sum / (float)p->columns : 0;
}

/* The player's cloth playing the part. */
static const tl_cloth* probe_cloth(const cloth_probe* p, const tl_player* player) {
    for (uint32_t i = 0; i < tl_player_cloth_count(player); ++i)
        if (tl_player_cloth_part(player, i) == p->part) return tl_player_cloth(player, i);
    return NULL;
}

static uint32_t probe_index(const cloth_probe* p, const tl_player* player) {
    for (uint32_t i = 0; i < tl_player_cloth_count(player); ++i)
        if (tl_player_cloth_part(player, i) == p->part) return i;
    return 0;
}

static uint32_t cloth_nonfinite(void* self, const tl_player* player) {
    tl_cloth_stats s = tl_cloth_get_stats(probe_cloth(self, player));
    return s.nonfinite_inputs + s.nonfinite_states;
}

static void matrix_rotation(const float* m, float q[4]) {
    tl_chain_pose pose = tl_chain_pose_from_matrix(m);
    memcpy(q, pose.rotation, sizeof pose.rotation);
}

/* The bones' rotations relative to the attachment and their turn since the last frame. */
static bool probe_bones(cloth_probe* p, const tl_pose* pose) {
    const tl_scene_joint* joints = p->sk->joints;
    float attach[4], inverse[4];
    matrix_rotation(pose->world + 16 * (size_t)joints[p->sp->attach_joint].node, attach);
    tl_quat_conjugate(inverse, attach);
    bool finite = true;
    for (uint32_t b = 0; b < p->bones; ++b) {
        float q[4], rel[4];
        matrix_rotation(pose->world + 16 * (size_t)joints[p->sp->bone_joints[b]].node, q);
        tl_quat_mul(rel, inverse, q);
        for (int k = 0; k < 4; ++k)
            finite = finite && isfinite(rel[k]);
        p->step_deg[b] = p->has_last ? stress_step_deg(p->bone_rot + 4 * b, rel) : 0;
        memcpy(p->bone_rot + 4 * b, rel, sizeof rel);
    }
    return finite;
}

/* World units per solver unit: the attachment's scale now over its rest scale. */
static float frame_scale(const cloth_probe* p, const tl_pose* pose) {
    const tl_scene_joint* j = &p->sk->joints[p->sp->attach_joint];
    float now = tl_chain_pose_from_matrix(pose->world + 16 * (size_t)j->node).scale;
    float rest = tl_chain_pose_from_matrix(j->rest_world).scale;
    return rest > 0 && isfinite(now) ? now / rest : 1.0f;
}

/* Reads the cloth after a frame of dt seconds (the player applied the pose). */
static void probe_frame(cloth_probe* p, const tl_pose* pose, const tl_player* player, float dt) {
    const tl_cloth* cloth = probe_cloth(p, player);
    const float* local = tl_cloth_local_positions(cloth);
    const float* world = tl_cloth_positions(cloth);
    const float* tether = tl_cloth_model_tethers(tl_cloth_get_model(cloth));
    uint32_t C = p->columns;
    bool finite = probe_bones(p, pose);
    for (uint32_t i = 0; i < 3 * p->n; ++i)
        finite = finite && isfinite(local[i]) && isfinite(world[i]);
    const tl_collider* colliders;
    p->colliders = tl_player_cloth_colliders(player, probe_index(p, player), &colliders);
    p->peak_speed = 0;
    if (!finite) {
        p->nonfinite++;
        p->has_last = false;
        return;
    }
    if (p->colliders > 0) p->penetration_frames++;
    for (uint32_t k = 0; k < p->colliders; ++k)
        for (uint32_t i = C; i < p->n; ++i)
            p->max_penetration =
                fmaxf(p->max_penetration, tl_collider_depth(&colliders[k], world + 3 * i));
    float s = frame_scale(p, pose);
    for (uint32_t i = C; i < p->n; ++i) {
        if (tether[i] > 0) {
            float e = fabsf(tl_vec3_distance(local + 3 * i, local + 3 * (i - C)) - tether[i]);
            p->max_length_error = fmaxf(p->max_length_error, e / tether[i]);
        }
        if (p->has_last && dt > 0)
            p->peak_speed =
                fmaxf(p->peak_speed, s * tl_vec3_distance(local + 3 * i, p->relative + 3 * i) / dt);
    }
    memcpy(p->relative, local, 3 * sizeof(float) * p->n);
    p->has_last = true;
}

/* The callbacks of stress_part (stress_runs.h) on a cloth_probe. */
static tl_result cloth_play(void* self, const tl_player_def* pd, tl_player** out, tl_error* err) {
    const cloth_probe* p = self;
    return tl_player_create(p->scene, NULL, 0, pd, out, err);
}

static stress_frame cloth_read(void* self, const tl_pose* pose, const tl_player* player, float dt) {
    cloth_probe* p = self;
    probe_frame(p, pose, player, dt);
    stress_frame frame = {p->peak_speed, p->step_deg,
                          tl_cloth_get_stats(probe_cloth(p, player)).contacts};
    return frame;
}

static void cloth_forget(void* self) {
    ((cloth_probe*)self)->has_last = false;
}

/* The tips: the free particles (rows 1 on), world positions. */
static void cloth_tips(void* self, const tl_player* player, float* out) {
    const cloth_probe* p = self;
    memcpy(out, tl_cloth_positions(probe_cloth(p, player)) + 3 * (size_t)p->columns,
           3 * sizeof(float) * (p->n - p->columns));
}

static float cloth_tip_length(void* self, uint32_t tip) {
    const cloth_probe* p = self;
    return p->column[tip % p->columns];
}

/* The largest distance of a free particle in the character frame between the control and
 * the cut run (the solver's own coordinates, so the world's float spacing 100 m away does not
 * count), over its column's length. */
static float cloth_cut_error(void* self, void* cut_self, const tl_pose* pose,
                             const tl_player* control, const tl_player* cut) {
    (void)cut_self;
    const cloth_probe* p = self;
    const float* a = tl_cloth_local_positions(probe_cloth(p, control));
    const float* b = tl_cloth_local_positions(probe_cloth(p, cut));
    float largest = 0;
    for (uint32_t i = p->columns; i < p->n; ++i)
        if (p->column[i % p->columns] > 0)
            largest = fmaxf(largest, frame_scale(p, pose) * tl_vec3_distance(a + 3 * i, b + 3 * i) /
                                         p->column[i % p->columns]);
    return largest;
}

tl_result tl_measure_stress_cloth(const tl_scene* scene, uint32_t part, int32_t clip,
                                  const tl_stress_def* def, tl_stress_report* out, tl_error* err) {
    assert(scene && def && out && part < scene->part_count);
    assert(scene->parts[part].kind == TL_PART_CLOTH);
    const tl_scene_skin* sk = &scene->skins[scene->parts[part].skin];
    stress_report_init(out, def, sk);
    cloth_probe p;
    tl_result res = probe_init(&p, scene, part, err);
    if (res != TL_OK) return res;
    out->chain_length = mean_column(&p);
    /* the later window waits one period of the lattice as a pendulum of its column length */
    double g = 9.81 * out->scale;
    stress_part runs = {
        .scene = scene,
        .def = def,
        .skin = p.sp->skin,
        .bones = p.bones,
        .bone_columns = p.sp->cloth_bone_columns,
        .tips = p.n - p.columns,
        .transient = 2 * 3.14159265358979323846 * sqrt(fmax(out->chain_length, 1e-6) / g),
        .probe = &p,
        .play = cloth_play,
        .read = cloth_read,
        .forget = cloth_forget,
        .nonfinite = cloth_nonfinite,
        .tips_read = cloth_tips,
        .tip_length = cloth_tip_length,
        .cut_error = cloth_cut_error,
    };
    res = stress_runs(&runs, clip, out, err);
    out->nonfinite += p.nonfinite;
    out->max_length_error = p.max_length_error;
    out->collider_penetration = sk->height > 0 ? p.max_penetration / sk->height : 0;
    out->colliders = p.colliders;
    out->collider_frames = p.penetration_frames;
    probe_free(&p);
    return res;
}
