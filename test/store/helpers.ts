/** Small hand-made bars and temporary database files for the store, fetch and server tests. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bars, Timeframe } from "../../src/types.js";
import { TIMEFRAME_MS } from "../../src/types.js";

/** A temporary folder removed by the returned cleanup. */
export function tempDir(prefix = "xql-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `count` bars of `timeframe` whose open times end at `lastOpen`; close = `start + i`,
 * so a bar's close tells its index. high/low bracket open and close; volume = 100 + i.
 */
export function rampBars(timeframe: Timeframe, count: number, lastOpen: number, start = 100): Bars {
  const step = TIMEFRAME_MS[timeframe];
  const time = new Float64Array(count);
  const open = new Float64Array(count);
  const high = new Float64Array(count);
  const low = new Float64Array(count);
  const close = new Float64Array(count);
  const volume = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    time[i] = lastOpen - (count - 1 - i) * step;
    close[i] = start + i;
    open[i] = start + i - 0.5;
    high[i] = start + i + 1;
    low[i] = start + i - 1;
    volume[i] = 100 + i;
  }
  return { time, open, high, low, close, volume };
}

/** Floors `ms` to the open time of its bar at `timeframe` (weeks open Monday 00:00 UTC). */
export function barOpen(timeframe: Timeframe, ms: number): number {
  const step = TIMEFRAME_MS[timeframe];
  const monday = 4 * TIMEFRAME_MS.d; // 1970-01-05 was the first Monday of the epoch
  return timeframe === "w" ? ms - ((((ms - monday) % step) + step) % step) : ms - (ms % step);
}
