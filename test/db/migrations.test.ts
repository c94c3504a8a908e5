/**
 * Migrations by room (src/db): a database written before rooms (schema version 10, one global
 * list in `schema_migrations`) upgrades in place, its data whole: the fixtures
 * test/fixtures/store/v10.*.sql are the databases that code wrote (bars of two markets, a
 * write key, a series claimed by a push, a feed, a watchlist, an alert), dumped. Its versions
 * become the rooms', nothing is applied twice, and builds from before rooms refuse the result.
 * SQLite always, PostgreSQL when XQL_TEST_DATABASE_URL is set.
 */
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Migration, type RoomPlace, SCHEMA_VERSION, plan, roomMigrations } from "../../src/db/migrations.js";
import { openStore, type Store } from "../../src/open/open.js";
import { POSTGRES_ROOMS } from "../../src/open/postgres.js";
import { PostgresBarStore } from "../../src/store/postgres.js";
import { SqliteBarStore } from "../../src/store/sqlite.js";
import { SQLITE_ROOMS } from "../../src/open/sqlite.js";
import { freshDatabase } from "../scale/helpers.js";
import { tempDir } from "../kit/index.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/store");
const START = Date.UTC(2026, 0, 5);
const H = 3_600_000;

/** What the version-10 database held, read through the store after the upgrade. */
async function expectWhole(store: Store): Promise<void> {
  const eurusd = await store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 1000 });
  expect(eurusd.map((s) => [s.symbol, s.bars.time.length, s.bars.time[0], s.bars.time[s.bars.time.length - 1]])).toEqual([["EURUSD", 600, START, START + 599 * H]]);
  expect(eurusd[0]!.bars.close[10]).toBe(1 + ((10 * 7919 + 1) % 1000) / 10_000);
  expect(await store.barCount()).toBe(900);
  expect((await store.series("CRYPTO")).map((s) => `${s.timeframe}:${s.bars}:${s.derived}`)).toEqual(["d:13:true", "h1:300:false", "h4:75:true", "w:2:true"]);
  expect(await store.findKeyByHash("a".repeat(64))).toMatchObject({ accountId: "acct_fixture", tier: "plus", scope: "write", label: "fixture" });
  expect(await store.listWatchlists("acct_fixture")).toMatchObject([{ name: "majors", symbols: ["EURUSD", "GBPUSD"] }]);
  expect(await store.feeds()).toEqual([{ market: "CRYPTO", timeframe: "h1", symbol: "BTCUSDT", source: "binance", price: "trades", syncedAt: 4 }]);
  expect((await store.alerts.listAlerts("acct_fixture")).map((a) => [a.id, a.name, a.market])).toEqual([["alrt_0000000000000001", "above", "FOREX"]]);
  // The store goes on taking writes: an append after the upgrade.
  await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: { time: [START + 600 * H], open: [1], high: [1.1], low: [0.9], close: [1.05], volume: [1] } }] }]);
  expect(await store.barCount()).toBe(901);
}

/** Every (room, version) the rooms hold on a backend. */
function known(rooms: readonly RoomPlace[], backend: "sqlite" | "postgres"): string[] {
  return rooms.flatMap((room) => roomMigrations(room, backend).map((m) => `${m.room}/${m.version}`)).sort();
}

describe("a version-10 SQLite database", () => {
  const { dir, cleanup } = tempDir("xql-rooms-");
  afterAll(cleanup);

  it("upgrades to rooms with its bars, keys, claims, feeds, watchlists and alerts whole", async () => {
    const file = join(dir, "v10.db");
    const db = new Database(file);
    db.exec(readFileSync(join(fixtures, "v10.sqlite.sql"), "utf8"));
    const legacy = db.prepare("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").all() as { version: number; name: string; applied_at: number }[];
    expect(legacy.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    db.close();

    const store = await openStore(file);
    try {
      await expectWhole(store);
    } finally {
      await store.close();
    }
    const check = new Database(file, { readonly: true });
    try {
      const rows = check.prepare("SELECT room, version, name, applied_at FROM xql_migrations").all() as { room: string; version: number; name: string; applied_at: number }[];
      expect(rows.map((r) => `${r.room}/${r.version}`).sort()).toEqual(known(SQLITE_ROOMS, "sqlite"));
      // Adopted, not run again: each keeps the name and time the global list recorded.
      const accountsScopes = rows.find((r) => r.room === "accounts" && r.version === 2)!;
      expect([accountsScopes.name, accountsScopes.applied_at]).toEqual([legacy[4]!.name, legacy[4]!.applied_at]);
      expect(rows.every((r) => legacy.some((l) => l.applied_at === r.applied_at))).toBe(true);
      // A build before rooms reads the highest version and refuses it as newer than it understands.
      expect(check.prepare("SELECT max(version) FROM schema_migrations").pluck().get()).toBe(SCHEMA_VERSION);
      expect(check.prepare("SELECT count(*) FROM series_owners WHERE account_id = 'acct_fixture'").pluck().get()).toBe(1);
    } finally {
      check.close();
    }
  });

  it("applies nothing twice: a second open changes no record", async () => {
    const file = join(dir, "twice.db");
    await (await openStore(file)).close();
    const read = (): unknown[] => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare("SELECT room, version, applied_at FROM xql_migrations ORDER BY room, version").all();
      } finally {
        db.close();
      }
    };
    const first = read();
    expect((first as { room: string; version: number }[]).map((r) => `${r.room}/${r.version}`)).toEqual(known(SQLITE_ROOMS, "sqlite"));
    await (await openStore(file)).close();
    expect(read()).toEqual(first);
  });
});

