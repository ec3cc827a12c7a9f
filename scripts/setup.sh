#!/usr/bin/env bash
# Installs what tailor needs to build and test, once; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# blender: test_bake blender_round_trip imports and exports a rigged file with Debian's
# Blender 3.4 (about 340 packages, 930 MB installed, beyond the rest of this list).
debs=(build-essential cmake pkg-config clang clang-format lld libclang-rt-dev wasi-libc libjansson-dev libsuitesparse-dev libssl-dev slurm-wlm python3 nodejs npm libpng-dev chromium blender)
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
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages pinned by package-lock.json; reinstall only when the lock's content changed (a
# fresh checkout's newer mtime alone must not wipe a working node_modules).
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.tailor-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
    if ! npm ci --silent --no-audit --no-fund; then
        echo "setup: npm ci failed (registry unreachable or package-lock.json damaged); see the npm output above" >&2
        exit 1
    fi
    echo "$lock_sum" > node_modules/.tailor-lock-sha256
fi
