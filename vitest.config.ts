import { defineConfig } from "vitest/config";

/**
 * Two projects. `unit` is `npm test`, the quick loop: the language, evaluator, stores, HTTP
 * on loopback in-process, golden files, properties, the conformance corpus and the CLI through
 * main(argv, io). `process` holds the tests that start real processes (the `xql` binary,
 * `xql serve` with signals, the MCP bridge over stdio) or need PostgreSQL and Redis; it runs
 * with the rest in `npm run check` (scripts/check.sh), which CI calls.
 */
const PROCESS_TESTS = [
  "test/cli/process.test.ts",
  "test/cli/serve-run.test.ts",
  "test/cli/data.test.ts",
  "test/mcp/bridge.test.ts",
  "test/package/version.test.ts",
  "test/scale/**/*.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: PROCESS_TESTS } },
      { extends: true, test: { name: "process", include: PROCESS_TESTS } },
    ],
  },
});
