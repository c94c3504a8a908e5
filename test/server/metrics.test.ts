/**
 * `/metrics` (decisions §10) scraped from its real listener: counts of requests by route
 * pattern, bars pushed, alert evaluations and deliveries, the round histogram and the outbox
 * backlog, prom-client's process defaults, and labels that never carry a key, an account, a
 * query or a symbol. Each server has its own registry: two in one process do not mix.
 */
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { issueApiKey } from "../../src/accounts/keys.js";
import { metricsAddress } from "../../src/server/metrics.js";
import { FEED_START, HOUR, Receiver, startFeedServer, until } from "../alerts/helpers.js";

/** The value of one sample of the scrape (`name{labels} value`); 0 when absent. */
function sample(text: string, series: string): number {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

describe("GET /metrics", () => {
  const receiver = new Receiver();
  afterAll(() => receiver.stop());

  it("counts requests by route, bars written, evaluations and deliveries, without keys, accounts, queries or symbols", async () => {
    await receiver.start();
    const registry = new Registry();
    const feed = await startFeedServer({ metrics: { port: 0, registry } });
    const other = await startFeedServer({ metrics: { port: 0 } });
    try {
      const address = metricsAddress(feed.server.app)!;
      expect(address.address).toBe("127.0.0.1");
      const url = `http://127.0.0.1:${address.port}/metrics`;
      const { key, accountId } = await feed.server.key("essential");
      const query = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';
      const created = await feed.server.post("/xql/alerts", JSON.stringify({ query, webhook: receiver.url }), key);
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await feed.server.get(`/xql/alerts/${id}`, key)).status).toBe(200);
      expect((await feed.server.get("/no/such/route", key)).status).toBe(404);

      // Two bars pushed with a write key: AAA enters at the first, exits at the second.
      const writer = await issueApiKey(feed.server.store, { accountId, scope: "write", now: feed.clock.now() });
      for (const [step, close] of [
        [1, 150],
        [2, 50],
      ] as const) {
        const time = FEED_START + (9 + step) * HOUR;
        const lines = ["AAA", "BBB", "CCC"].map((symbol) => {
          const c = symbol === "AAA" ? close : 50;
          return JSON.stringify({ market: "CRYPTO", timeframe: "h1", symbol, time, open: c, high: c, low: c, close: c, volume: 1 });
        });
        const pushed = await feed.server.post("/xql/bars", lines.join("\n"), writer.key, { "content-type": "application/x-ndjson" });
        expect(pushed.status).toBe(200);
      }
      await receiver.until(() => receiver.delivered.length === 2);
      let text = "";
      await until(async () => {
        text = await scrape(url);
        return sample(text, 'xql_alert_deliveries_total{outcome="delivered"}') === 2;
      });

      expect(sample(text, "xql_alert_evaluations_total")).toBe(2);
      expect(sample(text, "xql_alert_screen_evaluations_total")).toBe(2);
      expect(text).toContain("xql_alert_screen_evaluations_discarded_total 0");
      expect(sample(text, "xql_store_bars_written_total")).toBe(6);
      expect(sample(text, 'xql_alert_deliveries_total{outcome="retried"}')).toBe(0);
      expect(sample(text, 'xql_alert_deliveries_total{outcome="failed"}')).toBe(0);
      expect(sample(text, "xql_alert_outbox_backlog")).toBe(0);
      expect(sample(text, "xql_alert_screens_held")).toBe(1);
      expect(sample(text, "xql_alert_round_duration_seconds_count")).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'xql_http_requests_total{route="/xql/alerts",status="201"}')).toBe(1);
      expect(sample(text, 'xql_http_requests_total{route="/xql/alerts/:id",status="200"}')).toBe(1);
      expect(sample(text, 'xql_http_requests_total{route="/xql/bars",status="200"}')).toBe(2);
      expect(sample(text, 'xql_http_requests_total{route="unmatched",status="404"}')).toBe(1);
      expect(sample(text, 'xql_http_request_duration_seconds_count{route="/xql/bars"}')).toBe(2);
      // prom-client's process defaults.
      expect(sample(text, "process_cpu_seconds_total")).toBeGreaterThan(0);
      expect(text).toContain("nodejs_eventloop_lag_seconds");
      for (const secret of [key, writer.key, accountId, id, "AAA", "close > 100", "CRYPTO"]) expect(text).not.toContain(secret);

      // The registry given is the one filled; the other server's own registry saw none of it.
      expect(await registry.metrics()).toContain("xql_alert_evaluations_total 2");
      const otherText = await scrape(`http://127.0.0.1:${metricsAddress(other.server.app)!.port}/metrics`);
      expect(sample(otherText, "xql_alert_evaluations_total")).toBe(0);
      expect(sample(otherText, "xql_store_bars_written_total")).toBe(0);

      // Only GET /metrics, and no route of the service on this listener.
      expect((await fetch(`http://127.0.0.1:${address.port}/xql/alerts`)).status).toBe(404);
    } finally {
      await feed.server.stop();
      await other.server.stop();
    }
    // The listener closes with the app.
    await expect(fetch(`http://127.0.0.1:${metricsAddress(feed.server.app)!.port}/metrics`)).rejects.toThrow();
  });

  it("is off by default", async () => {
    const feed = await startFeedServer();
    try {
      expect(metricsAddress(feed.server.app)).toBeUndefined();
    } finally {
      await feed.server.stop();
    }
  });
});
