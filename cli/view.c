/* tailor view / tailor report: the three.js viewer (web/viewer.html) on localhost, or as one
 * self-contained HTML file. Both embed the same things: the rigged file, the input file the
 * auto-rigger bound (optional), the solver's wasm, the page's scripts and three.js, and the
 * `tailor measure` table of every clip. The manual is docs/web.md. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include <tailor/file.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef TL_WEB_DIR
#define TL_WEB_DIR "web"
#endif
#ifndef TL_THREE_DIR
#define TL_THREE_DIR "node_modules/three"
#endif
#ifndef TL_WASM_FILE
#define TL_WASM_FILE "tailor_sim.wasm"
#endif

#define MAX_FILE_BYTES (1024L * 1024 * 1024) /* a model larger than 1 GB is refused */
#define BOOT_MARK "<!--TAILOR_BOOT-->"

static const char* VIEW_USAGE =
    "usage: tailor view RIGGED [--input IN] [--port N]\n"
    "  Serves the viewer for RIGGED (a file `tailor rig` wrote) on http://127.0.0.1:N/\n"
    "  (default 8417; 0 picks a free port) until interrupted.\n"
    "  --input IN   the file before `tailor rig` (shown as the auto-rigger bound it, and\n"
    "               measured: original, rigid and chain rows)\n";
static const char* REPORT_USAGE =
    "usage: tailor report RIGGED [--input IN] -o REPORT.html [--force]\n"
    "  Writes the viewer for RIGGED as one HTML file (model, wasm, scripts and three.js\n"
    "  inlined) that opens from disk with no network.\n"
    "  --input IN   as for tailor view\n"
    "  -o -         write the page to standard output\n"
    "  --force      allow REPORT.html to be an input\n";

/* Where the page's files are: TAILOR_WEB_DIR / TAILOR_THREE_DIR / TAILOR_WASM, else the
 * source tree and build folder this binary was built from. */
static const char* web_dir(void) {
    const char* e = getenv("TAILOR_WEB_DIR");
    return e && *e ? e : TL_WEB_DIR;
}
static const char* three_dir(void) {
    const char* e = getenv("TAILOR_THREE_DIR");
    return e && *e ? e : TL_THREE_DIR;
}
static const char* wasm_file(void) {
    const char* e = getenv("TAILOR_WASM");
    return e && *e ? e : TL_WASM_FILE;
}

typedef struct blob {
    char* data;
    size_t size;
} blob;

/* Reads a whole file (bounded, regular files only). 0, or -1 with err. */
static int read_all(const char* path, blob* out, tl_error* err) {
    uint8_t* data;
    if (tl_file_read(path, MAX_FILE_BYTES, &data, &out->size, NULL, NULL, err) != TL_OK) {
        out->data = NULL;
        return -1;
    }
    out->data = (char*)data;
    return 0;
}

static int read_joined(const char* dir, const char* name, blob* out, tl_error* err) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return tl_error_set(err, TL_ERROR_IO, "%s/%s: path too long", dir, name), -1;
    return read_all(path, out, err);
}

typedef struct assets {
    blob rigged, input, wasm, measure;
    bool has_input;
} assets;

static void assets_free(assets* a) {
    free(a->rigged.data), free(a->input.data), free(a->wasm.data), free(a->measure.data);
}

/* The files every page needs. 0 or the exit code (the error printed). */
static int assets_load(const char* cmd, const char* rigged, const char* input, assets* a) {
    memset(a, 0, sizeof *a);
    tl_error err;
    if (read_all(rigged, &a->rigged, &err) || (input && read_all(input, &a->input, &err)))
        return tl_cli_fail(cmd, "%s", err.message);
    a->has_input = input != NULL;
    if (read_all(wasm_file(), &a->wasm, &err))
        return tl_cli_fail(cmd, "%s (build the target tailor_sim_wasm, or set TAILOR_WASM)",
                           err.message);
    /* measured on the input when given: the original, rigid and chain rows of measure.md */
    char* json = tl_cli_measure_json(cmd, input ? input : rigged);
    if (!json) return 1;
    a->measure.data = json, a->measure.size = strlen(json);
    return 0;
}

