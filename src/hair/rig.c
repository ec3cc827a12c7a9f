/* Hair in the rig (hair.md §6): the hair primitives of a skin get their guides and chains, and
 * each chain becomes a part of class hair in the rig analysis, written by tl_rig_apply as a part
 * of kind "hair" (docs/schema.md) and played by the spring solver like a tail. */
#include "internal.h"

#include "base/try.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is PREFIX_1 a node of the document, or the prefix of a chain already planned? */
static bool prefix_taken(const tl_gltf* doc, const tl_rig_analysis* a, const char* prefix) {
    char first[48];
    snprintf(first, sizeof first, "%s_1", prefix);
    for (uint32_t i = 0; i < doc->node_count; ++i)
        if (doc->nodes[i].name && !strcmp(doc->nodes[i].name, first)) return true;
    for (uint32_t i = 0; i < a->part_count; ++i)
        if (a->parts[i].action == TL_RIG_ACTION_CHAIN && !strcmp(a->parts[i].bone_prefix, prefix))
            return true;
    return false;
}

tl_result hair_skin_mesh(const tl_scene* scene, uint32_t skin, const uint8_t* flags,
                         tl_hair_mesh* mesh, uint32_t** union_index, tl_error* err) {
    const tl_scene_skin* sk = &scene->skins[skin];
    TRY(hair_mesh_of_primitives(scene, skin, flags, mesh, err));
    *union_index = malloc(sizeof(uint32_t) * (mesh->vertex_count + 1));
    if (!*union_index) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    uint32_t n = 0;
    for (uint32_t p = 0; p < sk->primitive_count; ++p)
        for (uint32_t v = 0; flags[p] && v < sk->primitives[p].vertex_count; ++v)
            (*union_index)[n++] = sk->primitives[p].first_vertex + v;
    assert(n == mesh->vertex_count);
    return TL_OK;
}

/* One chain as a rig part: class hair, hanging from the head, no vertices yet. */
static void chain_part(tl_rig_analysis* a, const tl_scene* scene, uint32_t skin,
                       const tl_hair_chain* chain, uint32_t index, uint32_t count) {
    const tl_scene_skin* sk = &scene->skins[skin];
    tl_rig_skin* rs = &a->skins[skin];
    tl_rig_part* part = &a->parts[a->part_count];
    *part = (tl_rig_part){0};
    part->id = a->part_count;
    part->skin = skin;
    part->cls = TL_RIG_CLASS_HAIR;
    part->region = TL_RIG_REGION_HEAD;
    part->action = TL_RIG_ACTION_CHAIN;
    part->reason = "a guide chain of the hair on the head (hair.md §6)";
    part->attach_joint = sk->body.head;
    snprintf(part->attach_name, sizeof part->attach_name, "%s", sk->joints[sk->body.head].name);
    part->attach_role = TL_ROLE_HEAD;
    part->segments = chain->bone_count;
    memcpy(part->joints, chain->joints, 3 * sizeof(float) * (chain->bone_count + 1));
    memcpy(part->collar, chain->joints, sizeof part->collar);
    part->length = chain->free_length;
    snprintf(part->bone_prefix, sizeof part->bone_prefix, "Hair%02u", index + 1);
    for (unsigned k = 1; prefix_taken(scene->doc, a, part->bone_prefix) && k < 100000; ++k)
        snprintf(part->bone_prefix, sizeof part->bone_prefix, "Hair%02u.%03u", index + 1, k);
    part->first_new_joint = sk->joint_count + rs->new_joint_count;
    rs->new_joint_count += chain->bone_count + 1;
    a->chain_count++;
    a->part_count++;
    (void)count;
}

/* The skin joint of an influence (see tl_hair_chains), given the chains' first parts. */
static uint32_t joint_of(const tl_rig_analysis* a, uint32_t first_part, uint32_t influence,
                         uint32_t head) {
    if (influence == UINT32_MAX) return head;
    const tl_rig_part* part = &a->parts[first_part + influence / TL_CHAIN_MAX_BONES];
    return part->first_new_joint + influence % TL_CHAIN_MAX_BONES;
}

/* The planned weights: each hair vertex in the part of its main chain (the head's vertices in
 * the first chain's part), 4 influences as the rig writes them. */
