/* The tailor command: each subcommand is `int tl_cli_NAME(int argc, char** argv)` with argv[0]
 * the subcommand's name; it prints its own errors to stderr and returns the exit code. */
#ifndef TL_CLI_H
#define TL_CLI_H

#include <stdio.h>
#include <string.h>

#include <tailor/gltf_json.h>
#include <tailor/sample.h>
#include <tailor/tailor.h>

int tl_cli_inspect(int argc, char** argv);
int tl_cli_sample(int argc, char** argv);
int tl_cli_copy(int argc, char** argv);
int tl_cli_rig(int argc, char** argv);
int tl_cli_measure(int argc, char** argv);
int tl_cli_play(int argc, char** argv);
int tl_cli_batch(int argc, char** argv);

/* Parses the rig option at argv[*index] (`--far F`, `--mode M`, `--part ID=CLASS`, …; `tailor
 * rig --help`) into def, moving *index past its value. 1: it was one; 0: not a rig option;
 * -1: a bad value (printed as "tailor COMMAND: …"). */
int tl_cli_rig_option(const char* command, int argc, char** argv, int* index, tl_rig_def* def);
/* tailor rig's --pendulum / --aim (aims[i]) specs written into the document as parts
 * (cli/rig_joint.c); non-zero after printing a failure. */
int tl_cli_rig_joint_parts(tl_gltf* doc, const char* const* specs, const bool* aims, int count,
                           FILE* summary);

int tl_cli_view(int argc, char** argv);
int tl_cli_report(int argc, char** argv);

/* The `tailor measure FILE --json` document of every clip (docs/measure.md), for view and
 * report: a malloc'd string, or NULL after printing the error as `tailor CMD: ...`. */
char* tl_cli_measure_json(const char* cmd, const char* file);

int tl_cli_render(int argc, char** argv);

int tl_cli_bake(int argc, char** argv);

int tl_cli_hair_audit(int argc, char** argv);
int tl_cli_hair(int argc, char** argv);

/* Bakes a loaded document in place (settled rest, then the clips in "A,B" or all): the work
 * of tailor bake and tailor rig --bake. *report: {"clips": [...]} (caller frees). 0 or exit
 * code (the error printed). */
int tl_cli_bake_document(const char* command, tl_gltf* doc, const char* clip_list,
                         const tl_bake_def* def, json_t** report);

/* --vrm: writes the document's chains as VRMC_springBone (tl_vrm_write), prints each spring's
 * fit and, when report is not NULL, sets report["vrm"] to them. 0 or exit code. */
int tl_cli_vrm_document(const char* command, tl_gltf* doc, json_t* report, FILE* summary);

/* The file's VRM springs (tl_vrm_springs) as tailor inspect's "vrm_springs", and their text. */
json_t* tl_cli_vrm_springs_json(const tl_gltf* doc);
void tl_cli_vrm_springs_print(const json_t* springs);

/* Fills a chain from "--chain A,B,C" (joint names; attachment = A's parent). 0 or exit code. */
struct tl_play_chain;
int tl_cli_chain_from_names(const tl_scene* scene, const char* list, struct tl_play_chain* out);

/* `-h` or `--help`: every subcommand prints its usage to stdout and exits 0. */
static inline bool tl_cli_is_help(const char* arg) {
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* Prints "tailor NAME: message" to stderr and returns 1 (or 2 for usage errors). */
int tl_cli_fail(const char* command, const char* format, ...);

/* Fails with a library message about `file`: "tailor NAME: FILE: message", with FILE only
 * when the message does not already begin with it (or its base name). */
int tl_cli_fail_file(const char* command, const char* file, const char* message);

/* "-": standard output, where a command's -o (or --report) allows it. */
bool tl_cli_is_stdout(const char* path);

/* Before a command's work: its targets checked as the writer will check them (each folder
 * exists and takes a new file; no target is a folder or a device, an input (unless `force`)
 * or another target), at most one of them "-", and `output` (binary: a GLB, a PNG) not sent
 * to a terminal. Any may be NULL. Prints the error; 0 or the exit code. */
int tl_cli_check_outputs(const char* command, const char* input, const char* input2, bool force,
                         const char* output, const char* extra_path);

/* Writes a command's files as one output (tailor/output.h): the document to `output` (when
 * both are given) and a JSON text to `extra_path` (a report; when both are given), all or
 * nothing; "-" for either is standard output (the document as GLB), written before the
 * files are renamed into place. Neither may replace `input` (or its .bin files) unless
 * `force`. Prints the error and returns the exit code. */
int tl_cli_write(const char* command, const tl_gltf* doc, const char* input, const char* output,
                 bool force, bool compact, const char* extra_path, const char* extra_text);

/* The same for bytes a command made (a PNG, an HTML page): to `path` or "-". */
int tl_cli_write_data(const char* command, const char* input, const char* input2, bool force,
                      const char* path, const void* data, size_t size);

/* JSON numbers for the commands' documents: a non-finite value (which jansson would refuse,
 * dropping the field without a word) becomes null and is counted; tl_cli_json_out warns. */
json_t* tl_cli_real(double value);
#define json_real(value) tl_cli_real(value)
extern unsigned tl_cli_nonfinite_count;

/* Prints a command's JSON document on stdout, or fails (exit 1) when it cannot be written:
 * never an exit 0 with empty output. Warns on stderr about values written as null. */
int tl_cli_json_out(const char* command, const char* file, json_t* doc, size_t flags);

#endif
