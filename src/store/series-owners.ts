/**
 * Migration 7 of both stores and the series caps of `POST /xql/bars` (decisions §14): which
 * account's write created which series. A series (market, timeframe, symbol) counts for the
 * account whose push created it; a push to a series the store already holds creates nothing.
 */
import type { SymbolWrite } from "./store.js";
import type { Timeframe } from "../types.js";
import { XqlDataError } from "../errors.js";

/** The migration, the same SQL on both backends. */
export const SERIES_OWNERS_MIGRATION = {
  version: 7,
  name: "series owners: the account whose push created each series, for the series caps per tier",
  sql: `
    CREATE TABLE series_owners (
      market     TEXT   NOT NULL,
      timeframe  TEXT   NOT NULL,
      symbol     TEXT   NOT NULL,
      -- The account in the key store (which may be another database: no foreign key).
      account_id TEXT   NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (market, timeframe, symbol)
    );
    CREATE INDEX series_owners_account ON series_owners (account_id);
  `,
} as const;

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
