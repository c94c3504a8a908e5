/**
 * Where each series' bars came from (the `feeds` room's table, src/store/migrations/feeds). A sync (`xql data sync`)
 * records, for each series it had an answer for, its source (a ccxt exchange id, `oanda`,
 * `dukascopy`), the price side (`bid`, `ask`, `mid`, `trades`) and when; `xql data status`
 * and the playground's series info read it. The stores run these
 * statements; the sync owns what they mean.
 */
import type { FeedRecord } from "./store.js";
import type { Timeframe } from "../types.js";

/** One statement for both backends: `?` placeholders become `$n` on PostgreSQL. */
export const RECORD_FEED_SQL = `INSERT INTO series_feeds (market, timeframe, symbol, source, price, synced_at) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (market, timeframe, symbol) DO UPDATE SET source = excluded.source, price = excluded.price, synced_at = excluded.synced_at`;

export const LIST_FEEDS_SQL = "SELECT market, timeframe, symbol, source, price, synced_at FROM series_feeds";

/**
 * Removes the records of a symbol's series that hold no imported bars any more (deleted): one
 * statement, so a sync that writes a series and records it meanwhile keeps its record.
 */
export const FORGET_EMPTY_FEEDS_SQL = `DELETE FROM series_feeds WHERE symbol = ? AND NOT EXISTS
  (SELECT 1 FROM series s WHERE s.market = series_feeds.market AND s.timeframe = series_feeds.timeframe AND s.symbol = series_feeds.symbol AND s.derived = 0)`;

export interface FeedRow {
  market: string;
  timeframe: string;
  symbol: string;
  source: string;
  price: string;
  synced_at: number | string;
}

export function feedRecord(row: FeedRow): FeedRecord {
  return { market: row.market, timeframe: row.timeframe as Timeframe, symbol: row.symbol, source: row.source, price: row.price, syncedAt: Number(row.synced_at) };
}

export function feedValues(record: FeedRecord): (string | number)[] {
  return [record.market, record.timeframe, record.symbol, record.source, record.price, record.syncedAt];
}
