#!/usr/bin/env bash
# Packaging check: build the API reference (docs/api/, not committed), pack the package, lint
# the tarball (publint, attw), check what it holds; install it alone into a fresh project as
# a library user would (no native addon, no server framework, no EBADENGINE warning; its
# node_modules size and install time printed; `xql --help`, bare `xql` and every command's
# `--help` print; `xql serve` names the packages it lacks); then
# install it with its optional packages and from there import every subpath in ESM and in
# CJS, typecheck against its types, validate and run a query over syntheticUniverse, run a
# property of xql/testing, check that the core loads no server, database or MCP package, and
# run the CLI. Exits non-zero on the first failure.
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

step "API reference: TypeDoc with warnings as errors into docs/api/ (built, not committed; shipped in the tarball)"
rm -rf docs/api
npm_quiet npx --no-install typedoc --out docs/api --logLevel Warn
[ -f docs/api/index.html ] || { echo "TypeDoc wrote no docs/api/index.html" >&2; exit 1; }

step "npm pack"
npm pack --json --pack-destination "$work" 2>/dev/null >"$work/pack.json"
tarball=$(node -e 'const [p] = require(process.argv[1]); console.log(require("node:path").join(process.argv[2], p.filename))' "$work/pack.json" "$work")
node "$repo/scripts/pack-check/contents.mjs" "$work/pack.json"

step "publint"
npm_quiet npx --no-install publint run "$tarball" --strict

step "attw (profile node16: Node 16+ resolution for import and require, and bundlers)"
npm_quiet npx --no-install attw "$tarball" --profile node16 --format table-flipped

step "library install: the tarball alone, as a user who imports only xql, xql/testing or xql/client"
light="$work/light"
mkdir -p "$light"
cp "$repo"/scripts/pack-check/fixture/package.json "$light/"
install_started=$(date +%s%N)
(cd "$light" && npm install --no-audit --no-fund --prefer-offline "$tarball" >"$work/light-install.log" 2>&1) || { cat "$work/light-install.log" >&2; exit 1; }
install_ms=$(( ($(date +%s%N) - install_started) / 1000000 ))
if grep -q "EBADENGINE" "$work/light-install.log"; then
  grep "EBADENGINE" "$work/light-install.log" >&2
  echo "installing xql warns EBADENGINE on node $(node --version)" >&2
  exit 1
fi
for heavy in fastify better-sqlite3 pg ioredis @modelcontextprotocol/sdk zod vscode-languageserver; do
  [ ! -e "$light/node_modules/$heavy" ] || { echo "npm install xql installed $heavy: the library install must stay light" >&2; exit 1; }
done
if find "$light/node_modules" -name "*.node" -print -quit | grep -q .; then
  echo "npm install xql installed a native addon: $(find "$light/node_modules" -name "*.node" | head -3)" >&2
  exit 1
