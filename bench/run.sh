#!/usr/bin/env bash
# make bench: imgfetch against curl | vipsthumbnail, ImageMagick's convert and find | sort,
# on a generated image set served by nginx on 127.0.0.1.  See bench/README.md.
#
# Prints a markdown table of medians and ratios and writes it to docs/BENCHMARKS.md.
# Exits 0 even when imgfetch rows fail ("failed (exit N)"); non-zero only when the harness
# itself breaks (missing packages that can't be installed, nginx won't start, a bug in here).
#
# Environment:
#   IMGFETCH=path          binary to measure (default .build/static/release/imgfetch, built if missing)
#   BENCH_COUNT=500        images in the batch workloads (2, 3)
#   BENCH_ONLY=1,2,...     run only these workloads
#   BENCH_ROUNDS_FAST=10 BENCH_ROUNDS_BATCH=3 BENCH_ROUNDS_WARM=5 BENCH_ROUNDS_MEM=3
#   BENCH_CACHE_ENTRIES=100000 BENCH_CACHE_ROUNDS=3 BENCH_CACHE_EXPIRED=0.3
#   BENCH_CACHE_PARENT=/dev/shm       where workload 6's cache goes (bench/work: on disk)
#   BENCH_PHOTOS=400 BENCH_ROUNDS_PHOTOS=3 BENCH_SHARP_COUNT=200 BENCH_ROUNDS_SHARP=3   workloads 7 and 8
#   BENCH_TIMEOUT=600                 seconds before one run is killed
#   BENCH_REPORT=docs/BENCHMARKS.md   where the report goes
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=$ROOT/bench
WORK=$BENCH/work                  # generated, kept between runs, ignored by git (/bench/work/)
WWW=$WORK/www-r1                  # image set, recipe 1 (gen_images.py RECIPE)
IMGFETCH=${IMGFETCH:-.build/static/release/imgfetch}
BENCH_COUNT=${BENCH_COUNT:-500}
REPORT=${BENCH_REPORT:-docs/BENCHMARKS.md}
PYTHON=${PYTHON:-python3}
T0=$SECONDS

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# ---------------------------------------------------------------------------- packages
# command -> Debian package
declare -A PKG=(
  [vips]=libvips-tools [vipsthumbnail]=libvips-tools [vipsheader]=libvips-tools
  [/usr/bin/convert]=imagemagick [curl]=curl [nginx]=nginx [/usr/bin/time]=time
  [$PYTHON]=python3
)
missing=()
for cmd in "${!PKG[@]}"; do
  if [[ $cmd == /* ]]; then [[ -x $cmd ]] && continue; else command -v "$cmd" >/dev/null && continue; fi
  [[ " ${missing[*]} " == *" ${PKG[$cmd]} "* ]] || missing+=("${PKG[$cmd]}")
done
if ((${#missing[@]})); then
  [[ $(id -u) == 0 ]] || die "missing packages: ${missing[*]} (install them, or run as root)"
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi
# Installing nginx on a machine with an init system may start the distribution's daemon on
# port 80; we don't use it and leave it alone.  Ours runs from $WORK/nginx on a free port.

# ---------------------------------------------------------------------------- imgfetch
if [[ ! -x $IMGFETCH ]]; then
  if [[ $IMGFETCH == .build/static/release/imgfetch ]]; then
    say "building imgfetch (swift build -c release, log in bench/work/build.log)"
    mkdir -p "$WORK"
    SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
    if ! "$SWIFT" build -c release -Xswiftc -static-stdlib --scratch-path .build/static >"$WORK/build.log" 2>&1; then
      say "build failed (tail of bench/work/build.log below); imgfetch rows will say so"
      tail -n 15 "$WORK/build.log" >&2 || true
    fi
  else
    say "IMGFETCH=$IMGFETCH is not executable; imgfetch rows will say so"
  fi
fi

# ---------------------------------------------------------------------------- signals
# The Python steps run as background children that we wait for, so that Ctrl-C or a TERM
# reaches this script at once; the EXIT trap then stops the child (which stops the command
# it is timing) and nginx.
CHILD= NGINX_PID=
# imgfetch's opt-in warm renderer (workload 1's --renderer auto row) at a socket of this run's own (in a 0700
# folder), stopped at the end.
RENDERER_DIR=$(mktemp -d)
export IMGFETCH_RENDERER_SOCKET=$RENDERER_DIR/bench.sock
unset IMGFETCH_RENDERER IMGFETCH_RENDERER_IDLE
cleanup() {
  local pid
  [[ -x $IMGFETCH ]] && "$IMGFETCH" renderer stop >/dev/null 2>&1 || true
  rm -rf "$RENDERER_DIR"
  for pid in $CHILD $NGINX_PID; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
child() {
  "$@" &
  CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=
  return "$rc"
}

# ---------------------------------------------------------------------------- images
mkdir -p "$WORK"
child "$PYTHON" "$BENCH/gen_images.py" "$WWW" "$BENCH_COUNT"
# Workloads 7 and 8: real photographs from Debian's wallpaper packages, and the Python peers in a venv of their own.
# Workload 10 (small images) takes its peers from the same venv and img2dataset from a venv of its own.
wants() { [[ -z ${BENCH_ONLY:-} || ,$BENCH_ONLY, == *,$1,* ]]; }
if wants 7 || wants 8 || wants 10; then
  wants 7 || wants 8 && child "$PYTHON" "$BENCH/photo_set.py" "$WWW/photos" "${BENCH_PHOTOS:-400}"
  VENV=$WORK/venv
  if [[ -n ${BENCH_PEER_PYTHON:-} ]]; then
    "$BENCH_PEER_PYTHON" -c 'import pyvips, PIL, requests' \
      || die "BENCH_PEER_PYTHON=$BENCH_PEER_PYTHON cannot import pyvips, PIL and requests"
  else
    if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import pyvips, PIL, requests' 2>/dev/null; then
      say "making the peers' venv (pip install pyvips pillow requests) in bench/work/venv"
      # Debian's python3 makes venvs only with python3-venv; pyvips builds against libvips-dev (the build's own).
      if ! "$PYTHON" -c 'import ensurepip' 2>/dev/null && [[ $(id -u) == 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null || true
      fi
      "$PYTHON" -m venv "$VENV" && "$VENV/bin/pip" install -q pyvips pillow requests >"$WORK/venv.log" 2>&1 \
        || say "the venv could not be made (bench/work/venv.log); workloads 7 and 8 are skipped"
    fi
    "$VENV/bin/python" -c 'import pyvips, PIL, requests' 2>/dev/null && export BENCH_PEER_PYTHON=$VENV/bin/python
  fi
fi
if wants 10 && [[ -n ${BENCH_PEER_PYTHON:-} ]]; then
  child "$BENCH_PEER_PYTHON" "$BENCH/small_set.py" "$WWW/small" "${BENCH_SMALL:-10000}"
  # img2dataset pins its own versions of numpy, OpenCV and pyarrow: a venv of its own. It runs offline over
  # loopback once albumentations no longer asks PyPI for a newer version of itself.
  export NO_ALBUMENTATIONS_UPDATE=1
  I2D=$WORK/venv-img2dataset
  if [[ -z ${BENCH_IMG2DATASET:-} ]]; then
    if [[ ! -x $I2D/bin/img2dataset ]]; then
      say "making img2dataset's venv (pip install img2dataset) in bench/work/venv-img2dataset"
      "$PYTHON" -m venv "$I2D" && "$I2D/bin/pip" install -q img2dataset >"$WORK/venv-img2dataset.log" 2>&1 \
        || say "img2dataset could not be installed (bench/work/venv-img2dataset.log); workload 10 runs without it"
    fi
    [[ -x $I2D/bin/img2dataset ]] && export BENCH_IMG2DATASET=$I2D/bin/img2dataset
  fi
fi

# ---------------------------------------------------------------------------- nginx
NGX=$WORK/nginx

mkdir -p "$NGX/logs" "$NGX/tmp"
PORT=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
user_line=
[[ $(id -u) == 0 ]] && user_line="user root;"   # workers read bench/work whatever its modes
cat >"$NGX/nginx.conf" <<EOF
# written by bench/run.sh for this run; serves $WWW
$user_line
daemon off;
worker_processes 2;
pid $NGX/nginx.pid;
error_log $NGX/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000;
    types { image/jpeg jpg jpeg; image/png png; image/webp webp; text/plain txt; }
    default_type application/octet-stream;
    client_body_temp_path $NGX/tmp/body;
    proxy_temp_path $NGX/tmp/proxy;
    fastcgi_temp_path $NGX/tmp/fastcgi;
    uwsgi_temp_path $NGX/tmp/uwsgi;
    scgi_temp_path $NGX/tmp/scgi;
    server {
        listen 127.0.0.1:$PORT;
        server_name localhost;
        root $WWW;
    }
}
EOF
nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/logs/error.log" </dev/null >"$NGX/logs/stdout.log" 2>&1 &
NGINX_PID=$!
BASE=http://127.0.0.1:$PORT
for _ in $(seq 100); do
  curl -sf -o /dev/null "$BASE/hero.jpg" && break
  kill -0 "$NGINX_PID" 2>/dev/null || { cat "$NGX/logs/error.log" "$NGX/logs/stdout.log" >&2; die "nginx did not start"; }
  sleep 0.05
done
curl -sf -o /dev/null "$BASE/hero.jpg" || die "nginx is not answering on $BASE"
say "nginx (pid $NGINX_PID) serves $WWW on $BASE"

# ---------------------------------------------------------------------------- workloads
rc=0
child "$PYTHON" "$BENCH/bench.py" --www "$WWW" --base-url "$BASE" --run-dir "$WORK/run" \
  --imgfetch "$IMGFETCH" --count "$BENCH_COUNT" --report "$REPORT" || rc=$?
# Workload 9: --quality 85 against --quality auto against --format auto on the photos, scored with SSIMULACRA2 from
# the tests' venv (make pyref), its section put into the report bench.py wrote.
if [[ -z ${BENCH_ONLY:-} || ,$BENCH_ONLY, == *,9,* ]]; then
  [[ -d $WWW/photos ]] || child "$PYTHON" "$BENCH/photo_set.py" "$WWW/photos" "${BENCH_PHOTOS:-400}"
  PYREF_PYTHON=$ROOT/.build/pyref/bin/python
  "$PYREF_PYTHON" -c 'import ssimulacra2' 2>/dev/null || { make -s pyref >&2 || true; }
  "$PYREF_PYTHON" -c 'import ssimulacra2' 2>/dev/null || { say "no ssimulacra2 (make pyref): workload 9 without scores"; PYREF_PYTHON=; }
  BENCH_PHOTO_URL=$BASE/photos child "$PYTHON" "$BENCH/auto_quality.py" "$IMGFETCH" "$WWW/photos" "$REPORT" \
    $PYREF_PYTHON || rc=$?
fi
say "done in $(( (SECONDS - T0) / 60 )) min $(( (SECONDS - T0) % 60 )) s"
exit "$rc"
