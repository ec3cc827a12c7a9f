#!/usr/bin/env bash
# The viewer in headless chromium (tests/web/browser.mjs): rigs a shared case, writes
# `tailor report`, starts `tailor view` on a free port, and drives both pages.
#   tests/web_browser.sh TAILOR OUTDIR CASE.glb
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tailor=$1 out=$2 case=$3 pages=${4:-$here/tests/web/browser.mjs}
mkdir -p "$out"
if [ ! -x /usr/bin/chromium ] && [ -z "${TAILOR_CHROMIUM:-}" ]; then
    echo "web_browser: /usr/bin/chromium missing (scripts/setup.sh installs it)"
    echo "0 passed, 1 failed"
    exit 1
fi
"$tailor" rig "$case" -o "$out/rigged.glb" --force >/dev/null
"$tailor" report "$out/rigged.glb" --input "$case" -o "$out/report.html"
"$tailor" view "$out/rigged.glb" --input "$case" --port 0 > "$out/view.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
url=
for _ in $(seq 100); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$out/view.log" || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$out/view.log"; echo "0 passed, 1 failed"; exit 1; }
status=0
node --no-warnings "$pages" "$out" "$out/report.html" "$url" || status=$?
if [ "$status" -ne 0 ]; then
    # what the server said and whether it still runs: a refused connection was seen once
    if kill -0 "$server" 2>/dev/null; then echo "web_browser: tailor view still running"
    else
        rc=0
        wait "$server" || rc=$?
        echo "web_browser: tailor view had exited with status $rc"
    fi
    cat "$out/view.log"
fi
exit "$status"
