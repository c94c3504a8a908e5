/**
 * The `series-owners` room (src/store/migrations/series-owners) and the series caps of `POST /xql/bars` (decisions §14): which
 * account's write created which series. A series (market, timeframe, symbol) counts for the
 * account whose push created it; a push to a series the store already holds creates nothing.
 */
import type { SymbolWrite } from "./store.js";
import type { Timeframe } from "../types.js";
import { XqlDataError } from "../errors.js";

/** What a write may create, checked in its own transaction, and whose the series it creates are. */
export interface SeriesClaim {
  /** The account whose write this is. */
  account: string;
  /** When (ms since the epoch), recorded with each series created. */
  now: number;
  /** New series one write may create at most. */
  perPush: number;
  /** Series the account may hold at most. */
  perAccount: number;
}

/** A write would create more series than its claim allows: nothing of it was written. */
export class SeriesLimitError extends XqlDataError<"series-limit"> {
  override readonly name: string = "SeriesLimitError";
  constructor(
    /** `push`: more new series than one write may create; `account`: past the account's cap. */
    readonly kind: "push" | "account",
    readonly created: number,
    readonly limit: number,
  ) {
    super("series-limit", { kind, created, limit });
  }
}

/** Throws a {@link SeriesLimitError} when `created` new series beside `held` pass the claim's caps. */
export function checkClaim(claim: SeriesClaim, created: number, held: number): void {
  if (created > claim.perPush) throw new SeriesLimitError("push", created, claim.perPush);
  if (created > 0 && held + created > claim.perAccount) throw new SeriesLimitError("account", created, claim.perAccount);
}

/** The imported series a write names. */
export function seriesNamed(writes: readonly SymbolWrite[]): { market: string; timeframe: Timeframe; symbol: string }[] {
  const out: { market: string; timeframe: Timeframe; symbol: string }[] = [];
  for (const { market, symbol, incoming } of writes) for (const { timeframe, count } of incoming) if (count > 0) out.push({ market, timeframe, symbol });
  return out;
}
