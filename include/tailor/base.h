/* tailor — results, errors, allocators and version. Every other tailor header includes this
 * one.
 *
 * Fallible calls on untrusted data (files, user options) return a tl_result and, when the
 * caller passes a tl_error, fill it with a message that says where and what:
 *     "Fox.glb: /accessors/12/byteOffset: 4096 is past the end of bufferView 3 (1024 bytes)"
 * Caller mistakes (a NULL document, an index the caller was told is out of range) are
 * asserts, not results. The library never prints.
 */
#ifndef TAILOR_BASE_H
#define TAILOR_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TL_VERSION_MAJOR 0
#define TL_VERSION_MINOR 1
#define TL_VERSION_PATCH 0

typedef enum tl_result {
    TL_OK = 0,
    TL_ERROR_IO,          /* a file could not be opened, read, written or renamed */
    TL_ERROR_FORMAT,      /* not a glTF/GLB: bad magic, version, chunk layout or JSON syntax */
    TL_ERROR_INVALID,     /* valid syntax, but an index, offset, length or value is wrong */
    TL_ERROR_UNSUPPORTED, /* a glTF feature tailor cannot read (e.g. a required extension) */
    TL_ERROR_LIMIT,       /* a count or size beyond what tailor accepts */
    TL_ERROR_MEMORY,      /* an allocation failed */
    TL_ERROR_NOT_FOUND,   /* a named thing (clip, joint, sample) does not exist */
    TL_ERROR_EXISTS,      /* the output exists and overwriting it was not asked for */
    TL_ERROR_ARGUMENT,    /* a user-supplied option is out of range */
} tl_result;

/* A short fixed name for a result, e.g. "invalid". Never NULL. */
const char* tl_result_string(tl_result result);

/* Where a fallible call explains what went wrong. Optional everywhere (NULL is fine). */
typedef struct tl_error {
    tl_result result;  /* the same value the call returned */
    char message[512]; /* "FILE: /json/pointer: what is wrong" or "FILE: byte N: …" */
} tl_error;

/* Where a module's memory comes from (tl_chain_create takes one; NULL means malloc/free). */
typedef struct tl_allocator {
    void* (*alloc)(size_t size, void* user); /* returns NULL on failure; 16-byte aligned */
    void (*free)(void* pointer, void* user);
    void* user; /* passed back to both */
} tl_allocator;

/* Fills err (if not NULL) with a printf-style message and returns result, so a failing
 * path reads `return tl_error_set(err, TL_ERROR_INVALID, "%s: ...", ...);`. */
tl_result tl_error_set(tl_error* err, tl_result result, const char* format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif
