/**
 * Screen leases on a real PostgreSQL (decisions §7, 2026-12-05): shares that add up to the
 * screens and differ by at most one, a newcomer taking its share from the others, a shutdown
 * giving its screens up at once, an unrenewed lease taken over once it expires, and concurrent
 * claims that never hand one screen to two replicas.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PgScreenLeases, screenKey, shareOf } from "../../src/alerts/leases.js";
import { AlertEngine } from "../../src/alerts/engine.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import { compile } from "../../src/api.js";
import { PostgresStore } from "../../src/open/postgres.js";
import { DATABASE_URL, freshDatabase } from "../scale/helpers.js";
import { needsServices } from "../kit/index.js";

describe("shareOf", () => {
  it("splits S screens among N replicas by id: ⌊S/N⌋ each, one more for the first S mod N", () => {
    const replicas = ["a", "b", "c"];
    expect(replicas.map((r) => shareOf(r, replicas, 10))).toEqual([4, 3, 3]);
    expect(replicas.map((r) => shareOf(r, replicas, 2))).toEqual([1, 1, 0]);
    expect(shareOf("a", ["a"], 7)).toBe(7);
    for (let s = 0; s < 20; s++) for (let n = 1; n < 6; n++) {
      const ids = Array.from({ length: n }, (_, i) => `r${i}`);
      const shares = ids.map((r) => shareOf(r, ids, s));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(s);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  it("keys a screen by market, timeframe and query text", () => {
    const alert = { market: "CRYPTO", timeframe: "h1" as const, query: "q" };
    expect(screenKey(alert)).toBe(screenKey({ ...alert }));
    expect(screenKey(alert)).not.toBe(screenKey({ ...alert, timeframe: "h4" }));
    expect(screenKey(alert)).not.toBe(screenKey({ ...alert, query: "q2" }));
  });
});

needsServices("screen leases on PostgreSQL", () => {
  let db: { url: string; drop: () => Promise<void> };
  let store: PostgresStore;
  let leases: PgScreenLeases;
  let client: pg.Client;
  const SCREENS = Array.from({ length: 10 }, (_, i) => `screen${String(i).padStart(2, "0")}`);

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    store = await PostgresStore.open(db.url);
    leases = (store.alerts as unknown as { leases: PgScreenLeases }).leases;
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
    await db?.drop();
  });

  it("balances, hands a newcomer its share, releases on shutdown and takes over expired leases", async () => {
    const lease = 60_000;
    // One replica alone takes every screen.
    await leases.renew("rep_a", lease);
    expect((await leases.balance("rep_a", SCREENS, lease)).held).toHaveLength(10);
    // A second registers: it finds nothing free until the first gives up its excess.
    await leases.renew("rep_b", lease);
    expect((await leases.balance("rep_b", SCREENS, lease)).held).toHaveLength(0);
    expect((await leases.balance("rep_a", SCREENS, lease)).held).toHaveLength(5);
    const b = await leases.balance("rep_b", SCREENS, lease);
    expect(b.held).toHaveLength(5);
    expect(b.free).toBe(0);

    // Concurrent claims by a third and a fourth never hand one screen to both.
    await leases.renew("rep_c", lease);
    await leases.renew("rep_d", lease);
    await Promise.all([leases.balance("rep_a", SCREENS, lease), leases.balance("rep_b", SCREENS, lease)]);
    const [c, d] = await Promise.all([leases.balance("rep_c", SCREENS, lease), leases.balance("rep_d", SCREENS, lease)]);
    expect(new Set([...c.held, ...d.held]).size).toBe(c.held.length + d.held.length);
    const holders = await client.query<{ holder: string; n: number }>("SELECT holder, count(*)::int AS n FROM alert_screen_leases GROUP BY holder ORDER BY holder");
    expect(holders.rows.reduce((n, r) => n + r.n, 0)).toBe(10);

    // Shutdown: d's screens are free at once, its registration gone.
    await leases.release("rep_d");
    const after = await leases.balance("rep_c", SCREENS, lease);
    expect(after.replicas).toEqual(["rep_a", "rep_b", "rep_c"]);

    // c stops renewing (killed): once its leases and registration expire, a and b take them.
    await client.query("UPDATE alert_screen_leases SET expires_at = now() - interval '1 second' WHERE holder = 'rep_c'");
    await client.query("UPDATE alert_replicas SET expires_at = now() - interval '1 second' WHERE id = 'rep_c'");
    const a2 = await leases.balance("rep_a", SCREENS, lease);
    const b2 = await leases.balance("rep_b", SCREENS, lease);
    expect(a2.replicas).toEqual(["rep_a", "rep_b"]);
    expect(a2.held.length + b2.held.length).toBe(10);
    expect(new Set([...a2.held, ...b2.held]).size).toBe(10);
    // c, back from a stall, renews nothing: its screens were taken.
    expect((await leases.renew("rep_c", lease)).held).toEqual([]);

    // A screen whose alerts are gone is let go by its holder and forgotten.
    const fewer = SCREENS.slice(1);
    await leases.balance("rep_a", fewer, lease);
    await leases.balance("rep_b", fewer, lease);
    const rows = await client.query<{ screen: string }>("SELECT screen FROM alert_screen_leases ORDER BY screen");
    expect(rows.rows.map((r) => r.screen)).toEqual(fewer);
  });

  it("leaves a screen a replica cannot compile to the replicas that can", async () => {
    const other = await freshDatabase(DATABASE_URL!);
    const shared = await PostgresStore.open(other.url);
    const queries = ['market = "CRYPTO"\ntimeframe = h1\nrsi(14) < 30', 'market = "CRYPTO"\ntimeframe = h1\nclose > ema(close, 9)'];
    // Replica a refuses what replica b accepts (another configuration: markets, ceilings).
    const engine = (refuses: (query: string) => boolean): AlertEngine =>
      new AlertEngine({
        bars: shared,
        alerts: shared.alerts,
        clock: { now: () => Date.now() },
        compile: (text) => (refuses(text) ? undefined : compile(text)),
        warmup: 300,
        allowPrivateWebhooks: true,
        settleMs: 3_600_000,
      });
    const a = engine((text) => text.includes("ema"));
    const b = engine(() => false);
    try {
      const { record } = await issueApiKey(shared, { tier: "plus", now: Date.now() });
      for (const [i, query] of queries.entries()) {
        await shared.alerts.createAlert(
          { id: `alrt_lease${i}`, accountId: record.accountId, name: `lease ${i}`, query, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: Date.now(), lastTime: null, matching: [] },
          100,
        );
      }
      const holders = async (): Promise<Map<string, string | null>> => {
        const read = new pg.Client({ connectionString: other.url });
        await read.connect();
        try {
          const r = await read.query<{ screen: string; holder: string | null }>("SELECT screen, holder FROM alert_screen_leases");
          return new Map(r.rows.map((row) => [row.screen, row.holder]));
        } finally {
          await read.end();
        }
      };
      const ema = screenKey({ market: "CRYPTO", timeframe: "h1", query: queries[1]! });
      const rsi = screenKey({ market: "CRYPTO", timeframe: "h1", query: queries[0]! });
      // Alone, a takes what it can evaluate and leaves the rest free.
      a.start();
      await a.evaluate();
      const first = await holders();
      expect(first.get(rsi)).toBeTruthy();
      expect(first.get(ema) ?? null).toBeNull();
      // b takes the screen a left.
      b.start();
      await b.evaluate();
      await a.evaluate();
      const after = await holders();
      expect(after.get(ema)).toBeTruthy();
      expect(after.get(ema)).not.toBe(after.get(rsi));
    } finally {
      await a.stop();
      await b.stop();
      await shared.close();
      await other.drop();
    }
  });
});
