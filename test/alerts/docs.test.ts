/**
 * docs/alerts.md says what alerts do: its receiver example is run as written (a child node
 * process) against real deliveries, its signature check refuses forgeries and stale
 * timestamps, and it handles a repeated delivery id once.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { signatureOf, standardSignatureOf } from "../../src/alerts/sign.js";
import { FEED_START, HOUR, RunningClock, startFeedServer, until } from "./helpers.js";

const doc = readFileSync(new URL("../../docs/alerts.md", import.meta.url), "utf8");

/** The first ```js block after the heading. */
function codeAfter(heading: string): string {
  const at = doc.indexOf(heading);
  expect(at, heading).toBeGreaterThan(0);
  const match = /```js\n([\s\S]*?)```/.exec(doc.slice(at));
  return match![1]!;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("docs/alerts.md", () => {
  // Inside the checkout, so the example's `import "xql/client"` resolves to the built package (self-reference).
  const scratch = fileURLToPath(new URL("../../.tmp/", import.meta.url));
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, "docs-alerts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names every route, tool and header the service has", () => {
    for (const text of ["POST /xql/alerts", "GET /xql/alerts/{id}", "DELETE /xql/alerts/{id}", "GET /xql/alerts/stream", "X-XQL-Delivery", "X-XQL-Timestamp", "X-XQL-Signature", "xql_alert_create", "xql_alert_list", "xql_alert_delete", "--allow-private-webhooks", "Last-Event-ID", "webhook-id", "webhook-timestamp", "webhook-signature", "verifyWebhook", "standardwebhooks"]) {
      expect(doc).toContain(text);
    }
  });

  it("runs its receiver example: real deliveries verified and printed once, forgeries and stale ones refused", async () => {
    const file = join(dir, "receiver.mjs");
    writeFileSync(file, codeAfter("### Receiving webhooks"));
    const port = await freePort();
    // The receiver checks timestamps against its own clock: the server's must be the real one.
    const feed = await startFeedServer({ clock: new RunningClock(Date.now()) });
    const { key } = await feed.server.key("free");
    const created = await feed.server.post(
      "/xql/alerts",
      JSON.stringify({ query: 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100', webhook: `http://127.0.0.1:${port}/` }),
      key,
      { "content-type": "application/json" },
    );
    const { secret } = (await created.json()) as { secret: string };
    const receiver = spawn(process.execPath, [file], { env: { ...process.env, XQL_WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    receiver.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    receiver.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    try {
      await until(async () => fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).then(() => true, () => false));
      await feed.push(1, { AAA: 150 });
      await until(() => stdout.includes("enter"), 20_000);
      expect(stdout.trim()).toBe(`${new Date(FEED_START + 10 * HOUR).toISOString()} enter AAA {"close":150}`);

      const body = JSON.stringify({ alert: { id: "alrt_x", name: "x" }, timeframe: "h1", time: 0, events: [{ symbol: "ZZZ", kind: "enter", columns: {} }], delivery: "dlv_docs" });
      const post = (timestamp: number, signature: string) =>
        fetch(`http://127.0.0.1:${port}/`, { method: "POST", body, headers: { "x-xql-timestamp": String(timestamp), "x-xql-signature": signature } });
      const now = Math.floor(Date.now() / 1000);
      expect((await post(now, signatureOf("whsec_not_the_secret", now, body))).status).toBe(401);
      expect((await post(now - 3600, signatureOf(secret, now - 3600, body))).status).toBe(401);
      expect((await post(now, "sha256=short")).status).toBe(401);
      expect((await post(now, signatureOf(secret, now, body))).status).toBe(204);
      expect((await post(now + 1, signatureOf(secret, now + 1, body))).status).toBe(204);
      // The Standard Webhooks headers alone do as well; forged ones do not.
      const standard = (signature: string) =>
        fetch(`http://127.0.0.1:${port}/`, { method: "POST", body, headers: { "webhook-id": "dlv_docs", "webhook-timestamp": String(now), "webhook-signature": signature } });
      expect((await standard(standardSignatureOf("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "dlv_docs", now, body))).status).toBe(401);
      expect((await standard(standardSignatureOf(secret, "dlv_docs", now, body))).status).toBe(204);
      // A last, new delivery: the receiver prints in order, so once its line is out every earlier one is.
      const last = body.replace("ZZZ", "YYY").replace("dlv_docs", "dlv_docs_last");
      const lastPost = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: last, headers: { "x-xql-timestamp": String(now), "x-xql-signature": signatureOf(secret, now, last) } });
      expect(lastPost.status).toBe(204);
      await until(() => stdout.includes("YYY"));
      expect(stdout.match(/ZZZ/g)).toHaveLength(1);
      expect(stderr).toBe("");
    } finally {
      receiver.kill();
      await feed.server.stop();
    }
  });
});
