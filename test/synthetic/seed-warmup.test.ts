/**
 * The seeded universe holds enough bars for the largest warm-up of the queries users are shown
 * first: every example in examples/ and every query of the README gets its whole
 * `compile(q).fetch` from a seeded store, so their recursive indicators converge there too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SEED_BARS } from "../../src/synthetic/seed.js";
import { compile } from "../../src/index.js";

const root = new URL("../../", import.meta.url);
const examples = readdirSync(new URL("examples/", root))
  .filter((f) => f.endsWith(".xql"))
  .map((f) => [`examples/${f}`, readFileSync(new URL(`examples/${f}`, root), "utf8")] as const);
const readme = [...readFileSync(new URL("README.md", root), "utf8").matchAll(/```[a-z]*\n([\s\S]*?)```/g)]
  .map((m) => m[1]!)
  .filter((block) => /^market =/m.test(block) && !block.includes("$ "))
  .map((block, i) => [`README query ${i + 1}`, block] as const);

describe("the seeded universe", () => {
  it("has queries to check", () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it.each([...examples, ...readme])("holds the fetch of %s", (_name, text) => {
    for (const source of compile(text).fetch) expect(source.bars, source.timeframe).toBeLessThanOrEqual(SEED_BARS);
  });
});
