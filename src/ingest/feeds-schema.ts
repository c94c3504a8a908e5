/**
 * Migration 8 of both stores: where each series' bars came from. A sync (`xql data sync`)
 * records, for each series it had an answer for, its source (a ccxt exchange id, `oanda`,
 * `dukascopy`), the price side (`bid`, `ask`, `mid`, `trades`) and when; `xql data status`
 * and the playground's series info read it. The stores list the migration and run its
 * statements; the sync owns what they mean.
 */
import type { FeedRecord } from "../store/store.js";
import type { Timeframe } from "../types.js";

/** The migration's version and name, the same on both backends. */
export const FEEDS_MIGRATION = {
  version: 8,
  name: "series feeds: the source, price side and last sync of each synced series",
} as const;

export const FEEDS_SQLITE_SQL = `
  CREATE TABLE series_feeds (
    market    TEXT    NOT NULL,
    timeframe TEXT    NOT NULL,
    symbol    TEXT    NOT NULL,
    source    TEXT    NOT NULL,
    price     TEXT    NOT NULL,
    synced_at INTEGER NOT NULL,
    PRIMARY KEY (market, timeframe, symbol)
  ) WITHOUT ROWID;
`;

export const FEEDS_POSTGRES_SQL = `
  CREATE TABLE series_feeds (
    market    text   NOT NULL,
    timeframe text   NOT NULL,
    symbol    text   NOT NULL,
    source    text   NOT NULL,
    price     text   NOT NULL,
    synced_at bigint NOT NULL,
    PRIMARY KEY (market, timeframe, symbol)
  );
`;

/** One statement for both backends: `?` placeholders become `$n` on PostgreSQL. */
export const RECORD_FEED_SQL = `INSERT INTO series_feeds (market, timeframe, symbol, source, price, synced_at) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (market, timeframe, symbol) DO UPDATE SET source = excluded.source, price = excluded.price, synced_at = excluded.synced_at`;

export const LIST_FEEDS_SQL = "SELECT market, timeframe, symbol, source, price, synced_at FROM series_feeds";

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
