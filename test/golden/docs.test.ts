/**
 * docs/functions.md is generated from the registry (its freshness is checked with every
 * generated file in test/scripts/gen.test.ts); the other docs name what the code does.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { functionsMarkdown } from "../../scripts/gen/functions.js";
import { FUNCTIONS, SERIES } from "../../src/functions/registry.js";
import { TIMEFRAMES } from "../../src/types.js";
import { KEYWORDS } from "../../src/syntax/tokens.js";
import { validate } from "../../src/api.js";

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("docs", () => {
  it("docs/functions.md documents every function and series", () => {
    const text = functionsMarkdown();
    for (const name of [...FUNCTIONS.keys(), ...SERIES.keys()]) expect(text).toContain(`\`${name}\``);
  });

  it("docs/language.md names every keyword and timeframe, and sends readers to functions.md for the functions", () => {
    const text = read("docs/language.md");
    for (const word of [...KEYWORDS, ...TIMEFRAMES.map((tf) => `${tf}::`)]) expect(text, word).toContain(word);
    expect(text).toContain("[functions.md](functions.md)");
  });

  it("every example query in docs/language.md validates", () => {
    const blocks = [...read("docs/language.md").matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes("market ="));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const block of blocks) expect(validate(block), block).toEqual({ valid: true });
  });
});
