/**
 * Stage `plan`: typed IR → data requirements. For every timeframe the query touches, which raw
 * series it reads and how many bars (`minLookback`) make every expression defined at the
 * latest bar, per decisions §1 "Lookback". The same walk records, per node and timeframe, how
 * many bars before the latest the evaluator must compute (`needs`).
 */
import type { CheckedQuery } from "../check/check.js";
import type { IrNode } from "../check/ir.js";
import { planError } from "../errors.js";
import {
  DEFAULT_LOOKBACK_CEILING,
  TIMEFRAME_MS,
  type Plan,
  type PlanSource,
  type RawSeries,
  type Timeframe,
} from "../types.js";

/** For each `node.id@timeframe`: the number of bars before the latest at which the node is needed. */
export type Needs = ReadonlyMap<string, number>;

export const needKey = (node: IrNode, timeframe: Timeframe): string => `${node.id}@${timeframe}`;

export interface Planned {
  readonly plan: Plan;
  readonly baseTimeframe: Timeframe;
  readonly needs: Needs;
}

/**
 * Bars of `inner` that cover `k` bars of `outer`: an offset of k bars outside a `tf::` prefix
 * adds ceil(k · dur(outer) / dur(inner)) bars inside it.
 */
export function innerOffset(k: number, outer: Timeframe, inner: Timeframe): number {
  return k === 0 ? 0 : Math.ceil((k * TIMEFRAME_MS[outer]) / TIMEFRAME_MS[inner]);
}

export function planQuery(checked: CheckedQuery, lookbackCeiling = DEFAULT_LOOKBACK_CEILING): Planned {
  if (checked.market === undefined) throw planError("Missing required setting 'market', e.g. market = \"FOREX\"");
  if (checked.timeframe === undefined) throw planError("Missing required setting 'timeframe', e.g. timeframe = h1");
  const base = checked.timeframe;
  const needs = new Map<string, number>();
  const lookback = new Map<Timeframe, number>();
  const series = new Map<Timeframe, Set<RawSeries>>();

  const need = (timeframe: Timeframe, bars: number, raw: readonly RawSeries[]): void => {
    lookback.set(timeframe, Math.max(lookback.get(timeframe) ?? 0, bars));
    let set = series.get(timeframe);
    if (!set) series.set(timeframe, (set = new Set()));
    for (const r of raw) set.add(r);
  };

  // An explicit stack: long `a + b + c ...` chains must not cost call-stack depth.
  const stack: [IrNode, Timeframe, number][] = [[checked.condition.ir, base, 0]];
  for (const c of checked.columns) stack.push([c.ir, base, 0]);
  for (const s of checked.sort) stack.push([s.ir, base, 0]);
  while (stack.length > 0) {
    const [node, tf, k] = stack.pop()!;
    const key = needKey(node, tf);
    const seen = needs.get(key);
    if (seen !== undefined && seen >= k) continue;
    needs.set(key, k);
    need(tf, k + 1, []);
    switch (node.op) {
      case "number":
      case "boolean":
        break;
      case "series":
        need(tf, k + 1, node.series.raw);
        break;
      case "call": {
        const extra = node.fn.extraLookback(node.consts);
        for (const arg of node.args) stack.push([arg, tf, k + extra]);
        // Implicit columns count as inputs with L = 1; a call with no input at all has L = 1 + extra.
        if (node.fn.implicit.length > 0 || node.args.length === 0) {
          need(tf, k + extra + 1, node.fn.implicit.filter((c): c is RawSeries => c !== "time"));
        }
        break;
      }
      case "history":
        stack.push([node.operand, tf, k + node.offset]);
        break;
      case "timeframe":
        stack.push([node.operand, node.timeframe, innerOffset(k, tf, node.timeframe)]);
        break;
      case "negate":
      case "not":
        stack.push([node.operand, tf, k]);
        break;
      case "and":
      case "or":
        for (const operand of node.operands) stack.push([operand, tf, k]);
        break;
      case "compare":
      case "arithmetic":
        stack.push([node.left, tf, k], [node.right, tf, k]);
        break;
    }
  }

  const order = [...lookback.keys()].sort((a, b) =>
    a === base ? -1 : b === base ? 1 : TIMEFRAME_MS[a] - TIMEFRAME_MS[b],
  );
  const sources: PlanSource[] = order.map((timeframe) => ({
    timeframe,
    series: [...series.get(timeframe)!].sort(),
    minLookback: lookback.get(timeframe)!,
  }));
  for (const source of sources) {
    if (source.minLookback > lookbackCeiling) {
      throw planError(
        `Lookback of ${source.minLookback} bars on timeframe ${source.timeframe} exceeds the ceiling of ${lookbackCeiling} bars`,
      );
    }
  }
  return { plan: { market: checked.market, sources }, baseTimeframe: base, needs };
}
