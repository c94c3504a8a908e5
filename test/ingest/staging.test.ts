/**
 * The import's staging area on its own: a wide file (every symbol at each time) large enough
 * that its fragments go to the staging file, some symbols out of order, handed over as each
 * symbol's bars in order — read back from the file, twice, and with the chunks of several
 * symbols read in turn (the store's write interleaves its series).
 */
import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { Staging } from "../../src/ingest/staging.js";
import type { Columns } from "../../src/store/blocks.js";
import type { OneBar } from "../../src/types.js";
import { HOUR, MONDAY, prng, tempDir } from "../kit/index.js";

type Bar = OneBar;

const SYMBOLS = 2000;
const BARS = 200;

/** Bar `k` of symbol `s`: values that tell every symbol and bar apart. */
function bar(s: number, k: number): Bar {
  const open = s * 1000 + k + 0.25;
  return { time: MONDAY + k * HOUR, open, high: open + 2, low: open - 1, close: open + 0.5, volume: s + k / 1000 };
}

function rowsOf(chunks: Iterable<Columns>): Bar[] {
  const out: Bar[] = [];
  for (const c of chunks) {
    for (let i = 0; i < c.time.length; i++) out.push({ time: c.time[i]!, open: c.open[i]!, high: c.high[i]!, low: c.low[i]!, close: c.close[i]!, volume: c.volume[i]! });
  }
  return out;
}

describe("Staging", () => {
  it("hands over a wide import staged in its file, in order whatever the rows' order, the same on every read", () => {
    const dir = tempDir();
    const staging = new Staging("h1", dir.dir);
    try {
      const rand = prng(5);
      // Every tenth symbol gets its bars in a shuffled order; the others in time order.
      const order = Array.from({ length: BARS }, (_, k) => k);
      const shuffled = [...order].sort(() => rand() - 0.5);
      let line = 1;
      for (let k = 0; k < BARS; k++) {
        for (let s = 0; s < SYMBOLS; s++) {
          const b = bar(s, s % 10 === 0 ? shuffled[k]! : order[k]!);
          staging.add(`S${s}`, b.time, b.open, b.high, b.low, b.close, b.volume, line++);
        }
      }
      const staged = staging.finish();
      // 400,000 rows of 56 bytes: past what is kept in memory, so the file holds them.
      expect(readdirSync(dir.dir).some((name) => name.startsWith("xql-import-"))).toBe(true);
      expect(staged.map((s) => s.symbol)).toEqual(Array.from({ length: SYMBOLS }, (_, s) => `S${s}`));
      const expected = (s: number): Bar[] => order.map((k) => bar(s, k));
      for (const [s, series] of staged.entries()) {
        expect(series.count).toBe(BARS);
        expect([series.lo, series.hi]).toEqual([MONDAY, MONDAY + (BARS - 1) * HOUR]);
        expect(rowsOf(series.chunks())).toEqual(expected(s));
      }
      // Chunks of several symbols taken in turn, one chunk of each at a time.
      const iterators = staged.slice(0, 20).map((s) => s.chunks()[Symbol.iterator]());
      const got: Bar[][] = iterators.map(() => []);
      for (let open = iterators.length; open > 0; ) {
        open = 0;
        for (const [i, iterator] of iterators.entries()) {
          const next = iterator.next();
          if (next.done) continue;
          open++;
          got[i]!.push(...rowsOf([next.value]));
        }
      }
      got.forEach((rows, s) => expect(rows).toEqual(expected(s)));
    } finally {
      staging.close();
      dir.cleanup();
    }
  });
});
