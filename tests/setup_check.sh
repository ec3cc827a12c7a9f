#!/usr/bin/env bash
# scripts/setup.sh's two sets and its failures, with no package touched: apt-get, npm, sudo and
# dpkg-query are stand-ins on PATH that record their calls (tests/test_cli.c setup_split).
#  - `--dry-run --build` lists the build set: no npm, Node, clang, wasi-libc, Blender,
#    Chromium or Slurm; `--dry-run` lists every package of both; neither runs apt-get or npm.
#  - `make -n demo` runs `setup.sh --build`; `make -n test` runs the full setup.
#  - a failing apt-get or npm ci: exit 1, the command and the end of its output printed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tailor-setup-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
    echo "setup_check: $*" >&2
    exit 1
}

shims=$work/bin
mkdir -p "$shims"
calls=$work/calls
: >"$calls"
# $1: what dpkg-query says of every package ("missing" or "installed"); apt-get fails on
# install when APT_FAILS is set, npm when NPM_FAILS is.
make_shims() {
    if [ "$1" = installed ]; then
        printf '#!/bin/sh\nprintf "install ok installed"\n' >"$shims/dpkg-query"
    else
        printf '#!/bin/sh\nexit 1\n' >"$shims/dpkg-query"
    fi
    cat >"$shims/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >> "$calls"
if [ -n "\${APT_FAILS:-}" ] && [ "\$1" != update ]; then
    echo "Reading package lists..."
    echo "E: Unable to locate package libjansson-dev"
    exit 100
fi
EOF
    cat >"$shims/npm" <<EOF
#!/bin/sh
echo "npm \$*" >> "$calls"
if [ -n "\${NPM_FAILS:-}" ]; then
    echo "npm ERR! code ECONNREFUSED"
    echo "npm ERR! network request to the registry failed"
    exit 1
fi
EOF
    printf '#!/bin/sh\nexit 0\n' >"$shims/node"
    printf '#!/bin/sh\n"$@"\n' >"$shims/sudo"
    chmod +x "$shims"/*
}

# The sets, from the dry run with every package missing.
make_shims missing
build=$(PATH="$shims:$PATH" bash "$repo/scripts/setup.sh" --dry-run --build)
all=$(PATH="$shims:$PATH" bash "$repo/scripts/setup.sh" --dry-run)
[ -s "$calls" ] && fail "a dry run ran: $(cat "$calls")"
set_of() { sed -n "s/^setup: $1 set: //p"; }
build_set=" $(echo "$build" | set_of build) "
all_set=" $(echo "$all" | set_of all) "
echo "build set:$build_set"
echo "all set:$all_set"
for p in cmake build-essential libjansson-dev libsuitesparse-dev libpng-dev; do
    [[ "$build_set" == *" $p "* ]] || fail "the build set lacks $p"
done
for p in npm nodejs clang clang-format lld wasi-libc libclang-rt-dev blender chromium slurm-wlm; do
    [[ "$build_set" != *" $p "* ]] || fail "the build set holds $p"
    [[ "$all_set" == *" $p "* ]] || fail "the full set lacks $p"
done
for p in $build_set; do [[ "$all_set" == *" $p "* ]] || fail "the full set lacks $p"; done
grep -q "would install: .*libjansson-dev" <<<"$build" || fail "the dry run does not list what it would install: $build"
grep -q "npm" <<<"$build" && fail "the build set's dry run mentions npm: $build"

# make demo installs the build set; make test everything.
# (make's output is kept first: grep -q leaving early would make it die of SIGPIPE)
demo_plan=$(make -n -C "$repo" demo)
test_plan=$(make -n -C "$repo" test)
grep -q "scripts/setup.sh --build" <<<"$demo_plan" || fail "make demo does not run setup.sh --build"
grep -qE "scripts/setup.sh *$" <<<"$demo_plan" && fail "make demo runs the full setup"
grep -qE "scripts/setup.sh *$" <<<"$test_plan" || fail "make test does not run the full setup"

# A failing apt-get: the command and its own words.
: >"$calls"
set +e
out=$(APT_FAILS=1 PATH="$shims:$PATH" bash "$repo/scripts/setup.sh" --build 2>&1)
code=$?
set -e
echo "apt failure (exit $code):"
echo "$out" | sed 's/^/  | /'
[ "$code" = 1 ] || fail "a failing apt-get: exit $code"
grep -q "FAILED: .*apt-get install -y -qq .*libjansson-dev" <<<"$out" || fail "the failing command is not shown"
grep -q "E: Unable to locate package libjansson-dev" <<<"$out" || fail "apt-get's own message is not shown"

# A failing npm ci, in a copy of the layout whose lock does not match node_modules.
mkdir -p "$work/repo/scripts"
cp "$repo/scripts/setup.sh" "$work/repo/scripts/"
echo '{"lockfileVersion": 3}' >"$work/repo/package-lock.json"
make_shims installed
: >"$calls"
set +e
out=$(NPM_FAILS=1 PATH="$shims:$PATH" bash "$work/repo/scripts/setup.sh" 2>&1)
code=$?
set -e
echo "npm failure (exit $code):"
echo "$out" | sed 's/^/  | /'
[ "$code" = 1 ] || fail "a failing npm ci: exit $code"
grep -q "FAILED: npm ci" <<<"$out" || fail "the failing npm command is not shown"
grep -q "ECONNREFUSED" <<<"$out" || fail "npm's own message is not shown"
grep -q "apt-get" "$calls" && fail "apt-get ran with every package installed"
[ ! -e "$work/repo/node_modules/.tailor-lock-sha256" ] || fail "a failed npm ci was recorded as done"
echo "setup_check: ok"
