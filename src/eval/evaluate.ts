/**
 * Stage `evaluate`: runs a planned query over injected bars, purely. The query is lowered once
 * to a program (program.ts); `run` (run.ts) evaluates it at each instrument's latest bar and
 * `history` (history.ts) over a window of past bars, both computing slot values (values.ts)
 * over bars checked or trusted by bars.ts, one instrument per step (scan.ts).
 */
import type { CheckedQuery } from "../check/check.js";
import type { Planned } from "../plan/plan.js";
import type { Instrument, RunResult } from "../types.js";
import { anchoredSteps } from "./round.js";
import { historySteps, type AnchoredHistory, type HistoryScan } from "./history.js";
import { Program } from "./program.js";
import { runSteps } from "./run.js";
import { Slice, WHOLE, drain, drainAsync } from "./scan.js";

/** A compiled query's evaluation entry points. */
export interface Runner {
  run(universe: Iterable<Instrument>): RunResult;
  /** With `maxBytes`: a plan error once the matches' JSON exceeds it (see `historySteps`). */
  history(universe: Iterable<Instrument>, bars: number, maxBytes?: number): HistoryScan;
  /** `run`, yielding to the event loop every `sliceMs` of work (through `turn`, default the next turn of the loop). */
  runAsync(universe: Iterable<Instrument>, sliceMs: number, turn?: () => Promise<void>): Promise<RunResult>;
  /** `history`, yielding to the event loop every `sliceMs` of work (through `turn`). */
  historyAsync(universe: Iterable<Instrument>, bars: number, sliceMs: number, maxBytes?: number, turn?: () => Promise<void>): Promise<HistoryScan>;
  /** `runAsync` from each bar's anchors (the store's paths, decisions §9). */
  runAnchoredAsync(universe: Iterable<Instrument>, sliceMs: number, turn?: () => Promise<void>): Promise<RunResult>;
  /** `historyAsync` from each bar's anchors, in one pass per anchor (the store's paths, decisions §9). */
  historyAnchoredAsync(
    universe: Iterable<Instrument>,
    bars: number,
    sliceMs: number,
    anchored: AnchoredHistory,
    maxBytes?: number,
    turn?: () => Promise<void>,
  ): Promise<HistoryScan>;
  /** Bytes of the buffers kept between runs (by the idle program), for caches that weigh what they hold. */
  retainedBytes(): number;
}

/** Compiles a planned query into a reusable runner over universes of instruments. */
export function createRunner(checked: CheckedQuery, planned: Planned): Runner {
  // One program per runner; a program is not re-entrant, so runs that overlap (an async one
  // waiting on the event loop, say) get their own.
  let idle: Program | undefined = new Program(checked, planned);
  const take = (): Program => {
    const program = idle ?? new Program(checked, planned);
    idle = undefined;
    return program;
  };
  const using = <T>(f: (program: Program) => T): T => {
    const program = take();
    try {
      return f(program);
    } finally {
      idle = program;
    }
  };
  const usingAsync = async <T>(f: (program: Program) => Promise<T>): Promise<T> => {
    const program = take();
    try {
      return await f(program);
    } finally {
      idle = program;
    }
  };
  return {
    run: (universe) => using((p) => drain(runSteps(p, universe, WHOLE))),
    history: (universe, bars, maxBytes) => using((p) => drain(historySteps(p, universe, bars, WHOLE, maxBytes))),
    runAsync: (universe, sliceMs, turn) => usingAsync((p) => drainAsync(runSteps(p, universe, new Slice(sliceMs)), turn)),
    historyAsync: (universe, bars, sliceMs, maxBytes, turn) =>
      usingAsync((p) => drainAsync(historySteps(p, universe, bars, new Slice(sliceMs), maxBytes), turn)),
    runAnchoredAsync: (universe, sliceMs, turn) => usingAsync((p) => drainAsync(runSteps(p, universe, new Slice(sliceMs), true), turn)),
    historyAnchoredAsync: (universe, bars, sliceMs, anchored, maxBytes, turn) =>
      usingAsync((p) => drainAsync(anchoredSteps(p, universe, bars, new Slice(sliceMs), maxBytes ?? Infinity, anchored), turn)),
    retainedBytes: () => idle?.retainedBytes() ?? 0,
  };
}
