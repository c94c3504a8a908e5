/**
 * What the FOREX sources share (decisions §12): the pairs (by default the 28 crosses of the
 * eight major currencies), how a pair is written (`EUR_USD`, `EUR-USD`, `EUR/USD` or `EURUSD`
 * on the command line; always `EURUSD` in the store), and the price side of the candles.
 */
import type { ChosenPair } from "./sync.js";
import { XqlDataError } from "../errors.js";

/** The market FOREX pairs are stored in: its days follow the 17:00 New York session (§2). */
export const FOREX_MARKET = "FOREX";

/** The eight major currencies in the market's order of precedence: a pair is written with the earlier one first (EURUSD, USDJPY). */
export const MAJOR_CURRENCIES = ["EUR", "GBP", "AUD", "NZD", "USD", "CAD", "CHF", "JPY"] as const;

/** The 28 pairs of the eight majors, as stored (EURUSD … CHFJPY). */
export const MAJOR_PAIRS: readonly string[] = MAJOR_CURRENCIES.flatMap((base, i) => MAJOR_CURRENCIES.slice(i + 1).map((quote) => `${base}${quote}`));

/** Which price of the quote the candles are of: `bid` is the convention of FX charts and MetaTrader exports. */
export const PRICE_SIDES = ["bid", "ask", "mid"] as const;
export type PriceSide = (typeof PRICE_SIDES)[number];

export function isPriceSide(text: string): text is PriceSide {
  return (PRICE_SIDES as readonly string[]).includes(text);
}

/** A pair named on the command line that is not one: the message says what was meant. */
export class ForexSymbolError extends XqlDataError<"feed-symbols"> {
  override readonly name: string = "ForexSymbolError";
  constructor(message: string) {
    super("feed-symbols", { message });
  }
}

const PAIR = /^([A-Za-z]{3})[_\-/]?([A-Za-z]{3})$/;

/** The base and quote currencies of `EUR_USD`, `EUR-USD`, `EUR/USD` or `EURUSD` (any case). @throws ForexSymbolError */
export function parseForexPair(text: string): { base: string; quote: string } {
  const match = PAIR.exec(text.trim());
  if (!match) throw new ForexSymbolError(`'${text}' is not a currency pair: write it EUR_USD, EUR-USD or EURUSD`);
  const base = match[1]!.toUpperCase();
  const quote = match[2]!.toUpperCase();
  if (base === quote) throw new ForexSymbolError(`'${text}' quotes ${base} in itself`);
  if (MAJOR_PAIRS.includes(`${quote}${base}`)) throw new ForexSymbolError(`'${text}' is written the other way round by the market: did you mean ${quote}${base}?`);
  return { base, quote };
}

/**
 * The pairs to sync: `symbols` as written (duplicates once), or the 28 majors; `spell` gives the
 * source's name of a pair (`EUR_USD` for OANDA).
 */
export function forexPairs(symbols: readonly string[] | undefined, spell: (base: string, quote: string) => string): ChosenPair[] {
  const parsed = symbols === undefined ? MAJOR_PAIRS.map((p) => ({ base: p.slice(0, 3), quote: p.slice(3) })) : symbols.map(parseForexPair);
  const seen = new Set<string>();
  const chosen: ChosenPair[] = [];
  for (const { base, quote } of parsed) {
    const stored = `${base}${quote}`;
    if (seen.has(stored)) continue;
    seen.add(stored);
    chosen.push({ symbol: spell(base, quote), stored });
  }
  return chosen;
}
