#!/bin/bash
# make install and make uninstall as the GNU coding standards ask (make test-deb, after the release build):
# everything lands under DESTDIR + prefix, nothing installed contains DESTDIR, the binary is stripped, another
# prefix and bindir are honoured, and uninstall removes exactly what install installed (a file of someone else's
# in the same folders stays). Prints "N passed, N failed".
set -euo pipefail
passed=0 failed=0
check() {
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok: $name"; else failed=$((failed + 1)); echo "FAILED: $name" >&2; fi
}
scratch=$(mktemp -d /tmp/imgfetch-test-install.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
stage="$scratch/stage"
files() { (cd "$1" && find . -mindepth 1 | sort); }

make --no-print-directory install-built DESTDIR="$stage" PREFIX=/opt/imgfetch >/dev/null
expected="./opt
./opt/imgfetch
./opt/imgfetch/bin
./opt/imgfetch/bin/imgfetch
./opt/imgfetch/share
./opt/imgfetch/share/bash-completion
./opt/imgfetch/share/bash-completion/completions
./opt/imgfetch/share/bash-completion/completions/imgfetch
./opt/imgfetch/share/fish
./opt/imgfetch/share/fish/vendor_completions.d
./opt/imgfetch/share/fish/vendor_completions.d/imgfetch.fish
./opt/imgfetch/share/man
./opt/imgfetch/share/man/man1
./opt/imgfetch/share/man/man1/imgfetch.1
./opt/imgfetch/share/zsh
./opt/imgfetch/share/zsh/site-functions
./opt/imgfetch/share/zsh/site-functions/_imgfetch"
check "install puts everything under DESTDIR/PREFIX" diff <(echo "$expected") <(files "$stage")
check "no installed file contains DESTDIR" bash -c "! grep -rlF '$stage' '$stage'"
check "the installed binary is stripped" bash -c "! readelf -S '$stage/opt/imgfetch/bin/imgfetch' | grep -qE '\.symtab|\.debug_info'"
check "the installed binary runs" bash -c "'$stage/opt/imgfetch/bin/imgfetch' --version | grep -qx \"imgfetch \$(cat VERSION)\""

touch "$stage/opt/imgfetch/bin/other-tool"
make --no-print-directory uninstall DESTDIR="$stage" PREFIX=/opt/imgfetch >/dev/null
check "uninstall removes what install installed, and keeps another file" \
  diff <(printf './opt\n./opt/imgfetch\n./opt/imgfetch/bin\n./opt/imgfetch/bin/other-tool\n') <(files "$stage")

rm -rf "$stage"
make --no-print-directory install-built DESTDIR="$stage" prefix=/usr bindir=/usr/games \
  zshcompdir=/usr/share/zsh/vendor-completions >/dev/null
check "bindir and zshcompdir are honoured" \
  test -x "$stage/usr/games/imgfetch" -a -f "$stage/usr/share/zsh/vendor-completions/_imgfetch"
make --no-print-directory uninstall DESTDIR="$stage" prefix=/usr bindir=/usr/games \
  zshcompdir=/usr/share/zsh/vendor-completions >/dev/null
check "uninstall with the same variables leaves nothing below the prefix" \
  diff <(printf './usr\n') <(files "$stage")

echo "test-install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
