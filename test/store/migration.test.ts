/**
 * Migration 4 on stores written by the version-3 layout (a row table beside blocks of six
 * columns): every bar survives into blocks and tails, CRYPTO's derived timeframes stay as they
 * were, FOREX's derived ones are derived again on the session, an imported FOREX d stays as
 * imported; also from a store whose version-3 blocks were never built. SQLite always, PostgreSQL
 * when XQL_TEST_DATABASE_URL is set.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { aggregateBars } from "../../src/sessions/aggregate.js";
import { openStore, type Store } from "../../src/open/open.js";
import { type Backend, type Migration, roomMigrations } from "../../src/db/migrations.js";
import { ACCOUNTS_ROOM } from "../../src/accounts/rooms.js";
import { BARS_ROOM } from "../../src/store/rooms.js";
import { SQLITE_ROOMS } from "../../src/open/sqlite.js";
import type { Bars, Timeframe } from "../../src/types.js";
import { RAW_SERIES, TIMEFRAME_MS } from "../../src/types.js";
import { freshDatabase } from "../scale/helpers.js";
import { tempDir, needsPostgres } from "../kit/index.js";

const H = TIMEFRAME_MS.h1;

/**
 * The global list of the builds before rooms, as far as a version-3 store had it: its version
 * 1 was the bars' 1 and the accounts' 1 together, 2 and 3 the bars', 5 the accounts' 2.
 */
function legacyMigrations(backend: Backend): { version: number; migrations: Migration[] }[] {
  const bars = roomMigrations(BARS_ROOM, backend);
  const accounts = roomMigrations(ACCOUNTS_ROOM, backend);
  return [
    { version: 1, migrations: [bars[0]!, accounts[0]!] },
    { version: 2, migrations: [bars[1]!] },
    { version: 3, migrations: [bars[2]!] },
    { version: 5, migrations: [accounts[1]!] },
  ];
}
const START = Date.UTC(2025, 9, 27); // a Monday, across the US autumn change (November 2)

function h1(n: number, seed: number): Bars {
  const time = Array.from({ length: n }, (_, i) => START + i * H);
  const close = time.map((_, i) => 1 + ((i * 7919 + seed) % 1000) / 10_000);
  return {
    time: Float64Array.from(time),
    open: Float64Array.from(close, (c) => c - 0.0005),
    high: Float64Array.from(close, (c) => c + 0.001),
    low: Float64Array.from(close, (c) => c - 0.001),
    close: Float64Array.from(close),
    volume: Float64Array.from(time, (_, i) => 100 + (i % 17)),
  };
}

/** What a version-3 store held: (market, timeframe, symbol, derived, bars), derived ones on UTC periods as version 3 made them. */
function legacySeries(): { market: string; timeframe: Timeframe; symbol: string; derived: boolean; bars: Bars }[] {
  const crypto = h1(700, 1);
  const forex = h1(700, 2);
  const imported = aggregateBars(h1(700, 3), "d", "CRYPTO");
  const out: { market: string; timeframe: Timeframe; symbol: string; derived: boolean; bars: Bars }[] = [
    { market: "CRYPTO", timeframe: "h1", symbol: "BTCUSDT", derived: false, bars: crypto },
    { market: "FOREX", timeframe: "h1", symbol: "EURUSD", derived: false, bars: forex },
    { market: "FOREX", timeframe: "d", symbol: "GBPUSD", derived: false, bars: imported },
  ];
  for (const tf of ["h4", "d", "w"] as const) {
    out.push({ market: "CRYPTO", timeframe: tf, symbol: "BTCUSDT", derived: true, bars: aggregateBars(crypto, tf, "CRYPTO") });
    out.push({ market: "FOREX", timeframe: tf, symbol: "EURUSD", derived: true, bars: aggregateBars(forex, tf, "CRYPTO") });
  }
  return out;
}

/** Version 3's blocks: 256-bar time-aligned blocks, each column its own little-endian float64 blob. */
function legacyBlocks(timeframe: Timeframe, bars: Bars): { block: number; n: number; columns: Buffer[] }[] {
  const span = 256 * TIMEFRAME_MS[timeframe];
  const out: { block: number; n: number; columns: Buffer[] }[] = [];
  let start = 0;
  while (start < bars.time.length) {
    const block = Math.floor(bars.time[start]! / span);
    let end = start;
    while (end < bars.time.length && Math.floor(bars.time[end]! / span) === block) end++;
    const columns = (["time", "open", "high", "low", "close", "volume"] as const).map((name) =>
      Buffer.from(Float64Array.from(Array.from(bars[name]).slice(start, end)).buffer),
    );
    out.push({ block, n: end - start, columns });
    start = end;
  }
  return out;
}

