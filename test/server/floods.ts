/**
 * The floods of issue 24 against a running service, with an ordinary caller beside each:
 * shared by the test (`floods.test.ts`: every flood answered or refused, never failed, and the
 * ordinary caller served beside it) and the bench (`bench/server.ts`: its latency, the figures). Each flood keeps its connections busy for a while; meanwhile the ordinary
 * caller — another account — runs a small screen again and again, a new comment each time (so
 * every run is evaluated, never served from the results cache), and its latencies are kept.
 */
import { Signal, until } from "../kit/wait.js";

/** A service to flood: its address, and keys (accounts) to flood with. */
export interface FloodTarget {
  readonly url: string;
  /** A new key of a new account of the tier. */
  key(tier: "free" | "essential" | "plus"): Promise<string>;
  /** A market of the service and symbols of it with bars at `timeframe`. */
  readonly market: string;
  readonly timeframe: "h1";
  readonly symbols: readonly string[];
}

export interface FloodResult {
  readonly name: string;
  /** The ordinary caller's latencies, ms, sorted. */
  readonly ordinary: readonly number[];
  /** Flood answers by status. */
  readonly statuses: Readonly<Record<number, number>>;
}

/** The pth percentile of sorted values (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** One kind of flood: how many connections, and what each sends (`i` counts its requests). */
interface FloodKind {
  readonly name: string;
  /** Accounts and connections per account. */
  readonly accounts: number;
  readonly connections: number;
  readonly tier: "free" | "plus";
  send(target: FloodTarget, key: string, i: number): Promise<Response>;
}

