/* tailor: the command line. */
#define _GNU_SOURCE /* fopencookie */
#include "cli.h"

#include <assert.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct command {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* usage;
} command;

static const command commands[] = {
    {"inspect", tl_cli_inspect,
     "inspect FILE [--json]                 skins, joint trees, meshes, clips and problems"},
    {"sample", tl_cli_sample,
     "sample NAME -o OUT.glb [options]      a built-in tailed test character (--list)"},
    {"measure", tl_cli_measure,
     "measure FILE [--clip NAME] [--region RE] [--json]  edge stretch and bone distance"},
    {"rig", tl_cli_rig,
     "rig IN -o OUT [--mode chain|rigid] [--report R.json]  tails get bone chains"},
    {"batch", tl_cli_batch,
     "batch IN_DIR -o OUT_DIR [-j N] [--shard I/N] [--resume]  rig many files, resumably"},
    {"play", tl_cli_play,
     "play FILE --clip NAME [--fps 60] [--json]  run a clip with the chains simulated"},
    {"view", tl_cli_view,
     "view RIGGED [--input IN] [--port N]    the three.js viewer on http://127.0.0.1:N/"},
    {"report", tl_cli_report,
     "report RIGGED [--input IN] -o R.html  the viewer as one HTML file that opens from disk"},
    {"render", tl_cli_render,
     "render FILE --clip NAME -o OUT.png [--compare RIGGED]  a PNG contact sheet, chains moving"},
    {"bake", tl_cli_bake,
     "bake IN -o OUT [--clips all|A,B] [--rate 30] [--report R.json]  chain motion as keys"},
    {"hair", tl_cli_hair,
     "hair CHARACTER --hair HAIR [--fit] -o OUT  attach a hair asset to the head and rig it"},
    {"hair-audit", tl_cli_hair_audit,
     "hair-audit CHARACTER HAIR... [--json] [--guides G.json]  hair guides and their audit"},
    {"copy", tl_cli_copy,
     "copy IN -o OUT [--compact] [--force]   read and write a glTF, losing nothing"},
};

static void usage(FILE* f) {
    fprintf(f,
            "tailor %d.%d.%d — bone chains and secondary motion for auto-rigged glTF characters\n\n"
            "usage: tailor COMMAND [options]\n\n",
            TL_VERSION_MAJOR, TL_VERSION_MINOR, TL_VERSION_PATCH);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(f, "  tailor %s\n", commands[i].usage);
    fprintf(f, "\n`tailor COMMAND --help` describes a command.\n");
}

int tl_cli_fail(const char* cmd, const char* format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "tailor %s: ", cmd);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    return 1;
}

int tl_cli_fail_file(const char* cmd, const char* file, const char* message) {
    const char* base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    size_t n = strlen(file), b = strlen(base);
    bool named = (!strncmp(message, file, n) && message[n] == ':') ||
                 (!strncmp(message, base, b) && message[b] == ':');
    return named ? tl_cli_fail(cmd, "%s", message) : tl_cli_fail(cmd, "%s: %s", file, message);
}

bool tl_cli_is_stdout(const char* path) {
    return path && !strcmp(path, "-");
}

/* The bytes to file descriptor 1, after what the (escaping) stdout stream holds. */
static tl_result stdout_write(const void* data, size_t size, tl_error* err) {
    if (fflush(stdout) != 0)
        return tl_error_set(err, TL_ERROR_IO, "standard output: cannot write: %s", strerror(errno));
    const char* p = data;
    while (size > 0) {
        ssize_t k = write(1, p, size);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            return tl_error_set(err, TL_ERROR_IO, "standard output: cannot write: %s",
                                k < 0 ? strerror(errno) : "nothing written");
        p += k, size -= (size_t)k;
    }
    return TL_OK;
}

static int output_fail(const char* cmd, tl_result r, bool force, const tl_error* err) {
    if (r == TL_ERROR_EXISTS && !force && strstr(err->message, "is the input"))
        return tl_cli_fail(cmd, "%s (pass --force to replace it)", err->message);
    return tl_cli_fail(cmd, "%s", err->message);
}

