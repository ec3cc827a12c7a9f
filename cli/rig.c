/* tailor rig: find the skin the skeleton does not cover and give tails a bone chain. The
 * report is built once as JSON (docs/rig.md); the human view prints that same report. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char* usage_text =
    "usage: tailor rig IN -o OUT [--mode chain|rigid] [--report REPORT.json] [--json] [--dry-run]\n"
    "                [--far F] [--limb-ratio R] [--elongation E] [--segment S]\n"
    "                [--min-links N] [--max-links N] [--overlap O] [--part ID=chain|rigid|none]\n"
    "                [--fix-rigid] [--no-grow] [--root-band B] [--no-fit] [--fit-skip CLIP]\n"
    "                [--bake] [--vrm] [--fix-skeleton] [--hair-fit] [--hair-fit-clips A,B]\n"
    "                [--cloth-fit] [--cloth-fit-clips A,B]\n"
    "                [--pendulum NODE[:LENGTH_M]] [--aim NODE=TARGET[:MAX_DEG[:WEIGHT]]]\n"
    "                [--force]\n"
    "  Finds far skin (parts farther from every bone than F x height), decides per part\n"
    "  whether it is a tail (a bone chain), a rigid or cloth part, or body skin, and writes\n"
    "  OUT with Tail_1..Tail_K + Tail_End under the joint each tail hangs from.\n"
    "  --mode chain|rigid  tails get a chain (default) or weight 1 on their joint\n"
    "  -o -                write the GLB to standard output (the summary goes to stderr)\n"
    "  --report FILE       also write the report as JSON (docs/rig.md); - : standard output\n"
    "  --json              the report on standard output instead of the summary\n"
    "  --dry-run           analyse and report; write nothing (-o not needed)\n"
    "  --far F             far threshold, x height (default 0.07)\n"
    "  --limb-ratio R      limb test: centroid distance / reach (default 0.4)\n"
    "  --elongation E      long when sqrt(l1/l2) reaches E (default 1.8)\n"
    "  --segment S         chain segment length, x height (default 0.1)\n"
    "  --min-links N, --max-links N   chain bones (default 3..8)\n"
    "  --overlap O         shells merge above this box overlap (default 0.5)\n"
    "  --part ID=CLASS     force part ID to chain, rigid or none (repeatable)\n"
    "  --fix-rigid         re-weight misbound rigid and cloth parts (default: report only)\n"
    "  --no-grow           do not grow tails over their misbound root\n"
    "  --root-band B       blend the body skin within B x the collar's radius of a tail into\n"
    "                      its new weights (default 1; 0: off)\n"
    "  --no-fit            keep the band's weights: no junction fit to the file's clips\n"
    "  --fit-skip CLIP     do not show CLIP to the junction fit (repeatable; a hold-out)\n"
    "  --fix-skeleton      repair a skin.skeleton that is not a common root of its joints\n"
    "                      (SKIN_SKELETON_INVALID; default: kept as it was)\n"
    "  --hair-fit          fit the hair's seam weights to the file's clips, kept out of the\n"
    "                      body colliders in the fitted poses; slow (~10 s a long style) and\n"
    "                      off by default (docs/hair.md, Session 26 (hairfit26)); on a file\n"
    "                      tailor rigged without it, fits it there (once: the fit's record\n"
    "                      stays in the file)\n"
    "  --hair-fit-clips A,B  the same on these clips only\n"
    "  --cloth-fit         fit a cloth's render weights to the file's clips as its lattice\n"
    "                      plays them, pulled out of the body colliders; experimental and off\n"
    "                      by default: on the shared skirt 3% less deep, and it tears\n"
    "                      (docs/cloth.md, Session 27 (skirtfit27))\n"
    "  --cloth-fit-clips A,B  the same on these clips only\n"
    "  --bake              also bake every clip (tailor bake's defaults, docs/bake.md)\n"
    "  --vrm               also write the chains as VRM spring bones (VRMC_springBone),\n"
    "                      fitted to tailor's motion on the walk clip (docs/vrm.md)\n"
    "  --pendulum NODE[:LENGTH_M]  swing joint NODE (name or index: a hood) as a pendulum, the\n"
    "                      particle LENGTH_M metres out (default: its bone's length; repeatable)\n"
    "  --aim NODE=TARGET[:MAX_DEG[:WEIGHT]]  turn joint NODE's bone toward joint TARGET (a\n"
    "                      shoulder pad), at most MAX_DEG (45) by WEIGHT (1); repeatable\n"
    "  --force             allow OUT to be IN\n";

static bool parse_float(const char* s, float* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return false;
    *out = (float)v;
    return true;
}

static bool parse_uint(const char* s, uint32_t* out) {
    char* end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > 1000000ul) return false;
    *out = (uint32_t)v;
    return true;
}

static json_t* vec3(const float* v) {
    json_t* a = json_array(); /* json_real: a non-finite value is null, never a lost field */
    for (int i = 0; i < 3; ++i)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t* part_json(const tl_rig_analysis* a, const tl_rig_part* p) {
    float H = a->skins[p->skin].height;
    json_t* o = json_object();
    json_object_set_new(o, "id", json_integer(p->id));
    json_object_set_new(o, "skin", json_integer(a->skins[p->skin].skin));
    json_object_set_new(o, "vertices", json_integer(p->vertex_count));
    json_object_set_new(o, "welded", json_integer(p->welded_count));
    json_object_set_new(o, "grown", json_integer(p->grown));
    json_object_set_new(o, "shells", json_integer(p->shells));
    json_object_set_new(o, "threshold", json_real(p->threshold));
    json_object_set_new(o, "class", json_string(tl_rig_class_string(p->cls)));
    json_object_set_new(o, "region", json_string(tl_rig_region_string(p->region)));
    json_object_set_new(o, "action", json_string(tl_rig_action_string(p->action)));
    json_object_set_new(o, "overridden", json_boolean(p->overridden));
    json_object_set_new(o, "attach_joint",
                        p->attach_joint == TL_NONE ? json_null() : json_string(p->attach_name));
    json_object_set_new(o, "attach_joint_index",
                        p->attach_joint == TL_NONE ? json_null() : json_integer(p->attach_joint));
    json_object_set_new(o, "attach_role", json_string(tl_role_string(p->attach_role)));
    json_object_set_new(o, "collar", vec3(p->collar));
    json_object_set_new(o, "reach", json_real(p->reach));
    json_object_set_new(o, "centroid_ratio", json_real(p->centroid_ratio));
    json_object_set_new(o, "elongation", json_real(p->elongation));
    json_object_set_new(o, "tube_ratio", json_real(p->tube_ratio));
    json_object_set_new(o, "length", json_real(p->length));
    json_object_set_new(o, "length_h", json_real(H > 0 ? p->length / H : 0));
    json_object_set_new(o, "misbound", json_real(p->misbound));
    json_object_set_new(o, "own_bones", json_real(p->own_bones));
    json_object_set_new(o, "bone_distance", json_real(p->bone_distance));
    json_object_set_new(o, "bone_distance_after", json_real(p->bone_distance_after));
    json_object_set_new(o, "segments",
                        json_integer(p->action == TL_RIG_ACTION_CHAIN ? p->segments : 0));
    json_t* bones = json_array();
    json_t* joints = json_array();
    if (p->action == TL_RIG_ACTION_CHAIN) {
        for (uint32_t i = 0; i <= p->segments; ++i) {
            char name[64];
            if (i < p->segments)
                snprintf(name, sizeof name, "%s_%u", p->bone_prefix, i + 1);
            else
                snprintf(name, sizeof name, "%s_End", p->bone_prefix);
            json_array_append_new(bones, json_string(name));
            json_array_append_new(joints, vec3(p->joints + 3 * i));
        }
    }
    if (p->action == TL_RIG_ACTION_CLOTH) {
        const tl_rig_cloth* c = &p->cloth;
        for (uint32_t r = 0; r + 1 < c->rows; ++r)
            for (uint32_t b = 0; b < c->bone_columns; ++b) {
                char name[64];
                snprintf(name, sizeof name, "%s_%u_%u", p->bone_prefix, r, b);
                json_array_append_new(bones, json_string(name));
            }
        json_object_set_new(o, "cloth",
                            json_pack("{s:i, s:i, s:b, s:i}", "rows", (int)c->rows, "columns",
                                      (int)c->columns, "closed", c->closed, "bones",
                                      (int)c->bone_count));
    }
    json_object_set_new(o, "bones", bones);
    json_object_set_new(o, "joints_world", joints);
    json_object_set_new(o, "reweighted", json_integer(p->new_joints ? p->vertex_count : 0));
    json_object_set_new(o, "band", json_integer(p->band_count));
    json_object_set_new(o, "band_radius", json_real(p->band_radius));
    json_object_set_new(o, "reason", json_string(p->reason));
    json_object_set_new(
        o, "fit",
        json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:f,s:f,s:f}", "free_vertices",
                  (int)p->fit.free_vertices, "fixed_vertices", (int)p->fit.fixed_vertices, "poses",
                  (int)p->fit.poses, "iterations", (int)p->fit.iterations, "joints",
                  (int)p->fit.joints, "reverted", (int)p->fit.reverted, "reached",
                  (int)p->fit.reached, "energy_before", (double)p->fit.energy_before,
                  "energy_after", (double)p->fit.energy_after, "energy_final",
                  (double)p->fit.energy_final, "seconds", (double)p->fit.seconds));
    return o;
}

