/**
 * `run`: the screen at each instrument's latest base bar (decisions §2), as a generator that
 * gives way between instruments when its slice is used up (`runAsync`; see scan.ts).
 */
import type { Instrument, RunResult } from "../types.js";
import { alignFrames, attachFrames, prefetchLookbacks } from "./bars.js";
import type { Program } from "./program.js";
import type { Slice } from "./scan.js";
import { rank, rowAt, type RankedRow } from "./rows.js";
import { valueAtEnd } from "./values.js";

export function* runSteps(program: Program, universe: Iterable<Instrument>, slice: Slice): Generator<undefined, RunResult, undefined> {
  const rows: RankedRow[] = [];
  let instruments = 0;
  let shortHistory = 0;
  let noData = 0;
  let asOf = -Infinity;
  const base = program.base;
  for (const instrument of universe) {
    if (slice.due()) {
      yield;
      slice.restart();
    }
    instruments++;
    program.epoch++;
    // No data first: an instrument lacking any bar on a needed source is noData, whatever
    // the other sources hold (decisions §2 meta), and never shortHistory.
    if (!attachFrames(program.frames, instrument)) {
      noData++;
      continue;
    }
    if (!alignFrames(program.frames, base.length - 1)) {
      shortHistory++;
      continue;
    }
    prefetchLookbacks(program.frames);
    const latest = base.bars.time[base.length - 1]!;
    if (latest > asOf) asOf = latest;
    if (valueAtEnd(program, program.condition) === 1) rows.push(rowAt(program, instrument.symbol, base.end));
  }
  return {
    results: rank(program, rows).map((r) => r.row),
    meta: { instruments, matched: rows.length, skipped: { shortHistory, noData }, asOf: asOf === -Infinity ? null : isoTime(asOf) },
  };
}

/** ISO 8601 of a bar time; a time outside Date's range reads as null rather than throwing. */
function isoTime(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
