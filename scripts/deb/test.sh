#!/bin/bash
# The package as a user gets it (make test-deb): installs it with dpkg -i, checks what dpkg -L lists, runs the
# installed binary as an unprivileged user (nobody) against the fixture server on 127.0.0.1 (a fetch, a batch,
# cache inspect, --version), checks that man finds the page and that bash loads the completion, removes the package
# with dpkg -r and checks that nothing of it is left. Changes the machine while it runs: needs root (or sudo), and
# refuses when imgfetch is installed already (a package, or /usr/bin/imgfetch). Prints "N passed, N failed".
#   scripts/deb/test.sh PACKAGE.deb
set -euo pipefail
deb=$(realpath "$1")
sudo=""; if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
user=nobody
passed=0 failed=0
check() { # check NAME COMMAND...: runs COMMAND, counts it
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok: $name"; else failed=$((failed + 1)); echo "FAILED: $name" >&2; fi
}
as_user() { $sudo runuser -u "$user" -- env HOME="$home" "$@"; }

if dpkg-query -W -f='${db:Status-Abbrev}' imgfetch 2>/dev/null | grep -q '^[ih]'; then
  echo "test-deb: the imgfetch package is installed already; not touching it" >&2; exit 1
fi
if [ -e /usr/bin/imgfetch ]; then echo "test-deb: /usr/bin/imgfetch exists already; not touching it" >&2; exit 1; fi

scratch=$(mktemp -d /tmp/imgfetch-test-deb.XXXXXX)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if dpkg-query -W -f='${db:Status-Abbrev}' imgfetch 2>/dev/null | grep -q '^[ih]'; then $sudo dpkg -r imgfetch >/dev/null; fi
  $sudo rm -rf "$scratch"
}
trap cleanup EXIT
chmod 0755 "$scratch"
home="$scratch/home"
mkdir -p "$home" && $sudo chown "$user" "$home"

# The files the package must hold, and nothing else (directories aside).
expected="/usr/bin/imgfetch
/usr/share/bash-completion/completions/imgfetch
/usr/share/doc/imgfetch/changelog.gz
/usr/share/doc/imgfetch/copyright
/usr/share/fish/vendor_completions.d/imgfetch.fish
/usr/share/man/man1/imgfetch.1.gz
/usr/share/zsh/vendor-completions/_imgfetch"

$sudo dpkg -i "$deb" >"$scratch/dpkg-i.log" 2>&1 || { cat "$scratch/dpkg-i.log" >&2; echo "test-deb: dpkg -i failed" >&2; exit 1; }
check "dpkg -s says installed" bash -c "dpkg-query -W -f='\${db:Status-Abbrev}' imgfetch | grep -q '^ii'"
listed_files() { dpkg -L imgfetch | while read -r path; do [ -f "$path" ] && echo "$path"; done | sort; }
check "dpkg -L lists exactly the package's files" diff <(echo "$expected") <(listed_files)
check "the binary is stripped" bash -c "! readelf -S /usr/bin/imgfetch | grep -qE '\.symtab|\.debug_info'"
check "the binary needs no Swift runtime library" bash -c "! ldd /usr/bin/imgfetch | grep -qE 'libswift|Foundation|libdispatch|not found'"

# --version as nobody: the package's version, and the libraries it runs with.
version=$(dpkg-deb -f "$deb" Version)
as_user /usr/bin/imgfetch --version >"$scratch/version.txt"
check "--version says the package's version" grep -qx "imgfetch $version" "$scratch/version.txt"
check "--version names libvips, libcurl and libxxhash" \
  bash -c "grep -qE '^libvips [0-9]+\.' '$scratch/version.txt' && grep -qE '^libcurl [0-9.]+ \(' '$scratch/version.txt' && grep -qE '^libxxhash [0-9]+\.' '$scratch/version.txt'"

# The fixture server on 127.0.0.1 (as this user; nobody only reads from it).
python3 Tests/Fixtures/server/fixture_server.py --root Tests/Fixtures/images --port 0 --port-file "$scratch/port" \
  >/dev/null &
server=$!
for _ in $(seq 100); do [ -s "$scratch/port" ] && break; sleep 0.1; done
port=$(cat "$scratch/port")
base="http://127.0.0.1:$port/img"
work="$home/work"
as_user mkdir -p "$work"
cache="$work/cache"

check "a fetch as $user writes the output" as_user /usr/bin/imgfetch --cache-dir "$cache" "$base/rotation/1.jpg" \
  --resize 100x -o "$work/one.webp"
check "the output is a WebP" bash -c "head -c 12 '$work/one.webp' | tail -c 4 | grep -q WEBP"
printf '%s\n' "$base/rotation/2.jpg" "$base/rotation/3.jpg" "$base/rotation/0.png" | as_user tee "$work/urls.txt" >/dev/null
check "a batch as $user writes three outputs" as_user /usr/bin/imgfetch batch "$work/urls.txt" --cache-dir "$cache" \
  -O "$work/out" --resize 50x --format png -q
check "the batch's three outputs are there" bash -c "[ \$(find '$work/out' -name '*.png' | wc -l) -eq 3 ]"
as_user /usr/bin/imgfetch cache inspect --cache-dir "$cache" --json >"$scratch/inspect.json"
check "cache inspect as $user sees the four originals" python3 -c "
import json, sys
report = json.load(open(sys.argv[1]))
text = json.dumps(report)
assert all(name in text for name in ('rotation/1.jpg', 'rotation/2.jpg', 'rotation/3.jpg', 'rotation/0.png')), text[:400]
" "$scratch/inspect.json"

check "man -w finds the page" bash -c "[ \"\$(man -w imgfetch)\" = /usr/share/man/man1/imgfetch.1.gz ]"
check "bash loads the completion and completes an option" as_user bash -c '
  source /usr/share/bash-completion/bash_completion
  __load_completion imgfetch || exit 1
  spec=$(complete -p imgfetch) || exit 1
  function=$(sed -E "s/.* -F ([^ ]+) .*/\1/" <<<"$spec")
  COMP_WORDS=(imgfetch --resi); COMP_CWORD=1; COMP_LINE="imgfetch --resi"; COMP_POINT=${#COMP_LINE}
  "$function" imgfetch --resi imgfetch
  printf "%s\n" "${COMPREPLY[@]}" | grep -qx -- "--resize"'

listed=$(dpkg -L imgfetch)
$sudo dpkg -r imgfetch >"$scratch/dpkg-r.log" 2>&1 || { cat "$scratch/dpkg-r.log" >&2; echo "test-deb: dpkg -r failed" >&2; exit 1; }
check "dpkg -r leaves it not installed" bash -c "! dpkg-query -W -f='\${db:Status-Abbrev}' imgfetch 2>/dev/null | grep -q '^[ih]'"
left=$(while read -r path; do
  case "$path" in /.|/usr|/usr/bin|/usr/share|/usr/share/man|/usr/share/man/man1|/usr/share/doc) continue ;; esac
  # A directory another package owns too (fish's vendor_completions.d) stays, as it should.
  if [ -d "$path" ] && dpkg-query -S "$path" >/dev/null 2>&1; then continue; fi
  if [ -e "$path" ]; then echo "$path"; fi
done <<<"$listed")
check "nothing of the package is left" [ -z "$left" ]
check "its doc folder is gone" [ ! -e /usr/share/doc/imgfetch ]
[ -z "$left" ] || echo "left: $left" >&2

echo "test-deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