/* An unskinned mesh under a torso joint; rebound: made a skinned garment and rigged as cloth. */
static json_t* unskinned_json(const tl_rig_unskinned* u, bool rebound) {
    return json_pack("{s:i,s:s,s:i,s:s,s:s,s:b}", "node", (int)u->node, "name", u->name, "skin",
                     (int)u->skin, "joint", u->joint_name, "role", tl_role_string(u->role),
                     "rebound", rebound);
}

static double num(const json_t* o, const char* key) {
    return json_number_value(json_object_get(o, key));
}

/* The play keys a file tailor rigged before lacks, which the rig writes (docs/rig.md "The
 * report"): skins given a frame, skins given body colliders, hair parts given a hit_radius,
 * skins sought a sheet; the ties found are added after the rig (play_data_ties). */
static json_t* play_data_json(const tl_rig_analysis* a) {
    json_int_t frames = 0, colliders = 0, hit_radii = 0, sheets = 0;
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        frames += a->skins[s].play_frame;
        colliders += a->skins[s].play_colliders;
        hit_radii += a->skins[s].play_hit_radii;
        sheets += a->skins[s].play_sheet;
    }
    return json_pack("{s:I, s:I, s:I, s:I}", "frame", frames, "colliders", colliders, "hit_radius",
                     hit_radii, "sheet", sheets);
}

