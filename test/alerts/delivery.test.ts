/**
 * Webhook delivery (decisions §7) through a real server on loopback, a real SQLite file and a
 * real receiver that fails, resets connections, never answers, redirects and answers slowly:
 * at least once, the same delivery id and body on every retry, bar order per alert, valid
 * signatures, backoff 1 s doubling, failed after 24 h, nothing posted when nothing changed.
 * The server's clock runs in real time and the tests move it on to make retries due; where a
 * test must know that nothing more is sent, its clock moves only when the test moves it. An
 * attempt times out when the test fires its timeout (once the receiver shows it will not answer
 * in time), and a slow answer goes when the test lets it: no receiver races a timer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { backoffAfter } from "../../src/alerts/deliver.js";
import type { Running } from "../server/helpers.js";
import { type MovableClock, Signal, TestClock } from "../kit/index.js";
import { type Answer, type DeliveryBody, FEED_START, type FeedServer, FiredTimeouts, HOUR, type Received, Receiver, signedBy, startFeedServer, until } from "./helpers.js";

const START = FEED_START;
const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';

interface Setup {
  feed: FeedServer;
  server: Running;
  clock: MovableClock;
  key: string;
  receiver: Receiver;
  /** The attempts' timeouts: fired by the test. */
  timeouts: FiredTimeouts;
  alert: { id: string; secret: string };
  /** Writes bar `step` (see {@link FeedServer.push}) and waits until the alert evaluated it. */
  push(step: number, closes: Record<string, number>): Promise<void>;
  detail(): Promise<{ asOf: string; deliveries: { id: string; status: string; attempts: number; lastError: string | null; nextAttemptAt: string | null; createdAt: string }[] }>;
}

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

/** The feed server with one alert on `close > 100` posting to a receiver that answers as told. */
async function setup(answer: (n: number, delivery: string) => Answer, movedByHand?: MovableClock): Promise<Setup> {
  const timeouts = new FiredTimeouts();
  const feed = await startFeedServer({ clock: movedByHand, alertTiming: { settleMs: 10, pollMs: 100, deliveryTimeoutMs: 400, deliveryTimeout: timeouts.sleep } });
  const { server, clock } = feed;
  running.push(server);
  const receiver = await new Receiver(answer, clock).start();
  running.push(receiver);
  const { key } = await server.key("plus");
  const created = await server.post("/xql/alerts", JSON.stringify({ query: QUERY, webhook: receiver.url, name: "over 100" }), key, { "content-type": "application/json" });
  expect(created.status).toBe(201);
  const alert = (await created.json()) as { id: string; secret: string; matching: string[] };
  expect(alert.matching).toEqual([]);
  const detail = async () => (await (await server.get(`/xql/alerts/${alert.id}`, key)).json()) as Awaited<ReturnType<Setup["detail"]>>;
  return {
    feed,
    server,
    clock,
    key,
    receiver,
    timeouts,
    alert,
    detail,
    async push(step, closes) {
      const time = await feed.push(step, closes);
      await until(async () => (await detail()).asOf === new Date(time).toISOString());
    },
  };
}

/**
 * Settles an attempt the receiver holds: one it will not answer in time (`timeout`, `late`)
 * times out now; a `slow` answer goes now. Either way the attempt was still waiting for its
 * answer, its timeout not yet run out.
 */
function settleHeld(s: Setup, received: Received): void {
  if (received.answer !== "timeout" && received.answer !== "late" && received.answer !== "slow") return;
  expect(s.timeouts.waiting, `${received.answer}: the attempt waits for its answer`).toBe(1);
  if (received.answer === "slow") s.receiver.slow.pass(1);
  else s.timeouts.fire();
}

/**
 * Moves the clock on by `step` after each attempt the receiver gets, once the server has
 * recorded it (so the retry becomes due at once), until `test` holds. Every attempt is
 * recorded before the clock moves (a timeout too: the test fires it), so each retry is due
 * after the move and the next attempt always comes.
 */
async function driveClock(s: Setup, step: number, test: () => Promise<boolean> | boolean): Promise<void> {
  let seen = s.receiver.received.length;
  const attemptsRecorded = async (): Promise<number> => (await s.detail()).deliveries.reduce((sum, d) => sum + d.attempts, 0);
  while (!(await test())) {
    await s.receiver.until(() => s.receiver.received.length > seen);
    for (const received of s.receiver.received.slice(seen)) settleHeld(s, received);
    seen = s.receiver.received.length;
    // The attempt just received is settled before the clock moves, so its backoff counts from the old time.
    const received = seen;
    await until(async () => (await attemptsRecorded()) >= received, { what: "the attempts received being recorded" });
    s.clock.advance(step);
  }
}

