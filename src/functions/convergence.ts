/**
 * How long a recursive indicator remembers its seed. An EMA-type update `e += a·(x − e)` scales
 * the seed's error by (1 − a) every bar, so it is below 1e-6 of its first size after
 * ⌈ln(1e-6)/ln(1 − a)⌉ bars (decisions §1 Evaluation). Modules' `warmup` use this with the
 * slowest smoothing constant they can run at.
 */
export function barsToForget(alpha: number): number {
  // alpha = 1 (a length-1 average) keeps no memory at all.
  if (alpha >= 1) return 0;
  return Math.ceil(Math.log(1e-6) / Math.log(1 - alpha));
}
