/* tl_scene_find_clip: a clip by the name a person types, and a suggestion when none fits. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <tailor/scene.h>

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_COMPARED 255 /* longer names are compared on their first 255 bytes */

/* The part after the last '|' ("AnimalArmature|Walk" -> "Walk"), or the name. */
static const char* short_name(const char* name) {
    const char* bar = strrchr(name, '|');
    return bar ? bar + 1 : name;
}

/* Levenshtein distance, case-insensitive (ASCII), on at most NAME_MAX_COMPARED bytes each. */
static unsigned edit_distance(const char* a, const char* b) {
    size_t n = strnlen(a, NAME_MAX_COMPARED), m = strnlen(b, NAME_MAX_COMPARED);
    unsigned row[NAME_MAX_COMPARED + 1];
    for (size_t j = 0; j <= m; ++j)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= n; ++i) {
        unsigned diagonal = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= m; ++j) {
            unsigned up = row[j];
            bool same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            unsigned best = diagonal + (same ? 0u : 1u);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diagonal = up;
            row[j] = best;
        }
    }
    return row[m];
}

static size_t common_prefix(const char* a, const char* b) {
    size_t k = 0;
    while (a[k] && b[k] && tolower((unsigned char)a[k]) == tolower((unsigned char)b[k]))
        ++k;
    return k;
}

/* Whether `needle` occurs in `hay`, case-insensitive. */
static bool contains(const char* hay, const char* needle) {
    size_t n = strlen(needle);
    for (; *hay; ++hay)
        if (!strncasecmp(hay, needle, n)) return true;
    return n == 0;
}

/* The clip a person most likely meant, or -1 when none is close: the names holding what was
 * typed come first, then those within about half its length in edits; among them the fewest
 * edits (to the full or the short name) win, then the longest common start, then the first. */
static int32_t closest_clip(const tl_scene* scene, const char* name) {
    int32_t best = -1;
    bool best_holds = false;
    unsigned best_distance = 0;
    size_t best_prefix = 0;
    size_t typed = strlen(name);
    unsigned close = typed / 2 > 2 ? (unsigned)(typed / 2) : 2;
    for (uint32_t c = 0; c < scene->clip_count; ++c) {
        const char *full = scene->clips[c].name, *brief = short_name(full);
        unsigned d = edit_distance(name, brief), d_full = edit_distance(name, full);
        if (d_full < d) d = d_full;
        size_t prefix = common_prefix(name, brief);
        bool holds = contains(full, name);
        if (!holds && d > close) continue;
        bool better = best < 0 || (holds && !best_holds) ||
                      (holds == best_holds &&
                       (d < best_distance || (d == best_distance && prefix > best_prefix)));
        if (better) {
            best = (int32_t)c;
            best_holds = holds;
            best_distance = d;
            best_prefix = prefix;
        }
    }
    return best;
}

static const char* doc_label(const tl_gltf* doc) {
    if (!doc || !doc->path || !*doc->path) return "<memory>";
    const char* slash = strrchr(doc->path, '/');
    return slash ? slash + 1 : doc->path;
}

/* "\"A\", \"B\", ..." of the clips (all, or those equal to `name` ignoring case) in at most
 * `size` bytes, ending in "..." when cut. */
static void clip_list(const tl_scene* scene, const char* name, char* list, size_t size) {
    size_t used = 0;
    list[0] = 0;
    for (uint32_t c = 0; c < scene->clip_count && used + 1 < size; ++c) {
        const char* n = scene->clips[c].name;
        if (name && strcasecmp(n, name) && strcasecmp(short_name(n), name)) continue;
        int w = snprintf(list + used, size - used, "%s\"%s\"", used ? ", " : "", n);
        if (w < 0) break;
        used += (size_t)w;
    }
    if (used >= size && size > 4) strcpy(list + size - 4, "...");
}

tl_result tl_scene_find_clip(const tl_scene* scene, const char* name, uint32_t* out_clip,
                             tl_error* err) {
    assert(scene && name && out_clip);
    /* exact, then the short name, then both ignoring case (only when one clip answers) */
    for (int pass = 0; pass < 4; ++pass) {
        int32_t found = -1;
        uint32_t matches = 0;
        for (uint32_t c = 0; c < scene->clip_count; ++c) {
            const char* n = pass % 2 == 0 ? scene->clips[c].name : short_name(scene->clips[c].name);
            bool hit = pass < 2 ? !strcmp(n, name) : !strcasecmp(n, name);
            if (hit && found < 0) found = (int32_t)c;
            matches += hit;
        }
        if (found >= 0 && (pass < 2 || matches == 1)) {
            *out_clip = (uint32_t)found;
            return TL_OK;
        }
        if (matches > 1) {
            char list[400];
            clip_list(scene, name, list, sizeof list);
            return tl_error_set(err, TL_ERROR_NOT_FOUND,
                                "%s: clip \"%s\" is ambiguous ignoring case (%s); give its exact "
                                "name",
                                doc_label(scene->doc), name, list);
        }
    }
    char list[400], hint[300] = "";
    int32_t guess = closest_clip(scene, name);
    if (guess >= 0)
        snprintf(hint, sizeof hint, "; did you mean \"%.200s\"?", scene->clips[guess].name);
    clip_list(scene, NULL, list, sizeof list - strlen(hint));
    return tl_error_set(err, TL_ERROR_NOT_FOUND, "%s: no clip named \"%s\"%s (clips: %s)",
                        doc_label(scene->doc), name, hint, scene->clip_count ? list : "none");
}
