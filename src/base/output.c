/* The one writer (tailor/output.h): every part to a temporary file beside its target, all
 * renamed only once every part is complete. */
#define _POSIX_C_SOURCE 200809L
#include "base/output.h"
#include "base/try.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct file_id {
    uint64_t dev, ino;
    char* label; /* the path it was protected as, for messages */
} file_id;

typedef struct part {
    char* path; /* the target as given */
    char* temp; /* the temporary file beside it; NULL once renamed or removed */
    file_id dir;
    char* base; /* the target's name inside dir */
    bool overwrite;
} part;

struct tl_output {
    file_id* protected_files;
    uint32_t protected_count, protected_capacity;
    part* parts;
    uint32_t part_count, part_capacity;
    bool committed;
};

/* Per process: a temporary name is never reused, by this output or another. */
static atomic_uint temp_counter;

tl_result tl_output_create(tl_output** out, tl_error* err) {
    *out = calloc(1, sizeof **out);
    return *out ? TL_OK : tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
}

static void part_discard(part* p) {
    if (p->temp) unlink(p->temp);
    free(p->temp);
    p->temp = NULL;
}

void tl_output_destroy(tl_output* o) {
    if (!o) return;
    for (uint32_t i = 0; i < o->part_count; ++i) {
        part_discard(&o->parts[i]);
        free(o->parts[i].path);
        free(o->parts[i].base);
    }
    for (uint32_t i = 0; i < o->protected_count; ++i)
        free(o->protected_files[i].label);
    free(o->parts);
    free(o->protected_files);
    free(o);
}

uint32_t tl_output_part_count(const tl_output* o) {
    return o->part_count;
}

tl_result tl_output_protect_id(tl_output* o, uint64_t dev, uint64_t ino, const char* label,
                               tl_error* err) {
    for (uint32_t i = 0; i < o->protected_count; ++i)
        if (o->protected_files[i].dev == dev && o->protected_files[i].ino == ino) return TL_OK;
    if (o->protected_count == o->protected_capacity) {
        uint32_t cap = o->protected_capacity ? 2 * o->protected_capacity : 4;
        file_id* grown = realloc(o->protected_files, cap * sizeof *grown);
        if (!grown) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        o->protected_files = grown;
        o->protected_capacity = cap;
    }
    char* copy = strdup(label ? label : "");
    if (!copy) return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    o->protected_files[o->protected_count++] = (file_id){dev, ino, copy};
    return TL_OK;
}

tl_result tl_output_protect(tl_output* o, const char* path, tl_error* err) {
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT
                   ? TL_OK
                   : tl_error_set(err, TL_ERROR_IO, "%s: cannot stat: %s", path, strerror(errno));
    return tl_output_protect_id(o, (uint64_t)st.st_dev, (uint64_t)st.st_ino, path, err);
}

/* The folder part of a path ("." for a bare name) and the name after it. */
static tl_result split_path(const char* path, char** dir, char** base, tl_error* err) {
    const char* slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) : 1;
    *dir = malloc(dir_len + 2);
    *base = strdup(slash ? slash + 1 : path);
    if (!*dir || !*base) {
        free(*dir), free(*base);
        return tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    }
    if (!slash)
        strcpy(*dir, ".");
    else if (slash == path)
        strcpy(*dir, "/");
    else
        memcpy(*dir, path, dir_len), (*dir)[dir_len] = '\0';
    if (!(*base)[0] || !strcmp(*base, ".") || !strcmp(*base, "..")) {
        free(*dir), free(*base);
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: not a file name", path);
    }
    return TL_OK;
}

/* What may stand at the target now: nothing, or a regular file that is no input. */
static tl_result check_target(const tl_output* o, const part* p, tl_error* err) {
    struct stat st;
    if (stat(p->path, &st) != 0) {
        if (errno == ENOENT) return TL_OK;
        return tl_error_set(err, TL_ERROR_IO, "%s: cannot stat: %s", p->path, strerror(errno));
    }
    for (uint32_t i = 0; i < o->protected_count; ++i)
        if (o->protected_files[i].dev == (uint64_t)st.st_dev &&
            o->protected_files[i].ino == (uint64_t)st.st_ino)
            return tl_error_set(err, TL_ERROR_EXISTS,
                                "%s: is the input %s (the same file); not replaced", p->path,
                                o->protected_files[i].label);
    if (!S_ISREG(st.st_mode))
        return tl_error_set(err, TL_ERROR_IO,
                            "%s: exists and is not a regular file (%s); not "
                            "replaced",
                            p->path,
                            S_ISDIR(st.st_mode)    ? "a folder"
                            : S_ISCHR(st.st_mode)  ? "a character device"
                            : S_ISBLK(st.st_mode)  ? "a block device"
                            : S_ISFIFO(st.st_mode) ? "a FIFO"
                            : S_ISSOCK(st.st_mode) ? "a socket"
                                                   : "a special file");
    if (!p->overwrite)
        return tl_error_set(err, TL_ERROR_EXISTS, "%s: exists (overwriting was not asked for)",
                            p->path);
    return TL_OK;
}

