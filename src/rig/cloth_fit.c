/* The cloth's render weights fitted to its own motion (tailor rig --cloth-fit; docs/cloth.md
 * "Session 27 (skirtfit27)"): the hair's seam fit (src/hair/seam_fit.c) run on the skin a cloth
 * lattice drives. Its vertices (more than half their weight on the lattice's bones, the region
 * tailor measure judges) get weights over their own bones, their neighbours' bones and the joints
 * of the body colliders nearest them at rest (the thighs under a skirt), that keep their edges'
 * lengths in the poses the player plays (the lattice simulated) and pull them out of the body,
 * never deeper than the lattice's weights put them. They stay the cloth's: more than half their
 * weight on the lattice, a lattice bone their heaviest joint, so the player's colliders and skin
 * points (found from the weights) and hence the lattice's motion do not change. */
#include "internal.h"

#include "hair/seam_fit.h"

#include <tailor/colliders.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    NEAR_COLLIDERS = 1,
    ENTERED = 2
}; /* body joints offered to each vertex: the nearest collider's at rest, the two it enters deepest
    */

rig_cloth_fit_def rig_default_cloth_fit_def(void) {
    rig_cloth_fit_def d;
    d.fit = hair_default_seam_fit_def();
    d.fit.rings = 2;
    d.push = 8;
    return d;
}

/* The joints of the NEAR_COLLIDERS body colliders nearest each fitted vertex at rest (the
 * largest depth: least far outside), into extra (vertex_count x NEAR_COLLIDERS). */
static void near_joints(const tl_scene_skin* sk, const tl_body_collider* body, uint32_t n,
                        const uint8_t* fitted, uint32_t* extra) {
    for (uint32_t v = 0; v < sk->vertex_count; ++v) {
        uint32_t* e = extra + (size_t)v * NEAR_COLLIDERS;
        float best[NEAR_COLLIDERS];
        for (int k = 0; k < NEAR_COLLIDERS; ++k)
            e[k] = UINT32_MAX, best[k] = -INFINITY;
        for (uint32_t c = 0; fitted[v] && c < n; ++c) {
            float d = tl_collider_depth(&body[c].local, sk->rest_positions + 3 * (size_t)v);
            for (int k = 0; k < NEAR_COLLIDERS; ++k) {
                if (!(d > best[k])) continue;
                if (e[k] == body[c].joint) break;
                for (int m = NEAR_COLLIDERS - 1; m > k; --m)
                    best[m] = best[m - 1], e[m] = e[m - 1];
                best[k] = d, e[k] = body[c].joint;
                break;
            }
        }
    }
}

tl_result rig_cloth_fit_skin(const tl_scene* scene, uint32_t skin, const rig_cloth_fit_def* def,
                             uint32_t* joints, float* weights, uint8_t* changed,
                             hair_seam_fit_report* report, tl_error* err) {
    const tl_scene_skin* sk = &scene->skins[skin];
    const uint32_t IC = sk->influence_count;
    memset(report, 0, sizeof *report);
    uint8_t* kept = calloc(sk->joint_count + 1, 1);
    uint8_t* mesh = malloc((size_t)sk->vertex_count + 1);
    uint8_t* fitted = calloc((size_t)sk->vertex_count + 1, 1);
    uint32_t* extra = malloc(sizeof *extra * NEAR_COLLIDERS * ((size_t)sk->vertex_count + 1));
    tl_body_collider fitted_body[TL_BODY_COLLIDERS_MAX];
    const tl_body_collider* body = sk->colliders;
    uint32_t n = sk->collider_count, cloths = 0, count = 0;
    tl_result r = TL_OK;
    if (!kept || !mesh || !fitted || !extra)
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    for (uint32_t p = 0; r == TL_OK && p < scene->part_count; ++p) {
        const tl_scene_part* sp = &scene->parts[p];
        if (sp->kind != TL_PART_CLOTH || sp->skin != skin) continue;
        ++cloths;
        for (uint32_t b = 0; b < sp->bone_count; ++b)
            kept[sp->bone_joints[b]] = 1;
        kept[sp->end_joint] = 1;
    }
    for (uint32_t v = 0; r == TL_OK && cloths && v < sk->vertex_count; ++v) {
        float on = 0;
        for (uint32_t k = 0; k < IC; ++k)
            if (kept[sk->influence_joints[(size_t)v * IC + k]])
                on += sk->influence_weights[(size_t)v * IC + k];
        mesh[v] = 1; /* (the whole skin: the edges to the body beside the cloth kept too) */
        fitted[v] = on > 0.5f;
        count += fitted[v];
    }
    if (r == TL_OK && count && n == 0) {
        r = tl_body_colliders_fit(scene, skin, fitted_body, TL_BODY_COLLIDERS_MAX, &n, err);
        body = fitted_body;
    }
    if (r == TL_OK && count) {
        near_joints(sk, body, n, fitted, extra);
        seam_fit_set set = {.mesh = mesh,
                            .fitted = fitted,
                            .extra = extra,
                            .extra_count = NEAR_COLLIDERS,
                            .entered = ENTERED,
                            .kept = kept,
                            .share = 0.501f,
                            .push = def->push,
                            .qp_step = 1e-10};
        r = seam_fit_run(scene, skin, &def->fit, &set, joints, weights, changed, report, err);
    }
    free(kept), free(mesh), free(fitted), free(extra);
    return r;
}

static tl_result cloth_refit(const tl_scene* scene, uint32_t skin, const void* def,
                             uint32_t* joints, float* weights, uint8_t* changed,
                             hair_seam_fit_report* report, tl_error* err) {
    return rig_cloth_fit_skin(scene, skin, def, joints, weights, changed, report, err);
}

tl_result rig_write_cloth_fit(tl_gltf* doc, const rig_cloth_fit_def* def, tl_error* err) {
    tl_result r = TL_OK;
    for (uint32_t k = 0; r == TL_OK; ++k) {
        tl_scene* scene = NULL; /* (again for each skin: the last one's write reindexed) */
        if ((r = tl_scene_create(doc, &scene, err)) != TL_OK) break;
        if (k >= scene->skin_count) {
            tl_scene_destroy(scene);
            break;
        }
        r = rig_refit_skin(doc, scene, k, cloth_refit, def, NULL, NULL, err);
        tl_scene_destroy(scene);
    }
    return r;
}
