#!/bin/sh
# cmake --install into a temporary prefix, build test_api.c against the
# installed header and library through pkg-config, and run it.
# usage: check_install.sh BUILD_DIR TEST_API_C SAMPLE ORACLE SHARED(0|1) CC
set -eu
build=$1 src=$2 sample=$3 oracle=$4 shared=$5 cc=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
test -f "$tmp/prefix/include/cgmem.h" || { echo "FAIL  cgmem.h not installed"; exit 1; }
pc=$(find "$tmp/prefix" -name cgmem.pc)
test -n "$pc" || { echo "FAIL  cgmem.pc not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
static=--static
[ "$shared" = 1 ] && static=
flags=$(pkg-config --cflags --libs $static cgmem)
echo "pkg-config --cflags --libs $static cgmem: $flags"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -pedantic -o "$tmp/app" "$src" $flags
libdir=$(pkg-config --variable=libdir cgmem)
LD_LIBRARY_PATH=$libdir "$tmp/app" "$sample" "$sample.gz" "$oracle"
if [ "$shared" = 1 ]; then
	needed=$(readelf -d "$tmp/app" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case $needed in
	*cjson* | *cairo*) echo "FAIL  the installed program links: $needed"; exit 1 ;;
	esac
fi
echo "ok    installed: cgmem.h, $(basename "$(ls "$libdir"/libcgmem.* | head -1)"), cgmem.pc"
