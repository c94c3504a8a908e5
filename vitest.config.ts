import { defineConfig } from "vitest/config";

/**
 * Three projects. `npm test` runs `unit` and `isolated`, the quick loop: the language,
 * evaluator, stores, HTTP on loopback in-process, golden files, properties, the conformance
 * corpus and the CLI through main(argv, io). `unit` shares one module graph per worker
 * (`isolate: false`): importing the registry, the parser and Fastify once per worker instead
 * of once per file cuts the loop's CPU time to about a third. A test file that replaces a
 * module (`vi.mock`) goes in `ISOLATED_TESTS` and gets its own graph. `process` holds the
 * tests that start real processes (the `xql` binary, `xql serve` with signals, the MCP bridge
 * over stdio) or need PostgreSQL and Redis; `npm run check` (scripts/check.sh, what CI
 * calls) runs all three.
 */
const PROCESS_TESTS = [
  "test/cli/process.test.ts",
  "test/cli/serve-run.test.ts",
  "test/cli/data-sync-process.test.ts",
  "test/cli/data-sync-forex-process.test.ts",
  "test/cli/history.test.ts",
  "test/cli/light-install.test.ts",
  "test/ingest/streaming.test.ts",
  "test/mcp/bridge.test.ts",
  "test/lsp/input-ends.test.ts",
  "test/lsp/neovim.test.ts",
  "test/package/version.test.ts",
  "test/docs/code-blocks.test.ts",
  "test/scripts/lint.test.ts",
  "test/scale/**/*.test.ts",
  "test/alerts/restart.test.ts",
  "test/alerts/replicas.test.ts",
  "test/alerts/leases.test.ts",
  "test/alerts/docs.test.ts",
];
// The recipe for a built-in, followed step by step in a scratch copy of the repository: it runs
// processes (`npm run gen`, vitest) but needs no build, and `npm test` runs it (issue 31: the
// recipe is proven by the quick loop every contributor runs).
const ISOLATED_TESTS = ["test/check/fixture-modules.test.ts", "test/scripts/recipe.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...PROCESS_TESTS, ...ISOLATED_TESTS], isolate: false } },
      { extends: true, test: { name: "isolated", include: ISOLATED_TESTS } },
      { extends: true, test: { name: "process", include: PROCESS_TESTS } },
    ],
  },
});
