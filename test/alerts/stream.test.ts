/**
 * The stream (decisions §7, `GET /xql/alerts/stream`) over real HTTP: the account's deliveries
 * as Server-Sent Events (`id:` the delivery id, `event: alert`, `data:` the webhook body, the
 * same text the webhook gets), alerts without a webhook included, other accounts' never,
 * heartbeat comments, `Last-Event-ID` resuming within 24 h, and a server that closes with
 * streams open; and its bounds (decisions §14): open streams per tier, one read and one
 * serialisation per delivery, an unknown `Last-Event-ID` from now, at most 1,000 replayed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_QUEUED, StreamHub } from "../../src/alerts/stream.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { TestClock } from "../kit/index.js";
import { type DeliveryBody, FEED_START, HOUR, type FeedServer, Receiver, openStream, startFeedServer, until, type SseStream } from "./helpers.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A feed server whose clock moves only when the test moves it (the 24 h resume window is crossed by hand). */
async function feed(options: Parameters<typeof startFeedServer>[0] = {}): Promise<FeedServer> {
  const f = await startFeedServer({ clock: new TestClock(FEED_START + 1000 * HOUR), ...options });
  cleanup.push(() => f.server.stop());
  return f;
}

async function stream(f: FeedServer, key: string, lastEventId?: string): Promise<SseStream> {
  const s = await openStream(f.server.url, key, lastEventId);
  cleanup.push(() => s.close());
  return s;
}

