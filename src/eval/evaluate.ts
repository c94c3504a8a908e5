import type { CheckedQuery } from "../check/check.js";
import type { Planned } from "../plan/plan.js";
import type { Instrument, RunResult } from "../types.js";

export function createRunner(_checked: CheckedQuery, _planned: Planned): (universe: Iterable<Instrument>) => RunResult {
  throw new Error("evaluator not yet written");
}