const post = (target: FloodTarget, path: string, body: string, key: string): Promise<Response> =>
  fetch(`${target.url}${path}`, { method: "POST", body, headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" } });

const head = (target: FloodTarget): string => `market = "${target.market}"\ntimeframe = ${target.timeframe}\n`;

/** About 3,990 tokens (within the 4,000 the service takes): the most parsing a valid query costs. */
function longValidQuery(target: FloodTarget, i: number): string {
  const arms = Array.from({ length: 568 }, (_, k) => `close > sma(${2 + ((k + i) % 200)})`);
  return `${head(target)}// validate flood ${i}\n${arms.join(" or\n")}`;
}

/** 64 KiB of `close > sma(n) or …` after `header`: half a second of parsing without the cost guard, refused at its 4,001st token with it. */
export function overLongQuery(header: string): string {
  let text = header;
  for (let k = 0; text.length < 64 * 1024 - 64; k++) text += `close > sma(${2 + (k % 200)}) or\n`;
  return `${text}close > 0`;
}

/**
 * The sum of 290 distinct wma(n): a cost of 87,582, near the 100,000 budget, and every term
 * computed for every instrument (an `or` of comparisons would stop at the first true one).
 */
function heavyRun(target: FloodTarget, i: number): string {
  const terms = Array.from({ length: 290 }, (_, k) => `wma(${2 + k})`);
  return `${head(target)}// heavy run ${i}\n${terms.join(" + ")} > 0`;
}

/** The attack's amplifying histories, within the price: 8 columns over 1,000 bars, and 58 KB of column names over 4. */
function amplifyingHistory(target: FloodTarget, i: number): { path: string; body: string } {
  if (i % 2 === 0) {
    const columns = ["open", "high", "low", "close", "volume", "hl2", "hlc3", "ohlc4"].join(", ");
    return { path: "/xql/history?bars=1000", body: `${head(target)}// amplification ${i}\ncolumns = [${columns}]\ntrue` };
  }
  const columns = Array.from({ length: 50 }, (_, k) => `close + ${k} // ${i} ${"x".repeat(1100)}\n`).join(", ");
  return { path: "/xql/history?bars=4", body: `${head(target)}columns = [${columns}]\ntrue` };
}

export const FLOODS: readonly FloodKind[] = [
  {
    name: "GET /xql/bars, 16 connections, one free key",
    accounts: 1,
    connections: 16,
    tier: "free",
    send: (target, key, i) =>
      fetch(`${target.url}/xql/bars?market=${target.market}&symbol=${target.symbols[i % target.symbols.length]}&timeframe=${target.timeframe}&bars=5000`, {
        headers: { authorization: `Bearer ${key}` },
      }),
  },
  {
    name: "POST /xql/validate of ~4,000-token queries, 64 connections, one free key",
    accounts: 1,
    connections: 64,
    tier: "free",
    send: (target, key, i) => post(target, "/xql/validate", longValidQuery(target, i), key),
  },
  {
    name: "heavy runs (cost ~88,000), five accounts × 8 connections",
    accounts: 5,
    connections: 8,
    tier: "plus",
    send: (target, key, i) => post(target, "/xql/run", heavyRun(target, i), key),
  },
  {
    name: "64 KiB queries over the token limit on validate and run (the cost guard refuses them), one free key, 2 connections",
    accounts: 1,
    connections: 2,
    tier: "free",
    send: (target, key, i) => post(target, i % 2 === 0 ? "/xql/validate" : "/xql/run", overLongQuery(head(target)), key),
  },
  {
    name: "history amplification (16 MiB answers refused), one key, 8 connections",
    accounts: 1,
    connections: 8,
    tier: "plus",
    send: (target, key, i) => {
      const { path, body } = amplifyingHistory(target, i);
      return post(target, path, body, key);
    },
  },
];

/** The ordinary caller's screen: small, evaluated every time (a new comment). */
function ordinaryQuery(target: FloodTarget, i: number): string {
  return `${head(target)}// ordinary ${i}\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 5\nrsi(14) < 101`;
}

/** The ordinary caller alone for `ms` and at least `runs` runs: its latencies, sorted. */
export async function ordinaryAlone(target: FloodTarget, ms: number, runs = 1): Promise<number[]> {
  const key = await target.key("plus");
  return ordinaryFor(target, key, ms, runs);
}

/** Runs the ordinary caller's screen for `ms` and at least `runs` times (a slow machine still gives a sample). */
async function ordinaryFor(target: FloodTarget, key: string, ms: number, runs: number): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + ms;
  for (let i = 0; performance.now() < until || i < runs; i++) {
    const started = performance.now();
    const response = await post(target, "/xql/run", ordinaryQuery(target, i), key);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`the ordinary caller's run answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/**
 * Runs one flood for `ms` with the ordinary caller beside it, for at least `runs` of its runs.
 * Measuring starts once the flood is at full strength: every flood connection has had an
 * answer (so each is sending), and at least `warmupMs` has passed since it began (the bench's
 * longer warm-up; the test gives 0 and waits on the answers alone).
 */
export async function underFlood(target: FloodTarget, kind: FloodKind, ms: number, warmupMs = 0, runs = 1): Promise<FloodResult> {
  const keys = await Promise.all(Array.from({ length: kind.accounts }, () => target.key(kind.tier)));
  const ordinaryKey = await target.key("plus");
  const statuses: Record<number, number> = {};
  let flooding = true;
  let count = 0;
  const answered = new Signal();
  let connectionsAnswered = 0;
  const connection = async (key: string): Promise<void> => {
    let first = true;
    while (flooding) {
      try {
        const response = await kind.send(target, key, count++);
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      } catch {
        statuses[0] = (statuses[0] ?? 0) + 1;
      }
      if (first) connectionsAnswered++;
      first = false;
      answered.notify();
    }
  };
  const started = performance.now();
  const floods = keys.flatMap((key) => Array.from({ length: kind.connections }, () => connection(key)));
  try {
    // Looked at each time a flood request is answered: no sleep, the flood's own answers pace it.
    await until(() => connectionsAnswered === floods.length && performance.now() - started >= warmupMs, {
      signal: answered,
      what: `every one of the ${floods.length} flood connections answered once`,
      // 64 connections of 4,000-token queries take seconds to be answered once each on a loaded
      // machine: a guard well past that, inside the test's minute.
      timeoutMs: 40_000,
    });
    const ordinary = await ordinaryFor(target, ordinaryKey, ms, runs);
    return { name: kind.name, ordinary, statuses };
  } finally {
    flooding = false;
    await Promise.all(floods);
  }
}
