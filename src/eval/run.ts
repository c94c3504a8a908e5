/**
 * `run`: the screen at each instrument's latest base bar (decisions §2), as a generator that
 * gives way between instruments when its slice is used up (`runAsync`; see scan.ts).
 */
import type { Instrument, RunResult } from "../types.js";
import { anchorsAt, narrowToAnchors } from "./anchor.js";
import { alignFrames, attachFrames, converged, prefetchLookbacks } from "./bars.js";
import type { Program } from "./program.js";
import type { Slice } from "./scan.js";
import { rank, rowAt, type RankedRow } from "./rows.js";
import { valueAtEnd } from "./values.js";

/**
 * With `anchored` (every path that reads the store, decisions §9), each instrument's latest bar
 * is evaluated over each source's bars from that bar's anchor (anchor.ts), and instruments
 * evaluated on fewer bars than a source's fetch are counted in `meta.unconverged`.
 */
export function* runSteps(program: Program, universe: Iterable<Instrument>, slice: Slice, anchored = false): Generator<undefined, RunResult, undefined> {
  const rows: RankedRow[] = [];
  const anchors: number[] = [];
  /** The base bar time `anchors` are of. */
  let anchoredAt = Number.NaN;
  let unconverged = 0;
  let instruments = 0;
  let shortHistory = 0;
  let noData = 0;
  let asOf = -Infinity;
  const base = program.base;
  // A run carries nothing (a program left carrying by an evaluation that threw is reset here).
  program.carrying = program.restored = false;
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
    if (anchored) {
      // An anchor is a function of the bar's time: instruments at the same latest bar (most of a
      // market) share the previous one's.
      const t = Number(base.bars.time[base.length - 1]);
      if (t !== anchoredAt) {
        anchorsAt(program.frames, program.market, program.baseTimeframe, t, anchors);
        anchoredAt = t;
      }
      narrowToAnchors(program.frames, anchors);
    }
    if (!alignFrames(program.frames, base.length - 1)) {
      shortHistory++;
      continue;
    }
    if (anchored && !converged(program.frames)) unconverged++;
    prefetchLookbacks(program.frames);
    const latest = base.bars.time[base.length - 1]!;
    if (latest > asOf) asOf = latest;
    if (valueAtEnd(program, program.condition) === 1) rows.push(rowAt(program, instrument.symbol, base.end));
  }
  return {
    results: rank(program, rows).map((r) => r.row),
    meta: {
      instruments,
      matched: rows.length,
      skipped: { shortHistory, noData },
      asOf: asOf === -Infinity ? null : isoTime(asOf),
      ...(anchored ? { unconverged } : {}),
    },
  };
}

/** ISO 8601 of a bar time; a time outside Date's range reads as null rather than throwing. */
function isoTime(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
