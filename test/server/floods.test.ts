/**
 * An ordinary caller beside each flood of issue 24 (decisions §2 "Fair use"), against a real
 * server on loopback over a real SQLite file: it is served throughout, and every flood request
 * is answered or refused, never failed. Its latency (p99 under 500 ms on an idle machine
 * whatever others send) is a speed target: printed here, measured by `npm run bench:server`
 * (section 4) on an idle machine, recorded in docs/performance.md. A flood that held the
 * service's only thread (one 58 KB history did for 40–98 s before) leaves the caller's runs
 * unfinished by the test's time limit.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLOODS, ordinaryAlone, percentile, underFlood, type FloodTarget } from "./floods.js";
import { startServer, writeCryptoMarket, type Running } from "./helpers.js";
import { tempDir } from "../kit/index.js";

const scratch = tempDir();
let server: Running;
let target: FloodTarget;

beforeAll(async () => {
  const file = join(scratch.dir, "xql.db");
  await writeCryptoMarket(join(scratch.dir, "market.db"), 120, 1100);
  copyFileSync(join(scratch.dir, "market.db"), file);
  server = await startServer({ file, dir: scratch.dir, seed: false });
  target = {
    url: server.url,
    key: async (tier) => (await server.key(tier)).key,
    market: "CRYPTO",
    timeframe: "h1",
    symbols: await server.store.symbols("CRYPTO"),
  };
}, 120_000);
afterAll(async () => {
  await server?.stop();
  scratch.cleanup();
});

const ms = (value: number): string => `${value.toFixed(0)} ms`;

describe("an ordinary caller under floods", () => {
  it("is measured alone first", async () => {
    const alone = await ordinaryAlone(target, 1000, 8);
    console.log(`ordinary caller alone: ${alone.length} runs, p50 ${ms(percentile(alone, 50))}, p99 ${ms(percentile(alone, 99))}`);
    expect(alone.length).toBeGreaterThanOrEqual(8);
  }, 30_000);

  it.each(FLOODS.map((kind) => [kind.name, kind] as const))("is served beside: %s", async (_name, kind) => {
    // At least 8 runs beside it, however slow a shared machine makes them.
    const result = await underFlood(target, kind, 2000, 0, 8);
    const p99 = percentile(result.ordinary, 99);
    console.log(
      `${kind.name}: ordinary caller ${result.ordinary.length} runs, p50 ${ms(percentile(result.ordinary, 50))}, p99 ${ms(p99)}; flood answers ${JSON.stringify(result.statuses)}`,
    );
    expect(result.ordinary.length).toBeGreaterThanOrEqual(8);
    // The flood was served (or refused) throughout, never failed.
    expect(result.statuses[500] ?? 0).toBe(0);
    expect(result.statuses[0] ?? 0).toBe(0);
  }, 60_000);
});
