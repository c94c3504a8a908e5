/**
 * Webhook signatures (decisions §7), both schemes every delivery carries, and their check — one
 * module for the sender (`./deliver.ts`) and the receiver's `verifyWebhook` (`xql/client`), so
 * the two cannot drift apart:
 * - XQL's own: `X-XQL-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>`,
 *   the timestamp (Unix seconds) in `X-XQL-Timestamp`;
 * - Standard Webhooks (standardwebhooks.com, what Svix and the `standardwebhooks` packages
 *   verify): `webhook-id` (the delivery id), `webhook-timestamp`, `webhook-signature:
 *   v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + raw body)>`, the key being the
 *   base64 decoding of the secret after `whsec_`.
 *
 * An alert's secret is `whsec_` + 32 base62 characters. Base62 is base64's alphabet less `+`
 * and `/`, and 32 characters are a whole number of base64 quanta, so the same secret is also a
 * Standard Webhooks secret: its 32 characters decode to a 24-byte key, exactly as the
 * `standardwebhooks` package decodes the secret the API returned. No second secret to keep.
 *
 * It imports nothing but `node:crypto` and `node:buffer`: `xql/client` re-exports the check.
 */
import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";

/** The prefix of a webhook secret, as Standard Webhooks spells it. */
export const SECRET_PREFIX = "whsec_";
/** 5 minutes: how far a signed timestamp may be from the receiver's clock, either way, by default. */
export const DEFAULT_TOLERANCE_SEC = 300;

/** The `X-XQL-Signature` value of a body sent at `timestamp` (Unix seconds). */
export function signatureOf(secret: string, timestamp: number, body: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(body).digest("hex")}`;
}

/** The Standard Webhooks key of a secret: the base64 decoding of what follows `whsec_`. */
export function standardKeyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

/** The `webhook-signature` value (`v1,<base64>`) of delivery `id` with `body`, sent at `timestamp` (Unix seconds). */
export function standardSignatureOf(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  return `v1,${createHmac("sha256", standardKeyOf(secret)).update(`${id}.${timestamp}.`, "utf8").update(body).digest("base64")}`;
}

/** Every signature header of one attempt, both schemes. */
export function signedHeaders(secret: string, id: string, timestamp: number, body: string | Uint8Array): Record<string, string> {
  return {
    "x-xql-delivery": id,
    "x-xql-timestamp": String(timestamp),
    "x-xql-signature": signatureOf(secret, timestamp, body),
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standardSignatureOf(secret, id, timestamp, body),
  };
}

/** Why a webhook was refused. */
export type WebhookRefusal = "missing-headers" | "bad-timestamp" | "stale-timestamp" | "bad-signature" | "bad-body";

const REFUSALS: Readonly<Record<WebhookRefusal, string>> = {
  "missing-headers": "No signature headers: neither webhook-id, webhook-timestamp and webhook-signature nor X-XQL-Timestamp and X-XQL-Signature",
  "bad-timestamp": "The signed timestamp is not a number of Unix seconds",
  "stale-timestamp": "The signed timestamp is too far from now (a replayed or delayed request)",
  "bad-signature": "No signature matches the body under this secret",
  "bad-body": "The signed body is not a delivery's JSON",
};

/** A webhook that is not a genuine, recent delivery; `code` says why. */
export class WebhookVerificationError extends Error {
  /** Always `"WebhookVerificationError"`. */
  override readonly name = "WebhookVerificationError";
  /** @param code Why the delivery was refused: the refusal's stable code. */
  constructor(
    /** Why the delivery was refused (a stable code; the message is its text). */
    readonly code: WebhookRefusal,
  ) {
    super(REFUSALS[code]);
  }
}

/** Request headers as Node gives them (`req.headers`), a WHATWG `Headers`, or a plain object. */
export type WebhookHeaders =
  | {
      /** The header's value, or null when absent (WHATWG `Headers`). */
      get(name: string): string | null;
    }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Options of {@link verifyWebhook}. */
export interface VerifyOptions {
  /** How far the signed timestamp may be from now, either way, in seconds. Default 300. */
  toleranceSec?: number;
  /** The receiver's clock (ms since epoch). Default `Date.now`. */
  now?: () => number;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

/** Constant-time equality of two strings (their lengths are not secret). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks that `body` was sent by XQL for the alert whose secret is `secret`, by either scheme:
 * Standard Webhooks' headers when present, else `X-XQL-Signature`. The signature is compared in
 * constant time, and a timestamp more than `toleranceSec` away from now is refused (a replay).
 * Returns the parsed delivery; throws {@link WebhookVerificationError} otherwise.
 *
 * @param body - The raw body exactly as received (a string or bytes): not re-serialized JSON.
 */
export function verifyWebhook<T = unknown>(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): T {
  const id = headerOf(headers, "webhook-id");
  const standard = headerOf(headers, "webhook-signature");
  const standardTime = headerOf(headers, "webhook-timestamp");
  const xqlSignature = headerOf(headers, "x-xql-signature");
  const xqlTime = headerOf(headers, "x-xql-timestamp");
  const useStandard = id !== undefined && standard !== undefined && standardTime !== undefined;
  if (!useStandard && (xqlSignature === undefined || xqlTime === undefined)) throw new WebhookVerificationError("missing-headers");
  const timeText = useStandard ? standardTime : xqlTime!;
  if (!/^\d{1,12}$/.test(timeText.trim())) throw new WebhookVerificationError("bad-timestamp");
  const timestamp = Number(timeText.trim());
  const now = (options.now ?? Date.now)() / 1000;
  if (Math.abs(now - timestamp) > (options.toleranceSec ?? DEFAULT_TOLERANCE_SEC)) throw new WebhookVerificationError("stale-timestamp");
  const matches = useStandard
    ? // A sender rotating its key sends several, space-separated: any one of them will do.
      standard!.split(" ").some((given) => sameText(given, standardSignatureOf(secret, id!, timestamp, body)))
    : sameText(xqlSignature!.trim(), signatureOf(secret, timestamp, body));
  if (!matches) throw new WebhookVerificationError("bad-signature");
  try {
    return JSON.parse(typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8")) as T;
  } catch {
    throw new WebhookVerificationError("bad-body");
  }
}