/* ---- report ---- */

static void put_base64(FILE* f, const unsigned char* p, size_t n) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n) v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char out[4] = {abc[v >> 18 & 63], abc[v >> 12 & 63], i + 1 < n ? abc[v >> 6 & 63] : '=',
                       i + 2 < n ? abc[v & 63] : '='};
        fwrite(out, 1, 4, f);
    }
}

/* One inlined file: <script type="application/octet-stream" data-name=NAME>base64</script>.
 * Base64 has no '<', so no content can close the tag. */
static void put_asset(FILE* f, const char* name, const blob* b) {
    fprintf(f, "<script type=\"application/octet-stream\" data-tailor=\"%s\">", name);
    put_base64(f, (const unsigned char*)b->data, b->size);
    fputs("</script>\n", f);
}

/* The modules the page imports, in dependency order: name, directory, path. */
typedef struct module_file {
    const char* name;
    int dir; /* 0 web/, 1 three/build, 2 three/examples/jsm */
    const char* path;
} module_file;

static const module_file MODULES[] = {
    {"three.core.js", 1, "three.core.js"},
    {"three", 1, "three.module.js"},
    {"three/addons/utils/BufferGeometryUtils.js", 2, "utils/BufferGeometryUtils.js"},
    {"three/addons/utils/SkeletonUtils.js", 2, "utils/SkeletonUtils.js"},
    {"three/addons/loaders/GLTFLoader.js", 2, "loaders/GLTFLoader.js"},
    {"three/addons/controls/OrbitControls.js", 2, "controls/OrbitControls.js"},
    {"tailor-sim.js", 0, "tailor-sim.js"},
    {"viewer.js", 0, "viewer.js"},
};

static const char* module_dir(int dir, char* buf, size_t size) {
    if (dir == 0) return web_dir();
    snprintf(buf, size, "%s/%s", three_dir(), dir == 1 ? "build" : "examples/jsm");
    return buf;
}

static int write_report(const char* cmd, const char* out_path, const char* file, const char* input,
                        bool force, const assets* a) {
    blob page = {0}, boot = {0};
    tl_error err;
    if (read_joined(web_dir(), "viewer.html", &page, &err))
        return tl_cli_fail(cmd, "%s (set TAILOR_WEB_DIR)", err.message);
    char* mark = strstr(page.data, BOOT_MARK);
    if (!mark || read_joined(web_dir(), "report-boot.js", &boot, &err)) {
        free(page.data);
        return tl_cli_fail(cmd, "%s: viewer.html without %s or no report-boot.js", web_dir(),
                           BOOT_MARK);
    }
    char* html = NULL; /* the page is built in memory, then written as one output */
    size_t html_size = 0;
    FILE* f = open_memstream(&html, &html_size);
    int code = 0;
    if (!f) {
        code = tl_cli_fail(cmd, "out of memory building the page");
    } else {
        fwrite(page.data, 1, (size_t)(mark - page.data), f);
        put_asset(f, "model.glb", &a->rigged);
        if (a->has_input) put_asset(f, "input.glb", &a->input);
        put_asset(f, "tailor_sim.wasm", &a->wasm);
        put_asset(f, "measure.json", &a->measure);
        for (size_t i = 0; !code && i < sizeof MODULES / sizeof MODULES[0]; ++i) {
            char dir[4096];
            blob m = {0};
            const char* d = module_dir(MODULES[i].dir, dir, sizeof dir);
            if (read_joined(d, MODULES[i].path, &m, &err)) {
                code = tl_cli_fail(cmd, "%s", err.message);
                break;
            }
            fprintf(f, "<script type=\"application/octet-stream\" data-module=\"%s\">",
                    MODULES[i].name);
            put_base64(f, (const unsigned char*)m.data, m.size);
            fputs("</script>\n", f);
            free(m.data);
        }
        fputs("<script>\n", f);
        fwrite(boot.data, 1, boot.size, f);
        fputs("</script>\n", f);
        fputs(mark + strlen(BOOT_MARK), f);
        if (fclose(f) && !code) code = tl_cli_fail(cmd, "out of memory building the page");
        if (!code) code = tl_cli_write_data(cmd, file, input, force, out_path, html, html_size);
        free(html);
    }
    free(page.data);
    free(boot.data);
    return code;
}

