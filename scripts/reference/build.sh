#!/usr/bin/env bash
# Builds TA-Lib's C library from the npm package talib@2.0.5 (its C source ships in src/lib)
# into a temporary directory and writes the reference fixtures test/reference/fixtures/*.json.
# Nothing of TA-Lib is kept or committed: the temporary directory is removed on exit.
# Usage: bash scripts/reference/build.sh   (needs npm, gcc, python3; no PyPI packages)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "fetching talib@2.0.5 from the npm registry" >&2
(cd "$work" && npm pack talib@2.0.5 --silent >/dev/null && tar -xzf talib-2.0.5.tgz)
lib="$work/package/src/lib"
[ -d "$lib/src/ta_func" ] || { echo "talib@2.0.5 has no src/lib/src/ta_func" >&2; exit 1; }

echo "compiling TA-Lib (ta_common + ta_func) with gcc" >&2
gcc -O2 -fPIC -shared -w \
  -I"$lib/include" -I"$lib/src/ta_common" -I"$lib/src/ta_func" \
  "$lib"/src/ta_common/*.c "$lib"/src/ta_func/*.c \
  -o "$work/libta.so" -lm

python3 "$here/generate.py" --lib "$work/libta.so" --out "$repo/test/reference/fixtures"
