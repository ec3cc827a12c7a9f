/* The rigs `tailor measure` compares on one file: as it is, and rigged in memory rigid and
 * with chains (one analysis planned in both modes, two copies of the document). */
#include <tailor/measure.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rigs_internal {
    tl_gltf* docs[2];         /* the rigid and the chain copy */
    tl_scene* scenes[2];      /* their scenes */
    tl_rig_analysis* rigs[2]; /* chain mode (public as analysis), rigid mode */
} rigs_internal;

const char* tl_measure_rig_string(tl_measure_rig_kind kind) {
    static const char* names[TL_MEASURE_RIG_COUNT] = {"original", "rigid", "chain_static", "chain"};
    return (unsigned)kind < TL_MEASURE_RIG_COUNT ? names[kind] : "unknown";
}

tl_measure_rigs_def tl_default_measure_rigs_def(void) {
    tl_measure_rigs_def def;
    def.samples = 24;
    def.rig = tl_default_rig_def();
    return def;
}

uint32_t tl_measure_default_skin(const tl_scene* scene) {
    uint32_t skin = 0;
    for (uint32_t s = 1; s < scene->skin_count; ++s)
        if (scene->skins[s].vertex_count > scene->skins[skin].vertex_count) skin = s;
    return skin;
}

/* Parts the player plays besides chains: cloth, pendulum, aim. */
static bool has_played_parts(const tl_scene* scene) {
    for (uint32_t i = 0; i < scene->part_count; ++i)
        if (scene->parts[i].kind == TL_PART_CLOTH) return true;
    return scene->joint_part_count > 0;
}

/* The chains of a rig's scene; with `simulate`, a player (it also plays the cloth, pendulum and
 * aim parts) and a liveliness per chain. */
static tl_result rig_chains(tl_measure_rig* rig, bool simulate, uint32_t samples, tl_error* err) {
    tl_result r =
        tl_play_chains_find(rig->scene, rig->chains, TL_MEASURE_MAX_CHAINS, &rig->chain_count, err);
    if (r != TL_OK) return r;
    if (rig->chain_count > TL_MEASURE_MAX_CHAINS) rig->chain_count = TL_MEASURE_MAX_CHAINS;
    if (!simulate || (rig->chain_count == 0 && !has_played_parts(rig->scene))) return TL_OK;
    tl_player_def def = tl_default_player_def();
    def.colliders =
        true; /* the skin's body colliders, as a host gets them (collider_penetration) */
    r = tl_player_create(rig->scene, rig->chains, rig->chain_count, &def, &rig->player, err);
    if (r != TL_OK) return r;
    for (uint32_t i = 0; i < rig->chain_count; ++i)
        if (!(rig->live[i] = tl_liveliness_create(rig->player, i, samples)))
            return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    return TL_OK;
}

/* A copy of the document with the analysis applied, and its scene. */
static tl_result rigged_copy(const tl_scene* scene, const tl_rig_analysis* analysis, tl_gltf** doc,
                             tl_scene** out, tl_error* err) {
    tl_result r = tl_gltf_clone(scene->doc, doc, err);
    if (r == TL_OK) r = tl_rig_apply(*doc, analysis, err);
    if (r == TL_OK) r = tl_scene_create(*doc, out, err);
    if (r != TL_OK && err) {
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n, " (rigging in memory)");
    }
    return r;
}

static tl_result rigs_build(tl_measure_rigs* m, rigs_internal* in, const tl_scene* scene,
                            const tl_measure_rigs_def* def, tl_error* err) {
    tl_measure_rig* base = &m->rigs[TL_MEASURE_ORIGINAL];
    base->used = true;
    base->scene = scene;
    tl_result r = rig_chains(base, true, def->samples, err);
    if (r != TL_OK) return r;
    if (base->chain_count > 0 || has_played_parts(scene)) {
        /* the chains' (and parts') own configuration is this file: measured static and moving
           (a file rigged with a pendulum or an aim is the user's rig, not re-planned) */
        m->rigged = true;
        m->rigs[TL_MEASURE_CHAIN] = *base;
        memset(base, 0, sizeof *base);
        m->rigs[TL_MEASURE_CHAIN_STATIC].used = true;
        m->rigs[TL_MEASURE_CHAIN_STATIC].scene = scene;
        return TL_OK;
    }
    static const tl_rig_mode modes[2] = {TL_RIG_MODE_CHAIN, TL_RIG_MODE_RIGID};
    r = tl_rig_analyze_modes(scene, &def->rig, modes, 2, in->rigs, err);
    if (r != TL_OK) return r;
    m->analysis = in->rigs[0];
    bool cloth = false; /* cloth lattices are rigged in memory like chains */
    for (uint32_t i = 0; i < in->rigs[0]->part_count; ++i)
        cloth = cloth || in->rigs[0]->parts[i].action == TL_RIG_ACTION_CLOTH;
    if (in->rigs[0]->chain_count == 0 && !cloth) return TL_OK;
    r = rigged_copy(scene, in->rigs[1], &in->docs[0], &in->scenes[0], err);
    if (r == TL_OK) r = rigged_copy(scene, in->rigs[0], &in->docs[1], &in->scenes[1], err);
    if (r != TL_OK) return r;
    m->rigs[TL_MEASURE_RIGID].used = true;
    m->rigs[TL_MEASURE_RIGID].scene = in->scenes[0];
    m->rigs[TL_MEASURE_CHAIN_STATIC].used = true;
    m->rigs[TL_MEASURE_CHAIN_STATIC].scene = in->scenes[1];
    m->rigs[TL_MEASURE_CHAIN].used = true;
    m->rigs[TL_MEASURE_CHAIN].scene = in->scenes[1];
    return rig_chains(&m->rigs[TL_MEASURE_CHAIN], true, def->samples, err);
}

tl_result tl_measure_rigs_create(const tl_scene* scene, const tl_measure_rigs_def* def,
                                 tl_measure_rigs** out, tl_error* err) {
    assert(scene && def && out);
    *out = NULL;
    tl_measure_rigs* m = calloc(1, sizeof *m);
    rigs_internal* in = calloc(1, sizeof *in);
    if (!m || !in) {
        free(m);
        free(in);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    m->internal = in;
    tl_result r = rigs_build(m, in, scene, def, err);
    if (r != TL_OK) {
        tl_measure_rigs_destroy(m);
        return r;
    }
    *out = m;
    return TL_OK;
}

void tl_measure_rigs_destroy(tl_measure_rigs* m) {
    if (!m) return;
    for (int c = 0; c < TL_MEASURE_RIG_COUNT; ++c) {
        for (uint32_t i = 0; i < TL_MEASURE_MAX_CHAINS; ++i)
            tl_liveliness_destroy(m->rigs[c].live[i]);
        tl_player_destroy(m->rigs[c].player);
    }
    rigs_internal* in = m->internal;
    for (int k = 0; k < 2; ++k) {
        tl_scene_destroy(in->scenes[k]);
        tl_gltf_destroy(in->docs[k]);
        tl_rig_analysis_destroy(in->rigs[k]);
    }
    free(in);
    free(m);
}
