#!/bin/bash
# Builds imgfetch_VERSION_ARCH.deb from the release build (make deb): stages `make install-built` under /usr (zsh's
# completion in vendor-completions, as Debian's zsh reads it), gzips the man page, adds the copyright file and the
# changelog, computes Depends with dpkg-shlibdeps, builds with dpkg-deb and fails on any lintian error.
#   scripts/deb/build.sh VERSION OUTPUT_DIR
set -euo pipefail
version=$1 out=$2
arch=$(dpkg --print-architecture)
deb="$out/imgfetch_${version}_${arch}.deb"
work="$out/work"
stage="$work/imgfetch"
rm -rf "$work" "$deb"
mkdir -p "$stage/DEBIAN" "$work/debian"

make --no-print-directory install-built DESTDIR="$PWD/$stage" prefix=/usr \
  zshcompdir=/usr/share/zsh/vendor-completions >/dev/null
gzip -9n "$stage/usr/share/man/man1/imgfetch.1"

# DEB_MAINTAINER names the package's maintainer (Maintainer and the changelog); by default nobody reachable.
maintainer=${DEB_MAINTAINER:-imgfetch developers <maintainers@imgfetch.invalid>}
doc="$stage/usr/share/doc/imgfetch"
install -d -m 0755 "$doc"
install -m 0644 scripts/deb/copyright "$doc/copyright"
# A native package's changelog, in Debian's format; its date is the last commit's (or now outside git), so that
# two builds of one commit are the same package.
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
printf 'imgfetch (%s) unstable; urgency=medium\n\n  * Release %s: see /usr/share/doc/imgfetch and man imgfetch.\n\n -- %s  %s\n' \
  "$version" "$version" "$maintainer" "$when" | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# libvips, libcurl, libjxl, libarchive, libsnappy, libzstd, liblz4 and libbrotlidec are opened with dlopen (Sources/CVips/loader.c,
# Sources/CCurl/curl_loader.c, Sources/CJxl/jxl_loader.c, Sources/CArchive/archive_loader.c,
# Sources/CCodecs/codecs_loader.c), so the binary's
# NEEDED entries don't name them. A probe linked against those sonames that takes the address of every function the
# loaders resolve (their X-macro lists) lets dpkg-shlibdeps see those needs too, with the versions those functions
# need (from the libraries' symbols files).
probe="$work/dlopen-probe"
cat >"$probe.c" <<'PROBE'
#include "imgf_vips.h"
#include "imgf_curl.h"
#include "imgf_jxl.h"
#include "imgf_archive.h"
#include "imgf_codecs.h"
#define IMGF_PROBE_ADDRESS(name) (void *)&name,
void *const imgf_probe[] = { IMGF_VIPS_SYMBOLS(IMGF_PROBE_ADDRESS) IMGF_CURL_SYMBOLS(IMGF_PROBE_ADDRESS)
                             IMGF_JXL_SYMBOLS(IMGF_PROBE_ADDRESS) IMGF_ARCHIVE_SYMBOLS(IMGF_PROBE_ADDRESS)
                             IMGF_SNAPPY_SYMBOLS(IMGF_PROBE_ADDRESS) IMGF_ZSTD_SYMBOLS(IMGF_PROBE_ADDRESS)
                             IMGF_LZ4_SYMBOLS(IMGF_PROBE_ADDRESS) IMGF_BROTLI_SYMBOLS(IMGF_PROBE_ADDRESS)
                             (void *)&vips_version_string, (void *)&curl_version_info };
int main(void) { return imgf_probe[0] == 0; }
PROBE
# shellcheck disable=SC2046
cc -DCURL_DISABLE_TYPECHECK -o "$probe" "$probe.c" -ISources/CVips/include -ISources/CCurl/include -ISources/CJxl/include -ISources/CArchive/include -ISources/CCodecs/include $(pkg-config --cflags vips libcurl) \
  -Wl,--no-as-needed -l:libvips.so.42 -l:libcurl.so.4 -l:libjxl.so.0.7 -l:libarchive.so.13 -l:libsnappy.so.1 -l:libzstd.so.1 \
  -l:liblz4.so.1 -l:libbrotlidec.so.1 $(pkg-config --libs glib-2.0 gobject-2.0)
sed -n '/^Source:/,/^$/p' scripts/deb/control.in >"$work/debian/control"
printf '\nPackage: imgfetch\nArchitecture: any\nDescription: x\n' >>"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -eimgfetch/usr/bin/imgfetch -edlopen-probe | sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then echo "deb: dpkg-shlibdeps computed no Depends" >&2; exit 1; fi

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s|@MAINTAINER@|$maintainer|" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
  -e '/^Source:/d' scripts/deb/control.in >"$stage/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "deb: built $deb (Depends: $depends)"

# lintian's own temporaries (mldbm-elf-*, which it leaves behind) go to the work folder, not the system's /tmp.
mkdir -p "$work/tmp"
lintian_tmp=$(cd "$work/tmp" && pwd)
if ! TMPDIR="$lintian_tmp" lintian --fail-on error "$deb"; then
  echo "deb: lintian reports errors in $deb" >&2; exit 1
fi
echo "deb: lintian reports no errors"