int tl_cli_report(int argc, char** argv) {
    const char *file = NULL, *input = NULL, *out = NULL;
    bool force = false;
    for (int i = 1; i < argc; ++i) {
        if (tl_cli_is_help(argv[i])) return printf("%s", REPORT_USAGE), 0;
        if (!strcmp(argv[i], "--force"))
            force = true;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            input = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else
            return tl_cli_fail("report", "unexpected argument \"%s\" (see --help)", argv[i]), 2;
    }
    if (!file || !out) return fprintf(stderr, "%s", REPORT_USAGE), 2;
    int code = tl_cli_check_outputs("report", file, input, force, out, NULL);
    if (code) return code;
    assets a;
    code = assets_load("report", file, input, &a);
    if (!code) code = write_report("report", out, file, input, force, &a);
    assets_free(&a);
    return code;
}

/* ---- view: a small HTTP/1.0 server on 127.0.0.1, one request per connection ---- */

static bool write_all(int fd, const char* p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w, n -= (size_t)w;
    }
    return true;
}

static void respond(int fd, int status, const char* type, const char* body, size_t size) {
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                     status,
                     status == 200   ? "OK"
                     : status == 404 ? "Not Found"
                                     : "Bad Request",
                     type, size);
    if (write_all(fd, head, (size_t)n)) write_all(fd, body, size);
}

static const char* type_of(const char* path) {
    const char* dot = strrchr(path, '.');
    if (!dot) return "application/octet-stream";
    if (!strcmp(dot, ".js") || !strcmp(dot, ".mjs")) return "text/javascript; charset=utf-8";
    if (!strcmp(dot, ".html")) return "text/html; charset=utf-8";
    if (!strcmp(dot, ".json")) return "application/json";
    if (!strcmp(dot, ".wasm")) return "application/wasm";
    if (!strcmp(dot, ".glb")) return "model/gltf-binary";
    return "application/octet-stream";
}

