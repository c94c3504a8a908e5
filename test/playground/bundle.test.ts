/** The build's checks on the browser core: no Node built-in, no server code, a size budget. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleCore } from "../../scripts/build-playground.mjs";
import { ROOT } from "./browser.js";

const FIXTURES = join(ROOT, ".tmp", "bundle-fixtures");
function fixture(name: string, text: string): string {
  mkdirSync(FIXTURES, { recursive: true });
  writeFileSync(join(FIXTURES, name), text);
  return join(".tmp", "bundle-fixtures", name);
}

describe("the browser core bundle", () => {
  it("holds the pipeline and editor services within 200 KB gzipped, with no server or store code", async () => {
    const core = await bundleCore();
    expect(core.gzipped).toBeLessThan(200 * 1024);
    expect(core.inputs).toContain("src/api.ts");
    expect(core.inputs).toContain("src/editor/complete.ts");
    expect(core.inputs.filter((i) => /^src\/(server|cli|mcp|lsp|client)\//.test(i))).toEqual([]);
    expect(core.inputs.filter((i) => /fastify|better-sqlite3|ioredis|node_modules\/pg\//.test(i))).toEqual([]);
  }, 60_000);

  it("fails the build when the core imports a Node built-in", async () => {
    const entry = fixture("uses-fs.ts", 'import { readFileSync } from "node:fs";\nexport const read = readFileSync;\n');
    await expect(bundleCore(entry)).rejects.toThrow(/Node built-in 'node:fs'/);
  });

  it("fails the build when the core reaches server code", async () => {
    const entry = fixture("uses-server.ts", `export { createServer } from "../../src/server/app.js";\n`);
    await expect(bundleCore(entry)).rejects.toThrow(/./);
  });

  it("fails the build over the budget", async () => {
    await expect(bundleCore("src/playground/core.ts", 10 * 1024)).rejects.toThrow(/over the budget of 10.0 KB/);
  });
});