async function alert(f: FeedServer, key: string, body: Record<string, unknown>): Promise<string> {
  const response = await f.server.post("/xql/alerts", JSON.stringify({ query: QUERY, ...body }), key, { "content-type": "application/json" });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe("GET /xql/alerts/stream", () => {
  it("sends each delivery as an event: the delivery id, event alert, and the webhook body as sent", async () => {
    const f = await feed();
    const receiver = await new Receiver().start();
    cleanup.push(() => receiver.stop());
    const { key } = await f.server.key("plus");
    const id = await alert(f, key, { webhook: receiver.url, name: "hooked" });
    const s = await stream(f, key);
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(s.headers.get("cache-control")).toContain("no-cache");
    await f.push(1, { AAA: 150 });
    await f.push(2, { AAA: 60, BBB: 200 });
    await until(() => s.events.length === 2 && receiver.received.length === 2);
    expect(s.events.map((e) => e.event)).toEqual(["alert", "alert"]);
    expect(s.events.map((e) => e.data)).toEqual(receiver.received.map((r) => r.body));
    expect(s.events.map((e) => e.id)).toEqual(receiver.received.map((r) => r.delivery));
    const bodies = s.events.map((e) => JSON.parse(e.data) as DeliveryBody);
    expect(bodies.map((b) => [b.alert.id, b.time, b.events.map((x) => `${x.kind} ${x.symbol}`)])).toEqual([
      [id, FEED_START + 10 * HOUR, ["enter AAA"]],
      [id, FEED_START + 11 * HOUR, ["exit AAA", "enter BBB"]],
    ]);
  });

  it("carries alerts without a webhook, and never another account's deliveries", async () => {
    const f = await feed();
    const mine = await f.server.key("plus");
    const theirs = await f.server.key("plus");
    const id = await alert(f, mine.key, {});
    await alert(f, theirs.key, { query: 'market = "CRYPTO"\ntimeframe = h1\nclose > 120' });
    const s = await stream(f, mine.key);
    const other = await stream(f, theirs.key);
    await f.push(1, { CCC: 101 });
    await f.push(2, { CCC: 130 });
    await until(() => s.events.length === 1 && other.events.length === 1);
    expect((JSON.parse(s.events[0]!.data) as DeliveryBody).alert.id).toBe(id);
    expect((JSON.parse(other.events[0]!.data) as DeliveryBody).alert.id).not.toBe(id);
    const detail = (await (await f.server.get(`/xql/alerts/${id}`, mine.key)).json()) as { deliveries: { status: string; attempts: number }[] };
    expect(detail.deliveries).toMatchObject([{ status: "stream", attempts: 0 }]);
  });

  it("keeps an idle stream open with heartbeat comments", async () => {
    const f = await feed({ alertTiming: { heartbeatMs: 100, settleMs: 10, pollMs: 100 } });
    const { key } = await f.server.key("free");
    const s = await stream(f, key);
    await until(() => s.comments.filter((c) => c === "heartbeat").length >= 3);
    expect(s.events).toEqual([]);
  });

  it("resumes after Last-Event-ID within 24 h; without it, starts with the next delivery", async () => {
    const f = await feed();
    const { key } = await f.server.key("plus");
    await alert(f, key, {});
    const first = await stream(f, key);
    await f.push(1, { AAA: 150 });
    await f.push(2, { BBB: 150 });
    await until(() => first.events.length === 2);
    first.close();
    await f.push(3, { AAA: 10 });
    await f.push(4, { CCC: 300 });
    const resumed = await stream(f, key, first.events[1]!.id);
    await until(() => resumed.events.length === 2);
    const late = await stream(f, key);
    expect(resumed.events.map((e) => (JSON.parse(e.data) as DeliveryBody).time)).toEqual([FEED_START + 12 * HOUR, FEED_START + 13 * HOUR]);
    await f.push(5, { AAA: 500 });
    await until(() => late.events.length === 1 && resumed.events.length === 3);
    expect((JSON.parse(late.events[0]!.data) as DeliveryBody).time).toBe(FEED_START + 14 * HOUR);
    late.close();
    resumed.close();
    // A day later, deliveries older than 24 h are no longer replayed: the next one is the first event.
    f.clock.advance(25 * HOUR);
    const tooLate = await stream(f, key, first.events[0]!.id);
    // The stream's opening comment: by then it has joined its account's feed.
    await until(() => tooLate.comments.includes("xql alerts stream"));
    await f.push(6, { AAA: 10 });
    await until(() => tooLate.events.length >= 1);
    expect(tooLate.events.map((e) => (JSON.parse(e.data) as DeliveryBody).time)).toEqual([FEED_START + 15 * HOUR]);
  });

  it("starts from now, saying so, when Last-Event-ID is not one of the account's deliveries (unknown, or another account's)", async () => {
    const f = await feed();
    const mine = await f.server.key("plus");
    const theirs = await f.server.key("plus");
    await alert(f, mine.key, {});
    await alert(f, theirs.key, {});
    const watching = await stream(f, mine.key);
    const other = await stream(f, theirs.key);
    await f.push(1, { AAA: 150 });
    await f.push(2, { BBB: 150 });
    await until(() => watching.events.length === 2 && other.events.length === 2);
    const bogus = await stream(f, mine.key, "bogus");
    const foreign = await stream(f, mine.key, other.events[0]!.id);
    await until(() => bogus.comments.some((c) => c.startsWith("Last-Event-ID")) && foreign.comments.some((c) => c.startsWith("Last-Event-ID")));
    expect(bogus.comments).toContain("Last-Event-ID is not one of this account's deliveries: the stream starts from now");
    await f.push(3, { CCC: 150 });
    await until(() => watching.events.length === 3 && bogus.events.length >= 1 && foreign.events.length >= 1);
    // Nothing of the day replayed: the first event of each is the delivery made after it opened.
    expect(bogus.events.map((e) => e.id)).toEqual([watching.events[2]!.id]);
    expect(foreign.events.map((e) => e.id)).toEqual([watching.events[2]!.id]);
  });

  it("replays at most 1,000 deliveries on one resume, then says how many were skipped, and goes on live", async () => {
    const f = await feed();
    const { key, accountId } = await f.server.key("plus");
    const id = await alert(f, key, {});
    // 1,205 deliveries of the last hours, committed as an evaluation commits them.
    const base = FEED_START + 9 * HOUR;
    const bars = Array.from({ length: 1_205 }, (_, i) => ({ time: base + (i + 1) * 60_000, matching: [], delivery: { id: `dlv_replay${String(i).padStart(16, "0")}`, body: JSON.stringify({ n: i }), events: 1 } }));
    const now = f.clock.now();
    expect(await f.server.store.alerts.commitEvaluations([{ alertId: id, previous: base, bars }], now)).toEqual(new Set([id]));
    const resumed = await stream(f, key, bars[0]!.delivery.id);
    await until(() => resumed.comments.some((c) => c.includes("skipped")));
    expect(resumed.events.length).toBe(1_000);
    expect(resumed.events.map((e) => e.id)).toEqual(bars.slice(1, 1_001).map((b) => b.delivery.id));
    expect(resumed.comments).toContain("204 deliveries skipped: a resume replays at most 1000; the stream goes on from now");
    // Then the next delivery, whoever committed it, arrives live.
    const next = { time: base + 1_206 * 60_000, matching: [], delivery: { id: "dlv_replay_live_00000001", body: "{}", events: 1 } };
    await f.server.store.alerts.commitEvaluations([{ alertId: id, previous: bars[bars.length - 1]!.time, bars: [next] }], f.clock.now());
    await until(() => resumed.events.length === 1_001);
    expect(resumed.events[1_000]!.id).toBe(next.delivery.id);
    expect((await f.server.store.alerts.deliveriesAfter([accountId], 0, 0, 10_000)).length).toBe(1_206);
  });

  it("holds at most free 2, essential 5, plus 10 open streams per account: one more is a 429; a closed one frees its place", async () => {
    const f = await feed();
    for (const [tier, limit] of [["free", 2], ["essential", 5], ["plus", 10]] as const) {
      const { key } = await f.server.key(tier);
      const open = await Promise.all(Array.from({ length: limit + 2 }, () => stream(f, key)));
      expect(open.map((s) => s.status).sort()).toEqual([...new Array<number>(limit).fill(200), 429, 429]);
      const refused = await fetch(`${f.server.url}/xql/alerts/stream`, { headers: { authorization: `Bearer ${key}` } });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: "Too many open streams for this account" });
      // Another key of another account is not held back.
      const other = await stream(f, (await f.server.key(tier)).key);
      expect(other.status).toBe(200);
      other.close();
      open.find((s) => s.status === 200)!.close();
      // The server notices the close when the connection ends: then the place is free again.
      await until(async () => {
        const again = await stream(f, key);
        if (again.status !== 200) return false;
        again.close();
        return true;
      });
      for (const s of open) s.close();
    }
  });

  it("holds no place among the account's requests in flight: more streams than the admission's slots, and requests still answer", async () => {
    const f = await feed({ maxRunsInFlight: 2, maxRunsQueued: 0 });
    const { key } = await f.server.key("plus");
    const streams = await Promise.all(Array.from({ length: 4 }, () => stream(f, key)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    expect((await f.server.get("/xql/alerts", key)).status).toBe(200);
  });

  it("reads and serialises each delivery once for all the account's streams", async () => {
    const f = await feed();
    const { key } = await f.server.key("plus");
    await alert(f, key, {});
    const store = f.server.store.alerts;
    const read = store.deliveriesAfter.bind(store);
    let rowsRead = 0;
    store.deliveriesAfter = async (...args) => {
      const rows = await read(...args);
      rowsRead += rows.length;
      return rows;
    };
    const streams = await Promise.all(Array.from({ length: 10 }, () => stream(f, key)));
    await f.push(1, { AAA: 150 });
    await f.push(2, { BBB: 150 });
    await f.push(3, { CCC: 150 });
    await until(() => streams.every((s) => s.events.length === 3));
    // Three deliveries read once each, not once per stream (ten times).
    expect(rowsRead).toBe(3);
    for (const s of streams) expect(s.events).toEqual(streams[0]!.events);
  });

  it("ends open streams when the server closes", async () => {
    const f = await startFeedServer();
    const { key } = await f.server.key("free");
    const s = await openStream(f.server.url, key);
    await until(() => s.comments.length >= 1);
    await f.server.stop();
    await until(() => s.ended);
  });
});

describe("StreamHub", () => {
  it("holds at most 1,000 events for a reader that does not read, then catches up from the store as a resume does", async () => {
    const store = new SqliteStore(":memory:");
    cleanup.push(() => store.close());
    const alerts = store.alerts;
    await alerts.createAlert({ id: "alrt_slow", accountId: "acct_slow", name: "slow", query: "q", webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: 0, matching: [] }, 1);
    // Rows the store hands out: the feed has handed out what it read.
    let rowsRead = 0;
    const read = alerts.deliveriesAfter.bind(alerts);
    alerts.deliveriesAfter = async (...args) => {
      const rows = await read(...args);
      rowsRead += rows.length;
      return rows;
    };
    const hub = new StreamHub({ store: alerts, clock: { now: () => 10 * HOUR }, pollMs: 3_600_000 });
    cleanup.push(() => hub.close());
    // The reader takes the first event, then nothing until the gate opens.
    const got: string[] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let firstTaken: () => void = () => undefined;
    const taken = new Promise<void>((resolve) => (firstTaken = resolve));
    const sink = async (chunk: string | Uint8Array) => {
      got.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      if (got.length === 1) {
        firstTaken();
        await gate;
      }
    };
    const ended = new AbortController();
    const serving = hub.serve(hub.reserve("acct_slow", 1)!, undefined, sink, ended.signal);
    const commit = (from: number, count: number, previous: number) =>
      alerts.commitEvaluations(
        [{ alertId: "alrt_slow", previous, bars: Array.from({ length: count }, (_, i) => ({ time: from + i, matching: [], delivery: { id: `dlv_slow${String(from + i).padStart(16, "0")}`, body: `{"n":${from + i}}`, events: 1 } })) }],
        HOUR,
      );
    await commit(1, 1, 0);
    hub.notify();
    await taken;
    // While the reader holds the first, 1,500 more are committed and handed out: more than it may hold.
    await commit(2, 1_500, 1);
    hub.notify();
    await until(() => rowsRead === 1_501);
    expect(got).toHaveLength(1);
    open();
    await until(() => got.some((g) => g.startsWith(": ")));
    ended.abort();
    await serving;
    const ids = got.filter((g) => g.startsWith("id: ")).map((g) => /"n":(\d+)/.exec(g)![1]);
    // The first, then 1,000 read again from the store in order, then the comment with the rest.
    expect(MAX_QUEUED).toBe(1_000);
    expect(ids).toEqual(["1", ...Array.from({ length: 1_000 }, (_, i) => String(i + 2))]);
    expect(got.at(-1)).toBe(": 500 deliveries skipped: a resume replays at most 1000; the stream goes on from now\n\n");
  });
});