/* The sheet ties the rig wrote on the skins that lacked a sheet, into the report. */
static void play_data_ties(json_t* report, const tl_gltf* doc, const tl_rig_analysis* a) {
    json_int_t ties = 0;
    json_t* skins = json_object_get(tl_gltf_json(doc), "skins");
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        json_t* tailor = json_object_get(
            json_object_get(json_array_get(skins, a->skins[s].skin), "extras"), "tailor");
        if (a->skins[s].play_sheet)
            ties += (json_int_t)json_array_size(json_object_get(tailor, "sheet"));
    }
    json_object_set_new(json_object_get(report, "play_data"), "sheet_ties", json_integer(ties));
}

/* "play data brought up to date: frame, colliders, hit_radius x24, sheet (1180 ties)", or
 * nothing when no key was missing. */
static void print_play_data(FILE* f, const json_t* r) {
    const json_t* p = json_object_get(r, "play_data");
    int frames = (int)num(p, "frame"), colliders = (int)num(p, "colliders"),
        hit = (int)num(p, "hit_radius"), sheets = (int)num(p, "sheet");
    if (!f || frames + colliders + hit + sheets == 0) return;
    bool dry = json_is_true(json_object_get(r, "dry_run"));
    fprintf(f, "play data %s: ",
            dry ? "to bring up to date (dry run: nothing written)" : "brought up to date");
    const char* sep = "";
    if (frames) fprintf(f, "frame%s", frames > 1 ? "s" : ""), sep = ", ";
    if (frames > 1) fprintf(f, " x%d", frames);
    if (colliders) fprintf(f, "%scolliders", sep), sep = ", ";
    if (colliders > 1) fprintf(f, " x%d", colliders);
    if (hit) fprintf(f, "%shit_radius x%d", sep, hit), sep = ", ";
    if (sheets && dry)
        fprintf(f, "%ssheet", sep);
    else if (sheets)
        fprintf(f, "%ssheet (%d ties)", sep, (int)num(p, "sheet_ties"));
    fprintf(f, "\n");
}

/* What --hair-fit did, per skin, from the record the fit wrote (docs/schema.md "hair_fit"): the
 * report's "hair_fit" list, each with "fitted": "now", or "before" for a skin an earlier
 * --hair-fit had fitted (left as it was). */
static void hair_fit_report(json_t* report, const tl_gltf* doc, const tl_rig_analysis* a) {
    json_t* list = json_array();
    json_t* skins = json_object_get(tl_gltf_json(doc), "skins");
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        json_t* rec = json_object_get(
            json_object_get(json_object_get(json_array_get(skins, a->skins[s].skin), "extras"),
                            "tailor"),
            "hair_fit");
        if (!json_is_object(rec)) continue;
        bool chained = false;
        for (uint32_t i = 0; i < a->part_count; ++i)
            chained |= a->parts[i].skin == s && a->parts[i].cls == TL_RIG_CLASS_HAIR &&
                       a->parts[i].action == TL_RIG_ACTION_CHAIN;
        json_t* o = json_deep_copy(rec);
        json_object_set_new(o, "skin", json_integer(a->skins[s].skin));
        json_object_set_new(o, "fitted",
                            json_string(a->skins[s].hair_fitted && !chained ? "before" : "now"));
        json_array_append_new(list, o);
    }
    json_object_set_new(report, "hair_fit", list);
}

