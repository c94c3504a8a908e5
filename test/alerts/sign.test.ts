/**
 * Both signatures of every delivery (decisions §7): real deliveries from a server on loopback
 * are verified exactly as a receiver would — with the `standardwebhooks` package, given the
 * secret as the API returned it, and with `verifyWebhook` from `xql/client` — and
 * `verifyWebhook` refuses forgeries, other secrets, altered bodies and stale timestamps, in
 * either scheme.
 */
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { signatureOf, standardSignatureOf } from "../../src/alerts/sign.js";
import { type AlertDeliveryBody, WebhookVerificationError, verifyWebhook } from "../../src/client/index.js";
import { FEED_START, HOUR, Receiver, RunningClock, startFeedServer } from "./helpers.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A real delivery as the receiver got it, with the alert's secret; the server's clock is the real one (receivers check the age). */
async function realDelivery() {
  const feed = await startFeedServer({ clock: new RunningClock(Date.now()) });
  cleanup.push(() => feed.server.stop());
  const receiver = await new Receiver().start();
  cleanup.push(() => receiver.stop());
  const { key } = await feed.server.key("free");
  const created = await feed.server.post("/xql/alerts", JSON.stringify({ query: QUERY, webhook: receiver.url }), key, { "content-type": "application/json" });
  const { secret } = (await created.json()) as { secret: string };
  await feed.push(1, { AAA: 150 });
  await receiver.until(() => receiver.received.length === 1);
  return { secret, received: receiver.received[0]! };
}

/** What `verifyWebhook` refuses with, or "accepted". */
function outcome(body: string, headers: Record<string, string>, secret: string, now?: number): string {
  try {
    verifyWebhook(body, headers, secret, now === undefined ? {} : { now: () => now });
    return "accepted";
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}

describe("webhook signatures", () => {
  it("a real delivery verifies with the standardwebhooks package and with verifyWebhook, from the headers as received", async () => {
    const { secret, received } = await realDelivery();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const headers = received.headers as Record<string, string>;
    expect(headers["webhook-id"]).toBe(received.delivery);
    expect(headers["webhook-timestamp"]).toBe(received.timestamp);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // Exactly as a receiver using the Standard Webhooks library does.
    const payload = new Webhook(secret).verify(received.body, headers) as AlertDeliveryBody;
    expect(payload.delivery).toBe(received.delivery);
    expect(payload.time).toBe(FEED_START + 10 * HOUR);
    const mine = verifyWebhook<AlertDeliveryBody>(received.body, headers, secret);
    expect(mine).toEqual(payload);
    // A WHATWG Headers object (fetch-style frameworks) and the body as bytes do as well.
    expect(verifyWebhook(Buffer.from(received.body), new Headers(headers), secret)).toEqual(payload);
    // The library refuses the same body under another secret, or altered.
    expect(() => new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").verify(received.body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(received.body.replace("150", "151"), headers)).toThrow();
  });

  it("verifyWebhook takes XQL's own scheme alone, and refuses forgeries, other secrets, altered bodies and stale timestamps in both", async () => {
    const { secret, received } = await realDelivery();
    const h = received.headers as Record<string, string>;
    const standard = { "webhook-id": h["webhook-id"]!, "webhook-timestamp": h["webhook-timestamp"]!, "webhook-signature": h["webhook-signature"]! };
    const xql = { "x-xql-timestamp": h["x-xql-timestamp"]!, "x-xql-signature": h["x-xql-signature"]! };
    const body = received.body;
    expect(outcome(body, standard, secret)).toBe("accepted");
    expect(outcome(body, xql, secret)).toBe("accepted");
    expect(outcome(body, {}, secret)).toBe("missing-headers");
    const other = "whsec_0123456789ABCDEFabcdefGHIJKLMNOP";
    expect(outcome(body, standard, other)).toBe("bad-signature");
    expect(outcome(body, xql, other)).toBe("bad-signature");
    expect(outcome(`${body} `, standard, secret)).toBe("bad-signature");
    expect(outcome(`${body} `, xql, secret)).toBe("bad-signature");
    expect(outcome(body, { ...standard, "webhook-id": "dlv_someone_else" }, secret)).toBe("bad-signature");
    expect(outcome(body, { ...xql, "x-xql-signature": "sha256=short" }, secret)).toBe("bad-signature");
    // Signed long ago (a replay), or in the future beyond the tolerance: refused though the signature is right.
    const old = Number(h["webhook-timestamp"]) - 3_600;
    expect(outcome(body, { ...standard, "webhook-timestamp": String(old), "webhook-signature": standardSignatureOf(secret, standard["webhook-id"], old, body) }, secret)).toBe(
      "stale-timestamp",
    );
    expect(outcome(body, { "x-xql-timestamp": String(old), "x-xql-signature": signatureOf(secret, old, body) }, secret)).toBe("stale-timestamp");
    const signedAt = Number(h["webhook-timestamp"]) * 1000;
    expect(outcome(body, standard, secret, signedAt + 301_000)).toBe("stale-timestamp");
    expect(outcome(body, standard, secret, signedAt - 301_000)).toBe("stale-timestamp");
    expect(outcome(body, standard, secret, signedAt + 299_000)).toBe("accepted");
    expect(() => verifyWebhook(body, standard, secret, { toleranceSec: 10, now: () => signedAt + 11_000 })).toThrow(WebhookVerificationError);
    expect(outcome(body, { ...standard, "webhook-timestamp": "soon" }, secret)).toBe("bad-timestamp");
    // A sender rotating keys sends several signatures: one that matches is enough.
    expect(outcome(body, { ...standard, "webhook-signature": `v1,bm90IGl0 ${standard["webhook-signature"]}` }, secret)).toBe("accepted");
  });
});
