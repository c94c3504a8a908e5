import { defineConfig, type Options } from "tsup";

/**
 * The library entries: the core (`xql`) and the subpaths of decisions §4. Each is built as
 * ESM (`.js`, `.d.ts`) and CJS (`.cjs`, `.d.cts`). Chevrotain's single-file build is bundled
 * (src/syntax/chevrotain.ts imports it by path), so a user's `import "xql"` loads a few of
 * our own chunks and no package at all; the server, database and MCP packages (optional
 * peers, external) are reachable only from `xql/server` (and the CLI).
 */
const entry = {
  index: "src/index.ts",
  "testing/index": "src/testing/index.ts",
  "server/index": "src/server/index.ts",
  "client/index": "src/client/index.ts",
};

const common: Options = {
  entry,
  dts: true,
  sourcemap: false,
  target: "node20",
  platform: "node",
  outDir: "dist",
};

export default defineConfig([
  {
    ...common,
    format: ["esm"],
    // Shared chunks, so `xql` and `xql/server` share one copy of the core (one XqlError class).
    splitting: true,
  },
  {
    ...common,
    format: ["cjs"],
    // Shared chunks here too: one copy of the core and of chevrotain for all CJS entries.
    // (chevrotain is ESM only, and `require` of an ES module needs Node >= 20.19: bundled, it
    // lets `require("xql")` work on every Node 20 the package supports, engines >= 20.10.)
    splitting: true,
    // `import.meta.url` (xql/server loads the optional prom-client with createRequire) is not
    // CommonJS syntax: tsup's shim gives the CJS build the file's URL instead.
    shims: true,
  },
  {
    // The bin. Its chunks stay under dist/cli/, apart from the library's.
    entry: { main: "src/cli/main.ts" },
    outDir: "dist/cli",
    format: ["esm"],
    sourcemap: false,
    target: "node20",
    platform: "node",
    splitting: true,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
