/**
 * Nothing is lost across a `kill -9` (decisions §7: pending deliveries are rows in the store):
 * the real `xql serve` in a child process, bars written by this process (another connection,
 * noticed through the store's watch), a receiver that fails until the server has been killed,
 * bars closing while no server runs, then a restart. Every (alert, bar) with events arrives,
 * each under one delivery id, in bar order.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { issueApiKey } from "../../src/accounts/keys.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { spawnXql } from "../cli/run-cli.js";
import { tempDir } from "../kit/index.js";
import { type DeliveryBody, HOUR, Receiver, until } from "./helpers.js";

const SYMBOLS = ["AAA", "BBB"];
/** Twenty hours back from the last whole hour: every bar written here has closed. */
const START = Math.floor(Date.now() / HOUR) * HOUR - 20 * HOUR;

function bars(hour: number, close: number) {
  return { time: [START + hour * HOUR], open: [close], high: [close], low: [close], close: [close], volume: [1] };
}

async function serve(db: string): Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }> {
  const child = spawnXql(["serve", "--port", "0", "--db", db, "--allow-private-webhooks", "--quiet"]);
  let stderr = "";
  const exited = new Promise((resolve) => child.on("close", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.on("close", () => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return { child, url, exited };
}

describe("alerts across a kill -9 of the server", () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it("delivers every (alert, bar) once the server is back, under the ids made before the kill, in bar order", async () => {
    const db = join(temp.dir, "xql.db");
    const store = new SqliteStore(db);
    let healthy = false;
    const receiver = await new Receiver(() => (healthy ? "ok" : "fail")).start();
    let server = await (async () => {
      // Ten closed bars at 50 before the server starts (an empty store would be seeded).
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: SYMBOLS.map((symbol) => ({ symbol, bars: { time: Array.from({ length: 10 }, (_, i) => START + i * HOUR), open: new Array(10).fill(50), high: new Array(10).fill(50), low: new Array(10).fill(50), close: new Array(10).fill(50), volume: new Array(10).fill(1) } })) }]);
      return serve(db);
    })();
    try {
      const { key, record } = await issueApiKey(store, { tier: "essential", now: Date.now() });
      const created = await fetch(`${server.url}/xql/alerts`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100', webhook: receiver.url }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };

      // Bars 10..13 with a change each: four deliveries, the first failing at the receiver.
      const closes = [
        [150, 50],
        [150, 150],
        [50, 150],
        [50, 50],
      ];
      for (const [k, [a, b]] of closes.entries()) {
        await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bars(10 + k, a!) }, { symbol: "BBB", bars: bars(10 + k, b!) }] }]);
        await until(async () => (await store.alerts.findAlert(record.accountId, id))?.lastTime === START + (10 + k) * HOUR);
      }
      await until(() => receiver.received.length >= 2);
      const before = await store.alerts.deliveriesAfter([record.accountId], 0, 0, 100);
      expect(before).toHaveLength(4);

      server.child.kill("SIGKILL");
      await server.exited;
      // Two more bars close while no server runs: evaluated when it is back.
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bars(14, 120) }, { symbol: "BBB", bars: bars(14, 50) }] }]);
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bars(15, 120) }, { symbol: "BBB", bars: bars(15, 130) }] }]);
      healthy = true;
      server = await serve(db);

      // The killed server's lease on the delivery it was sending runs out (10 s timeout + 5 s).
      await until(() => new Set(receiver.delivered.map((r) => r.delivery)).size === 6, 45_000);
      const after = await store.alerts.deliveriesAfter([record.accountId], 0, 0, 100);
      expect(after).toHaveLength(6);
      // The four made before the kill kept their ids.
      expect(after.slice(0, 4).map((d) => d.id)).toEqual(before.map((d) => d.id));
      const firstOk = new Map<string, number>();
      receiver.delivered.forEach((r, i) => firstOk.has(r.delivery) || firstOk.set(r.delivery, i));
      const order = [...firstOk.keys()].map((delivery) => (JSON.parse(receiver.delivered[firstOk.get(delivery)!]!.body) as DeliveryBody).time);
      expect(order).toEqual(Array.from({ length: 6 }, (_, k) => START + (10 + k) * HOUR));
      // Each delivery's body is the one committed with it, whatever attempt carried it.
      for (const d of after) expect(receiver.received.filter((r) => r.delivery === d.id).every((r) => r.body === d.body)).toBe(true);
      const detail = async () => (await (await fetch(`${server.url}/xql/alerts/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { deliveries: { status: string }[] };
      await until(async () => (await detail()).deliveries.every((d) => d.status === "delivered"));
    } finally {
      server.child.kill("SIGKILL");
      await server.exited;
      await store.close();
      await receiver.stop();
    }
  }, 90_000);
});
