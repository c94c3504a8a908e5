/**
 * The per-account admission and the fair turns (decisions §2 "Fair use"), on their own and
 * through the authenticator on a real Fastify server on loopback: slots per account, the queue
 * bound, round-robin by account, a waiting client that leaves, and long-lived routes.
 */
import { afterEach, describe, expect, it } from "vitest";
import Fastify, { type FastifyInstance } from "fastify";
import { Admission, FairTurns } from "../../src/server/admission.js";
import { createAuthenticator } from "../../src/server/auth.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { issueApiKey } from "../../src/accounts/keys.js";

describe("FairTurns", () => {
  it("serves accounts round-robin, one turn per loop iteration, whatever order the turns were asked in", async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    const asked = [
      ...Array.from({ length: 4 }, (_, i) => ["heavy", i] as const),
      ["other", 0] as const,
      ["third", 0] as const,
      ["third", 1] as const,
    ];
    await Promise.all(asked.map(([account, i]) => turns.turn(account).then(() => order.push(`${account}${i}`))));
    // First come would be heavy0..heavy3 first: round-robin puts the others between them.
    expect(order).toEqual(["heavy0", "other0", "third0", "heavy1", "third1", "heavy2", "heavy3"]);
    expect(turns.pending).toBe(0);
  });

  it("gives each turn its own iteration of the event loop, never two in one task", async () => {
    const turns = new FairTurns();
    const events: string[] = [];
    await Promise.all([
      turns.turn("a").then(() => {
        events.push("turn 1");
        // Work queued by turn 1 finishes before turn 2 starts: turn 2 is a later task.
        queueMicrotask(() => events.push("after turn 1"));
      }),
      turns.turn("a").then(() => events.push("turn 2")),
    ]);
    expect(events).toEqual(["turn 1", "after turn 1", "turn 2"]);
  });
});

describe("Admission", () => {
  it("admits `limit` requests of an account, queues `queueLimit`, refuses the rest, and leaves other accounts alone", async () => {
    const admission = new Admission(2, 1);
    expect(await admission.enter("a")).toBe("admitted");
    expect(await admission.enter("a")).toBe("admitted");
    const queued = admission.enter("a");
    expect(admission.queued("a")).toBe(1);
    expect(await admission.enter("a")).toBe("refused");
    expect(await admission.enter("b")).toBe("admitted");
    admission.leave("a");
    expect(await queued).toBe("admitted");
    // The slot passed to the waiter: still two of a's in work.
    expect(admission.inWork("a")).toBe(2);
    admission.leave("a");
    admission.leave("a");
    expect(admission.inWork("a")).toBe(0);
  });

  it("takes a waiting request out of the queue when its client leaves, and passes a slot on past it", async () => {
    const admission = new Admission(1, 2);
    expect(await admission.enter("a")).toBe("admitted");
    let cancelFirst: () => void = () => undefined;
    const first = admission.enter("a", (cancel) => (cancelFirst = cancel));
    const second = admission.enter("a");
    cancelFirst();
    expect(await first).toBe("refused");
    expect(admission.queued("a")).toBe(1);
    admission.leave("a");
    expect(await second).toBe("admitted");
    expect(admission.inWork("a")).toBe(1);
  });

  it("passes the slot on when the waiter it was handed to leaves before its turn", async () => {
    const admission = new Admission(1, 2);
    await admission.enter("a");
    let cancelFirst: () => void = () => undefined;
    const first = admission.enter("a", (cancel) => (cancelFirst = cancel));
    const second = admission.enter("a");
    admission.leave("a"); // handed to `first`, which starts at its next turn
    cancelFirst();
    expect(await first).toBe("refused");
    expect(await second).toBe("admitted");
    expect(admission.inWork("a")).toBe(1);
  });
});

describe("admission through the authenticator", () => {
  let app: FastifyInstance | undefined;
  let store: SqliteStore | undefined;
  afterEach(async () => {
    await app?.close();
    await store?.close();
    app = store = undefined;
  });

  /** A server with one slot per account: `/hold` answers when `release()` is called, `/stream` is long-lived. */
  async function serve(): Promise<{ url: string; key: string; otherKey: string; release: () => void; holding: Promise<void> }> {
    store = new SqliteStore(":memory:");
    const admission = new Admission(1, 0);
    const auth = createAuthenticator(store, { admission });
    app = Fastify();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Resolves once a request to /hold has been admitted and is in its handler, holding the slot.
    let entered: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    app.get("/hold", { onRequest: auth.authenticate }, async () => {
      entered();
      await held;
      return { held: true };
    });
    app.get("/quick", { onRequest: auth.authenticate }, async () => ({ quick: true }));
    app.get("/stream", { onRequest: auth.authenticate, config: { longLived: true } }, async (_request, reply) => {
      reply.raw.writeHead(200, { "content-type": "text/event-stream" });
      reply.raw.write(": open\n\n");
      await held;
      reply.raw.end();
      return reply;
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const port = (app.server.address() as { port: number }).port;
    const key = (await issueApiKey(store, { tier: "free", now: Date.now() })).key;
    const otherKey = (await issueApiKey(store, { tier: "free", now: Date.now() })).key;
    return { url: `http://127.0.0.1:${port}`, key, otherKey, release, holding };
  }

  const get = (url: string, key: string): Promise<Response> => fetch(url, { headers: { authorization: `Bearer ${key}` } });

  it("answers 429 with Retry-After for a second request of a busy account, not for another account, and frees the slot after the answer", async () => {
    const { url, key, otherKey, release, holding: admitted } = await serve();
    const holding = get(`${url}/hold`, key);
    await admitted;
    const refused = await get(`${url}/quick`, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ error: "Too many concurrent requests for this account" });
    expect((await get(`${url}/quick`, otherKey)).status).toBe(200);
    release();
    expect((await holding).status).toBe(200);
    expect((await get(`${url}/quick`, key)).status).toBe(200);
  });

  it("lets a long-lived route leave the in-flight count once admitted", async () => {
    const { url, key, release } = await serve();
    const controller = new AbortController();
    const stream = await fetch(`${url}/stream`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
    expect(stream.status).toBe(200);
    // The stream is open, yet the account's one slot is free.
    expect((await get(`${url}/quick`, key)).status).toBe(200);
    controller.abort();
    release();
  });
});