static bool plan_vertices(tl_rig_analysis* a, uint32_t first_part, const tl_hair_chains* cs,
                          const uint32_t* union_index, uint32_t head) {
    uint32_t parts = cs->chain_count;
    uint32_t* count = calloc(parts, sizeof *count);
    if (!count) return false;
    for (uint32_t v = 0; v < cs->vertex_count; ++v) {
        uint32_t inf = cs->influence[TL_HAIR_INFLUENCES * v];
        count[inf == UINT32_MAX ? 0 : inf / TL_CHAIN_MAX_BONES]++;
    }
    bool ok = true;
    for (uint32_t c = 0; c < parts && ok; ++c) {
        tl_rig_part* part = &a->parts[first_part + c];
        part->vertices = malloc(sizeof(uint32_t) * (count[c] + 1));
        part->new_joints = calloc(4 * (size_t)(count[c] + 1), sizeof(uint32_t));
        part->new_weights = calloc(4 * (size_t)(count[c] + 1), sizeof(float));
        ok = part->vertices && part->new_joints && part->new_weights;
    }
    for (uint32_t v = 0; v < cs->vertex_count && ok; ++v) {
        uint32_t inf = cs->influence[TL_HAIR_INFLUENCES * v];
        tl_rig_part* part =
            &a->parts[first_part + (inf == UINT32_MAX ? 0 : inf / TL_CHAIN_MAX_BONES)];
        uint32_t k = part->vertex_count++;
        part->vertices[k] = union_index[v];
        for (int i = 0; i < TL_HAIR_INFLUENCES; ++i) {
            size_t at = TL_HAIR_INFLUENCES * (size_t)v + i;
            part->new_joints[4 * k + i] = joint_of(a, first_part, cs->influence[at], head);
            part->new_weights[4 * k + i] = cs->weight[at];
        }
        a->skins[part->skin].part[union_index[v]] = (int32_t)part->id;
    }
    for (uint32_t c = 0; c < parts && ok; ++c) {
        tl_rig_part* part = &a->parts[first_part + c];
        part->welded_count = part->vertex_count;
        a->changed_vertices += part->vertex_count;
    }
    free(count);
    return ok;
}

/* Front feet on the floor (both "hands" within 0.2 H of it): a four-legged character. The hair
 * pipeline is for heads on top of a standing body (the article's frog, humans); on the shared
 * quadrupeds the pieces on the head are muzzles, noses and antlers cut out by material. */
static bool on_four_legs(const tl_scene_skin* sk) {
    for (int side = 0; side < 2; ++side) {
        int32_t hand = sk->body.hand[side];
        if (hand == TL_NONE) return false;
        const float* m = sk->joints[hand].rest_world;
        float height = m[12] * sk->up[0] + m[13] * sk->up[1] + m[14] * sk->up[2] - sk->floor;
        if (height > 0.2f * sk->height) return false;
    }
    return true;
}

/* The whole hair as one part of class hair, its vertices left as they are bound: a short style
 * (reported, on the head) or hair tailor rigged before (already rigged). */
static bool whole_part(tl_rig_analysis* a, const tl_scene* scene, uint32_t skin,
                       const uint32_t* union_index, const tl_hair_mesh* mesh, tl_rig_action action,
                       const char* reason) {
    const tl_scene_skin* sk = &scene->skins[skin];
    tl_rig_part* grown = realloc(a->parts, (a->part_count + 1) * sizeof *grown);
    if (!grown) return false;
    a->parts = grown;
    tl_rig_part* part = &a->parts[a->part_count];
    *part = (tl_rig_part){0};
    part->vertices = malloc(sizeof(uint32_t) * (mesh->vertex_count + 1));
    if (!part->vertices) return false;
    memcpy(part->vertices, union_index, sizeof(uint32_t) * mesh->vertex_count);
    part->vertex_count = part->welded_count = mesh->vertex_count;
    part->id = a->part_count++;
    part->skin = skin;
    part->cls = TL_RIG_CLASS_HAIR;
    part->region = TL_RIG_REGION_HEAD;
    part->action = action;
    part->reason = reason;
    part->attach_joint = sk->body.head;
    snprintf(part->attach_name, sizeof part->attach_name, "%s", sk->joints[sk->body.head].name);
    part->attach_role = TL_ROLE_HEAD;
    return true;
}

/* Parts the tail pipeline found in the hair (shards of it hanging from the spine, "a carried
 * object", "a cape"), only reported: they are hair, and say so. */
