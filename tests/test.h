/* The test harness: one program per module, a table of named cases, tiny ENSURE macros.
 * `test_gltf [filter]` runs the cases whose name contains filter. Each program ends with
 * the line "N passed, N failed". */
#ifndef TL_TEST_H
#define TL_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

typedef void tl_test_fn(void);
typedef struct tl_test_case {
    const char* name;
    tl_test_fn* fn;
    /* run only when named exactly on the command line: a table that takes minutes, whose
       figures the docs quote (`./test_hair nape_measured`); ctest runs the others */
    bool on_demand;
} tl_test_case;

/* Set by ENSURE when the current case fails; a case returns at its first failure. */
extern bool tl_test_failed;
void tl_test_fail(const char* file, int line, const char* what);
void tl_test_failf(const char* file, int line, const char* format, ...);

#define ENSURE(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            tl_test_fail(__FILE__, __LINE__, #c);                                                  \
            return;                                                                                \
        }                                                                                          \
    } while (0)
#define ENSURE_MSG(c, ...)                                                                         \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            tl_test_failf(__FILE__, __LINE__, __VA_ARGS__);                                        \
            return;                                                                                \
        }                                                                                          \
    } while (0)
#define ENSURE_NEAR(a, b, tol)                                                                     \
    do {                                                                                           \
        double ensure_a_ = (a), ensure_b_ = (b);                                                   \
        if (!(ensure_a_ - ensure_b_ <= (tol) && ensure_b_ - ensure_a_ <= (tol))) {                 \
            tl_test_failf(__FILE__, __LINE__, "%s = %.9g, %s = %.9g, tolerance %g", #a, ensure_a_, \
                          #b, ensure_b_, (double)(tol));                                           \
            return;                                                                                \
        }                                                                                          \
    } while (0)
/* Checks a tl_result and prints the tl_error message when it is not TL_OK. */
#define ENSURE_OK(call, err)                                                                       \
    do {                                                                                           \
        tl_result ensure_r_ = (call);                                                              \
        if (ensure_r_ != TL_OK) {                                                                  \
            tl_test_failf(__FILE__, __LINE__, "%s -> %s: %s", #call, tl_result_string(ensure_r_),  \
                          (err).message);                                                          \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Runs the table; returns the process exit code. */
int tl_test_main(int argc, char** argv, const tl_test_case* cases, size_t count);

/* Paths: the repository, shared/ and a scratch folder for this test program. */
const char* tl_test_shared(const char* relative); /* "<shared>/relative" (static buffer ring) */
const char* tl_test_source(const char* relative); /* "<repo>/relative" */
const char* tl_test_scratch(const char* name);    /* "<build>/scratch/<program>/name" */

/* shared/cases/<name>.glb after `tailor rig`, in the scratch folder: rigged once per program
 * run (up to 32 cases), the path returned after; NULL when the rig fails. */
const char* tl_test_rigged_case(const char* name);

/* Every .glb/.gltf/.vrm under shared/assets and shared/cases, sorted. Returns the count;
 * the array and strings live until exit. */
size_t tl_test_shared_files(const char*** out_paths);

/* Runs the tailor command with the given argument string (shell-quoted by the caller);
 * stdout goes to *out (malloc'd, may be NULL) and the exit status is returned. */
int tl_test_cli(char** out, const char* format, ...);

/* `tailor play --json` output (JSON Lines: a header, then one frame a line) as one document:
 * the header's fields with "frames" the array of frame objects. NULL when a line is not JSON
 * or the count differs from the header's. */
json_t* tl_test_play_json(const char* text);

/* Runs the Khronos glTF-Validator on a file and returns its report line as JSON
 * ({"errors", "warnings", "codes"}), or NULL when the validator could not run. */
json_t* tl_test_validate(const char* path);

/* Reads a whole file (malloc'd) or NULL. */
unsigned char* tl_test_read_file(const char* path, size_t* size);

#endif
