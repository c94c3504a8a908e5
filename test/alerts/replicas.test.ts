/**
 * Replicas share a round's work (decisions §7, 2026-12-05), proved on three real `xql serve`
 * processes over one PostgreSQL and one Redis: bars pushed (`POST /xql/bars`, a write key) to
 * random replicas while replicas are killed with SIGKILL and started again. Every (alert, bar)
 * is committed once and delivered at least once; the evaluations each replica's `/metrics`
 * counts add up to alerts × bars, and the screen evaluations to screens × bars (each distinct
 * screen evaluated by one replica per bar); after a kill the survivors hold every screen within
 * the lease period; the screens are balanced within ±50 % of 1/N; a replica drained with SIGTERM
 * hands its screens over at once.
 */
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { issueApiKey } from "../../src/accounts/keys.js";
import { PostgresStore } from "../../src/open/postgres.js";
import { prng, needsServices } from "../kit/index.js";
import { spawnXql } from "../cli/run-cli.js";
import { DATABASE_URL, REDIS_URL, freshDatabase } from "../scale/helpers.js";
import { HOUR, Receiver, until } from "./helpers.js";

const SYMBOLS = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF"];
/** Distinct screens, two alerts each (two accounts watching the same screen share its evaluation). */
const THRESHOLDS = [90, 95, 100, 105, 110, 115];
const SCREENS = THRESHOLDS.length;
const ALERTS = SCREENS * 2;
/** Bars pushed after the alerts are created. */
const BARS = 9;
const LEASE_SECONDS = 6;
/** Forty hours back from the last whole hour: every bar pushed here has closed. */
const START = Math.floor(Date.now() / HOUR) * HOUR - 40 * HOUR;

interface Process {
  child: ChildProcess;
  url: string;
  metrics: string;
  exited: Promise<unknown>;
}

interface Counts {
  evaluations: number;
  screens: number;
  held: number;
}

