/** The front end's folders import one way: ast never imports check (the checker reads the AST). */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const importsOf = (dir: string): string[] =>
  readdirSync(new URL(`../../src/${dir}/`, import.meta.url))
    .filter((f) => f.endsWith(".ts"))
    .flatMap((f) => [...readFileSync(new URL(`../../src/${dir}/${f}`, import.meta.url), "utf8").matchAll(/from\s+"([^"]+)"/g)].map((m) => `${f}: ${m[1]}`));

describe("import direction", () => {
  it("src/ast imports nothing from src/check", () => {
    expect(importsOf("ast").filter((i) => i.includes("/check/"))).toEqual([]);
  });
});
