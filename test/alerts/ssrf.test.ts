/**
 * The SSRF guard of webhooks (decisions §7): https:// to a public address only — private,
 * loopback, link-local, IPv6-mapped and odd IPv4 spellings refused at creation, a name checked
 * on every address it resolves to, and checked again before each delivery (a name that
 * resolved to a public address at creation and to loopback later is never connected to);
 * `allowPrivateWebhooks` (`xql serve --allow-private-webhooks`) lets local setups through.
 */
import { afterEach, describe, expect, it } from "vitest";
import { checkedAddresses, isPublicAddress, parseWebhookUrl, systemResolver, type Resolver } from "../../src/alerts/webhook-url.js";
import { NOW, startServer, type Running } from "../server/helpers.js";
import { Receiver, RunningClock } from "./helpers.js";
import { until } from "../kit/index.js";

const Q = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 440';
const REFUSED = { error: "Webhook URL must be https:// to a public address" };

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

describe("public addresses", () => {
  it.each([
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["fe80::1", "link-local"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
    ["64:ff9b::a9fe:a9fe", "NAT64 of link-local"],
    ["2002:7f00:1::", "6to4 of loopback"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["0.0.0.0", "this network"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "documentation"],
    ["2001:db8::1", "documentation"],
  ])("%s is not public (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.215.14", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001:80b::200e"])("%s is public", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it("refuses a name the system resolver resolves to loopback (localhost, from /etc/hosts)", async () => {
    expect(await checkedAddresses(new URL("https://localhost/h"), false, systemResolver)).toBeUndefined();
    const allowed = await checkedAddresses(new URL("https://localhost/h"), true, systemResolver);
    expect(allowed!.length).toBeGreaterThan(0);
    expect(allowed!.every((a) => !isPublicAddress(a.address))).toBe(true);
  });

  it("reads a webhook URL as WHATWG does, so odd spellings of loopback are caught", () => {
    for (const url of ["https://2130706433/h", "https://0x7f.1/h", "https://017700000001/h", "https://127.1/h", "https://[::ffff:127.0.0.1]/h", "https://[0:0:0:0:0:ffff:7f00:1]/h"]) {
      expect(parseWebhookUrl(url, false), url).toBeUndefined();
    }
    expect(parseWebhookUrl("http://8.8.8.8/h", false)).toBeUndefined();
    expect(parseWebhookUrl("ftp://8.8.8.8/h", true)).toBeUndefined();
    expect(parseWebhookUrl("not a url", true)).toBeUndefined();
    expect(parseWebhookUrl(`https://example.com/${"x".repeat(3000)}`, false)).toBeUndefined();
    expect(parseWebhookUrl("https://example.com/h", false)?.href).toBe("https://example.com/h");
    expect(parseWebhookUrl("http://127.0.0.1:9/h", true)?.href).toBe("http://127.0.0.1:9/h");
  });
});

/** Names the tests resolve without a network: a public one, one on loopback, one that moves, one unknown. */
function resolverWith(moved: { value: boolean }): Resolver {
  return async (host) => {
    if (host === "hooks.example") return [{ address: "93.184.215.14", family: 4 }];
    if (host === "internal.example") return [{ address: "93.184.215.14", family: 4 }, { address: "127.0.0.1", family: 4 }];
    if (host === "v6.internal.example") return [{ address: "::ffff:169.254.169.254", family: 6 }];
    if (host === "rebind.example") return [{ address: moved.value ? "127.0.0.1" : "93.184.215.14", family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  };
}

async function create(server: Running, key: string, webhook: string): Promise<Response> {
  return server.post("/xql/alerts", JSON.stringify({ query: Q, webhook }), key, { "content-type": "application/json" });
}

describe("creating an alert with a webhook", () => {
  it("refuses http://, private, loopback, link-local and IPv6-mapped addresses, and names resolving to one", async () => {
    const server = await startServer({ webhookResolver: resolverWith({ value: false }) });
    running.push(server);
    const { key } = await server.key("plus");
    for (const webhook of [
      "http://hooks.example/h",
      "https://10.0.0.5/h",
      "https://192.168.1.20/h",
      "https://127.0.0.1/h",
      "https://[::1]/h",
      "https://169.254.169.254/latest/meta-data",
      "https://[fe80::1]/h",
      "https://[::ffff:127.0.0.1]/h",
      "https://[::ffff:a9fe:a9fe]/h",
      "https://localhost/h",
      "https://api.localhost/h",
      "https://internal.example/h",
      "https://v6.internal.example/h",
      "javascript:alert(1)",
      "",
    ]) {
      const response = await create(server, key, webhook);
      expect(response.status, webhook).toBe(400);
      expect(await response.json(), webhook).toEqual(REFUSED);
    }
    expect(((await (await server.get("/xql/alerts", key)).json()) as { alerts: unknown[] }).alerts).toEqual([]);
  });

  it("accepts https:// to a public address or a name resolving to public addresses only (or not resolving yet)", async () => {
    const server = await startServer({ webhookResolver: resolverWith({ value: false }) });
    running.push(server);
    const { key } = await server.key("plus");
    for (const webhook of ["https://hooks.example/h", "https://93.184.215.14:8443/h", "https://[2606:4700:4700::1111]/h", "https://not-yet.example/h"]) {
      expect((await create(server, key, webhook)).status, webhook).toBe(201);
    }
  });

  it("accepts http:// and loopback when the server allows private webhooks", async () => {
    const server = await startServer({ allowPrivateWebhooks: true });
    running.push(server);
    const { key } = await server.key("plus");
    expect((await create(server, key, "http://127.0.0.1:9/h")).status).toBe(201);
    expect((await create(server, key, "http://localhost:9/h")).status).toBe(201);
    expect((await create(server, key, "ftp://127.0.0.1/h")).status).toBe(400);
  });
});

describe("before each delivery", () => {
  it("resolves the name again and never connects to an address that is no longer public", async () => {
    const moved = { value: false };
    const clock = new RunningClock(NOW);
    const receiver = await new Receiver().start();
    running.push(receiver);
    const server = await startServer({ clock, webhookResolver: resolverWith(moved), alertTiming: { settleMs: 10, pollMs: 100 } });
    running.push(server);
    const { key } = await server.key("plus");
    // Were the guard to fail, the delivery would reach the receiver's port on loopback.
    const created = await create(server, key, `https://rebind.example:${receiver.port}/h`);
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    moved.value = true;
    // The 13:00 bar closes (the clock moves to 14:25) with GBPUSD over 440: a delivery.
    clock.advance(3_600_000);
    const h1 = NOW - 25 * 60_000;
    await server.store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "GBPUSD", bars: { time: [h1], open: [450], high: [450], low: [450], close: [450], volume: [1] } }] }]);
    const detail = async () => (await (await server.get(`/xql/alerts/${id}`, key)).json()) as { deliveries: { attempts: number; status: string; lastError: string | null }[] };
    await until(async () => (await detail()).deliveries[0]?.attempts === 1, { what: "an attempt" });
    expect((await detail()).deliveries[0]).toMatchObject({ status: "pending", lastError: "refused: rebind.example resolves to an address that is not public" });
    expect(receiver.connections).toBe(0);
  });

  it("retries a name that does not resolve, saying so", async () => {
    const clock = new RunningClock(NOW);
    const server = await startServer({ clock, webhookResolver: resolverWith({ value: false }), alertTiming: { settleMs: 10, pollMs: 100 } });
    running.push(server);
    const { key } = await server.key("plus");
    const { id } = (await (await create(server, key, "https://not-yet.example/h")).json()) as { id: string };
    clock.advance(3_600_000);
    const h1 = NOW - 25 * 60_000;
    await server.store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "GBPUSD", bars: { time: [h1], open: [450], high: [450], low: [450], close: [450], volume: [1] } }] }]);
    let last: { status: string; lastError: string | null } | undefined;
    await until(async () => Boolean((last = ((await (await server.get(`/xql/alerts/${id}`, key)).json()) as { deliveries: { status: string; lastError: string | null }[] }).deliveries[0])?.lastError), {
      what: "an attempt",
    });
    expect(last).toMatchObject({ status: "pending", lastError: "DNS: ENOTFOUND" });
  });
});
