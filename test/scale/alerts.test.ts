/**
 * Alerts with PostgreSQL and Redis and two replicas (decisions §7: "each (alert, t) is
 * evaluated once, even with several replicas"): both replicas watch the store and evaluate,
 * bars are written through both at once, and each (alert, bar) is committed once, under one
 * delivery id, POSTed once and streamed once, whichever replica a stream is open on.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { TestClock, until, needsServices } from "../kit/index.js";
import { type DeliveryBody, Receiver, openStream } from "../alerts/helpers.js";
import { DATABASE_URL, REDIS_URL, freshDatabase, freshPrefix, startReplica, type Replica } from "./helpers.js";

const HOUR = 3_600_000;
/** Forty hours back from the last whole hour: every bar written has closed. */
const START = Math.floor(Date.now() / HOUR) * HOUR - 40 * HOUR;
const SYMBOLS = ["AAA", "BBB", "CCC", "DDD"];
const QUERIES = [
  'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100',
  'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 120',
  'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, change(close, 1)]\nclose > close[1]',
];

/** The close of `symbol` at bar `k`: a fixed zigzag, so every bar changes something. */
function closeOf(symbol: number, k: number): number {
  return 60 + ((k * (symbol + 3) * 37) % 97);
}

needsServices("alerts on two replicas sharing PostgreSQL and Redis", () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: Replica;
  let b: Replica;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    const prefix = freshPrefix();
    const clock = new TestClock(Date.now());
    const timing = { alertTiming: { settleMs: 5, pollMs: 100 }, allowPrivateWebhooks: true };
    a = await startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix, clock, ...timing });
    b = await startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix, clock, ...timing });
    receiver = await new Receiver().start();
    await a.store.upsertBars([
      {
        market: "CRYPTO",
        timeframe: "h1",
        symbols: SYMBOLS.map((symbol, s) => ({
          symbol,
          bars: {
            time: Array.from({ length: 5 }, (_, k) => START + k * HOUR),
            open: Array.from({ length: 5 }, (_, k) => closeOf(s, k)),
            high: Array.from({ length: 5 }, (_, k) => closeOf(s, k)),
            low: Array.from({ length: 5 }, (_, k) => closeOf(s, k)),
            close: Array.from({ length: 5 }, (_, k) => closeOf(s, k)),
            volume: new Array(5).fill(1),
          },
        })),
      },
    ]);
  });
  afterAll(async () => {
    await receiver?.stop();
    await a?.stop();
    await b?.stop();
    await db?.drop();
  });

  it("commit, POST and stream each (alert, bar) once under concurrent writes through both", async () => {
    const one = await a.key("plus");
    const two = await b.key("essential");
    const alerts: { id: string; accountId: string }[] = [];
    for (const [n, query] of QUERIES.entries()) {
      for (const [owner, replica] of [
        [one, a],
        [two, b],
      ] as const) {
        const response = await replica.post("/xql/alerts", JSON.stringify({ query, webhook: receiver.url, name: `q${n}` }), owner.key);
        expect(response.status).toBe(201);
        alerts.push({ id: ((await response.json()) as { id: string }).id, accountId: owner.accountId });
      }
    }
    // One stream per account, each on the other replica than most of its writes.
    const streamOne = await openStream(b.url, one.key);
    const streamTwo = await openStream(a.url, two.key);
    let posts = 0;
    try {
      // Bars 5..24: half the symbols written through a, half through b, in two concurrent transactions.
      for (let k = 5; k < 25; k++) {
        const batch = (symbols: string[]) => [
          {
            market: "CRYPTO",
            timeframe: "h1" as const,
            symbols: symbols.map((symbol) => {
              const c = closeOf(SYMBOLS.indexOf(symbol), k);
              return { symbol, bars: { time: [START + k * HOUR], open: [c], high: [c], low: [c], close: [c], volume: [1] } };
            }),
          },
        ];
        await Promise.all([a.store.upsertBars(batch(SYMBOLS.slice(0, 2))), b.store.upsertBars(batch(SYMBOLS.slice(2)))]);
        // Every fourth bar, the rounds catch up before the next write: writes land both during and between rounds.
        if (k % 4 === 0) {
          const written = START + k * HOUR;
          await until(async () => (await Promise.all(alerts.map((x) => a.store.alerts.findAlert(x.accountId, x.id)))).every((r) => (r?.lastTime ?? 0) >= written), 60_000);
        }
      }
      const last = START + 24 * HOUR;
      await until(async () => (await Promise.all(alerts.map((x) => a.store.alerts.findAlert(x.accountId, x.id)))).every((r) => r?.lastTime === last), 60_000);
      const outbox = [
        ...(await a.store.alerts.deliveriesAfter([one.accountId], 0, 0, 10_000)),
        ...(await a.store.alerts.deliveriesAfter([two.accountId], 0, 0, 10_000)),
      ];
      const bodies = outbox.map((d) => JSON.parse(d.body) as DeliveryBody);
      const pairs = bodies.map((d) => `${d.alert.id}@${d.time}`);
      expect(new Set(pairs).size).toBe(pairs.length);
      expect(pairs.length).toBeGreaterThan(20);
      // Every alert evaluated every bar once: its claims are the 20 bars written.
      const claims = await a.store.pool.query<{ alert_id: string; n: number }>("SELECT alert_id, count(*)::int AS n FROM alert_evaluations GROUP BY alert_id");
      expect(claims.rows.map((r) => r.n)).toEqual(alerts.map(() => 20));

      await receiver.until(() => new Set(receiver.received.map((r) => r.delivery)).size === outbox.length, 30_000);
      posts = outbox.length;
      expect(new Set(receiver.received.map((r) => r.delivery))).toEqual(new Set(outbox.map((d) => d.id)));
      // Bar order per alert at the receiver.
      for (const { id } of alerts) {
        const times = receiver.received.map((r) => JSON.parse(r.body) as DeliveryBody).filter((d) => d.alert.id === id).map((d) => d.time);
        expect(times).toEqual([...times].sort((x, y) => x - y));
      }
      // Each stream got its account's deliveries once, in commit order, across replicas.
      const mine = (accountId: string) => outbox.filter((d) => d.accountId === accountId).sort((x, y) => x.seq - y.seq).map((d) => d.id);
      await until(async () => streamOne.events.length === mine(one.accountId).length && streamTwo.events.length === mine(two.accountId).length, 20_000);
      expect(streamOne.events.map((e) => e.id)).toEqual(mine(one.accountId));
      expect(streamTwo.events.map((e) => e.id)).toEqual(mine(two.accountId));
    } finally {
      streamOne.close();
      streamTwo.close();
    }
    // A replica's stop waits for every attempt it began: once both are stopped, a second POST of any delivery would have arrived.
    await a.stop();
    await b.stop();
    expect(receiver.received.length).toBe(posts);
  }, 120_000);
});
