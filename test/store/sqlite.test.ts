import { afterEach, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { join } from "node:path";
import { SQLITE_ROOMS, SqliteStore } from "../../src/open/sqlite.js";
import { roomMigrations } from "../../src/db/migrations.js";
import { TIMEFRAME_MS } from "../../src/types.js";
import { barOpen, rampBars, tempDir } from "../kit/index.js";

const NOW = Date.UTC(2026, 10, 20, 13, 25);
const H1 = TIMEFRAME_MS.h1;

describe("SqliteStore", () => {
  let dir: string;
  let cleanup: () => void;
  let store: SqliteStore;

  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    store = new SqliteStore(join(dir, "sub", "xql.db"));
  });
  afterEach(async () => {
    await store.close();
    cleanup();
  });

  it("creates the folder, uses WAL and records every migration", () => {
    store.close();
    const db = new Database(join(dir, "sub", "xql.db"));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const applied = db.prepare("SELECT room, version FROM xql_migrations ORDER BY room, version").all();
    const known = SQLITE_ROOMS.flatMap((room) => roomMigrations(room, "sqlite").map((m) => ({ room: m.room, version: m.version })));
    expect(applied).toEqual(known.sort((a, b) => (a.room < b.room ? -1 : a.room > b.room ? 1 : a.version - b.version)));
    db.close();
    store = new SqliteStore(join(dir, "sub", "xql.db"));
  });

  it("reopens an existing file without reapplying migrations", async () => {
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 5, barOpen("h1", NOW)) }] }]);
    store.close();
    store = new SqliteStore(join(dir, "sub", "xql.db"));
    expect(await store.barCount()).toBe(5);
  });

  it("reads keys made before scopes existed as run keys", async () => {
    await store.createAccount("acct_old", "free", 1);
    await store.createKey({ hash: "h_old", prefix: "xql_old", accountId: "acct_old", label: null }, 2);
    await store.close();
    const file = join(dir, "sub", "xql.db");
    const db = new Database(file);
    db.exec("ALTER TABLE api_keys DROP COLUMN scope; DELETE FROM xql_migrations WHERE room = 'accounts' AND version = 2");
    db.close();
    store = new SqliteStore(file);
    expect((await store.findKeyByHash("h_old"))?.scope).toBe("run");
  });

  it("refuses a database written by a newer schema", () => {
    store.close();
    const db = new Database(join(dir, "sub", "xql.db"));
    db.prepare("INSERT INTO xql_migrations (room, version, name, applied_at) VALUES ('bars', ?, 'future', 0)").run(roomMigrations(SQLITE_ROOMS[0]!, "sqlite").length + 1);
    db.close();
    expect(() => new SqliteStore(join(dir, "sub", "xql.db"))).toThrow(/newer than this xql/);
    store = new SqliteStore(":memory:");
  });

  it("upserts idempotently and bumps the data version on every write", async () => {
    const bars = rampBars("h1", 10, barOpen("h1", NOW));
    const v0 = await store.dataVersion();
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars }] }]);
    const v1 = await store.dataVersion();
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars }] }]);
    const v2 = await store.dataVersion();
    expect(v1).not.toBe(v0);
    expect(v2).not.toBe(v1);
    expect(await store.barCount()).toBe(10);
    const series = await store.series();
    expect(series.find((s) => s.timeframe === "h1")).toEqual(
      { market: "FOREX", timeframe: "h1", symbol: "EURUSD", bars: 10, firstTime: bars.time[0], lastTime: bars.time[9], derived: false },
    );
    // h4, d and w are derived from the h1 bars; nothing finer appears.
    expect(series.map((s) => [s.timeframe, s.derived])).toEqual([["d", true], ["h1", false], ["h4", true], ["w", true]]);
    expect(await store.markets()).toEqual(["FOREX"]);
  });

  it("replaces the values of a bar written again", async () => {
    const last = barOpen("h1", NOW);
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 3, last, 100) }] }]);
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 1, last, 500) }] }]);
    const [read] = await store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 3 });
    expect(Array.from(read!.bars.close)).toEqual([100, 101, 500]);
  });

  it("replaces a symbol's bars whole when the batch says so", async () => {
    const last = barOpen("h1", NOW);
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 10, last - 100 * H1) }] }]);
    await store.upsertBars([{ market: "FOREX", timeframe: "h1", replace: true, symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 3, last) }] }]);
    expect(await store.barCount()).toBe(3);
    expect((await store.series()).find((s) => s.timeframe === "h1")).toMatchObject({ bars: 3, firstTime: last - 2 * H1, lastTime: last });
  });

  it("writes nothing when a batch fails part way", async () => {
    const good = rampBars("h1", 5, barOpen("h1", NOW));
    const bad = { ...rampBars("h1", 5, barOpen("h1", NOW)), close: [1, 2, 3, Number.NaN, 5] };
    const v = await store.dataVersion();
    await expect(
      store.upsertBars([
        { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: good }, { symbol: "GBPUSD", bars: bad }] },
      ]),
    ).rejects.toThrow();
    expect(await store.barCount()).toBe(0);
    expect(await store.dataVersion()).toBe(v);
  });

  it("returns the latest N bars of every symbol, oldest first, with only the named series", async () => {
    const last = barOpen("h1", NOW);
    await store.upsertBars([
      {
        market: "CRYPTO",
        timeframe: "h1",
        symbols: [
          { symbol: "BTCUSDT", bars: rampBars("h1", 50, last, 1000) },
          { symbol: "ETHUSDT", bars: rampBars("h1", 3, last - 5 * H1, 10) },
        ],
      },
      { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 50, last) }] },
    ]);
    const read = await store.latestBars({ market: "CRYPTO", timeframe: "h1", baseTimeframe: "h1", series: ["close", "volume"], count: 10 });
    expect(read.map((r) => r.symbol)).toEqual(["BTCUSDT", "ETHUSDT"]);
    const btc = read[0]!.bars;
    expect(Array.from(btc.close)).toEqual([1040, 1041, 1042, 1043, 1044, 1045, 1046, 1047, 1048, 1049]);
    expect(btc.time[9]).toBe(last);
    expect(btc.time[0]).toBe(last - 9 * H1);
    expect(Array.from(btc.volume).at(-1)).toBe(149);
    expect(Number.isNaN(btc.open[0])).toBe(true);
    expect(Array.from(read[1]!.bars.close)).toEqual([10, 11, 12]);
  });

  it("cuts a coarser source at the close of each symbol's latest base bar, keeping one bar in progress", async () => {
    // Base h1 ends 13:00 (closes 14:00). Daily bars run to today's 00:00 bar, in progress.
    const lastH1 = barOpen("h1", NOW);
    const today = barOpen("d", NOW);
    await store.upsertBars([
      { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 10, lastH1) }] },
      // Daily bars stored past today (as an import might): they opened after the base close.
      { market: "FOREX", timeframe: "d", symbols: [{ symbol: "EURUSD", bars: rampBars("d", 20, today + 3 * TIMEFRAME_MS.d) }] },
    ]);
    const [daily] = await store.latestBars({ market: "FOREX", timeframe: "d", baseTimeframe: "h1", series: ["close"], count: 5 });
    const times = Array.from(daily!.bars.time);
    expect(times).toHaveLength(6);
    expect(times.at(-1)).toBe(today);
    // The five before it closed by the base bar's close.
    expect(times.slice(0, 5).every((t) => t + TIMEFRAME_MS.d <= lastH1 + H1)).toBe(true);
  });

  it("cuts a finer source inside the latest base bar; a symbol imported only at h1 has its base h4 derived", async () => {
    const lastH4 = barOpen("h4", NOW);
    await store.upsertBars([
      { market: "FOREX", timeframe: "h4", symbols: [{ symbol: "EURUSD", bars: rampBars("h4", 10, lastH4) }] },
      {
        market: "FOREX",
        timeframe: "h1",
        symbols: [
          { symbol: "EURUSD", bars: rampBars("h1", 40, lastH4 + 8 * H1) },
          { symbol: "USDJPY", bars: rampBars("h1", 40, lastH4) },
        ],
      },
    ]);
    const read = await store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h4", series: ["close"], count: 8 });
    expect(read.map((r) => r.symbol)).toEqual(["EURUSD", "USDJPY"]);
    const times = Array.from(read[0]!.bars.time);
    expect(times.at(-1)).toBe(lastH4 + 3 * H1);
    expect(times).toHaveLength(9);
    // USDJPY's h1 bars end at lastH4, so its derived h4 bar (in progress) opens there too: the cut at lastH4 + 4 h keeps all.
    expect(Array.from(read[1]!.bars.time).at(-1)).toBe(lastH4);
  });

  it("keeps accounts and keys, finds a key by hash and revokes it once", async () => {
    await store.createAccount("acct_1", "essential", NOW);
    const key = await store.createKey({ hash: "h1", prefix: "xql_AbCd", accountId: "acct_1", label: "ci" }, NOW);
    expect(key).toEqual({ hash: "h1", prefix: "xql_AbCd", accountId: "acct_1", tier: "essential", label: "ci", scope: "run", createdAt: NOW, revokedAt: null });
    expect(await store.findKeyByHash("h1")).toEqual(key);
    expect(await store.findKeyByHash("nope")).toBeUndefined();
    await expect(store.createKey({ hash: "h2", prefix: "xql_x", accountId: "acct_missing", label: null }, NOW)).rejects.toThrow(/No account/);
    expect(await store.revokeKey("h1", NOW + 1)).toBe(true);
    expect(await store.revokeKey("h1", NOW + 2)).toBe(false);
    expect((await store.findKeyByHash("h1"))!.revokedAt).toBe(NOW + 1);
    expect((await store.listKeys()).map((k) => k.prefix)).toEqual(["xql_AbCd"]);
  });

  it("sees keys revoked or created through another connection at once (another replica, xql keys in another process)", async () => {
    await store.createAccount("acct_1", "free", NOW);
    await store.createKey({ hash: "h1", prefix: "xql_AbCd", accountId: "acct_1", label: null }, NOW);
    expect((await store.findKeyByHash("h1"))!.revokedAt).toBeNull(); // now remembered
    const other = new SqliteStore(join(dir, "sub", "xql.db"));
    try {
      expect(await other.revokeKey("h1", NOW + 5)).toBe(true);
      expect((await store.findKeyByHash("h1"))!.revokedAt).toBe(NOW + 5);
      await other.createKey({ hash: "h2", prefix: "xql_EfGh", accountId: "acct_1", label: null }, NOW);
      expect((await store.findKeyByHash("h2"))!.prefix).toBe("xql_EfGh");
      // A raw write by any other connection counts too.
      const raw = new Database(join(dir, "sub", "xql.db"));
      raw.prepare("UPDATE api_keys SET revoked_at = NULL WHERE hash = 'h1'").run();
      raw.close();
      expect((await store.findKeyByHash("h1"))!.revokedAt).toBeNull();
      // A returned record is a copy: changing it changes nothing the store answers later.
      const found = (await store.findKeyByHash("h1"))!;
      (found as { revokedAt: number | null }).revokedAt = 1;
      expect((await store.findKeyByHash("h1"))!.revokedAt).toBeNull();
    } finally {
      other.close();
    }
    store.close();
    await expect(store.findKeyByHash("h1")).rejects.toThrow();
    store = new SqliteStore(join(dir, "sub", "xql.db"));
  });

  it("rejects an unknown tier", async () => {
    await expect(store.createAccount("acct_x", "gold" as never, NOW)).rejects.toThrow(/tier/);
  });

  it("reserves quota atomically up to the limit, releases, and counts per day", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => store.reserve("acct_1", "2026-11-20", 4)));
    expect(results.filter((r) => r.admitted)).toHaveLength(4);
    expect(results.at(-1)).toEqual({ admitted: false, used: 4, remaining: 0 });
    expect(await store.release("acct_1", "2026-11-20", 4)).toEqual({ used: 3, remaining: 1 });
    expect(await store.usage("acct_1", "2026-11-20", 4)).toEqual({ used: 3, remaining: 1 });
    expect(await store.usage("acct_1", "2026-11-21", 4)).toEqual({ used: 0, remaining: 4 });
    expect(await store.release("acct_1", "2026-11-21", 4)).toEqual({ used: 0, remaining: 4 });
  });

  it("admits exactly the limit across two connections to the same file", async () => {
    const other = new SqliteStore(join(dir, "sub", "xql.db"));
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).reserve("acct_1", "2026-11-20", 7));
    const admitted = (await Promise.all(calls)).filter((r) => r.admitted).length;
    other.close();
    expect(admitted).toBe(7);
  });

  it("rejects every call once closed", async () => {
    store.close();
    await expect(store.dataVersion()).rejects.toThrow();
    await expect(store.health()).rejects.toThrow();
    await expect(store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 1 })).rejects.toThrow();
  });
});

describe("SqliteStore quota file", () => {
  it("keeps the counters in <file>-quota, carrying over those an older version kept in the main file", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, "old.db");
      // A database as the previous version left it: counters in the main file's quota_usage.
      new SqliteStore(file).close();
      const raw = new Database(file);
      raw.prepare("INSERT INTO quota_usage (account_id, day, used) VALUES ('acct_a', '2026-11-20', 7)").run();
      raw.close();
      const store = new SqliteStore(file);
      try {
        expect(await store.usage("acct_a", "2026-11-20", 30)).toEqual({ used: 7, remaining: 23 });
        expect(await store.reserve("acct_a", "2026-11-20", 30)).toEqual({ admitted: true, used: 8, remaining: 22 });
      } finally {
        store.close();
      }
      const quota = new Database(`${file}-quota`, { readonly: true });
      expect(quota.prepare("SELECT used FROM quota_usage WHERE account_id = 'acct_a'").pluck().get()).toBe(8);
      quota.close();
      // Carried over once: the main file's old row does not come back on the next open.
      const again = new SqliteStore(file);
      expect(await again.usage("acct_a", "2026-11-20", 30)).toMatchObject({ used: 8 });
      again.close();
    } finally {
      cleanup();
    }
  });
});
