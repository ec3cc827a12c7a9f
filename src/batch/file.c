/* One file of a batch: hash, load, rig, optionally measure, write; everything in its record. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tailor/bake.h>
#include <tailor/gltf.h>
#include <tailor/measure.h>
#include <tailor/scene.h>

tl_batch_def tl_default_batch_def(void) {
    tl_batch_def def = {0};
    def.rig = tl_default_rig_def();
    def.threads = 1;
    return def;
}

static void copy(char* dst, size_t size, const char* src, size_t n) {
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

void batch_record_error(tl_batch_record* rec, const char* input, const tl_error* err) {
    rec->ok = false;
    rec->result = err->result == TL_OK ? TL_ERROR_IO : err->result;
    const char* m = err->message;
    size_t in = strlen(input);
    const char* rest = m;
    if (!strncmp(m, input, in) && !strncmp(m + in, ": ", 2)) {
        copy(rec->error_file, sizeof rec->error_file, input, in);
        rest = m + in + 2;
    } else if ((rest = strstr(m, ": ")) != NULL) {
        copy(rec->error_file, sizeof rec->error_file, m, (size_t)(rest - m));
        rest += 2;
    } else {
        copy(rec->error_file, sizeof rec->error_file, input, in);
        rest = m;
    }
    rec->error_pointer[0] = 0;
    const char* colon = strstr(rest, ": ");
    if (colon && (rest[0] == '/' || !strncmp(rest, "byte ", 5))) {
        copy(rec->error_pointer, sizeof rec->error_pointer, rest, (size_t)(colon - rest));
        rest = colon + 2;
    }
    copy(rec->error_message, sizeof rec->error_message, rest, strlen(rest));
}

tl_result batch_make_parents(const char* path, tl_error* err) {
    char buf[2 * TL_BATCH_PATH_MAX + 8];
    size_t n = strlen(path);
    if (n >= sizeof buf) return tl_error_set(err, TL_ERROR_LIMIT, "%s: path too long", path);
    memcpy(buf, path, n + 1);
    for (char* p = buf + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            tl_result r = tl_error_set(err, TL_ERROR_IO, "%s: %s", buf, strerror(errno));
            *p = '/';
            return r;
        }
        *p = '/';
    }
    return TL_OK;
}

void batch_remove_stale_temps(const char* output) {
    const char* slash = strrchr(output, '/');
    char dir[2 * TL_BATCH_PATH_MAX + 8];
    if (slash)
        copy(dir, sizeof dir, output, (size_t)(slash - output + (slash == output)));
    else
        strcpy(dir, ".");
    DIR* d = opendir(dir);
    if (!d) return;
    struct dirent* e;
    while ((e = readdir(d))) {
        /* the writer's temporaries are .tl-PID-N.tmp (tailor/output.h): stale when that
           process is gone (a killed run); a live writer's are left alone */
        long pid = 0;
        unsigned counter = 0;
        int end = 0;
        if (sscanf(e->d_name, ".tl-%ld-%u.tmp%n", &pid, &counter, &end) != 2 ||
            e->d_name[end] != 0 || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[sizeof dir + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    closedir(d);
}

tl_result tl_batch_write_output(const tl_gltf* doc, const char* input, const char* output,
                                tl_error* err) {
    struct stat si, so;
    if (stat(input, &si) == 0 && stat(output, &so) == 0 && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino)
        return tl_error_set(err, TL_ERROR_EXISTS, "%s: is the input; a batch never replaces it",
                            output);
    tl_gltf_save_def save = tl_default_gltf_save_def();
    save.overwrite = true;
    save.compact = true; /* as tailor rig: the data the rig replaced is dropped */
    return tl_gltf_save(doc, output, &save, err);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void record_parts(tl_batch_record* rec, const tl_rig_analysis* a) {
    rec->part_count = a->part_count;
    rec->chains = a->chain_count;
    rec->changed_vertices = a->changed_vertices;
    for (uint32_t s = 0; s < a->skin_count; ++s)
        rec->bones_added += a->skins[s].new_joint_count;
    for (uint32_t i = 0; i < a->part_count; ++i) {
        const tl_rig_part* p = &a->parts[i];
        rec->parts_by_class[p->cls]++;
        if (i >= TL_BATCH_MAX_PARTS) continue;
        tl_batch_part* q = &rec->parts[i];
        q->id = p->id;
        q->cls = p->cls;
        q->action = p->action;
        q->bones = p->action == TL_RIG_ACTION_CHAIN   ? p->segments + 1
                   : p->action == TL_RIG_ACTION_CLOTH ? p->cloth.bone_count
                                                      : 0;
        q->bone_distance = p->bone_distance;
        q->bone_distance_after = p->bone_distance_after;
    }
}

/* Edge stretch per part on the first clip: as the file was and with the chains simulated
 * (the measurement module's own in-memory rig of the same def, tl_measure_rigs). */
static tl_result record_stretch(tl_batch_record* rec, const tl_scene* scene, const tl_rig_def* def,
                                tl_error* err) {
    if (scene->clip_count == 0) return TL_OK;
    tl_measure_rigs_def rdef = tl_default_measure_rigs_def();
    rdef.rig = *def;
    tl_measure_rigs* rigs = NULL;
    tl_measure_run* run = NULL;
    tl_result r = tl_measure_rigs_create(scene, &rdef, &rigs, err);
    tl_measure_run_def mdef = tl_default_measure_run_def();
    mdef.skin = tl_measure_default_skin(scene);
    if (r == TL_OK) r = tl_measure_run_create(rigs, &mdef, &run, err);
    tl_measure_clip* clip = r == TL_OK ? malloc(sizeof *clip) : NULL;
    if (r == TL_OK && !clip) r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    if (r == TL_OK) r = tl_measure_run_clip(run, 0, clip, err);
    if (r == TL_OK) {
        bool chain = rigs->rigs[TL_MEASURE_CHAIN].used;
        for (uint32_t k = 0; k < run->region_count; ++k) {
            int32_t part = run->regions[k].part;
            if (part < 0 || part >= TL_BATCH_MAX_PARTS || (uint32_t)part >= rec->part_count)
                continue;
            tl_batch_part* q = &rec->parts[part];
            q->stretch_measured = true;
            q->stretch_p99 = clip->stats[run->first][k].p99;
            q->new_torn_pct = clip->new_tears[k].count ? clip->new_tears[k].new_torn_pct : -1;
            q->stretch_p99_after = chain && run->regions[k].changed
                                       ? clip->stats[TL_MEASURE_CHAIN][k].p99
                                       : q->stretch_p99;
        }
    }
    free(clip);
    tl_measure_run_destroy(run);
    tl_measure_rigs_destroy(rigs);
    return r;
}

static tl_result rig_document(tl_batch_record* rec, const char* in, const char* out,
                              const tl_batch_def* def, tl_error* err) {
    tl_gltf* doc = NULL;
    tl_scene* scene = NULL;
    tl_rig_analysis* rig = NULL;
    tl_result r = tl_gltf_load(in, &doc, err);
    if (r == TL_OK) r = tl_scene_create(doc, &scene, err);
    if (r == TL_OK) r = tl_rig_analyze(scene, &def->rig, &rig, err);
    if (r == TL_OK) record_parts(rec, rig);
    if (r == TL_OK && def->stretch) r = record_stretch(rec, scene, &def->rig, err);
    tl_scene_destroy(scene); /* apply reindexes the document */
    if (r == TL_OK) r = tl_rig_apply(doc, rig, err);
    if (r == TL_OK) r = tl_bake_rest_document(doc, err); /* as tailor rig: the settled rest */
    if (r == TL_OK) r = batch_make_parents(out, err);
    if (r == TL_OK) {
        if (def->resume) batch_remove_stale_temps(out);
        r = tl_batch_write_output(doc, in, out, err);
    }
    tl_rig_analysis_destroy(rig);
    tl_gltf_destroy(doc);
    return r;
}

tl_result tl_batch_rig_file(const char* root, const char* relative, const tl_batch_def* def,
                            tl_batch_record* rec) {
    assert(def->out_dir && relative);
    double t0 = now();
    memset(rec, 0, sizeof *rec);
    copy(rec->input, sizeof rec->input, relative, strlen(relative));
    char in[2 * TL_BATCH_PATH_MAX + 8], out[2 * TL_BATCH_PATH_MAX + 8];
    snprintf(in, sizeof in, "%s/%s", root, relative);
    snprintf(out, sizeof out, "%s/%s", def->out_dir, relative);
    tl_error err = {0};
    tl_result r = tl_batch_sha256_file(in, rec->sha256, &err);
    if (r == TL_OK) r = rig_document(rec, in, out, def, &err);
    rec->seconds = now() - t0;
    if (r != TL_OK) {
        /* the numbers of a failed file say nothing: the record keeps input, hash, error */
        char sha[65];
        memcpy(sha, rec->sha256, sizeof sha);
        double seconds = rec->seconds;
        memset(rec, 0, sizeof *rec);
        copy(rec->input, sizeof rec->input, relative, strlen(relative));
        memcpy(rec->sha256, sha, sizeof sha);
        rec->seconds = seconds;
        batch_record_error(rec, in, &err);
        return rec->result;
    }
    rec->ok = true;
    copy(rec->output, sizeof rec->output, relative, strlen(relative));
    return TL_OK;
}
