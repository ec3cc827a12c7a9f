/* tailor: the command line. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

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
    {"play", tl_cli_play,
     "play FILE --clip NAME [--fps 60] [--json]  run a clip with the chains simulated"},
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

int tl_cli_write(const char* cmd, const tl_gltf* doc, const char* input, const char* output,
                 bool force, bool compact, const char* extra_path, const char* extra_text) {
    tl_output* out;
    tl_error err;
    tl_result r = tl_output_create(&out, &err);
    if (r == TL_OK && input && !force) r = tl_output_protect(out, input, &err);
    if (r == TL_OK && doc && output) {
        tl_gltf_save_def def = tl_default_gltf_save_def();
        def.overwrite = true;
        def.replace_input = force;
        def.compact = compact;
        r = tl_gltf_save_add(doc, output, &def, out, &err);
    }
    if (r == TL_OK && extra_path && extra_text)
        r = tl_output_add(out, extra_path, extra_text, strlen(extra_text), true, &err);
    if (r == TL_OK) r = tl_output_commit(out, &err);
    tl_output_destroy(out);
    if (r == TL_OK) return 0;
    if (r == TL_ERROR_EXISTS && !force && strstr(err.message, "is the input"))
        return tl_cli_fail(cmd, "%s (pass --force to replace it)", err.message);
    return tl_cli_fail(cmd, "%s", err.message);
}

const char* tl_cli_printable(const char* name, char* buf, size_t size) {
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (const unsigned char* p = (const unsigned char*)(name ? name : ""); *p; ++p) {
        bool plain = *p >= 0x20 && *p != 0x7f && *p != '\\';
        size_t need = plain ? 1 : (*p == '\\' ? 2 : 4);
        if (n + need + 1 > size) break;
        if (plain) {
            buf[n++] = (char)*p;
        } else if (*p == '\\') {
            buf[n++] = '\\', buf[n++] = '\\';
        } else {
            buf[n++] = '\\', buf[n++] = 'x', buf[n++] = hex[*p >> 4], buf[n++] = hex[*p & 15];
        }
    }
    if (size) buf[n] = '\0';
    return buf;
}

int main(int argc, char** argv) {
    /* Past a file-size limit write(2) fails with EFBIG and the writer removes its temporary
     * files, instead of the process dying with them on disk. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tailor %d.%d.%d\n", TL_VERSION_MAJOR, TL_VERSION_MINOR, TL_VERSION_PATCH);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tailor: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