/* "hair fit: skin 0: 639 vertices re-weighted over 342 poses (Walk, HeadTurn, Jump), 1621
 * collider half-spaces", per skin; "no hair chains to fit" when none. */
static void print_hair_fit(FILE* f, const json_t* r) {
    const json_t* list = json_object_get(r, "hair_fit");
    if (!f || !list) return;
    if (json_array_size(list) == 0) fprintf(f, "hair fit: no hair chains to fit\n");
    size_t i;
    const json_t* o;
    json_array_foreach(list, i, o) {
        bool before = !strcmp(json_string_value(json_object_get(o, "fitted")), "before");
        fprintf(f, "hair fit: skin %d: ", (int)num(o, "skin"));
        if (before)
            fprintf(f, "fitted before, left as it was (");
        else
            fprintf(f, "%d vertices re-weighted over %d poses (", (int)num(o, "changed"),
                    (int)num(o, "poses"));
        size_t c;
        const json_t* name;
        json_array_foreach(json_object_get(o, "clips"), c, name)
            fprintf(f, "%s%s", c ? ", " : "", json_string_value(name));
        if (before)
            fprintf(f, ")\n");
        else
            fprintf(f, "), %d collider half-spaces\n", (int)num(o, "planes"));
    }
}

static json_t* build_report(const char* in, const char* out, const tl_rig_analysis* a,
                            bool dry_run) {
    json_t* r = json_object();
    json_object_set_new(r, "file", json_string(in));
    json_object_set_new(r, "output", out && !dry_run ? json_string(out) : json_null());
    json_object_set_new(r, "mode",
                        json_string(a->def.mode == TL_RIG_MODE_RIGID ? "rigid" : "chain"));
    json_object_set_new(r, "dry_run", json_boolean(dry_run));
    json_t* skins = json_array();
    for (uint32_t s = 0; s < a->skin_count; ++s) {
        const tl_rig_skin* k = &a->skins[s];
        json_array_append_new(skins,
                              json_pack("{s:i, s:i, s:i, s:o, s:i, s:i}", "skin", k->skin,
                                        "vertices", k->vertex_count, "welded", k->welded_count,
                                        "height", json_real(k->height), "joints", k->joint_count,
                                        "new_joints", k->new_joint_count));
    }
    json_object_set_new(r, "skins", skins);
    json_t* parts = json_array();
    for (uint32_t i = 0; i < a->part_count; ++i)
        json_array_append_new(parts, part_json(a, &a->parts[i]));
    json_object_set_new(r, "parts", parts);
    json_t* unskinned = json_array();
    for (uint32_t i = 0; i < a->unskinned_count; ++i) {
        const tl_rig_unskinned* u = &a->unskinned[i];
        json_array_append_new(unskinned, unskinned_json(u, false));
    }
    json_object_set_new(r, "unskinned", unskinned);
    json_object_set_new(r, "chains", json_integer(a->chain_count));
    json_object_set_new(r, "changed_vertices", json_integer(a->changed_vertices));
    json_object_set_new(r, "play_data", play_data_json(a));
    static const char* stages[TL_RIG_STAGE_COUNT] = {"weld",      "field",   "parts",
                                                     "geodesics", "weights", "fit"};
    json_t* t = json_object();
    for (int k = 0; k < TL_RIG_STAGE_COUNT; ++k)
        json_object_set_new(t, stages[k], json_real(a->seconds[k]));
    json_object_set_new(r, "seconds", t);
    return r;
}

