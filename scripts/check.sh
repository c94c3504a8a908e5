#!/usr/bin/env bash
# The project's whole check, as CI runs it (`npm run check`, called by .ci/run after `npm ci`):
# start the PostgreSQL and Redis servers the scale-out tests use, install Chromium for the
# browser tests when missing, typecheck (noUnusedLocals included), lint (Biome's lint rules),
# check that `npm run gen` has nothing left to write, build, run every test, then pack the
# package and exercise the tarball as a user would.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp

if [ -f scripts/services.sh ]; then
  bash scripts/services.sh start
  # services.sh writes the URLs of the servers it started.
  if [ -f .tmp/services.env ]; then
    set -a
    # shellcheck disable=SC1091
    . .tmp/services.env
    set +a
  fi
  trap 'bash scripts/services.sh stop || true' EXIT
fi

# Chromium for the playground's browser tests (installed when missing).
bash scripts/browser.sh

echo "== typecheck"
npm run typecheck
echo "== lint"
npm run lint
echo "== generated files: npm run gen leaves the tree as it was"
# The tree's state by content, untracked files included: a file already modified that gen
# modifies further still counts.
tree_state() { { git status --porcelain --untracked-files=all; git diff; } 2>/dev/null | cksum; }
before="$(tree_state)"
npm run gen
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ "$(tree_state)" != "$before" ]; then
  git status --short
  echo "npm run gen changed or added the files above: run it and commit what it writes" >&2
  exit 1
fi
echo "== build"
npm run build
echo "== tests"
status=0
npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json || status=$?
node -e '
  const r = require("./.tmp/vitest.json");
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ -f scripts/pack-check.sh ]; then
  echo "== package"
  bash scripts/pack-check.sh
fi
node -e '
  const r = require("./.tmp/vitest.json");
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
'
