/* tailor copy: read a glTF and write it back; the round trip everything else stands on. */
#include "cli.h"

#include <string.h>

int tl_cli_copy(int argc, char** argv) {
    const char *in = NULL, *out = NULL;
    bool force = false, compact = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--force"))
            force = true;
        else if (!strcmp(argv[i], "--compact"))
            compact = true;
        else if (tl_cli_is_help(argv[i])) {
            printf("usage: tailor copy IN -o OUT [--compact] [--force]\n"
                   "  Reads IN (.glb, .vrm or .gltf) and writes OUT; everything is kept.\n"
                   "  -o -       write the GLB to standard output\n"
                   "  --compact  drop binary data nothing references\n"
                   "  --force    allow OUT to be IN\n");
            return 0;
        } else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else
            return tl_cli_fail("copy", "unknown argument \"%s\" (see --help)", argv[i]), 2;
    }
    if (!in || !out) return tl_cli_fail("copy", "expected IN -o OUT (see --help)"), 2;
    int code = tl_cli_check_outputs("copy", in, NULL, force, out, NULL);
    if (code) return code;
    tl_gltf* doc;
    tl_error err;
    if (tl_gltf_load(in, &doc, &err) != TL_OK) return tl_cli_fail("copy", "%s", err.message);
    code = tl_cli_write("copy", doc, in, out, force, compact, NULL, NULL);
    tl_gltf_destroy(doc);
    return code;
}