static tl_result write_all(int fd, const uint8_t* data, size_t size) {
    while (size > 0) {
        size_t chunk = size > ((size_t)1 << 30) ? (size_t)1 << 30 : size;
        ssize_t n = write(fd, data, chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return TL_ERROR_IO;
        }
        data += n;
        size -= (size_t)n;
    }
    return TL_OK;
}

/* Creates a new temporary file in `dir`, never an existing one (O_EXCL). */
static int create_temp(const char* dir, char** out_name) {
    size_t n = strlen(dir) + 48;
    char* name = malloc(n);
    if (!name) return errno = ENOMEM, -1;
    for (int attempt = 0; attempt < 100; ++attempt) {
        snprintf(name, n, "%s/.tl-%ld-%u.tmp", dir, (long)getpid(),
                 atomic_fetch_add(&temp_counter, 1));
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *out_name = name;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    free(name);
    return -1;
}

tl_result tl_output_add(tl_output* o, const char* path, const void* data, size_t size,
                        bool overwrite, tl_error* err) {
    if (o->committed)
        return tl_error_set(err, TL_ERROR_ARGUMENT, "%s: the output was already written", path);
    part p = {0};
    p.overwrite = overwrite;
    char* dir = NULL;
    TRY(split_path(path, &dir, &p.base, err));
    p.path = strdup(path);
    struct stat dst;
    tl_result r = TL_OK;
    if (!p.path)
        r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
    else if (stat(dir, &dst) != 0)
        r = tl_error_set(err, TL_ERROR_IO, "%s: cannot write into folder %s: %s", path, dir,
                         strerror(errno));
    else if (!S_ISDIR(dst.st_mode))
        r = tl_error_set(err, TL_ERROR_IO, "%s: cannot write into %s: not a folder", path, dir);
    if (r == TL_OK) {
        p.dir = (file_id){(uint64_t)dst.st_dev, (uint64_t)dst.st_ino, NULL};
        /* The same name in the same folder, however spelt, is one target. */
        for (uint32_t i = 0; i < o->part_count && r == TL_OK; ++i)
            if (o->parts[i].dir.dev == p.dir.dev && o->parts[i].dir.ino == p.dir.ino &&
                !strcmp(o->parts[i].base, p.base))
                r = tl_error_set(err, TL_ERROR_ARGUMENT, "%s: is also %s, another output", path,
                                 o->parts[i].path);
    }
    if (r == TL_OK) r = check_target(o, &p, err);
    /* Another name for a file already written as a part (a hard link, a symlink). */
    struct stat tst;
    if (r == TL_OK && stat(path, &tst) == 0)
        for (uint32_t i = 0; i < o->part_count && r == TL_OK; ++i) {
            struct stat ost;
            if (stat(o->parts[i].path, &ost) == 0 && ost.st_dev == tst.st_dev &&
                ost.st_ino == tst.st_ino)
                r = tl_error_set(err, TL_ERROR_ARGUMENT, "%s: is also %s, another output", path,
                                 o->parts[i].path);
        }
    if (r == TL_OK && o->part_count == o->part_capacity) {
        uint32_t cap = o->part_capacity ? 2 * o->part_capacity : 4;
        part* grown = realloc(o->parts, cap * sizeof *grown);
        if (!grown)
            r = tl_error_set(err, TL_ERROR_MEMORY, "out of memory");
        else
            o->parts = grown, o->part_capacity = cap;
    }
    int fd = -1;
    if (r == TL_OK && (fd = create_temp(dir, &p.temp)) < 0)
        r = tl_error_set(err, TL_ERROR_IO, "%s: cannot create a temporary file in %s: %s", path,
                         dir, strerror(errno));
    if (r == TL_OK) {
        /* A replaced file keeps its permissions; a new one gets 0666 less the umask. */
        struct stat old;
        if (stat(path, &old) == 0) fchmod(fd, old.st_mode & 07777);
        if (write_all(fd, data, size) != TL_OK || fsync(fd) != 0)
            r = tl_error_set(err, TL_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
    }
    if (fd >= 0 && close(fd) != 0 && r == TL_OK)
        r = tl_error_set(err, TL_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
    free(dir);
    if (r != TL_OK) {
        part_discard(&p);
        free(p.path);
        free(p.base);
        return r;
    }
    o->parts[o->part_count++] = p;
    return TL_OK;
}

tl_result tl_output_commit(tl_output* o, tl_error* err) {
    if (o->committed) return tl_error_set(err, TL_ERROR_ARGUMENT, "the output was already written");
    o->committed = true;
    tl_result r = TL_OK;
    for (uint32_t i = 0; i < o->part_count && r == TL_OK; ++i)
        r = check_target(o, &o->parts[i], err);
    for (uint32_t i = 0; i < o->part_count && r == TL_OK; ++i) {
        part* p = &o->parts[i];
        if (rename(p->temp, p->path) != 0) {
            r = tl_error_set(err, TL_ERROR_IO, "%s: cannot rename into place: %s", p->path,
                             strerror(errno));
            break;
        }
        free(p->temp);
        p->temp = NULL;
    }
    for (uint32_t i = 0; i < o->part_count; ++i)
        part_discard(&o->parts[i]);
    return r;
}