describe("a bar store alone (below the domains)", () => {
  const { dir, cleanup } = tempDir("xql-bars-alone-");
  afterAll(cleanup);

  it("creates the bars' rooms only; openStore on the same file adds the accounts', watchlists' and alerts'", async () => {
    const file = join(dir, "bars.db");
    const bars = new SqliteBarStore(file);
    await bars.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: { time: [START], open: [1], high: [1.1], low: [0.9], close: [1.05], volume: [1] } }] }]);
    await bars.close();
    const tables = (): string[] => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
      } finally {
        db.close();
      }
    };
    expect(tables()).toEqual(["bar_blocks", "changes", "meta", "schema_migrations", "series", "series_feeds", "series_owners", "xql_migrations"]);
    const store = await openStore(file);
    try {
      expect(await store.barCount()).toBe(1);
      await store.createAccount("acct_later", "free", 1);
      expect(await store.findAccount("acct_later")).toMatchObject({ tier: "free" });
    } finally {
      await store.close();
    }
    expect(tables()).toEqual(expect.arrayContaining(["accounts", "alerts", "api_keys", "quota_usage", "watchlists"]));
  });
});

describe("the plan of a migration", () => {
  const room: RoomPlace = { name: "bars", folder: "store", legacy: { 1: 1, 2: 2 } };
  const steps: Migration[] = [1, 2, 3].map((version) => ({ room: "bars", version, name: `v${version}`, sql: "" }));

  it("adopts the global list's versions as the room's and runs only what is missing, gaps included", () => {
    const { adopt, run } = plan([room], new Map([["bars", steps]]), [], [{ version: 2, name: "two", appliedAt: 5 }]);
    expect(adopt).toEqual([{ room: "bars", version: 2, name: "two", appliedAt: 5 }]);
    expect(run.map((m) => m.version)).toEqual([1, 3]);
  });

  it("refuses a room recorded at a version this build does not know", () => {
    expect(() => plan([room], new Map([["bars", steps]]), [{ room: "bars", version: 4 }], [])).toThrow(
      "The database schema of bars is at version 4, newer than this xql understands (3); upgrade xql",
    );
  });
});

const url = process.env.XQL_TEST_DATABASE_URL;
describe.skipIf(!url)("a PostgreSQL bar store alone", () => {
  it("creates the bars' rooms only", async () => {
    const fresh = await freshDatabase(url!);
    try {
      const bars = await PostgresBarStore.open(fresh.url);
      try {
        const { rows } = await bars.pool.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
        expect(rows.map((r) => r.name)).toEqual(["bar_blocks", "changes", "meta", "schema_migrations", "series", "series_feeds", "series_owners", "xql_migrations"]);
      } finally {
        await bars.close();
      }
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});

describe.skipIf(!url)("a version-10 PostgreSQL database", () => {
  it("upgrades to rooms with its bars, keys, claims, feeds, watchlists and alerts whole", async () => {
    const fresh = await freshDatabase(url!);
    try {
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        await client.query(readFileSync(join(fixtures, "v10.postgres.sql"), "utf8"));
      } finally {
        await client.end();
      }
      const store = await openStore(fresh.url);
      try {
        await expectWhole(store);
      } finally {
        await store.close();
      }
      const check = new pg.Client({ connectionString: fresh.url });
      await check.connect();
      try {
        const { rows } = await check.query<{ key: string }>("SELECT room || '/' || version AS key FROM xql_migrations");
        expect(rows.map((r) => r.key).sort()).toEqual(known(POSTGRES_ROOMS, "postgres"));
        const { rows: mark } = await check.query<{ v: number }>("SELECT max(version) AS v FROM schema_migrations");
        expect(mark[0]!.v).toBe(SCHEMA_VERSION);
      } finally {
        await check.end();
      }
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
