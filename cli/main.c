/* tailor: the command line. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

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

static bool same_file(const char* a, const char* b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int tl_cli_save(const char* cmd, const tl_gltf* doc, const char* input, const char* output,
                bool force, bool compact) {
    if (input && same_file(input, output) && !force)
        return tl_cli_fail(cmd, "%s: is the input; pass --force to replace it", output);
    tl_gltf_save_def def = tl_default_gltf_save_def();
    def.overwrite = true;
    def.compact = compact;
    tl_error err;
    if (tl_gltf_save(doc, output, &def, &err) != TL_OK) return tl_cli_fail(cmd, "%s", err.message);
    return 0;
}

int main(int argc, char** argv) {
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