/** The value of one sample of a scrape; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

needsServices("alert rounds shared by three xql serve replicas", () => {
  let db: { url: string; drop: () => Promise<void> };
  let client: pg.Client;
  const receiver = new Receiver();
  const replicas: (Process | undefined)[] = [];

  async function serve(): Promise<Process> {
    const child = spawnXql([
      "serve",
      ...["--port", "0", "--db", db.url, "--redis", REDIS_URL!, "--metrics-port", "0", "--lease-seconds", String(LEASE_SECONDS)],
      "--allow-private-webhooks",
      "--quiet",
    ]);
    let stderr = "";
    const exited = new Promise((resolve) => child.on("close", resolve));
    const { url, metrics } = await new Promise<{ url: string; metrics: string }>((resolve, reject) => {
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        const metricsAt = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr);
        if (listening && metricsAt) resolve({ url: listening[1]!, metrics: metricsAt[1]! });
      });
      child.on("close", () => reject(new Error(`serve exited early: ${stderr}`)));
    });
    return { child, url, metrics, exited };
  }

  async function counts(replica: Process): Promise<Counts> {
    const text = await (await fetch(replica.metrics)).text();
    return {
      evaluations: sample(text, "xql_alert_evaluations_total"),
      screens: sample(text, "xql_alert_screen_evaluations_total"),
      held: sample(text, "xql_alert_screens_held"),
    };
  }

  const live = (): Process[] => replicas.filter((r): r is Process => r !== undefined);
  /** What killed replicas had counted, read from their /metrics while quiet, just before the kill. */
  const dead: Counts = { evaluations: 0, screens: 0, held: 0 };

  async function totals(): Promise<Counts & { each: Counts[] }> {
    const each = await Promise.all(live().map(counts));
    return {
      evaluations: dead.evaluations + each.reduce((n, c) => n + c.evaluations, 0),
      screens: dead.screens + each.reduce((n, c) => n + c.screens, 0),
      held: each.reduce((n, c) => n + c.held, 0),
      each,
    };
  }

  /** Every live replica holds its share within ±50 % of 1/N, and together they hold every screen. */
  async function balanced(): Promise<boolean> {
    const { held, each } = await totals();
    const fair = SCREENS / each.length;
    return held === SCREENS && each.every((c) => c.held >= fair * 0.5 && c.held <= fair * 1.5);
  }

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await receiver.start();
  }, 120_000);
  afterAll(async () => {
    for (const replica of live()) replica.child.kill("SIGKILL");
    await Promise.all(live().map((r) => r.exited));
    await client?.end();
    await receiver.stop();
    await db?.drop();
  });

  it("commits every (alert, bar) once, delivers it, evaluates each screen once per bar, and moves a killed replica's screens to the survivors", async () => {
    // Ten closed bars at 100 before any server starts (an empty store would be seeded).
    const store = await PostgresStore.open(db.url);
    const random = prng(29);
    let closes = SYMBOLS.map(() => 100);
    let write: string;
    const keys: string[] = [];
    try {
      const column = (value: number) => new Array<number>(10).fill(value);
      await store.upsertBars([
        {
          market: "CRYPTO",
          timeframe: "h1",
          symbols: SYMBOLS.map((symbol) => ({
            symbol,
            bars: { time: Array.from({ length: 10 }, (_, i) => START + i * HOUR), open: column(100), high: column(100), low: column(100), close: column(100), volume: column(1) },
          })),
        },
      ]);
      for (let i = 0; i < 2; i++) keys.push((await issueApiKey(store, { tier: "plus", now: Date.now() })).key);
      write = (await issueApiKey(store, { tier: "plus", scope: "write", now: Date.now() })).key;
    } finally {
      await store.close();
    }
    for (let i = 0; i < 3; i++) replicas.push(await serve());

    for (const threshold of THRESHOLDS) {
      for (const key of keys) {
        const created = await fetch(`${live()[0]!.url}/xql/alerts`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ query: `market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > ${threshold}`, webhook: receiver.url }),
        });
        expect(created.status).toBe(201);
      }
    }
    // Three replicas share six screens: about two each.
    await until(balanced, 6 * LEASE_SECONDS * 1000);

    const push = async (bar: number): Promise<void> => {
      closes = closes.map((c) => Math.max(60, Math.min(140, c + (random() - 0.5) * 30)));
      const time = START + (10 + bar) * HOUR;
      const body = SYMBOLS.map((symbol, i) =>
        JSON.stringify({ market: "CRYPTO", timeframe: "h1", symbol, time, open: closes[i], high: closes[i], low: closes[i], close: closes[i], volume: 1 }),
      ).join("\n");
      const to = live()[Math.floor(random() * live().length)]!;
      const pushed = await fetch(`${to.url}/xql/bars`, { method: "POST", headers: { authorization: `Bearer ${write}`, "content-type": "application/x-ndjson" }, body });
      expect(pushed.status).toBe(200);
    };
    /** Waits until the replicas' /metrics count every alert evaluated at every bar pushed so far. */
    const settled = (bars: number) => until(async () => (await totals()).evaluations === ALERTS * bars, 6 * LEASE_SECONDS * 1000);

    let killedAt: number | undefined;
    for (let bar = 0; bar < BARS; bar++) {
      await push(bar);
      if (killedAt !== undefined) {
        // The bar landed while the killed replica's leases ran: the survivors hold every screen
        // within the lease period (plus a renewal and a round), and evaluate what it left.
        await until(async () => (await totals()).held === SCREENS, 6 * LEASE_SECONDS * 1000);
        expect(Date.now() - killedAt).toBeLessThan(3 * LEASE_SECONDS * 1000);
        killedAt = undefined;
      }
      await settled(bar + 1);
      if (bar === 1 || bar === 4) {
        // Quiet now: the victim's counts are final. SIGKILL; the next bar is pushed at once.
        const index = Math.floor(random() * replicas.length);
        const victim = replicas[index]!;
        const final = await counts(victim);
        victim.child.kill("SIGKILL");
        await victim.exited;
        replicas[index] = undefined;
        dead.evaluations += final.evaluations;
        dead.screens += final.screens;
        killedAt = Date.now();
      }
      if (bar === 3 || bar === 6) {
        await until(balanced, 6 * LEASE_SECONDS * 1000);
        // A replica starts again and takes its share.
        const index = replicas.indexOf(undefined);
        replicas[index] = await serve();
        await until(balanced, 6 * LEASE_SECONDS * 1000);
      }
    }
    const final = await totals();
    expect(final.evaluations).toBe(ALERTS * BARS);
    expect(final.screens).toBe(SCREENS * BARS);

    // Committed once: one claim per (alert, bar), every alert at the last bar.
    const claims = await client.query<{ n: number; distinct: number }>("SELECT count(*)::int AS n, count(DISTINCT (alert_id, time))::int AS distinct FROM alert_evaluations");
    expect(claims.rows[0]).toEqual({ n: ALERTS * BARS, distinct: ALERTS * BARS });
    const behind = await client.query("SELECT id FROM alerts WHERE last_time <> $1", [START + (9 + BARS) * HOUR]);
    expect(behind.rows).toEqual([]);

    // Delivered at least once: every delivery of the outbox reached the receiver, and nothing else did.
    const outbox = await client.query<{ id: string }>("SELECT id FROM alert_deliveries");
    expect(outbox.rows.length).toBeGreaterThan(ALERTS);
    const expected = new Set(outbox.rows.map((r) => r.id));
    await receiver.until(() => [...expected].every((id) => receiver.delivered.some((r) => r.delivery === id)), 60_000);
    expect(new Set(receiver.received.map((r) => r.delivery))).toEqual(expected);

    // Drained with SIGTERM, a replica gives its screens up as it stops: the others hold them
    // sooner than its leases could have run out (at least 3/4 of the period after its last renewal).
    const index = replicas.findIndex((r) => r !== undefined);
    const drained = replicas[index]!;
    replicas[index] = undefined;
    const stopping = Date.now();
    drained.child.kill("SIGTERM");
    expect(await drained.exited).toBe(0);
    await until(async () => (await totals()).held === SCREENS, 6 * LEASE_SECONDS * 1000);
    expect(Date.now() - stopping).toBeLessThan(0.75 * LEASE_SECONDS * 1000);
  }, 300_000);
});
