#!/usr/bin/env bash
# `tailor report` and `tailor view` without a browser (so it also runs under ASan): the report
# holds every inlined file; the server answers the page, the model, the wasm, the measure
# JSON and three.js, refuses a path outside its tree, a bad request and an unknown path, and
# survives a client that sends nothing.
#   tests/web_view_http.sh TAILOR OUTDIR CASE.glb
set -euo pipefail
tailor=$1 out=$2 case=$3
mkdir -p "$out"
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
if python3 - "$url" "$out/report.html" "$out/rigged.glb" "$case" <<'PY'
import re, socket, sys, urllib.request, urllib.error
url, report, rigged, case = sys.argv[1:]
page = open(report).read()
for name in ["model.glb", "input.glb", "tailor_sim.wasm", "measure.json"]:
    assert f'data-tailor="{name}"' in page, name
for name in ["three.core.js", "three", "three/addons/loaders/GLTFLoader.js", "viewer.js", "tailor-sim.js"]:
    assert f'data-module="{name}"' in page, name
plain = re.sub(r'<script type="application/octet-stream"[^>]*>[^<]*</script>', "", page)
assert "http://" not in plain and "https://" not in plain, "the report names a network URL"
def get(path):
    try:
        with urllib.request.urlopen(url + path.lstrip("/"), timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, None, b""
# a silent client first: the server drops it after its timeout and goes on
s = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))))
status, kind, body = get("/")
assert status == 200 and b"tailorViewer" not in body and b"/viewer.js" in body, status
s.close()
assert get("/model.glb")[2] == open(rigged, "rb").read()
assert get("/input.glb")[2] == open(case, "rb").read()
status, kind, body = get("/tailor_sim.wasm")
assert status == 200 and kind == "application/wasm" and body[:4] == b"\0asm"
status, kind, body = get("/measure.json")
assert status == 200 and b'"clips"' in body
for path in ["/viewer.js", "/tailor-sim.js", "/three/three.module.js", "/three/three.core.js",
             "/three/addons/loaders/GLTFLoader.js", "/three/addons/controls/OrbitControls.js"]:
    status, kind, body = get(path)
    assert status == 200 and kind.startswith("text/javascript") and len(body) > 1000, path
for path in ["/three/addons/../../package.json", "/three/addons/%2e%2e/x.js", "/nothing", "/input.glbx"]:
    assert get(path)[0] == 404, path
c = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))))
c.sendall(b"POST / HTTP/1.0\r\n\r\n")
assert c.recv(64).startswith(b"HTTP/1.0 400"), "POST"
c.close()
print("web_view_http: report and server answer as expected")
PY
then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"
    exit 1
fi