fi
echo "library install: $(du -sk "$light/node_modules" | cut -f1) kB in node_modules, $(ls "$light/node_modules" | grep -v '^\.' | wc -l) top-level entries, ${install_ms} ms (npm install --prefer-offline)"
(cd "$light" && node --input-type=module -e '
  const { validate, compile, syntheticUniverse } = await import("xql");
  const { XqlClient } = await import("xql/client");
  const q = "market = \"FOREX\"\ntimeframe = h1\nclose > 0";
  if (!validate(q).valid || typeof XqlClient !== "function") process.exit(1);
  const n = compile(q).run(syntheticUniverse({ market: "FOREX", symbols: 3, timeframes: ["h1"], bars: 30 })).results.length;
  if (n !== 3) { console.error("library run gave", n); process.exit(1); }
')
printf 'market = "FOREX"\ntimeframe = h1\nclose > 0\n' | (cd "$light" && npm_quiet npx --no-install xql run - --synthetic --format csv) | head -1 | grep -q "^symbol" \
  || { echo "xql run --synthetic failed in the library install" >&2; exit 1; }
# Help needs no optional package: the usage (for --help and bare), and every command's --help.
(cd "$light" && npm_quiet npx --no-install xql --help >"$work/light-help.txt") || { echo "xql --help failed in the library install" >&2; exit 1; }
grep -q "Usage: xql <command>" "$work/light-help.txt" || { cat "$work/light-help.txt" >&2; echo "xql --help: no usage in the library install" >&2; exit 1; }
(cd "$light" && npm_quiet npx --no-install xql >"$work/light-bare.txt") || { echo "bare xql failed in the library install" >&2; exit 1; }
cmp -s "$work/light-help.txt" "$work/light-bare.txt" || { echo "bare xql does not print the usage in the library install" >&2; exit 1; }
commands=$(sed -n '/^Commands:/,/^$/p' "$work/light-help.txt" | awk 'NF > 1 && /^  / {print $1}')
[ -n "$commands" ] || { echo "xql --help lists no command" >&2; exit 1; }
for command in $commands; do
  (cd "$light" && npm_quiet npx --no-install xql "$command" --help >"$work/help-$command.txt" 2>&1) \
    || { cat "$work/help-$command.txt" >&2; echo "xql $command --help failed in the library install" >&2; exit 1; }
  grep -q "xql $command" "$work/help-$command.txt" || { cat "$work/help-$command.txt" >&2; echo "xql $command --help printed no usage" >&2; exit 1; }
done
echo "  xql --help, bare xql and --help of $(echo $commands | wc -w) commands print there"
status=0
(cd "$light" && npm_quiet npx --no-install xql serve --port 0 >/dev/null 2>"$work/serve.err") || status=$?
[ "$status" -eq 1 ] && grep -q "needs fastify, better-sqlite3, pg, ioredis" "$work/serve.err" && grep -q "npm install fastify@" "$work/serve.err" \
  || { cat "$work/serve.err" >&2; echo "xql serve without its optional packages should name them (exit 1), exited $status" >&2; exit 1; }
echo "  xql serve there: $(head -1 "$work/serve.err" | cut -c1-120)..."

step "SQLite install: the tarball with better-sqlite3 and without pg; xql run --db over a SQLite file"
sqlite="$work/sqlite"
mkdir -p "$sqlite"
cp "$repo"/scripts/pack-check/fixture/package.json "$sqlite/"
bsq=$(node -p 'require("./package.json").peerDependencies["better-sqlite3"]')
(cd "$sqlite" && npm_quiet npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" "better-sqlite3@$bsq" >/dev/null)
[ ! -e "$sqlite/node_modules/pg" ] || { echo "the SQLite install holds pg: the check needs it absent" >&2; exit 1; }
printf 'market = "FOREX"\ntimeframe = h1\ncolumns = [close, d::close]\nclose > 0\n' >"$sqlite/q.xql"
(cd "$sqlite" && npm_quiet npx --no-install xql run q.xql --db x.db --format json >run.json 2>run.err) \
  || { cat "$sqlite/run.err" >&2; echo "xql run --db x.db failed without pg installed" >&2; exit 1; }
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (!Array.isArray(r.results) || r.results.length === 0 || r.meta.instruments < 1) { console.error(r); process.exit(1); }' "$sqlite/run.json"
echo "  xql run --db x.db without pg: $(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).results.length' "$sqlite/run.json") results over the seeded SQLite file"

step "full install: the tarball with the optional packages the service, stores, CLI and MCP bridge use"
project="$work/project"
mkdir -p "$project"
cp "$repo"/scripts/pack-check/fixture/* "$project/"
# The TypeScript user files are stored as .in, so the project's own typecheck leaves them alone.
for f in "$project"/*.in; do mv "$f" "${f%.in}"; done
peers=$(node -p 'const p = require("./package.json").peerDependencies; Object.entries(p).map(([n, v]) => `${n}@${v}`).join(" ")')
(cd "$project" && npm_quiet npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" $peers >/dev/null)
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
