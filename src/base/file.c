/* Reading a whole input file: regular files only, never blocking, bounded. */
#define _POSIX_C_SOURCE 200809L
#include <tailor/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* special_kind(mode_t mode) {
    return S_ISDIR(mode)    ? "a folder"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "a special file";
}

/* The descriptor of a regular file, and its stat. */
static tl_result open_regular(const char* path, int* fd, struct stat* st, tl_error* err) {
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return tl_error_set(err, TL_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    tl_result r = TL_OK;
    if (fstat(*fd, st) != 0)
        r = tl_error_set(err, TL_ERROR_IO, "%s: cannot stat: %s", path, strerror(errno));
    else if (!S_ISREG(st->st_mode))
        r = tl_error_set(err, TL_ERROR_IO, "%s: not a regular file (%s)", path,
                         special_kind(st->st_mode));
    if (r != TL_OK) {
        close(*fd);
        *fd = -1;
    }
    return r;
}

tl_result tl_file_open(const char* path, int* fd, tl_error* err) {
    struct stat st;
    return open_regular(path, fd, &st, err);
}

tl_result tl_file_read(const char* path, uint64_t max_bytes, uint8_t** out, size_t* size,
                       uint64_t* dev, uint64_t* ino, tl_error* err) {
    *out = NULL;
    *size = 0;
    int fd;
    struct stat st;
    tl_result r = open_regular(path, &fd, &st, err);
    if (r != TL_OK) return r;
    if (st.st_size < 0 || (uint64_t)st.st_size > max_bytes) {
        close(fd);
        return tl_error_set(err, TL_ERROR_LIMIT, "%s: %lld bytes; at most %llu are read", path,
                            (long long)st.st_size, (unsigned long long)max_bytes);
    }
    size_t n = (size_t)st.st_size;
    uint8_t* data = malloc(n + 1);
    if (!data) {
        close(fd);
        return tl_error_set(err, TL_ERROR_MEMORY, "%s: out of memory for %zu bytes", path, n);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, data + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = k < 0 ? errno : 0;
            close(fd);
            free(data);
            return tl_error_set(err, TL_ERROR_IO, "%s: short read (%zu of %zu bytes)%s%s", path,
                                got, n, e ? ": " : "", e ? strerror(e) : "");
        }
        got += (size_t)k;
    }
    close(fd);
    data[got] = 0;
    if (dev) *dev = (uint64_t)st.st_dev;
    if (ino) *ino = (uint64_t)st.st_ino;
    *out = data;
    *size = got;
    return TL_OK;
}

tl_result tl_file_check_json_text(const void* text, size_t size, size_t first_byte,
                                  const char* label, tl_error* err) {
    const char* nul = size ? memchr(text, '\0', size) : NULL;
    if (!nul) return TL_OK;
    return tl_error_set(err, TL_ERROR_FORMAT, "%s: byte %zu: a NUL byte in JSON text", label,
                        first_byte + (size_t)(nul - (const char*)text));
}