async function expectMigrated(store: Store): Promise<void> {
  const read = async (market: string, tf: Timeframe, symbol: string): Promise<number[][]> => {
    const got = await store.latestBars({ market, timeframe: tf, baseTimeframe: tf, series: RAW_SERIES, count: 100_000 });
    const b = got.find((s) => s.symbol === symbol)!.bars;
    return [Array.from(b.time), Array.from(b.open), Array.from(b.high), Array.from(b.low), Array.from(b.close), Array.from(b.volume)];
  };
  const plain = (b: Bars): number[][] => [Array.from(b.time), Array.from(b.open), Array.from(b.high), Array.from(b.low), Array.from(b.close), Array.from(b.volume)];
  const legacy = legacySeries();
  const of = (market: string, tf: Timeframe, symbol: string) => legacy.find((s) => s.market === market && s.timeframe === tf && s.symbol === symbol)!.bars;
  expect(await read("CRYPTO", "h1", "BTCUSDT")).toEqual(plain(of("CRYPTO", "h1", "BTCUSDT")));
  expect(await read("FOREX", "h1", "EURUSD")).toEqual(plain(of("FOREX", "h1", "EURUSD")));
  expect(await read("FOREX", "d", "GBPUSD")).toEqual(plain(of("FOREX", "d", "GBPUSD")));
  for (const tf of ["h4", "d", "w"] as const) {
    expect(await read("CRYPTO", tf, "BTCUSDT"), `CRYPTO ${tf}`).toEqual(plain(of("CRYPTO", tf, "BTCUSDT")));
    expect(await read("FOREX", tf, "EURUSD"), `FOREX ${tf}`).toEqual(plain(aggregateBars(of("FOREX", "h1", "EURUSD"), tf, "FOREX")));
  }
  expect(await store.barCount()).toBe(700 + 700 + of("FOREX", "d", "GBPUSD").time.length);
  const status = await store.series();
  expect(status.find((s) => s.market === "FOREX" && s.timeframe === "d" && s.symbol === "EURUSD")).toMatchObject({ derived: true, firstTime: aggregateBars(of("FOREX", "h1", "EURUSD"), "d", "FOREX").time[0] });
  // The store goes on taking writes: an append after the migration.
  const next = h1(701, 2);
  await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: { time: [next.time[700]!], open: [1.1], high: [1.2], low: [1], close: [1.15], volume: [5] } }] }]);
  expect((await read("FOREX", "h1", "EURUSD"))[0]!.at(-1)).toBe(next.time[700]);
}

describe("migration 4 on SQLite", () => {
  const { dir, cleanup } = tempDir("xql-migrate-");
  afterAll(cleanup);
  for (const built of [true, false]) {
    it(`moves a version-3 store ${built ? "" : "whose blocks were never built "}to blocks and tails`, async () => {
      const file = join(dir, `v3-${built}.db`);
      const db = new Database(file);
      db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)");
      // The store whose blocks were never built also has migration 5 (key scopes) but not 4, as a
      // build of one feature branch left it: every migration not recorded runs, not only the higher ones.
      for (const m of legacyMigrations("sqlite").filter((m) => m.version <= 3 || !built)) {
        for (const part of m.migrations) db.exec(part.sql);
        db.prepare("INSERT INTO schema_migrations VALUES (?, ?, 0)").run(m.version, m.migrations[0]!.name);
      }
      const row = db.prepare("INSERT INTO bars VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
      const series = db.prepare("INSERT INTO series (market, timeframe, symbol, bars, first_time, last_time, derived) VALUES (?, ?, ?, ?, ?, ?, ?)");
      const block = db.prepare("INSERT INTO bar_blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      db.transaction(() => {
        for (const s of legacySeries()) {
          const b = s.bars;
          for (let i = 0; i < b.time.length; i++) row.run(s.market, s.timeframe, s.symbol, b.time[i], b.open[i], b.high[i], b.low[i], b.close[i], b.volume[i]);
          series.run(s.market, s.timeframe, s.symbol, b.time.length, b.time[0], b.time[b.time.length - 1], s.derived ? 1 : 0);
          if (built) for (const k of legacyBlocks(s.timeframe, b)) block.run(s.market, s.timeframe, s.symbol, k.block, k.n, ...k.columns);
        }
      })();
      db.prepare("UPDATE meta SET value = ? WHERE key = 'blocks_built'").run(built ? 1 : 0);
      db.close();
      const store = await openStore(file);
      try {
        await expectMigrated(store);
        const check = new Database(file, { readonly: true });
        const applied = check.prepare("SELECT room || '/' || version FROM xql_migrations").pluck().all();
        expect(new Set(applied)).toEqual(new Set(SQLITE_ROOMS.flatMap((room) => roomMigrations(room, "sqlite").map((m) => `${m.room}/${m.version}`))));
        expect(check.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'bars'").pluck().get()).toBe(0);
        check.close();
      } finally {
        await store.close();
      }
    });
  }
});

const url = process.env.XQL_TEST_DATABASE_URL;
needsPostgres("migration 4 on PostgreSQL", () => {
  it("moves a version-3 database to blocks and tails", async () => {
    const fresh = await freshDatabase(url!);
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    try {
      await client.query("CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)");
      for (const m of legacyMigrations("postgres").filter((m) => m.version <= 3)) {
        for (const part of m.migrations) await client.query(part.sql);
        await client.query("INSERT INTO schema_migrations VALUES ($1, $2, 0)", [m.version, m.migrations[0]!.name]);
      }
      for (const s of legacySeries()) {
        const b = s.bars;
        await client.query(
          `INSERT INTO bars SELECT $1, $2, $3, * FROM unnest($4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[])`,
          [s.market, s.timeframe, s.symbol, Array.from(b.time), Array.from(b.open), Array.from(b.high), Array.from(b.low), Array.from(b.close), Array.from(b.volume)],
        );
        await client.query("INSERT INTO series (market, timeframe, symbol, bars, first_time, last_time, derived) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
          s.market, s.timeframe, s.symbol, b.time.length, b.time[0], b.time[b.time.length - 1], s.derived ? 1 : 0,
        ]);
        for (const k of legacyBlocks(s.timeframe, b)) {
          await client.query("INSERT INTO bar_blocks VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", [s.market, s.timeframe, s.symbol, k.block, k.n, ...k.columns]);
        }
      }
      await client.query("UPDATE meta SET value = 1 WHERE key = 'blocks_built'");
      await client.end();
      const store = await openStore(fresh.url);
      try {
        await expectMigrated(store);
      } finally {
        await store.close();
      }
    } finally {
      await client.end().catch(() => undefined);
      await fresh.drop();
    }
  }, 60_000);
});