/* A path of the addons tree: letters, digits, '_', '-', '.', '/' and no "..". */
static bool safe_path(const char* p) {
    if (strstr(p, "..")) return false;
    for (; *p; ++p)
        if (!(*p == '/' || *p == '_' || *p == '-' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

static const char VIEW_BOOT[] =
    "<script type=\"importmap\">{\"imports\": {\"three\": \"/three/three.module.js\", "
    "\"three/addons/\": \"/three/addons/\"}}</script>\n"
    "<script>window.TAILOR = {model: '/model.glb', input: %s, wasm: '/tailor_sim.wasm', "
    "measure: '/measure.json'};</script>\n"
    "<script type=\"module\" src=\"/viewer.js\"></script>\n";

static void serve_page(int fd, const assets* a) {
    blob page = {0};
    char* mark;
    if (read_joined(web_dir(), "viewer.html", &page, NULL) ||
        !(mark = strstr(page.data, BOOT_MARK))) {
        free(page.data);
        static const char msg[] = "viewer.html missing (set TAILOR_WEB_DIR)";
        respond(fd, 404, "text/plain", msg, sizeof msg - 1);
        return;
    }
    char boot[sizeof VIEW_BOOT + 32];
    int n = snprintf(boot, sizeof boot, VIEW_BOOT, a->has_input ? "'/input.glb'" : "null");
    size_t head = (size_t)(mark - page.data), tail = page.size - head - strlen(BOOT_MARK);
    char* out = malloc(page.size + (size_t)n);
    if (out) {
        memcpy(out, page.data, head);
        memcpy(out + head, boot, (size_t)n);
        memcpy(out + head + (size_t)n, mark + strlen(BOOT_MARK), tail);
        respond(fd, 200, "text/html; charset=utf-8", out, head + (size_t)n + tail);
    }
    free(out);
    free(page.data);
}

static void serve_file(int fd, const char* dir, const char* path) {
    blob b = {0};
    if (!safe_path(path) || read_joined(dir, path, &b, NULL)) {
        static const char msg[] = "not found";
        respond(fd, 404, "text/plain", msg, sizeof msg - 1);
        return;
    }
    respond(fd, 200, type_of(path), b.data, b.size);
    free(b.data);
}

static void serve(int fd, const assets* a) {
    char req[8192];
    size_t n = 0;
    /* read the request line and headers (bounded; the body of a GET is ignored) */
    while (n < sizeof req - 1) {
        ssize_t r = read(fd, req + n, sizeof req - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n")) break;
    }
    req[n] = 0;
    char method[8], path[2048];
    if (sscanf(req, "%7s %2047s", method, path) != 2 ||
        (strcmp(method, "GET") && strcmp(method, "HEAD"))) {
        static const char msg[] = "bad request";
        respond(fd, 400, "text/plain", msg, sizeof msg - 1);
        return;
    }
    char* query = strchr(path, '?');
    if (query) *query = 0;
    char dir[4096];
    if (!strcmp(path, "/") || !strcmp(path, "/index.html"))
        serve_page(fd, a);
    else if (!strcmp(path, "/model.glb"))
        respond(fd, 200, "model/gltf-binary", a->rigged.data, a->rigged.size);
    else if (!strcmp(path, "/input.glb") && a->has_input)
        respond(fd, 200, "model/gltf-binary", a->input.data, a->input.size);
    else if (!strcmp(path, "/tailor_sim.wasm"))
        respond(fd, 200, "application/wasm", a->wasm.data, a->wasm.size);
    else if (!strcmp(path, "/measure.json"))
        respond(fd, 200, "application/json", a->measure.data, a->measure.size);
    else if (!strcmp(path, "/viewer.js") || !strcmp(path, "/tailor-sim.js"))
        serve_file(fd, web_dir(), path + 1);
    else if (!strcmp(path, "/three/three.module.js") || !strcmp(path, "/three/three.core.js"))
        serve_file(fd, module_dir(1, dir, sizeof dir), path + strlen("/three/"));
    else if (!strncmp(path, "/three/addons/", strlen("/three/addons/")))
        serve_file(fd, module_dir(2, dir, sizeof dir), path + strlen("/three/addons/"));
    else
        respond(fd, 404, "text/plain", "not found", 9);
}

int tl_cli_view(int argc, char** argv) {
    const char *file = NULL, *input = NULL;
    long port = 8417;
    for (int i = 1; i < argc; ++i) {
        if (tl_cli_is_help(argv[i])) return printf("%s", VIEW_USAGE), 0;
        if (!strcmp(argv[i], "--port") && i + 1 < argc) {
            char* end;
            port = strtol(argv[++i], &end, 10);
            if (*end || port < 0 || port > 65535)
                return tl_cli_fail("view", "--port: expected 0..65535"), 2;
        } else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            input = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else
            return tl_cli_fail("view", "unexpected argument \"%s\" (see --help)", argv[i]), 2;
    }
    if (!file) return fprintf(stderr, "%s", VIEW_USAGE), 2;
    assets a;
    int code = assets_load("view", file, input, &a);
    int sock = -1;
    if (!code) {
        signal(SIGPIPE, SIG_IGN); /* a browser closing early must not end the server */
        struct sockaddr_in addr = {0};
        addr.sin_family = AF_INET;
        addr.sin_port = htons((uint16_t)port);
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* never beyond this machine */
        int yes = 1;
        socklen_t len = sizeof addr;
        if ((sock = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) ||
            bind(sock, (struct sockaddr*)&addr, sizeof addr) || listen(sock, 16) ||
            getsockname(sock, (struct sockaddr*)&addr, &len))
            code = tl_cli_fail("view", "127.0.0.1:%ld: %s", port, strerror(errno));
        else {
            printf("tailor view: http://127.0.0.1:%d/ (Ctrl-C stops)\n", ntohs(addr.sin_port));
            fflush(stdout);
        }
    }
    while (!code) {
        int fd = accept(sock, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            code = tl_cli_fail("view", "accept: %s", strerror(errno));
            break;
        }
        struct timeval tv = {5, 0}; /* a silent client is dropped after 5 s */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        serve(fd, &a);
        close(fd);
    }
    if (sock >= 0) close(sock);
    assets_free(&a);
    return code;
}
