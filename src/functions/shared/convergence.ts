/**
 * Warm-up for smoothers in series: several EMA-type averages applied one after the other
 * (TRIX's three EMAs, ADX's average of Wilder-smoothed DX).
 */

/**
 * Bars after which a cascade of `stages` identical EMAs (alpha a) has forgotten its seeds to
 * 1e-6 relative. A seed error in the first stage reaches the last one spread over time as a
 * negative binomial: at most C(t + stages − 1, stages − 1)·(1 − a)^t after t bars, slower than
 * a single EMA's (1 − a)^t by the polynomial factor.
 */
export function cascadeConvergenceBars(alpha: number, stages: number): number {
  if (alpha >= 1) return 0;
  const decay = Math.log(1 - alpha);
  let t = Math.ceil(Math.log(1e-6) / decay);
  const bound = (bars: number): number => {
    let logC = 0;
    for (let s = 1; s < stages; s++) logC += Math.log((bars + s) / s);
    return logC + bars * decay;
  };
  while (bound(t) > Math.log(1e-6)) t++;
  return t;
}
