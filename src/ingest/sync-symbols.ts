/**
 * Which pairs `xql data sync` keeps: the ones named (`--symbols BTC/USDT,ETH/USDT`), or every
 * spot pair quoted in one currency (`--quote USDT`), optionally only the N most traded over
 * 24 h (`--top N`). Pairs a screen has no use for are left out of `--quote`: leveraged tokens
 * (BTCUP, ETHBEAR, BTC3L: their price is a daily-rebalanced multiple of another pair's) and
 * one stablecoin against another (USDC/USDT: a flat line at 1).
 */
import { assertNever } from "../errors.js";
import { closest } from "../suggest.js";
import type { SpotMarket } from "./sync-exchange.js";
import type { ChosenPair } from "./sync.js";
import { XqlDataError } from "../errors.js";

/** Which pairs to keep. */
export type SymbolChoice = { kind: "named"; symbols: readonly string[] } | { kind: "quote"; quote: string; top?: number };

export type { ChosenPair };

/** Coins pegged to a fiat currency (dollar and euro stablecoins), as exchanges list them. */
export const STABLECOINS: ReadonlySet<string> = new Set([
  "USDT", "USDC", "BUSD", "TUSD", "USDP", "PAX", "DAI", "FDUSD", "USD1", "USDE", "PYUSD", "GUSD", "USDD", "UST", "SUSD",
  "LUSD", "FRAX", "USDS", "RLUSD", "USDJ", "USDK", "HUSD", "USDX", "CUSD", "EURC", "EURT", "EURI", "AEUR", "EURS", "EUROC",
]);

/** Suffixes of leveraged tokens: BTCUP/BTCDOWN (Binance), BULL/BEAR (FTX-era), 3L/3S/5L/5S (Gate, KuCoin, MEXC). */
const LEVERAGED = /^(.{2,}?)(UP|DOWN|BULL|BEAR|[2-9]L|[2-9]S)$/;

/**
 * True for a leveraged token: its base is another listed base plus a leverage suffix (`BTCUP`
 * on an exchange that lists BTC). Requiring the underlying keeps real coins whose names
 * merely end so (JUP, SYRUP) out of the rule.
 */
export function isLeveragedToken(base: string, listedBases: ReadonlySet<string>): boolean {
  const match = LEVERAGED.exec(base.toUpperCase());
  return match !== null && listedBases.has(match[1]!);
}

export function isStablePair(market: SpotMarket): boolean {
  return STABLECOINS.has(market.base.toUpperCase()) && STABLECOINS.has(market.quote.toUpperCase());
}

/** The symbol a pair is stored under: the exchange's pair without the slash (`BTC/USDT` → `BTCUSDT`). */
export function storedSymbol(symbol: string): string {
  return symbol.replace("/", "");
}

/** A choice the exchange cannot satisfy: an unknown or halted pair, or no pair in that quote. */
export class SymbolChoiceError extends XqlDataError<"feed-symbols"> {
  override readonly name: string = "SymbolChoiceError";
  constructor(message: string) {
    super("feed-symbols", { message });
  }
}

/**
 * The pairs to sync, in the order given (`named`) or by 24 h quote volume, highest first, then
 * by symbol (`quote`, where `volumes` must be given when `top` is).
 *
 * @throws SymbolChoiceError naming the first pair that is not a trading spot pair, with the closest one that is.
 */
export function choosePairs(exchangeId: string, markets: readonly SpotMarket[], choice: SymbolChoice, volumes?: ReadonlyMap<string, number>): ChosenPair[] {
  const bySymbol = new Map(markets.map((m) => [m.symbol.toUpperCase(), m]));
  const byStored = new Map(markets.map((m) => [storedSymbol(m.symbol).toUpperCase(), m]));
  switch (choice.kind) {
    case "named": {
      const chosen: ChosenPair[] = [];
      const seen = new Set<string>();
      for (const written of choice.symbols) {
        const key = written.trim().toUpperCase();
        const market = bySymbol.get(key) ?? byStored.get(key);
        if (!market) {
          const meant = closest(key, bySymbol.keys());
          throw new SymbolChoiceError(`${exchangeId} has no spot pair '${written}'${meant ? `, did you mean '${bySymbol.get(meant)!.symbol}'?` : ""} (pairs are written BASE/QUOTE, e.g. BTC/USDT)`);
        }
        if (!market.active) throw new SymbolChoiceError(`${market.symbol} is not trading on ${exchangeId}`);
        if (seen.has(market.symbol)) continue;
        seen.add(market.symbol);
        chosen.push({ symbol: market.symbol, stored: storedSymbol(market.symbol) });
      }
      return chosen;
    }
    case "quote": {
      const quote = choice.quote.trim().toUpperCase();
      const bases = new Set(markets.map((m) => m.base.toUpperCase()));
      const pairs = markets.filter((m) => m.quote.toUpperCase() === quote && m.active && !isStablePair(m) && !isLeveragedToken(m.base, bases));
      if (pairs.length === 0) {
        const quotes = new Set(markets.map((m) => m.quote.toUpperCase()));
        const meant = closest(quote, quotes);
        throw new SymbolChoiceError(`${exchangeId} has no trading spot pair quoted in ${quote}${meant ? `, did you mean ${meant}?` : ""}`);
      }
      const volume = (m: SpotMarket): number => volumes?.get(m.symbol) ?? -1;
      const ordered =
        choice.top === undefined
          ? [...pairs].sort((a, b) => compare(a.symbol, b.symbol))
          : [...pairs].sort((a, b) => volume(b) - volume(a) || compare(a.symbol, b.symbol)).slice(0, choice.top);
      return ordered.map((m) => ({ symbol: m.symbol, stored: storedSymbol(m.symbol) }));
    }
    default:
      return assertNever(choice, "symbol choice");
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
