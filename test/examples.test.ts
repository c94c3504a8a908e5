/**
 * Every shipped example (examples/*.xql) shows something on the demo data: run over the store
 * `npm run demo` seeds (the synthetic universe ending when it is seeded), it matches at least
 * one instrument, whenever the store was seeded: mid-week, on a weekend (no FOREX bars since
 * Friday) or just after a week opens. An example that cannot match there says why in a comment
 * line starting `// Matches nothing on the demo data:`.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/open/sqlite.js";
import { seedStore } from "../src/synthetic/seed.js";
import { xqlIn } from "./cli/in-process.js";
import { ROOT } from "./cli/run-cli.js";
import { tempDir } from "./kit/index.js";

const EXAMPLES = readdirSync(join(ROOT, "examples")).filter((name) => name.endsWith(".xql")).sort();
const EXCUSE = /^\/\/ Matches nothing on the demo data: \S/m;

/** When the demo store was seeded: a Wednesday afternoon, a Saturday, a Sunday evening after FOREX opens, a Monday just after midnight. */
const SEEDED_AT = ["2026-11-25T14:20:00Z", "2026-11-28T09:00:00Z", "2026-11-29T22:30:00Z", "2026-11-30T00:10:00Z"];

describe("the shipped examples on the demo data", () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => ({ dir, cleanup } = tempDir("xql-examples-")));
  afterAll(() => cleanup());

  it("ships examples", () => expect(EXAMPLES.length).toBeGreaterThan(3));

  it.each(SEEDED_AT)("each matches something on a store seeded at %s, or says why not", async (seededAt) => {
    const db = join(dir, `${seededAt.replace(/\W/g, "")}.db`);
    const store = new SqliteStore(db);
    await seedStore(store, { end: Date.parse(seededAt) });
    await store.close();
    const empty: string[] = [];
    for (const name of EXAMPLES) {
      const text = readFileSync(join(ROOT, "examples", name), "utf8");
      const result = await xqlIn(["run", `examples/${name}`, "--db", db]);
      expect(result.code, `${name}: ${result.stdout}${result.stderr}`).toBe(0);
      const { meta } = JSON.parse(result.stdout) as { meta: { matched: number } };
      if (EXCUSE.test(text)) continue;
      if (meta.matched === 0) empty.push(name);
    }
    expect(empty, `examples matching nothing on a store seeded at ${seededAt}`).toEqual([]);
  });
});