static void print_report(FILE* f, const json_t* r) {
    fprintf(f, "%s\n", json_string_value(json_object_get(r, "file")));
    size_t i;
    const json_t* s;
    json_array_foreach(json_object_get(r, "skins"), i, s) fprintf(
        f, "skin %d: %d vertices (%d welded), height %.4g, %d joints\n", (int)num(s, "skin"),
        (int)num(s, "vertices"), (int)num(s, "welded"), num(s, "height"), (int)num(s, "joints"));
    const json_t* parts = json_object_get(r, "parts");
    int parts_total = 0, bands_total = 0;
    if (json_array_size(parts) == 0) fprintf(f, "no far parts: every vertex lies near a bone\n");
    const json_t* p;
    json_array_foreach(parts, i, p) {
        const json_t* attach = json_object_get(p, "attach_joint");
        fprintf(f, "\npart %d: %d vertices (%d welded", (int)num(p, "id"), (int)num(p, "vertices"),
                (int)num(p, "welded"));
        if (num(p, "shells") > 1) fprintf(f, ", %d shells merged", (int)num(p, "shells"));
        if (num(p, "grown") > 0)
            fprintf(f, ", %d of them grown over the root", (int)num(p, "grown"));
        fprintf(f, "), found at %.2f H\n", num(p, "threshold"));
        fprintf(f, "  hangs from %s (%s), %s region\n",
                attach ? json_string_value(attach) : "nothing",
                json_string_value(json_object_get(p, "attach_role")),
                json_string_value(json_object_get(p, "region")));
        fprintf(f,
                "  reach %.4g  centroid ratio %.2f  elongation %.2f  tube ratio %.2f  length %.4g "
                "(%.2f H)"
                "  misbound %.0f%%\n",
                num(p, "reach"), num(p, "centroid_ratio"), num(p, "elongation"),
                num(p, "tube_ratio"), num(p, "length"), num(p, "length_h"),
                100 * num(p, "misbound"));
        fprintf(f, "  class %s%s: %s\n", json_string_value(json_object_get(p, "class")),
                json_is_true(json_object_get(p, "overridden")) ? " (set by --part)" : "",
                json_string_value(json_object_get(p, "reason")));
        const char* action = json_string_value(json_object_get(p, "action"));
        if (!strcmp(action, "chain")) {
            const json_t* bones = json_object_get(p, "bones");
            size_t n = json_array_size(bones);
            fprintf(f, "  action: chain built, %d bones %s..%s + %s; bone distance %.4g -> %.4g\n",
                    (int)num(p, "segments"), json_string_value(json_array_get(bones, 0)),
                    json_string_value(json_array_get(bones, n - 2)),
                    json_string_value(json_array_get(bones, n - 1)), num(p, "bone_distance"),
                    num(p, "bone_distance_after"));
        } else if (!strcmp(action, "rigid")) {
            fprintf(f, "  action: re-weighted rigid to %s; bone distance %.4g -> %.4g\n",
                    attach ? json_string_value(attach) : "?", num(p, "bone_distance"),
                    num(p, "bone_distance_after"));
        } else if (!strcmp(action, "cloth")) {
            const json_t* c = json_object_get(p, "cloth");
            const json_t* bones = json_object_get(p, "bones");
            fprintf(f, "  action: cloth lattice %d x %d (%s), %d bones %s..%s\n",
                    (int)num(c, "rows"), (int)num(c, "columns"),
                    json_is_true(json_object_get(c, "closed")) ? "closed" : "open",
                    (int)num(c, "bones"), json_string_value(json_array_get(bones, 0)),
                    json_string_value(json_array_get(bones, json_array_size(bones) - 1)));
        }
        if (!strcmp(action, "chain") || !strcmp(action, "rigid") || !strcmp(action, "cloth")) {
            /* the part (its grown root included) and the body skin of its root band: the
               total line below adds these up */
            int part = (int)num(p, "reweighted"), band = (int)num(p, "band");
            fprintf(f, "  re-weighted: %d part + %d root band = %d vertices\n", part, band,
                    part + band);
            parts_total += part, bands_total += band;
        } else if (!strcmp(action, "already_rigged")) {
            fprintf(f, "  action: left as already rigged (%.0f%% of its weight on its own bones)\n",
                    100 * num(p, "own_bones"));
        } else {
            fprintf(f, "  action: reported only\n");
        }
    }
    json_array_foreach(json_object_get(r, "unskinned"), i, s) {
        fprintf(f, "\nunskinned mesh %s (node %d) under %s (%s): %s\n",
                json_string_value(json_object_get(s, "name")), (int)num(s, "node"),
                json_string_value(json_object_get(s, "joint")),
                json_string_value(json_object_get(s, "role")),
                json_is_true(json_object_get(s, "rebound"))
                    ? "rebound to that joint as a skinned mesh, rigged as its cloth part above"
                    : "a cloth candidate, left as it is (a mesh other nodes share, or one with "
                      "weights or morph targets)");
    }
    fprintf(f, "\n%d chain(s), %d vertices re-weighted (%d in parts + %d in root bands)%s\n",
            (int)num(r, "chains"), (int)num(r, "changed_vertices"), parts_total, bands_total,
            json_is_true(json_object_get(r, "dry_run")) ? " (dry run: nothing written)" : "");
}

typedef struct tears_user {
    tl_player* player;
    uint32_t clip;
} tears_user;

static void tears_hook(void* user, tl_pose* pose, float time) {
    tears_user* u = user;
    tl_player_advance(u->player, pose, u->clip, time);
}

/* The report's "new_torn_pct" per rigged part and clip (measure.md "New tears"): the rigged
 * document against the input file, chains simulated. */
