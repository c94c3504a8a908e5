/**
 * Which timeframes a write derives (decisions §2 Data). For a symbol with bars imported at
 * timeframe f, every coarser timeframe not imported itself is served derived from the finest
 * imported one (`src/sessions/aggregate.ts`: the bar arithmetic and, per market, the periods).
 * Derivation happens at write time, inside the write's transaction, so reads cost the same as
 * for imported bars; this module decides what a write must rebuild, the engine
 * (`engine/writer.ts`) rebuilds it.
 */
import type { Timeframe } from "../types.js";
import { TIMEFRAMES } from "../types.js";

/** What one symbol held before a write: per timeframe, whether its bars are derived. */
export type SeriesState = ReadonlyMap<Timeframe, { derived: boolean }>;

/** One derivation step: rebuild `coarse` from `fine`, wholly or over the periods the write touched. */
export interface DeriveJob {
  fine: Timeframe;
  coarse: Timeframe;
  /** Rebuild every bar of `coarse` (the finest imported timeframe changed, or was replaced). */
  full: boolean;
}

/** The finest timeframe imported (not derived) in `state`, or undefined. */
export function finestImported(state: SeriesState): Timeframe | undefined {
  return TIMEFRAMES.find((tf) => state.get(tf)?.derived === false);
}

/**
 * Which coarser timeframes a write must rebuild, given what the symbol held before (`before`),
 * the timeframes it wrote (all imported from now on) and whether each was written whole
 * (`wholly`: replaced, or imported over derived bars). Only the periods the write touched are
 * rebuilt, unless the finest imported timeframe changed (a finer import, or a replace of it):
 * then every derived timeframe is rebuilt from the new finest. A timeframe imported is never
 * derived.
 */
export function planDerivation(before: SeriesState, written: ReadonlyMap<Timeframe, { wholly: boolean }>): DeriveJob[] {
  const after = new Map(before);
  for (const tf of written.keys()) after.set(tf, { derived: false });
  const fine = finestImported(after);
  if (fine === undefined) return [];
  const span = written.get(fine);
  const changed = finestImported(before) !== fine;
  if (!span && !changed) return [];
  const jobs: DeriveJob[] = [];
  for (const coarse of TIMEFRAMES.slice(TIMEFRAMES.indexOf(fine) + 1)) {
    if (after.get(coarse)?.derived === false) continue;
    jobs.push({ fine, coarse, full: changed || !span || span.wholly });
  }
  return jobs;
}
