/**
 * The stream (decisions §7, `GET /xql/alerts/stream`) over real HTTP: the account's deliveries
 * as Server-Sent Events (`id:` the delivery id, `event: alert`, `data:` the webhook body, the
 * same text the webhook gets), alerts without a webhook included, other accounts' never,
 * heartbeat comments, `Last-Event-ID` resuming within 24 h, and a server that closes with
 * streams open.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type DeliveryBody, FEED_START, HOUR, type FeedServer, Receiver, openStream, startFeedServer, until, type SseStream } from "./helpers.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function feed(options: Parameters<typeof startFeedServer>[0] = {}): Promise<FeedServer> {
  const f = await startFeedServer(options);
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

  it("resumes after Last-Event-ID; without it, starts with the next delivery; an unknown id replays the last 24 h", async () => {
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
    const replayed = await stream(f, key, "dlv_unknown");
    await until(() => replayed.events.length === 4);
    expect(resumed.events.map((e) => (JSON.parse(e.data) as DeliveryBody).time)).toEqual([FEED_START + 12 * HOUR, FEED_START + 13 * HOUR]);
    expect(replayed.events.map((e) => e.id)).toEqual([...first.events, ...resumed.events].map((e) => e.id));
    await f.push(5, { AAA: 500 });
    await until(() => late.events.length === 1 && resumed.events.length === 3);
    expect((JSON.parse(late.events[0]!.data) as DeliveryBody).time).toBe(FEED_START + 14 * HOUR);
    // A day later, deliveries older than 24 h are no longer replayed.
    f.clock.advance(25 * HOUR);
    const tooLate = await stream(f, key, "dlv_unknown");
    await new Promise((r) => setTimeout(r, 300));
    expect(tooLate.events).toEqual([]);
  });

  it("holds no place among the account's requests in flight: more streams than the admission's slots, and requests still answer", async () => {
    const f = await feed({ maxRunsInFlight: 2, maxRunsQueued: 0 });
    const { key } = await f.server.key("free");
    const streams = await Promise.all(Array.from({ length: 4 }, () => stream(f, key)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    expect((await f.server.get("/xql/alerts", key)).status).toBe(200);
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