static int add_new_tears(json_t* report, const char* in, const tl_gltf* rigged,
                         const tl_rig_analysis* rig) {
    tl_error err;
    tl_gltf* before_doc = NULL;
    tl_scene *before = NULL, *after = NULL;
    tl_player* player = NULL;
    tl_play_chain chains[64];
    uint32_t chain_count = 0;
    uint8_t* mask = NULL;
    int code = 1;
    tl_player_def pdef = tl_default_player_def();
    if (tl_gltf_load(in, &before_doc, &err) || tl_scene_create(before_doc, &before, &err) ||
        tl_scene_create(rigged, &after, &err) ||
        tl_play_chains_find(after, chains, 64, &chain_count, &err) ||
        (chain_count && chain_count <= 64 &&
         tl_player_create(after, chains, chain_count, &pdef, &player, &err))) {
        tl_cli_fail("rig", "%s (new tears)", err.message);
        goto done;
    }
    tl_measure_def mdef = tl_default_measure_def();
    json_t* parts = json_object_get(report, "parts");
    for (uint32_t i = 0; player && i < rig->part_count; ++i) {
        const tl_rig_part* p = &rig->parts[i];
        if (p->action != TL_RIG_ACTION_CHAIN) continue;
        uint32_t V = before->skins[p->skin].vertex_count;
        free(mask);
        if (!(mask = calloc(V + 1, 1))) {
            tl_cli_fail("rig", "out of memory");
            goto done;
        }
        for (uint32_t k = 0; k < p->vertex_count; ++k)
            mask[p->vertices[k]] = 1;
        for (uint32_t k = 0; k < p->band_count; ++k)
            mask[p->band_vertices[k]] = 1;
        json_t* by_clip = json_object();
        for (uint32_t c = 0; c < before->clip_count; ++c) {
            tears_user u = {player, c};
            tl_new_tears t;
            tl_player_start(player, c, 0);
            if (tl_measure_new_tears(before, after, p->skin, mask, c, &mdef, tears_hook, &u, &t,
                                     &err)) {
                json_decref(by_clip);
                tl_cli_fail("rig", "%s (new tears)", err.message);
                goto done;
            }
            json_object_set_new(by_clip, before->clips[c].name, json_real(t.new_torn_pct));
        }
        json_object_set_new(json_array_get(parts, i), "new_torn_pct", by_clip);
    }
    code = 0;
done:
    free(mask);
    tl_player_destroy(player);
    tl_scene_destroy(after);
    tl_scene_destroy(before);
    tl_gltf_destroy(before_doc);
    return code;
}

/* --fit-skip names to clip bits of def.junction_skip. */
static tl_result tl_cli_rig_skips(const tl_scene* scene, const char** names, int count,
                                  tl_rig_def* def, tl_error* err) {
    for (int k = 0; k < count; ++k) {
        uint32_t clip;
        tl_result r = tl_scene_find_clip(scene, names[k], &clip, err);
        if (r != TL_OK) return r;
        if (clip < 64) def->junction_skip |= (uint64_t)1 << clip;
    }
    return TL_OK;
}

