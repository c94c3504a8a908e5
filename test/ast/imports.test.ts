/**
 * Folders import one way: ast never imports check (the checker reads the AST), the function
 * modules never import the phrase reference (it reads them), and nothing under src/ reaches
 * the generators of scripts/ or the tests (they read src/, never the reverse).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** `file: specifier` for every import of every .ts file under src/<dir>, recursively. */
function importsOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".ts")) {
        const text = readFileSync(full, "utf8");
        for (const m of text.matchAll(/(?:from\s+|import\()"([^"]+)"/g)) out.push(`${relative(SRC, full)}: ${m[1]}`);
      }
    }
  };
  walk(join(SRC, dir));
  return out;
}

describe("import direction", () => {
  it("src/ast imports nothing from src/check", () => {
    expect(importsOf("ast").filter((i) => i.includes("/check/"))).toEqual([]);
  });

  it("src/functions imports nothing from src/phrases", () => {
    expect(importsOf("functions").filter((i) => i.includes("/phrases/"))).toEqual([]);
  });

  it("nothing under src/ imports from scripts/ or test/", () => {
    expect(importsOf(".").filter((i) => /: (\.\.\/)+(scripts|test)\//.test(i))).toEqual([]);
  });
});
