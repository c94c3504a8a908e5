/**
 * `npm run lint` (Biome, lint rules only; scripts/check.sh runs it before the tests): the
 * repository's biome.json, applied to scratch files in a temporary folder, fails on a real
 * finding and passes the house idioms the configuration allows on purpose (docs/architecture.md,
 * "Lint"): `v !== v` for NaN, chained assignments in kernels, `!` on indexed reads, and any
 * layout (the formatter is off, so nobody's file is reformatted).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIOME = join(ROOT, "node_modules/.bin/biome");
const DIR = mkdtempSync(join(tmpdir(), "xql-lint-"));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as Record<string, unknown>;
delete config.$schema;
writeFileSync(join(DIR, "biome.json"), JSON.stringify(config));
mkdirSync(join(DIR, "src"));

function lint(source: string): { status: number | null; output: string } {
  writeFileSync(join(DIR, "src/scratch.ts"), source);
  const r = spawnSync(BIOME, ["lint", "--error-on-warnings"], { cwd: DIR, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("npm run lint's rules", { timeout: 120_000 }, () => {
  it("fails on an unused variable and an unused import", () => {
    const r = lint('import { join } from "node:path";\nexport function f(): number {\n  const unused = 1;\n  return 2;\n}\n');
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("lint/correctness/noUnusedVariables");
    expect(r.output).toContain("lint/correctness/noUnusedImports");
  });

  it("fails on an explicit any", () => {
    const r = lint("export function f(x: any): number {\n  return x;\n}\n");
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("lint/suspicious/noExplicitAny");
  });

  it("passes the house idioms, whatever the layout", () => {
    const kernel = [
      "export function kernel(x: Float64Array, out: Float64Array): void {",
      "    let e = 0;",
      "  for (let i = 0; i < x.length; i++) {",
      "    const v = x[i]!;",
      "    if (v !== v) { out[i] = NaN; continue; }",
      "    out[i] = e = e + (v - e) / 2;",
      "  }",
      "}",
      "",
    ].join("\n");
    const r = lint(kernel);
    expect(r.output).toContain("Checked 2 files");
    expect(r.status, r.output).toBe(0);
  });
});
