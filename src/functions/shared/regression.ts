/**
 * The least-squares line through the last n values (bar index as x), shared by `linreg` (its
 * value at the latest bar) and `linreg_slope` (its slope per bar). Writes the value when
 * `slope` is false.
 *
 * With t the position in the window (0 oldest … n − 1 latest), the slope is
 * Σ(t − t̄)(y − ȳ)/Σ(t − t̄)² and the value at the latest bar ȳ + slope·(n − 1)/2. Centring y on
 * its mean first (two passes) keeps the products small: TA-Lib's one-pass
 * (n·Σty − Σt·Σy)/(n·Σt² − (Σt)²) subtracts two numbers of size n²·y, which loses the slope of a
 * slowly drifting price far from zero. Σ(t − t̄)² is n(n² − 1)/12 exactly.
 *
 * With n = 1 the line through one point is not unique; the flat one (the minimum-norm least
 * squares solution) is taken, so linreg(src, 1) = src and linreg_slope(src, 1) = 0. TA-Lib
 * requires n ≥ 2.
 */
export function leastSquares(
  x: Float64Array,
  n: number,
  slope: boolean,
  out: Float64Array,
  from: number,
  to: number,
): void {
  const tMean = (n - 1) / 2;
  const tt = (n * (n * n - 1)) / 12;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const first = i - n + 1;
    // Offsets from the window's first value: a flat window's mean is then exactly its value.
    const shift = x[first]!;
    let sum = 0;
    for (let j = first; j <= i; j++) sum += x[j]! - shift;
    const mean = shift + sum / n;
    let ty = 0;
    for (let j = first; j <= i; j++) ty += (j - first - tMean) * (x[j]! - mean);
    // n = 1: ty is 0 (or NaN for a NaN input) and tt is 0; the flat line keeps NaN propagating.
    const b = n === 1 ? ty : ty / tt;
    out[i] = slope ? b : mean + b * tMean;
  }
}
