#!/usr/bin/env bash
# imgfetch demo: serves the bundled sample images from the fixture server on 127.0.0.1, runs imgfetch on
# them with a throw-away cache directory, and leaves the results in demo-output/.
#
#   IMGFETCH=.build/static/release/imgfetch scripts/demo.sh      (what `make demo` runs)
#
# Environment: IMGFETCH (the binary; default .build/static/release/imgfetch), DEMO_OUT (default demo-output).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BIN=${IMGFETCH:-.build/static/release/imgfetch}
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
OUT=${DEMO_OUT:-demo-output}
IMAGES=$ROOT/Tests/Fixtures/images
SERVER=$ROOT/Tests/Fixtures/server/fixture_server.py

if [[ ! -x $BIN ]]; then
    echo "demo: $BIN not found; build it first (make demo does)" >&2
    exit 1
fi

# The server is local: never send its requests through a proxy from the environment.
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-demo.XXXXXX")
CACHE=$WORK/cache
PORT_FILE=$WORK/port
SERVER_PID=
# The warm renderer that the first fetch leaves behind gets a name of this demo's own and is stopped at the end.
export IMGFETCH_RENDERER_SOCKET=imgfetch-demo-$$
unset IMGFETCH_RENDERER IMGFETCH_RENDERER_IDLE

cleanup() {
    "$BIN" renderer stop >/dev/null 2>&1 || true
    if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the fixture server --------------------------------------------------------------------------------------
python3 "$SERVER" --root "$IMAGES" --port 0 --port-file "$PORT_FILE" >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 1 100); do
    [[ -s $PORT_FILE ]] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "demo: the fixture server exited:" >&2
        cat "$WORK/server.err" >&2
        exit 1
    fi
    sleep 0.1
done
if [[ ! -s $PORT_FILE ]]; then
    echo "demo: the fixture server did not report its port within 10 s" >&2
    exit 1
fi
PORT=$(tr -d '[:space:]' <"$PORT_FILE")
BASE=http://127.0.0.1:$PORT/img

mkdir -p "$OUT"
OUT_ABS=$(cd "$OUT" && pwd)
echo "demo: serving Tests/Fixtures/images at $BASE (pid $SERVER_PID); cache directory $CACHE"

# Quotes an argument for display the way a person would type it.
quote() {
    if [[ $1 =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
        printf '%s' "$1"
    else
        printf "'%s'" "${1//\'/\'\\\'\'}"
    fi
}

# Prints the command as a user would type it, then runs it; stops the demo on the first failure.
step=0
run() {
    step=$((step + 1))
    echo
    echo "== $step. $1"
    shift
    local line='$ imgfetch' arg
    for arg in "$@" --cache-dir "$CACHE"; do line+=" $(quote "$arg")"; done
    echo "$line"
    local status=0
    "$BIN" "$@" --cache-dir "$CACHE" || status=$?
    if ((status != 0)); then
        echo "demo: that command failed with exit status $status" >&2
        exit "$status"
    fi
}

run "fetch, resize to fill 200x200, round the corners, write WebP (a download)" \
    "$BASE/sample.jpg" --resize 200x200:fill --round 12 -o "$OUT/sample.webp"

run "the same again: a cache hit, no request (-v says where it came from)" \
    -v "$BASE/sample.jpg" --resize 200x200:fill --round 12 -o "$OUT/sample.webp"

run "the same variant spelled as a chain, with another query string: still no request" \
    -v "$BASE/sample.jpg?sig=abc" -p 'resize(200x200,fill)|>round(12)' -o "$OUT/sample-again.webp"

# The first fetch loaded libvips itself and left a warm renderer for the next commands (-v says which made what).
for _ in $(seq 1 50); do "$BIN" renderer status | grep -q '^running' && break; sleep 0.1; done
run "grayscale, from a transparent PNG: rendered by the warm renderer the first fetch started" \
    -v \
    "$BASE/rgba.png" --resize 300x --grayscale -o "$OUT/rgba-gray.png"

run "a circle from a photo with EXIF orientation 6 (rotated upright first)" \
    "$BASE/rotation/6.jpg" --resize 240x240:fill --circle -o "$OUT/circle.png"

run "a processing chain: resize to 300 px wide, then blur" \
    "$BASE/sample.png" -p 'resize(300x)|>blur(2)' -o "$OUT/sample-blur.jpg"

run "an overlay and a rotation, into a folder (-O names the file after the URL)" \
    "$BASE/1.webp" --resize 200x --overlay '#ff6600:0.3' --rotate 90 --format png -O "$OUT"

printf '%s\n' "$BASE/sample.jpg" "$BASE/sample.png" "$BASE/cogs.gif" "$BASE/rotation/3.jpg" >"$WORK/urls.txt"
run "a batch: two variants per URL, one download each" \
    batch "$WORK/urls.txt" -O "$OUT/batch" --variant small='resize(100x100,fill)' --variant large='resize(400x)'

run "what the cache holds" \
    cache inspect

echo
echo "== the warm renderer (stopped when the demo ends; --renderer off never starts one)"
echo '$ imgfetch renderer status'
"$BIN" renderer status

echo
python3 - "http://127.0.0.1:$PORT/_stats" <<'PY'
import json, sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
stats = json.load(opener.open(sys.argv[1], timeout=5))
print("demo: the server answered %d image requests over %d connections:" % (stats["total"], stats["connections"]))
for path, count in sorted(stats["paths"].items()):
    print("  %3d  %s" % (count, path))
PY

echo
echo "demo: wrote these files to $OUT_ABS/ :"
(cd "$OUT_ABS" && find . -type f -newer "$PORT_FILE" | sed 's|^\./|  |' | sort)
