#!/usr/bin/env bash
# Packaging check (issue #7, item 3): pack the package, lint the tarball (publint, attw),
# check what it holds, install it into a fresh temporary project as a user would, and from
# there import every subpath in ESM and in CJS, typecheck against its types, validate and run
# a query over syntheticUniverse, run a property of xql/testing, check that the core loads no
# server, database or MCP package, and run the CLI. Exits non-zero on the first failure.
#
#   bash scripts/pack-check.sh          # builds first when dist/ is missing or older than src/
#   XQL_PACK_KEEP=1 bash scripts/...    # keep the temporary project and print where it is
#
# Offline except the npm registry (the install prefers the local cache).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
started=$(date +%s)
step() { echo "-- [$(( $(date +%s) - started ))s] $*"; }
# npm warns about an unknown user config on some machines; keep the output readable.
npm_quiet() { "$@" 2> >(grep -v "Unknown user config" >&2); }

if [ ! -f dist/index.js ] || [ ! -f dist/cli/main.js ] || [ -n "$(find src package.json tsup.config.ts -newer dist/index.js -type f -print -quit)" ]; then
  step "build (dist/ is missing or older than src/)"
  npm run build --silent >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/xql-pack.XXXXXX")
if [ -n "${XQL_PACK_KEEP:-}" ]; then
  trap 'echo "kept $work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

step "API reference: TypeDoc with warnings as errors, docs/api/ up to date"
npm_quiet npx --no-install typedoc --out "$work/api" --logLevel Warn
if ! diff -rq docs/api "$work/api" >/dev/null; then
  diff -rq docs/api "$work/api" | head -20 >&2
  echo "docs/api/ is not what TypeDoc generates from the sources: run npm run docs:api and commit docs/api/" >&2
  exit 1
fi

step "npm pack"
npm pack --json --pack-destination "$work" 2>/dev/null >"$work/pack.json"
tarball=$(node -e 'const [p] = require(process.argv[1]); console.log(require("node:path").join(process.argv[2], p.filename))' "$work/pack.json" "$work")
node "$repo/scripts/pack-check/contents.mjs" "$work/pack.json"

step "publint"
npm_quiet npx --no-install publint run "$tarball" --strict

step "attw (profile node16: Node 16+ resolution for import and require, and bundlers)"
npm_quiet npx --no-install attw "$tarball" --profile node16 --format table-flipped

step "install the tarball into a fresh project"
project="$work/project"
mkdir -p "$project"
cp "$repo"/scripts/pack-check/fixture/* "$project/"
# The TypeScript user files are stored as .in, so the project's own typecheck leaves them alone.
for f in "$project"/*.in; do mv "$f" "${f%.in}"; done
fast_check=$(node -p 'require("./package.json").peerDependencies["fast-check"]')
(cd "$project" && npm_quiet npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" "fast-check@$fast_check" >/dev/null)
installed=$(node -p 'require(process.argv[1]).version' "$project/node_modules/xql/package.json")
expected=$(node -p 'require("./package.json").version')
[ "$installed" = "$expected" ] || { echo "installed xql $installed, expected $expected" >&2; exit 1; }

cd "$project"
step "ESM: import every subpath, validate, run over syntheticUniverse, a property of xql/testing"
node esm.mjs
step "CJS: require every subpath (without require(esm), as on Node < 20.19)"
if node --no-experimental-require-module -e 0 2>/dev/null; then
  node --no-experimental-require-module cjs.cjs
else
  node cjs.cjs
fi
step "the core and xql/client load no server, database or MCP package"
node --import ./block.mjs --require ./block.cjs isolation.mjs
step "types: a TypeScript user (module nodenext, ESM and CJS files) compiles"
node "$repo/node_modules/typescript/bin/tsc" -p tsconfig.json
step "CLI: npx xql --help, --version, validate"
npm_quiet npx --no-install xql --help >help.txt
grep -q "Usage: xql <command>" help.txt || { cat help.txt >&2; echo "xql --help: no usage" >&2; exit 1; }
for command in validate explain run serve keys data mcp; do
  grep -q "^  $command " help.txt || { echo "xql --help does not list $command" >&2; exit 1; }
done
[ "$(npm_quiet npx --no-install xql --version)" = "$expected" ] || { echo "xql --version is not $expected" >&2; exit 1; }
printf 'market = "FOREX"\ntimeframe = h1\nclose > sma(20)\n' | npm_quiet npx --no-install xql validate - >validate.json
node -e 'const r = JSON.parse(require("fs").readFileSync("validate.json", "utf8")); if (r.valid !== true) { console.error(r); process.exit(1); }'
status=0
printf 'market = "FOREX"\ntimeframe = h1\nclose >\n' | npm_quiet npx --no-install xql validate - >invalid.json || status=$?
[ "$status" -eq 1 ] || { echo "xql validate of an invalid query exited $status, expected 1" >&2; exit 1; }

echo "pack-check: ok (xql@$expected, $(( $(date +%s) - started ))s)"
