/** docs/functions.md is generated from the registry; the other docs name what the code does. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { functionsMarkdown, readmeWithFunctions } from "../../scripts/gen-docs.js";
import { errorsMarkdown } from "../../scripts/gen-errors.js";
import { FUNCTIONS, SERIES } from "../../src/functions/registry.js";
import { TIMEFRAMES } from "../../src/types.js";
import { KEYWORDS } from "../../src/syntax/tokens.js";
import { validate } from "../../src/api.js";

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("docs", () => {
  it("docs/functions.md is what the registry generates", () => {
    if (read("docs/functions.md") !== functionsMarkdown()) expect.fail("docs/functions.md is out of date: run npx tsx scripts/gen-docs.ts");
  });

  it("README.md's function list is what the registry generates", () => {
    const text = read("README.md");
    if (text !== readmeWithFunctions(text)) expect.fail("README.md's function list is out of date: run npx tsx scripts/gen-docs.ts");
    for (const name of [...FUNCTIONS.keys(), ...SERIES.keys()]) expect(text).toMatch(new RegExp(`[\`\\s]${name}[\`\\s]`));
  });

  it("docs/errors.md's catalogue is what the error table generates", () => {
    const text = read("docs/errors.md");
    if (text !== errorsMarkdown(text)) expect.fail("docs/errors.md is out of date: run npx tsx scripts/gen-errors.ts");
  });

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