int tl_cli_rig_option(const char* cmd, int argc, char** argv, int* index, tl_rig_def* def) {
    int i = *index;
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    float* fp = !strcmp(a, "--far")          ? &def->far
                : !strcmp(a, "--limb-ratio") ? &def->limb_ratio
                : !strcmp(a, "--elongation") ? &def->elongation
                : !strcmp(a, "--segment")    ? &def->segment
                : !strcmp(a, "--root-band")  ? &def->root_band
                : !strcmp(a, "--overlap")    ? &def->overlap
                                             : NULL;
    uint32_t* up = !strcmp(a, "--min-links")   ? &def->min_links
                   : !strcmp(a, "--max-links") ? &def->max_links
                                               : NULL;
    if (fp || up) {
        if (!v || (fp ? !parse_float(v, fp) : !parse_uint(v, up)))
            return tl_cli_fail(cmd, "%s needs a number (see --help)", a), -1;
        *index = i + 1;
    } else if (!strcmp(a, "--mode") && v) {
        *index = i + 1;
        if (!strcmp(v, "chain"))
            def->mode = TL_RIG_MODE_CHAIN;
        else if (!strcmp(v, "rigid"))
            def->mode = TL_RIG_MODE_RIGID;
        else
            return tl_cli_fail(cmd, "--mode is chain or rigid, not \"%s\"", v), -1;
    } else if (!strcmp(a, "--part") && v) {
        *index = i + 1;
        const char* eq = strchr(v, '=');
        char idbuf[16];
        uint32_t id;
        if (!eq || eq - v >= (ptrdiff_t)sizeof idbuf)
            return tl_cli_fail(cmd, "--part wants ID=CLASS, not \"%s\"", v), -1;
        memcpy(idbuf, v, (size_t)(eq - v));
        idbuf[eq - v] = 0;
        tl_rig_class cls;
        if (!strcmp(eq + 1, "chain") || !strcmp(eq + 1, "tail"))
            cls = TL_RIG_CLASS_TAIL;
        else if (!strcmp(eq + 1, "rigid"))
            cls = TL_RIG_CLASS_RIGID;
        else if (!strcmp(eq + 1, "none"))
            cls = TL_RIG_CLASS_NONE;
        else
            return tl_cli_fail(cmd, "--part %s: the class is chain, rigid or none", v), -1;
        if (!parse_uint(idbuf, &id))
            return tl_cli_fail(cmd, "--part %s: the id is a part number", v), -1;
        if (def->override_count == TL_RIG_MAX_OVERRIDES)
            return tl_cli_fail(cmd, "at most %d --part options", TL_RIG_MAX_OVERRIDES), -1;
        def->overrides[def->override_count++] = (tl_rig_override){id, cls};
    } else if (!strcmp(a, "--fix-rigid"))
        def->fix_rigid = true;
    else if (!strcmp(a, "--no-grow"))
        def->grow = false;
    else if (!strcmp(a, "--no-fit"))
        def->junction_fit = false;
    else if (!strcmp(a, "--hair-fit"))
        def->hair_fit = true;
    else if (!strcmp(a, "--hair-fit-clips") && v)
        def->hair_fit = true, def->hair_fit_clips = v, *index = i + 1;
    else if (!strcmp(a, "--cloth-fit"))
        def->cloth_fit = true;
    else if (!strcmp(a, "--cloth-fit-clips") && v)
        def->cloth_fit = true, def->cloth_fit_clips = v, *index = i + 1;
    else
        return 0;
    return 1;
}

/* After the rig: the chain joints' nodes at the settled rest (docs/bake.md), and with --bake
 * every clip baked. 0 or an exit code. */
static int rig_finish(tl_gltf* doc, bool bake) {
    if (bake) {
        json_t* report = NULL;
        tl_bake_def def = tl_default_bake_def();
        int code = tl_cli_bake_document("rig", doc, "all", &def, &report);
        json_decref(report);
        return code;
    }
    tl_error err;
    if (tl_bake_rest_document(doc, &err) != TL_OK) return tl_cli_fail("rig", "%s", err.message);
    return 0;
}