describe("webhook deliveries", () => {
  it("reach a receiver that fails, resets, times out, redirects and answers slowly: same id and body on every retry, bar order, signed", async () => {
    const attempts = new Map<string, number>();
    const target = await new Receiver().start("/elsewhere");
    running.push(target);
    const script: Answer[] = ["fail", "reset", "timeout", { redirect: target.url }, "slow"];
    const s = await setup((_n, delivery) => {
      const k = (attempts.get(delivery) ?? 0) + 1;
      attempts.set(delivery, k);
      return script[Math.min(k, script.length) - 1]!;
    });
    await s.push(1, { AAA: 150 });
    await s.push(2, { BBB: 150 });
    await s.push(3, { AAA: 40, BBB: 160 });
    await driveClock(s, HOUR, () => s.receiver.delivered.length === 3);

    const ids = [...new Set(s.receiver.received.map((r) => r.delivery))];
    expect(ids).toHaveLength(3);
    const bodies = ids.map((id) => JSON.parse(s.receiver.received.find((r) => r.delivery === id)!.body) as DeliveryBody);
    expect(bodies.map((b) => b.time)).toEqual([START + 10 * HOUR, START + 11 * HOUR, START + 12 * HOUR]);
    expect(bodies.map((b) => b.events)).toEqual([
      [{ symbol: "AAA", kind: "enter", columns: { close: 150 } }],
      [{ symbol: "BBB", kind: "enter", columns: { close: 150 } }],
      // An exit carries the columns at its bar (decisions §7): AAA stopped matching at 40.
      [{ symbol: "AAA", kind: "exit", columns: { close: 40 } }],
    ]);
    for (const [i, id] of ids.entries()) {
      const tries = s.receiver.received.filter((r) => r.delivery === id);
      expect(tries.map((r) => r.answer)).toEqual(script);
      // The same body every time, whatever the timestamp; each attempt signed afresh.
      expect(new Set(tries.map((r) => r.body)).size).toBe(1);
      for (const r of tries) expect(signedBy(r, s.alert.secret)).toBe(true);
      expect(bodies[i]!.delivery).toBe(id);
      expect(Object.keys(bodies[i]!)).toEqual(["alert", "timeframe", "time", "events", "delivery"]);
      expect(bodies[i]!.alert).toEqual({ id: s.alert.id, name: "over 100" });
    }
    // Bar order: every attempt of a bar's delivery comes before the first of the next bar's.
    const order = s.receiver.received.map((r) => ids.indexOf(r.delivery));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // A redirect is not followed.
    expect(target.received).toEqual([]);
    // The last answer is slow: its outcome is recorded once it has come.
    await until(async () => (await s.detail()).deliveries.every((d) => d.status === "delivered"));
    const detail = await s.detail();
    expect(detail.deliveries.map((d) => [d.id, d.status, d.attempts])).toEqual([
      [ids[2], "delivered", 5],
      [ids[1], "delivered", 5],
      [ids[0], "delivered", 5],
    ]);
  }, 90_000);

  it("signs with HMAC-SHA256 of timestamp.body under the alert's secret, and sends the delivery id and timestamp", async () => {
    const s = await setup(() => "ok");
    await s.push(1, { CCC: 101 });
    await s.receiver.until(() => s.receiver.received.length === 1);
    const [r] = s.receiver.received;
    expect(signedBy(r!, s.alert.secret)).toBe(true);
    expect(signedBy(r!, "whsec_wrong")).toBe(false);
    expect(r!.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(Math.abs(Number(r!.timestamp) - s.clock.now() / 1000)).toBeLessThan(60);
    expect(r!.delivery).toBe((JSON.parse(r!.body) as DeliveryBody).delivery);
    expect(r!.delivery).toMatch(/^dlv_[0-9A-Za-z]{20}$/);
  });

  it("waits 1 s after the first failure, 2 s after the second, doubling up to 1 h apart", async () => {
    expect([1, 2, 3, 4, 12, 13, 40].map(backoffAfter)).toEqual([1_000, 2_000, 4_000, 8_000, 2_048_000, 3_600_000, 3_600_000]);
    // The clock moves only when the test moves it: the backoff passes when the test says.
    const s = await setup(() => "fail", new TestClock(START + 1000 * HOUR));
    // Each look of the worker at the outbox (the real store's claim), numbered, and what it claimed.
    const alerts = s.server.store.alerts;
    const claim = alerts.claimDeliveries.bind(alerts);
    const looked = new Signal();
    const claimed: number[] = [];
    let looksBegun = 0;
    alerts.claimDeliveries = async (...args) => {
      const look = looksBegun++;
      const due = await claim(...args);
      claimed[look] = due.length;
      looked.notify();
      return due;
    };
    await s.push(1, { AAA: 150 });
    const next: number[] = [];
    for (const attempt of [1, 2]) {
      await until(async () => (await s.detail()).deliveries[0]?.attempts === attempt);
      const d = (await s.detail()).deliveries[0]!;
      expect(d).toMatchObject({ status: "pending", lastError: "HTTP 500" });
      // Due the backoff after the attempt (recorded a moment after the receiver saw it).
      const wait = Date.parse(d.nextAttemptAt!) - s.receiver.received[attempt - 1]!.at;
      expect(wait).toBeGreaterThanOrEqual(backoffAfter(attempt));
      expect(wait).toBeLessThan(backoffAfter(attempt) + 1_000);
      next.push(Date.parse(d.nextAttemptAt!));
      if (attempt === 2) break;
      // A millisecond before it is due, the worker looks at the outbox (a look begun after the
      // attempt was recorded) and sends nothing; at its due time it sends it.
      s.clock.advance(next[0]! - 1 - s.clock.now());
      const mark = looksBegun;
      await until(() => claimed[mark] !== undefined, { signal: looked, what: "the worker looking at the outbox after the first attempt" });
      expect(claimed[mark]).toBe(0);
      s.clock.advance(1);
    }
    // The second attempt waited for its due time.
    expect(s.receiver.received[1]!.at).toBeGreaterThanOrEqual(next[0]!);
  });

  it("marks a delivery failed after 24 h of failures, then sends the alert's next one", async () => {
    let first: string | undefined;
    const s = await setup((_n, delivery) => {
      first ??= delivery;
      return delivery === first ? "fail" : "ok";
    });
    await s.push(1, { AAA: 150 });
    await s.push(2, { AAA: 50 });
    await driveClock(s, HOUR, () => s.receiver.delivered.length === 1);
    const detail = await s.detail();
    expect(detail.deliveries.map((d) => d.status)).toEqual(["delivered", "failed"]);
    const failed = detail.deliveries[1]!;
    expect(failed.lastError).toBe("HTTP 500");
    // Tried for 24 h (hourly once the backoff reached its cap here), never after.
    const tries = s.receiver.received.filter((r) => r.delivery === first);
    expect(tries.length).toBeGreaterThanOrEqual(20);
    expect(tries.length).toBeLessThanOrEqual(30);
    const lastTry = s.receiver.received.lastIndexOf(tries[tries.length - 1]!);
    expect(s.receiver.received.findIndex((r) => r.delivery !== first)).toBe(lastTry + 1);
  }, 90_000);

  it("posts nothing for a bar that changed nothing, and nothing more once the alert is deleted", async () => {
    // A clock that moves only when the test moves it: the failed attempt's retry is not due until then.
    const s = await setup(() => "fail", new TestClock(START + 1000 * HOUR));
    await s.push(1, { AAA: 60, BBB: 70 });
    expect((await s.detail()).deliveries).toEqual([]);
    await s.push(2, { AAA: 150 });
    await until(async () => (await s.detail()).deliveries[0]?.attempts === 1, { what: "the first attempt recorded" });
    const gone = await fetch(`${s.server.url}/xql/alerts/${s.alert.id}`, { method: "DELETE", headers: { authorization: `Bearer ${s.key}` } });
    expect(gone.status).toBe(204);
    expect(s.receiver.received).toHaveLength(1);
    // Past every retry the deleted alert's delivery had; then a witness alert's delivery goes out.
    s.clock.advance(2 * HOUR);
    const witness = await new Receiver().start();
    running.push(witness);
    const created = await s.server.post("/xql/alerts", JSON.stringify({ query: QUERY, webhook: witness.url }), s.key, { "content-type": "application/json" });
    expect(created.status).toBe(201);
    // The deleted alert has no detail to wait on: the witness's delivery is what is awaited.
    await s.feed.push(3, { BBB: 150 });
    await witness.until(() => witness.received.length === 1);
    // The worker claims due deliveries oldest first, and its stop waits for every attempt it began:
    // a retry of the deleted alert's delivery, due before the witness's, would have reached the receiver.
    running.splice(running.indexOf(s.server), 1);
    await s.server.stop();
    expect(s.receiver.received).toHaveLength(1);
  });

  it("counts a 200 that comes after the timeout as a failure, and backs off before the next attempt", async () => {
    const s = await setup((n) => (n === 1 ? "late" : "ok"));
    await s.push(1, { AAA: 150 });
    await s.receiver.until(() => s.receiver.received.length === 1);
    // The receiver answers only once the sender gives up: its timeout runs out now.
    settleHeld(s, s.receiver.received[0]!);
    await until(async () => (await s.detail()).deliveries[0]?.attempts === 1);
    const first = (await s.detail()).deliveries[0]!;
    expect(first).toMatchObject({ status: "pending", lastError: "timeout: no answer within 0.4 s" });
    expect(Date.parse(first.nextAttemptAt!) - s.receiver.received[0]!.at).toBeGreaterThanOrEqual(backoffAfter(1));
    // The backoff passes by the clock, not by waiting for it.
    s.clock.advance(backoffAfter(1));
    await until(async () => (await s.detail()).deliveries[0]?.status === "delivered");
    expect((await s.detail()).deliveries[0]!.attempts).toBe(2);
    expect(s.receiver.received[1]!.at).toBeGreaterThanOrEqual(Date.parse(first.nextAttemptAt!));
  });
});

describe("delivery slots shared by account", () => {
  it("a victim's delivery goes out while another account's hanging receivers still hold theirs", async () => {
    // Attempts hang for up to a minute: longer than the test, so every hanging one is still held at its end.
    const feed = await startFeedServer({ alertTiming: { settleMs: 10, pollMs: 100, deliveryTimeoutMs: 60_000 } });
    running.push(feed.server);
    const hanging = await new Receiver(() => "timeout").start();
    const victim = await new Receiver(() => "ok").start();
    running.push(victim);
    const hog = await feed.server.key("plus");
    const hogAlerts: string[] = [];
    // More alerts than the worker has slots (16), all created first: their deliveries come first in the outbox.
    for (let i = 0; i < 20; i++) {
      const created = await feed.server.post("/xql/alerts", JSON.stringify({ query: QUERY, webhook: hanging.url }), hog.key, { "content-type": "application/json" });
      expect(created.status).toBe(201);
      hogAlerts.push(((await created.json()) as { id: string }).id);
    }
    const { key } = await feed.server.key("free");
    const created = await feed.server.post("/xql/alerts", JSON.stringify({ query: QUERY, webhook: victim.url }), key, { "content-type": "application/json" });
    const victimAlert = ((await created.json()) as { id: string }).id;
    try {
      await feed.push(1, { AAA: 150 });
      await victim.until(() => victim.received.length === 1);
      await hanging.until(() => hanging.received.length >= 4);
      // Not one of the hog's attempts has ended: the victim did not wait for a timeout.
      const attempts = async () =>
        Promise.all(hogAlerts.map(async (id) => ((await (await feed.server.get(`/xql/alerts/${id}`, hog.key)).json()) as { deliveries: { attempts: number }[] }).deliveries[0]!.attempts));
      expect(await attempts()).toEqual(hogAlerts.map(() => 0));
      // Alone, the hog fills its share and leaves a share free: the victim's next delivery goes at once too.
      await hanging.until(() => hanging.received.length === 12);
      await feed.push(2, { AAA: 50 });
      await victim.until(() => victim.received.length === 2);
      expect((JSON.parse(victim.received[1]!.body) as DeliveryBody).events.map((e) => `${e.kind} ${e.symbol}`)).toEqual(["exit AAA"]);
      expect(hanging.received.length).toBe(12);
      expect(await attempts()).toEqual(hogAlerts.map(() => 0));
      await until(async () => ((await (await feed.server.get(`/xql/alerts/${victimAlert}`, key)).json()) as { deliveries: { status: string }[] }).deliveries.every((d) => d.status === "delivered"));
    } finally {
      // The hanging requests end with the receiver, so the server's stop does not wait a minute for them.
      await hanging.stop();
    }
  });
});
