import { atr } from "../builtins/atr.js";
import { ema } from "../builtins/ema.js";
import { type KernelContext, subState } from "../module.js";

/**
 * Keltner channel edge `ema(src, n) + sign·mult·atr(n)`, shared by `kc_upper` (sign 1) and
 * `kc_lower` (sign −1). Inputs [src, high, low, close]; consts [n, mult].
 *
 * The ATR starts at bar n and the EMA at bar L(src) + n − 2; the edge is written from bar
 * L(src) + n − 1 on (one bar after the EMA could start when src is itself warming up), so that
 * the lookback is exactly L(src) + n whatever src is, as the planner counts it. Recursive
 * through both averages: a NaN after the start makes every later value NaN. Resumable: its
 * state is the EMA's, then the ATR's (`keltnerStateSize`).
 */
export function keltner(
  inputs: readonly Float64Array[],
  consts: readonly number[],
  sign: number,
  out: Float64Array,
  from: number,
  to: number,
  ctx: KernelContext,
  state?: Float64Array,
): void {
  const x = inputs[0]!;
  const n = consts[0]!;
  const mult = consts[1]!;
  if (from >= to) return;
  let f = 0;
  while (f < to && x[f]! !== x[f]!) f++;
  const start = f + n;
  for (let i = from; i < to && i < start; i++) out[i] = NaN;
  const begin = Math.max(from, start);
  if (begin >= to) return;
  const middle = ctx.scratch(0, to);
  const range = ctx.scratch(1, to);
  const emaSize = ema.stateSize!(consts);
  ema.kernel([x], consts, middle, begin, to, ctx, subState(state, 0, emaSize));
  atr.kernel([inputs[1]!, inputs[2]!, inputs[3]!], consts, range, begin, to, ctx, subState(state, emaSize, atr.stateSize!(consts)));
  const k = sign * mult;
  for (let i = begin; i < to; i++) out[i] = middle[i]! + k * range[i]!;
}

/** Slots of a Keltner edge's state: the EMA's, then the ATR's. */
export function keltnerStateSize(consts: readonly number[]): number {
  return ema.stateSize!(consts) + atr.stateSize!(consts);
}
