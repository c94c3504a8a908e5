/**
 * Webhook signatures (decisions §7): `X-XQL-Signature: sha256=<hex HMAC-SHA256(secret,
 * timestamp + "." + raw body)>`, with the timestamp (Unix seconds) sent as `X-XQL-Timestamp`, so
 * a receiver can refuse a replayed body by its age. docs/alerts.md shows the receiver's side.
 */
import { createHmac } from "node:crypto";
import { randomBase62 } from "../accounts/keys.js";

/** A new webhook secret: `whsec_` + 32 base62 characters. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

/** The `X-XQL-Signature` value of a body sent at `timestamp` (Unix seconds). */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex")}`;
}
