#!/usr/bin/env bash
# Installs what tailor needs, once; safe to run again.
#   setup.sh            everything: the build set and the test set (make test)
#   setup.sh --build    only what the library and the command need to build (make build, demo)
#   setup.sh --dry-run  print the packages it would install and the commands it would run;
#                       install nothing (with --build: for the build set)
# A failing install prints the command and the end of its output, then exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
dry_run=false
for arg in "$@"; do
    case "$arg" in
    --build) mode=build ;;
    --dry-run) dry_run=true ;;
    -h | --help)
        sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "setup: unknown argument \"$arg\" (--build, --dry-run)" >&2
        exit 2
        ;;
    esac
done

# The build: a C compiler, CMake, and the libraries the library links (jansson,
# CHOLMOD, OpenSSL's sha256 for batch, libpng for render); Python runs the size check.
build_debs=(build-essential cmake pkg-config libjansson-dev libsuitesparse-dev libssl-dev libpng-dev python3)
# The tests on top: clang for the sanitizer and fuzz builds and the WebAssembly solver
# (lld, wasi-libc), clang-format, Slurm for the batch test, Node and npm for the validator and
# three.js, Chromium for the viewer test, and Blender (with numpy, which its 3.4 glTF
# importer needs) for test_bake blender_round_trip: about 340 packages, 930 MB installed,
# beyond the rest of this list.
test_debs=(clang clang-format lld libclang-rt-dev wasi-libc slurm-wlm nodejs npm chromium blender python3-numpy)

debs=("${build_debs[@]}")
[ "$mode" = build ] || debs+=("${test_debs[@]}")
missing=()
for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm may come from outside Debian's packages (already on PATH): accept them.
if command -v node >/dev/null && command -v npm >/dev/null; then
    filtered=()
    for p in "${missing[@]}"; do [[ "$p" == nodejs || "$p" == npm ]] || filtered+=("$p"); done
    missing=("${filtered[@]}")
fi

sudo_cmd=()
[ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
log=$(mktemp "${TMPDIR:-/tmp}/tailor-setup.XXXXXX")
trap 'rm -f "$log"' EXIT

# Runs a command with its output in the log; on failure shows why and stops.
run() {
    if ! "$@" >"$log" 2>&1; then
        echo "setup: FAILED: $*" >&2
        echo "setup: the last lines of its output:" >&2
        tail -n 25 "$log" | sed 's/^/    /' >&2
        exit 1
    fi
}

lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
npm_needed=false
if [ "$mode" = all ] && [ "$(cat node_modules/.tailor-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
    npm_needed=true
fi

if $dry_run; then
    echo "setup: $mode set: ${debs[*]}"
    echo "setup: would install: ${missing[*]:-nothing (all installed)}"
    if ((${#missing[@]})); then
        echo "setup: would run: ${sudo_cmd[*]:+${sudo_cmd[*]} }apt-get update -qq"
        echo "setup: would run: ${sudo_cmd[*]:+${sudo_cmd[*]} }env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing[*]}"
    fi
    $npm_needed && echo "setup: would run: npm ci --no-audit --no-fund (package-lock.json changed)"
    exit 0
fi

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    run "${sudo_cmd[@]}" apt-get update -qq
    run "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# npm packages pinned by package-lock.json; reinstall only when the lock's content changed (a
# fresh checkout's newer mtime alone must not wipe a working node_modules).
if $npm_needed; then
    run npm ci --no-audit --no-fund
    echo "$lock_sum" >node_modules/.tailor-lock-sha256
fi