int tl_cli_check_outputs(const char* cmd, const char* input, const char* input2, bool force,
                         const char* output, const char* extra_path) {
    if (tl_cli_is_stdout(output) && tl_cli_is_stdout(extra_path))
        return tl_cli_fail(cmd, "two outputs cannot both go to standard output (-); name a "
                                "file for one of them"),
               2;
    if (tl_cli_is_stdout(output) && isatty(1))
        return tl_cli_fail(cmd,
                           "-o -: standard output is a terminal; redirect it to a file or "
                           "a pipe (tailor %s ... -o - > out)",
                           cmd),
               2;
    struct stat so, si;
    for (int k = 0; k < 2 && !force && tl_cli_is_stdout(output) && fstat(1, &so) == 0; ++k) {
        const char* in = k ? input2 : input; /* `-o - >> IN`: the input would grow */
        if (in && stat(in, &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino)
            return tl_cli_fail(cmd,
                               "-o -: standard output is the input %s (pass --force to "
                               "write it there)",
                               in);
    }
    /* The writer's own checks, on empty parts it then throws away: a missing or read-only
       folder, a target that is a folder or a device, an input, two targets in one file. */
    tl_output* out;
    tl_error err;
    tl_result r = tl_output_create(&out, &err);
    if (r == TL_OK && input && !force) r = tl_output_protect(out, input, &err);
    if (r == TL_OK && input2 && !force) r = tl_output_protect(out, input2, &err);
    if (r == TL_OK && output && !tl_cli_is_stdout(output))
        r = tl_output_add(out, output, "", 0, true, &err);
    if (r == TL_OK && extra_path && !tl_cli_is_stdout(extra_path))
        r = tl_output_add(out, extra_path, "", 0, true, &err);
    tl_output_destroy(out);
    return r == TL_OK ? 0 : output_fail(cmd, r, force, &err);
}

int tl_cli_write_data(const char* cmd, const char* input, const char* input2, bool force,
                      const char* path, const void* data, size_t size) {
    tl_error err;
    if (tl_cli_is_stdout(path)) {
        tl_result r = stdout_write(data, size, &err);
        return r == TL_OK ? 0 : tl_cli_fail(cmd, "%s", err.message);
    }
    tl_output* out;
    tl_result r = tl_output_create(&out, &err);
    if (r == TL_OK && input && !force) r = tl_output_protect(out, input, &err);
    if (r == TL_OK && input2 && !force) r = tl_output_protect(out, input2, &err);
    if (r == TL_OK) r = tl_output_add(out, path, data, size, true, &err);
    if (r == TL_OK) r = tl_output_commit(out, &err);
    tl_output_destroy(out);
    return r == TL_OK ? 0 : output_fail(cmd, r, force, &err);
}

int tl_cli_write(const char* cmd, const tl_gltf* doc, const char* input, const char* output,
                 bool force, bool compact, const char* extra_path, const char* extra_text) {
    assert(!(tl_cli_is_stdout(output) && tl_cli_is_stdout(extra_path)));
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.overwrite = true;
    def.replace_input = force;
    def.compact = compact;
    bool doc_out = doc && output, extra_out = extra_path && extra_text;
    uint8_t* glb = NULL; /* -o -: the GLB, serialised before anything is written */
    size_t glb_size = 0;
    tl_output* out = NULL;
    tl_error err;
    tl_result r = TL_OK;
    if (doc_out && tl_cli_is_stdout(output))
        r = tl_gltf_save_glb_memory(doc, &def, &glb, &glb_size, &err);
    if (r == TL_OK) r = tl_output_create(&out, &err);
    if (r == TL_OK && input && !force) r = tl_output_protect(out, input, &err);
    if (r == TL_OK && doc_out && !glb) r = tl_gltf_save_add(doc, output, &def, out, &err);
    if (r == TL_OK && extra_out && !tl_cli_is_stdout(extra_path))
        r = tl_output_add(out, extra_path, extra_text, strlen(extra_text), true, &err);
    /* Standard output last, once every file is complete; the files are renamed into place
       only after it took the data. */
    if (r == TL_OK && glb) r = stdout_write(glb, glb_size, &err);
    if (r == TL_OK && extra_out && tl_cli_is_stdout(extra_path)) {
        size_t n = strlen(extra_text);
        fputs(extra_text, stdout);
        if (n == 0 || extra_text[n - 1] != '\n') fputc('\n', stdout); /* a terminal's prompt */
        if (fflush(stdout) != 0)
            r = tl_error_set(&err, TL_ERROR_IO, "standard output: cannot write: %s",
                             strerror(errno));
    }
    if (r == TL_OK) r = tl_output_commit(out, &err);
    tl_output_destroy(out);
    free(glb);
    return r == TL_OK ? 0 : output_fail(cmd, r, force, &err);
}

/* Names in a file may hold terminal control sequences (ESC, BEL, CR, C1 codes). Every byte
 * the command prints passes through here: C0 controls other than newline and tab, DEL and
 * the UTF-8 C1 range (U+0080..U+009F) come out as \xNN, so whatever a file holds reaches a
 * terminal as text. JSON output is unchanged (jansson already escapes controls). */
typedef struct escaping {
    int fd;
    bool after_c2; /* the previous byte was 0xC2, the lead byte of U+0080..U+00BF */
} escaping;

/* false (errno set) when the descriptor took less than all of it. */
static bool put_raw(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) errno = EIO;
        if (k <= 0) return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

static ssize_t escaping_write(void* cookie, const char* buf, size_t size) {
    escaping* e = cookie;
    char out[4096 + 16];
    size_t n = 0;
    for (size_t i = 0; i < size; ++i) {
        unsigned char ch = (unsigned char)buf[i];
        bool c1 = e->after_c2 && ch >= 0x80 && ch <= 0x9f;
        if (e->after_c2 && !c1) out[n++] = (char)0xc2;
        e->after_c2 = ch == 0xc2;
        if (e->after_c2) continue;
        if (c1)
            n += (size_t)snprintf(out + n, 12, "\\xc2\\x%02x", (unsigned)ch);
        else if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
            n += (size_t)snprintf(out + n, 8, "\\x%02x", (unsigned)ch);
        else
            out[n++] = (char)ch;
        if (n >= 4096 && !put_raw(e->fd, out, n)) return -1; /* the stream's error: ferror */
        if (n >= 4096) n = 0;
    }
    if (!put_raw(e->fd, out, n)) return -1;
    return (ssize_t)size;
}

static int escaping_close(void* cookie) {
    escaping* e = cookie;
    if (e->after_c2 && !put_raw(e->fd, "\xc2", 1)) return -1;
    return 0;
}

static void escape_stream(FILE** stream, escaping* state) {
    cookie_io_functions_t io = {.write = escaping_write, .close = escaping_close};
    FILE* f = fopencookie(state, "w", io);
    if (!f) return;
    fflush(*stream);
    setvbuf(f, NULL, *stream == stderr ? _IOLBF : _IOFBF, 0);
    *stream = f;
}

unsigned tl_cli_nonfinite_count;

#undef json_real
json_t* tl_cli_real(double value) {
    if (isfinite(value)) return json_real(value);
    tl_cli_nonfinite_count++;
    return json_null();
}

int tl_cli_json_out(const char* cmd, const char* file, json_t* doc, size_t flags) {
    char* text = doc ? json_dumps(doc, flags) : NULL;
    if (!text) return tl_cli_fail(cmd, "%s: the JSON document could not be built", file);
    puts(text);
    free(text);
    static unsigned warned; /* play prints a document a line: say each null once */
    if (tl_cli_nonfinite_count > warned)
        fprintf(stderr, "tailor %s: %s: %u value(s) came out non-finite and are null\n", cmd, file,
                tl_cli_nonfinite_count - warned);
    warned = tl_cli_nonfinite_count;
    return fflush(stdout) == 0
               ? 0
               : tl_cli_fail(cmd, "standard output: cannot write: %s", strerror(errno));
}

int main(int argc, char** argv) {
    /* Past a file-size limit write(2) fails with EFBIG and the writer removes its temporary
     * files, instead of the process dying with them on disk. */
    signal(SIGXFSZ, SIG_IGN);
    static escaping out_state = {1, false}, err_state = {2, false};
    escape_stream(&stdout, &out_state);
    escape_stream(&stderr, &err_state);
    if (argc == 3 && !strcmp(argv[1], "help")) { /* `tailor help rig` = `tailor rig --help` */
        static char help_flag[] = "--help";
        static char* args[4];
        args[0] = argv[0], args[1] = argv[2], args[2] = help_flag;
        argv = args;
        argc = 3;
    }
    if (argc < 2 || tl_cli_is_help(argv[1]) || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tailor %d.%d.%d\n", TL_VERSION_MAJOR, TL_VERSION_MINOR, TL_VERSION_PATCH);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (!strcmp(argv[1], commands[i].name)) {
            int code = commands[i].run(argc - 1, argv + 1);
            /* text a command printed that stdout did not take (a full disk, a closed pipe's
               EPIPE with SIGPIPE ignored): never an exit 0 with the output lost */
            if ((fflush(stdout) != 0 || ferror(stdout)) && code == 0)
                code = tl_cli_fail(argv[1], "standard output: cannot write: %s", strerror(errno));
            return code;
        }
    fprintf(stderr, "tailor: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