int tl_cli_rig(int argc, char** argv) {
    const char *in = NULL, *out = NULL, *report_path = NULL;
    bool dry_run = false, force = false, bake = false, fix_skeleton = false, vrm = false,
         as_json = false;
    tl_rig_def def = tl_default_rig_def();
    const char* skips[64];
    int skip_count = 0;
    const char* joint_specs[64];
    bool joint_aims[64];
    int joint_count = 0;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int known = tl_cli_rig_option("rig", argc, argv, &i, &def);
        if (known < 0) return 2;
        if (known) continue;
        if (tl_cli_is_help(a)) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "-o") && v)
            out = argv[++i];
        else if (!strcmp(a, "--report") && v)
            report_path = argv[++i];
        else if (!strcmp(a, "--json"))
            as_json = true;
        else if (!strcmp(a, "--dry-run"))
            dry_run = true;
        else if (!strcmp(a, "--fit-skip") && v && skip_count < 64)
            skips[skip_count++] = argv[++i];
        else if ((!strcmp(a, "--pendulum") || !strcmp(a, "--aim")) && v && joint_count < 64) {
            joint_aims[joint_count] = !strcmp(a, "--aim");
            joint_specs[joint_count++] = argv[++i];
        } else if (!strcmp(a, "--force"))
            force = true;
        else if (!strcmp(a, "--bake"))
            bake = true;
        else if (!strcmp(a, "--vrm"))
            vrm = true;
        else if (!strcmp(a, "--fix-skeleton"))
            fix_skeleton = true;
        else if (a[0] != '-' && !in)
            in = a;
        else
            return tl_cli_fail("rig", "unknown argument \"%s\" (see --help)", a), 2;
    }
    if (!in || (!out && !dry_run)) return tl_cli_fail("rig", "expected IN -o OUT (see --help)"), 2;
    if (as_json && report_path && !tl_cli_is_stdout(report_path))
        return tl_cli_fail("rig", "--json is --report -; give one of them"), 2;
    if (as_json) report_path = "-";
    tl_error err;
    if (tl_rig_def_check(&def, &err) != TL_OK) return tl_cli_fail("rig", "%s", err.message), 2;
    int code = tl_cli_check_outputs("rig", in, NULL, force, dry_run ? NULL : out, report_path);
    if (code) return code;
    /* The summary goes where the data does not: stdout, stderr under -o -, none for JSON. */
    FILE* summary = tl_cli_is_stdout(report_path) ? NULL : tl_cli_is_stdout(out) ? stderr : stdout;

    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_rig_analysis* rig = NULL;
    json_t* report = NULL;
    json_t* rebound = json_array(); /* the meshes rebound, as the first analysis saw them */
    code = 1;
    if (tl_gltf_load(in, &doc, &err) != TL_OK || tl_scene_create(doc, &scene, &err) != TL_OK ||
        tl_cli_rig_skips(scene, skips, skip_count, &def, &err) != TL_OK ||
        tl_rig_analyze(scene, &def, &rig, &err) != TL_OK) {
        tl_cli_fail("rig", "%s", err.message);
        goto done;
    }
    if (def.cloth && rig->unskinned_count) {
        /* a cape modelled apart: rebound to its torso joint, then analysed as part of the skin */
        uint32_t converted = 0;
        if (tl_rig_skin_unskinned(doc, scene, rig, &def, &converted, &err) != TL_OK) {
            tl_cli_fail("rig", "%s: %s", in, err.message);
            goto done;
        }
        for (uint32_t i = 0; i < rig->unskinned_count; ++i)
            for (uint32_t g = 0; g < def.garment_node_count; ++g)
                if (def.garment_nodes[g] == rig->unskinned[i].node)
                    json_array_append_new(rebound, unskinned_json(&rig->unskinned[i], true));
        if (converted) {
            tl_rig_analysis_destroy(rig);
            rig = NULL;
            tl_scene_destroy(scene);
            scene = NULL;
            if (tl_scene_create(doc, &scene, &err) != TL_OK ||
                tl_cli_rig_skips(scene, skips, skip_count, &def, &err) != TL_OK ||
                tl_rig_analyze(scene, &def, &rig, &err) != TL_OK) {
                tl_cli_fail("rig", "%s: %s (after rebinding unskinned meshes)", in, err.message);
                goto done;
            }
            if (summary)
                fprintf(summary, "%u unskinned mesh(es) rebound to their torso joint\n", converted);
        }
    }
    for (uint32_t o = 0; o < def.override_count; ++o)
        if (def.overrides[o].part >= rig->part_count) {
            tl_cli_fail("rig", "%s: --part %u: the file has %u part(s)", in, def.overrides[o].part,
                        rig->part_count);
            code = 2;
            goto done;
        }
    report = build_report(in, out, rig, dry_run);
    json_array_extend(json_object_get(report, "unskinned"), rebound);
    if (summary) print_report(summary, report);
    if (dry_run) print_play_data(summary, report);
    char* report_text = NULL;
    if (!dry_run) {
        tl_scene_destroy(scene); /* the document is reindexed by apply */
        scene = NULL;
        if (tl_rig_apply(doc, rig, &err) != TL_OK) {
            tl_cli_fail("rig", "%s", err.message);
            goto done;
        }
        play_data_ties(report, doc, rig);
        print_play_data(summary, report);
        if (rig->def.hair_fit) hair_fit_report(report, doc, rig), print_hair_fit(summary, report);
        if (report_path && add_new_tears(report, in, doc, rig) != 0) goto done;
        uint32_t fixed = 0;
        if (fix_skeleton && tl_gltf_fix_skeletons(doc, &fixed, &err) != TL_OK) {
            tl_cli_fail("rig", "%s", err.message);
            goto done;
        }
        if (fixed && summary) fprintf(summary, "%u skin skeleton(s) repaired\n", fixed);
        if ((code = tl_cli_rig_joint_parts(doc, joint_specs, joint_aims, joint_count, summary)))
            goto done;
        if ((code = rig_finish(doc, bake))) goto done;
        if (vrm && (code = tl_cli_vrm_document("rig", doc, report, summary))) goto done;
    }
    if (tl_cli_nonfinite_count)
        fprintf(stderr,
                "tailor rig: %s: %u value(s) of the report came out non-finite and are null\n", in,
                tl_cli_nonfinite_count);
    if (report_path &&
        !(report_text = json_dumps(report, JSON_INDENT(1) | JSON_REAL_PRECISION(9)))) {
        tl_cli_fail("rig", "%s: cannot serialise the report", report_path);
        goto done;
    }
    /* The glTF and the report are one output: both are renamed into place, or neither; the
       data the rig replaced is dropped (compact). */
    code =
        tl_cli_write("rig", dry_run ? NULL : doc, in, out, force, true, report_path, report_text);
    free(report_text);
done:
    json_decref(rebound);
    json_decref(report);
    tl_rig_analysis_destroy(rig);
    tl_scene_destroy(scene);
    tl_gltf_destroy(doc);
    return code;
}
