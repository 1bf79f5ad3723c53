#!/bin/sh
# .ci/setup as a user who is not root, on a machine missing every package:
# it names the commands to run, apt-get update first (a fresh container's
# package lists are empty, and install alone then finds nothing); with
# --test, the test suite's packages too.
# Usage: sh ci_setup.sh SOURCE_DIR
set -eu
src=$1
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\necho 1000\n' >"$fake/id"
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"
chmod +x "$fake/id" "$fake/dpkg-query"
status=0
PATH="$fake:$PATH" sh "$src/.ci/setup" 2>"$fake/err" || status=$?
want="cgmem needs: build-essential cmake pkg-config libcjson-dev zlib1g-dev libcairo2-dev libfontconfig-dev fonts-dejavu-core
install them with: sudo apt-get update && sudo apt-get install build-essential cmake pkg-config libcjson-dev zlib1g-dev libcairo2-dev libfontconfig-dev fonts-dejavu-core"
if [ "$status" != 1 ] || [ "$(cat "$fake/err")" != "$want" ]; then
	echo "exit $status (want 1), stderr:" >&2
	cat "$fake/err" >&2
	echo "want:" >&2
	echo "$want" >&2
	exit 1
fi
# --test adds what the tests need, last Slurm and munge for tests/slurm
# (npm is left out when an npm is on PATH, so only the tail is fixed).
status=0
PATH="$fake:$PATH" sh "$src/.ci/setup" --test 2>"$fake/err" || status=$?
if [ "$status" != 1 ] || ! head -n 1 "$fake/err" | grep -q "^cgmem needs: build-essential .* libcmocka-dev .* python3-jsonschema nodejs\( npm\)\? slurm-wlm munge$"; then
	echo "--test: exit $status (want 1), stderr:" >&2
	cat "$fake/err" >&2
	exit 1
fi
echo "ok"
