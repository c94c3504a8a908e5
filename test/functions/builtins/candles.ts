/**
 * Hand-built candle sequences for the pattern tests. Twelve ordinary candles come first,
 * alternating white (100 → 101) and black (101 → 100), each with a high of 101.5 and a low of
 * 99.5, so TA-Lib's candle settings have round values at the first candle under test:
 * average body 1 (BodyLong / BodyShort), average range 2, so BodyDoji and ShadowVeryShort are
 * 0.2, Near 0.4 and Far 1.2. The last ordinary candle is white: open 100, close 101.
 */
import { FUNCTIONS } from "../../../src/functions/registry.js";
import { standaloneContext } from "../../../src/functions/module.js";

export interface Candle {
  o: number;
  h: number;
  l: number;
  c: number;
}

export const ORDINARY: readonly Candle[] = Array.from({ length: 12 }, (_, k) =>
  k % 2 === 1 ? { o: 100, h: 101.5, l: 99.5, c: 101 } : { o: 101, h: 101.5, l: 99.5, c: 100 },
);

/** The pattern's value at the last of `candles`, after the ordinary ones. */
export function patternAt(name: string, candles: readonly Candle[]): boolean {
  const fn = FUNCTIONS.get(name);
  if (!fn) throw new Error(`no built-in ${name}`);
  const all = [...ORDINARY, ...candles];
  const col = (k: keyof Candle): Float64Array => Float64Array.from(all, (x) => x[k]);
  const out = new Float64Array(all.length);
  fn.kernel([col("o"), col("h"), col("l"), col("c")], [], out, 0, all.length, standaloneContext());
  const v = out[all.length - 1];
  if (v !== 0 && v !== 1) throw new Error(`${name} gave ${v}, not a boolean`);
  return v === 1;
}