static void relabel_parts(tl_rig_analysis* a, uint32_t skin, const uint32_t* union_index,
                          uint32_t count, uint32_t vertex_count, bool chains) {
    uint8_t* hair = calloc(vertex_count + 1, 1);
    if (!hair) return; /* the labels only: nothing is lost */
    for (uint32_t i = 0; i < count; ++i)
        hair[union_index[i]] = 1;
    for (uint32_t i = 0; i < a->part_count; ++i) {
        tl_rig_part* p = &a->parts[i];
        if (p->skin != skin || p->action != TL_RIG_ACTION_REPORTED || p->cls == TL_RIG_CLASS_HAIR)
            continue;
        uint32_t on = 0;
        for (uint32_t k = 0; k < p->vertex_count; ++k)
            on += hair[p->vertices[k]];
        if (2 * on < p->vertex_count || p->vertex_count == 0) continue;
        p->cls = TL_RIG_CLASS_HAIR;
        p->reason = chains ? "moved by the hair's guide chains (the parts of class hair)"
                           : "a short style, rigid on the head (no guide long enough)";
    }
    free(hair);
}

/* The body's colliders in the rest pose's world for the seam blend's guard (tl_hair_chain_def);
 * none when the blend is off or they cannot be fitted (the blend then runs unguarded). */
static uint32_t rest_colliders(const tl_scene* scene, uint32_t skin, const tl_hair_chain_def* def,
                               tl_collider* world) {
    tl_body_collider body[TL_BODY_COLLIDERS_MAX];
    uint32_t n = 0;
    if (def->seam_steps == 0 ||
        tl_body_colliders_fit(scene, skin, body, TL_BODY_COLLIDERS_MAX, &n, NULL) != TL_OK)
        return 0;
    tl_pose* pose = n > 0 ? tl_pose_create(scene) : NULL;
    if (!pose) return 0;
    tl_pose_set_rest(pose, scene, skin);
    tl_body_colliders_pose(scene, skin, body, n, pose, world);
    tl_pose_destroy(pose);
    return n;
}

/* The chains' scalp distances per skin vertex where the nape asks the very same query (the
 * same point, the same reach), NaN elsewhere: the nape then does not ask it again. NULL: none
 * (another reach, or out of memory: the nape asks every query). */
static float* nape_known(const tl_scene_skin* sk, const tl_hair_mesh* mesh,
                         const uint32_t* union_index, const tl_hair_chains* chains, float cap) {
    float reach;
    const float* d = hair_chains_scalp(chains, &reach);
    float* known = reach == cap ? malloc(sizeof(float) * (sk->vertex_count + 1)) : NULL;
    for (uint32_t v = 0; known && v < sk->vertex_count; ++v)
        known[v] = NAN;
    for (uint32_t v = 0; known && v < mesh->vertex_count; ++v)
        if (!memcmp(mesh->positions + 3 * (size_t)v,
                    sk->rest_positions + 3 * (size_t)union_index[v], 3 * sizeof(float)))
            known[union_index[v]] = d[v];
    return known;
}

/* The share of the hair's weight (union vertices) on the bones of the skin's hair parts the
 * file stores; 0 when it stores none. */
static float hair_parts_share(const tl_scene* scene, uint32_t skin, const uint32_t* union_index,
                              uint32_t count) {
    const tl_scene_skin* sk = &scene->skins[skin];
    uint8_t* bone = calloc(sk->joint_count + 1, 1);
    bool any = false;
    for (uint32_t i = 0; bone && i < scene->part_count; ++i) {
        const tl_scene_part* p = &scene->parts[i];
        if (p->kind != TL_PART_HAIR || p->skin != skin) continue;
        any = true;
        for (uint32_t b = 0; b < p->bone_count; ++b)
            bone[p->bone_joints[b]] = 1;
    }
    double on = 0;
    for (uint32_t i = 0; any && i < count; ++i)
        for (uint32_t k = 0; k < sk->influence_count; ++k) {
            size_t at = (size_t)union_index[i] * sk->influence_count + k;
            if (bone[sk->influence_joints[at]]) on += sk->influence_weights[at];
        }
    free(bone);
    return any && count ? (float)(on / count) : 0;
}

