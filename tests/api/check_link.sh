#!/bin/sh
# What test_api links, and what libcgmem exports.
# usage: check_link.sh TEST_API LIBCGMEM CGMEM_H SHARED(0|1)
set -u
exe=$1 lib=$2 header=$3 shared=$4
status=0
needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "test_api needs: $(echo $needed)"
for n in $needed; do
	case $n in
	libcairo* | libfontconfig* | libpixman* | libfreetype*)
		echo "FAIL  test_api links $n: libcgmem must not bring cairo"
		status=1 ;;
	esac
done
if [ "$shared" = 1 ]; then
	for n in $needed; do
		case $n in
		libcgmem.so* | libc.so* | ld-linux*) ;;
		*) echo "FAIL  test_api links $n: its link line should hold libcgmem alone"; status=1 ;;
		esac
	done
	# The functions cgmem.h declares (CG_API ... name(), over one or two lines).
	declared=$(grep -v '^#' "$header" | tr '\n' ' ' | grep -o 'CG_API [^;(]*(' | sed 's/($//; s/.*[ *]//' | sort -u)
	exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u)
	if [ "$declared" != "$exported" ]; then
		echo "FAIL  libcgmem.so exports other symbols than cgmem.h declares"
		echo "declared:"; echo "$declared"
		echo "exported:"; echo "$exported"
		status=1
	else
		echo "ok    libcgmem.so exports the $(echo "$exported" | wc -l) functions of cgmem.h and nothing else"
	fi
fi
[ $status = 0 ] && echo "ok    link line"
exit $status