bool tl_hair_rig_plan(tl_rig_analysis* a, const tl_scene* scene, uint32_t skin) {
    assert(a && scene && skin < scene->skin_count);
    const tl_scene_skin* sk = &scene->skins[skin];
    if (a->def.mode != TL_RIG_MODE_CHAIN || sk->body.head == TL_NONE || !(sk->height > 0) ||
        on_four_legs(sk))
        return true;
    uint8_t* flags = malloc(sk->primitive_count + 1);
    if (!flags) return false;
    uint32_t found = tl_hair_find_primitives(scene, skin, flags);
    tl_hair_mesh mesh = {0};
    uint32_t* union_index = NULL;
    tl_hair_scalp* scalp = NULL;
    tl_hair_guides* guides = NULL;
    tl_hair_chains* chains = NULL;
    tl_hair_def def = tl_default_hair_def();
    tl_hair_chain_def cdef = a->def.hair ? *a->def.hair : tl_default_hair_chain_def();
    tl_collider world[TL_BODY_COLLIDERS_MAX];
    /* hair tailor rigged before (its chains in extras.tailor): left as it is, as a tail bound to
       its own bones is; planned again it would get a second set of chains beside the first */
    bool rigged = false;
    for (uint32_t i = 0; i < scene->part_count; ++i)
        rigged |= scene->parts[i].kind == TL_PART_HAIR && scene->parts[i].skin == skin;
    if (found && !rigged)
        cdef.colliders = world, cdef.collider_count = rest_colliders(scene, skin, &cdef, world);
    bool ok = true;
    if (found && rigged) {
        if (hair_skin_mesh(scene, skin, flags, &mesh, &union_index, NULL) == TL_OK) {
            relabel_parts(a, skin, union_index, mesh.vertex_count, sk->vertex_count, true);
            ok = whole_part(a, scene, skin, union_index, &mesh, TL_RIG_ACTION_ALREADY_RIGGED,
                            "hair tailor rigged before (its guide chains are in the file): left "
                            "as it is");
            if (ok)
                a->parts[a->part_count - 1].own_bones =
                    hair_parts_share(scene, skin, union_index, mesh.vertex_count);
        }
        found = 0;
    }
    /* no hair, no scalp, no guide long enough: nothing to add (the style stays on the head) */
    if (found && hair_skin_mesh(scene, skin, flags, &mesh, &union_index, NULL) == TL_OK &&
        tl_hair_scalp_find(scene, skin, &def, flags, &scalp, NULL) == TL_OK &&
        tl_hair_guides_create(&mesh, scalp, &def, &guides, NULL) == TL_OK &&
        tl_hair_chains_create(&mesh, scalp, guides, &cdef, &chains, NULL) == TL_OK)
        relabel_parts(a, skin, union_index, mesh.vertex_count, sk->vertex_count,
                      chains->chain_count > 0);
    if (chains && chains->chain_count == 0)
        ok = whole_part(a, scene, skin, union_index, &mesh, TL_RIG_ACTION_REPORTED,
                        "a short style, rigid on the head (no guide hangs long enough past the "
                        "cap for a chain)");
    if (chains && chains->chain_count > 0) {
        tl_rig_part* grown =
            realloc(a->parts, (a->part_count + chains->chain_count + 1) * sizeof *grown);
        ok = grown != NULL;
        if (ok) {
            a->parts = grown;
            uint32_t first = a->part_count;
            for (uint32_t c = 0; c < chains->chain_count; ++c)
                chain_part(a, scene, skin, &chains->chains[c], c, chains->chain_count);
            /* the cap as the chains read it (their scale first) */
            float cap = cdef.cap_mm * (scalp->height / TL_HAIR_HUMAN_MM);
            float* known = cdef.nape ? nape_known(sk, &mesh, union_index, chains, cap) : NULL;
            ok = plan_vertices(a, first, chains, union_index, (uint32_t)sk->body.head) &&
                 (!cdef.nape || hair_nape_bind(a, scene, skin, scalp, first, chains->chain_count,
                                               cap, known, true));
            free(known);
        }
        /* kept for the guide layer: the rig leaves the hair and scalp where they were */
        tl_hair_guides_destroy(a->skins[skin].hair_guides);
        a->skins[skin].hair_guides = guides, guides = NULL;
    }
    if (chains) tl_hair_chains_destroy(chains);
    tl_hair_guides_destroy(guides);
    tl_hair_scalp_destroy(scalp);
    tl_hair_mesh_free(&mesh);
    free(union_index);
    free(flags);
    return ok;
}
