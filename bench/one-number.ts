/**
 * One number per bar (issue 28) benchmark (not a test). Run: `npm run bench:one-number`.
 *
 * Every figure is a ratio against one run of one screen over the same 10,000 instruments,
 * measured in the same process, interleaved with what it is compared to (medians):
 *
 * 1. **History**: `history` over 1,000 bars of a 3-indicator screen (rsi, ema, adx) from each
 *    bar's anchors (the service's path, `historyAnchoredAsync`), against a run of that screen
 *    (`runAnchoredAsync`), both over the same store-shaped bars in memory (BENCH_SYMBOLS
 *    instruments × (1,000 + the anchors' reach) h1 bars). Target ≤ 3×.
 * 2. **Alert round**: a SQLite store of BENCH_SYMBOLS × BENCH_BARS h1 bars behind the service's
 *    hot tier; 100 distinct screens (crosses, breakouts, extremes) followed by `evaluateGroup`
 *    with carried passes (eval/carry.ts). A bar of every instrument is written, a round
 *    evaluates it (the passes from the anchor are made and saved), and then for each of
 *    BENCH_ROUNDS more bars the round is timed: read through the tier, one step per indicator per
 *    symbol, each screen's slots stepped across its symbols (eval/round.ts). Against a run of
 *    the rsi screen read through the same tier (`fetchAnchored` +
 *    `runAnchoredAsync`, what `POST /xql/run` does under HTTP). Beside it, the same round without
 *    carried passes (a pass from the anchor per screen and symbol). Target ≤ 5×.
 * 3. **Run**: the store's run (`fetchAnchored` + `runAnchoredAsync`: bars from each bar's
 *    anchors) against the run before anchors (`fetchUniverse` of the fetch F + `runAsync` over
 *    it), through the same tier. Target ≤ 1.3×.
 *
 * Options (environment): BENCH_SYMBOLS (10000), BENCH_BARS (300), BENCH_ROUNDS (3),
 * BENCH_WINDOW (1000), BENCH_REPEAT (5), BENCH_PARTS (the parts to run, comma-separated: "1",
 * "2,3"; default all; 2 and 3 are measured together), BENCH_BARE=1 (the alert screens without
 * their indicator columns: `alertScreen(k, true)`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile, historyAnchoredAsync, runAnchoredAsync, type CompiledQuery } from "../src/api.js";
import { type Screen, evaluateGroup } from "../src/alerts/evaluate.js";
import { CarryStore } from "../src/eval/carry.js";
import { fetchAnchored, fetchUniverse } from "../src/fetch/fetch.js";
import { HotTier } from "../src/store/hot-tier.js";
import { SqliteStore } from "../src/open/sqlite.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import { alertScreen, asStoreBars, barBatch, loadAverage, median } from "./common.js";

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 10_000);
const BARS = Number(process.env.BENCH_BARS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 1000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const BARE = process.env.BENCH_BARE === "1";
const PARTS = new Set((process.env.BENCH_PARTS ?? "1,2,3").split(",").map((p) => p.trim()));
const HOUR = 3_600_000;

const HEAD = 'market = "CRYPTO"\ntimeframe = h1\n';
const THREE = `${HEAD}columns = [rsi(14), ema(close, 50), adx(14)]\nrsi(14) < 35 and close > ema(close, 50) and adx(14) > 20`;
const RSI = `${HEAD}columns = [close, rsi(14)]\nrsi(14) < 30`;

const ms = (x: number): string => `${x.toFixed(0)} ms`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

async function timed<T>(f: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function history(): Promise<void> {
  const three = compile(THREE);
  // Every window bar's anchors hold their bars: the window, and (g + 1)·F + a few before it.
  const before = 2 * three.fetch[0]!.bars + 8;
  const universe = asStoreBars(syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: WINDOW + before, seed: 11 }));
  const runs: number[] = [];
  const histories: number[] = [];
  for (let r = 0; r < REPEAT; r++) {
    runs.push(await timed(() => runAnchoredAsync(three, universe)));
    histories.push(await timed(() => historyAnchoredAsync(three, universe, { bars: WINDOW })));
  }
  const run = median(runs);
  const hist = median(histories);
  // The anchor rule's floor: bars a history evaluates (each pass from its anchor to its last
  // window bar) over those a run evaluates (from the latest bar's anchor), on a gapless series.
  const time = universe[0]!.bars.h1!.time;
  const last = time.length - 1;
  const fromAnchor = (i: number): number => (Number(time[i]) - three.anchor("h1", Number(time[i]))) / HOUR + 1;
  let passBars = 0;
  let passes = 0;
  for (let i = last - WINDOW + 1; i <= last; i++) {
    const endsPass = i === last || three.anchor("h1", Number(time[i + 1])) !== three.anchor("h1", Number(time[i]));
    if (endsPass) {
      passBars += fromAnchor(i);
      passes++;
    }
  }
  console.log(`1. history(${WINDOW}) of the 3-indicator screen, ${SYMBOLS} instruments × ${WINDOW + before} h1 bars (${loadAverage()}):`);
  console.log(`   one run ${ms(run)} (${runs.map(ms).join(", ")}); history ${ms(hist)} (${histories.map(ms).join(", ")})`);
  console.log(`   history / run: ${ratio(hist, run)} (target ≤ 3×)`);
  console.log(`   the anchor rule's floor: ${passes} passes evaluate ${passBars} bars where a run evaluates ${fromAnchor(last)} (F = ${three.fetch[0]!.bars}): ${ratio(passBars, fromAnchor(last))} the kernel work`);
}

async function rounds(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "xql-bench-one-number-"));
  const store = new SqliteStore(join(dir, "xql.db"));
  try {
    const universe = syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: BARS + ROUNDS + 2, seed: 7 });
    await store.upsertBars([barBatch(universe, 0, BARS)]);
    const cache = new HotTier(store);
    const options = { warmup: 300, cache, graceMs: 0 };
    const compiled: CompiledQuery[] = Array.from({ length: 100 }, (_, k) => compile(alertScreen(k, BARE)));
    const latest = universe[0]!.bars.h1!.time[BARS - 1]!;
    const follow = (id: string): Screen[] => compiled.map((c, k) => ({ id: `${id}${k}`, query: alertScreen(k, BARE), compiled: c, lastTime: latest, matching: [] }));
    const carried = follow("carried");
    const fresh = follow("fresh");
    const carry = new CarryStore();
    const step = async (screens: Screen[], now: number, withCarry: boolean): Promise<void> => {
      const { bars } = await evaluateGroup(store, screens, now, withCarry ? { ...options, carry } : options);
      for (const s of screens) {
        const evaluated = bars.get(s.id) ?? [];
        const last = evaluated[evaluated.length - 1];
        if (last) {
          s.lastTime = last.time;
          s.matching = last.matching;
        }
      }
    };
    const rsi = compile(RSI);
    const storeRun = async (): Promise<void> => {
      const lease = cache.lease();
      try {
        const bars = await fetchAnchored(store, rsi.plan, { warmup: 300, cache, lease, fetch: rsi.fetch, anchorSources: rsi.fetch });
        await runAnchoredAsync(rsi, bars);
      } finally {
        lease.release();
      }
    };
    const oldRun = async (): Promise<void> => {
      const lease = cache.lease();
      try {
        const bars = await fetchUniverse(store, rsi.plan, { warmup: 300, cache, lease, fetch: rsi.fetch });
        await rsi.runAsync(bars);
      } finally {
        lease.release();
      }
    };
    // The first new bar: the passes are made from the anchor and saved.
    await store.upsertBars([barBatch(universe, BARS, BARS + 1)]);
    let now = universe[0]!.bars.h1!.time[BARS]! + HOUR;
    await step(carried, now, true);
    await step(fresh, now, false);
    const carriedMs: number[] = [];
    const freshMs: number[] = [];
    const runMs: number[] = [];
    const oldMs: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      await store.upsertBars([barBatch(universe, BARS + r, BARS + r + 1)]);
      now = universe[0]!.bars.h1!.time[BARS + r]! + HOUR;
      // The tier reads the new bar once, before either is timed.
      await storeRun();
      runMs.push(await timed(storeRun));
      oldMs.push(await timed(oldRun));
      // Which goes first alternates: the first evaluation after a write pays for what the tier reads lazily.
      if (r % 2 === 1) {
        carriedMs.push(await timed(() => step(carried, now, true)));
        freshMs.push(await timed(() => step(fresh, now, false)));
      } else {
        freshMs.push(await timed(() => step(fresh, now, false)));
        carriedMs.push(await timed(() => step(carried, now, true)));
      }
      runMs.push(await timed(storeRun));
      oldMs.push(await timed(oldRun));
    }
    const counts = carry.counts();
    const run = median(runMs);
    console.log(`\n2. an alert round for a new bar, 100 distinct screens${BARE ? " (bare: no indicator columns)" : ""}, ${SYMBOLS} instruments × ${BARS}+ h1 bars in SQLite behind the hot tier (${loadAverage()}):`);
    console.log(`   one run of the rsi screen (read + evaluate) ${ms(run)} (${runMs.map(ms).join(", ")})`);
    console.log(`   round with carried passes ${ms(median(carriedMs))} (${carriedMs.map(ms).join(", ")}): ${ratio(median(carriedMs), run)} one run (target ≤ 5×)`);
    console.log(`   round with a pass from the anchor per screen ${ms(median(freshMs))} (${freshMs.map(ms).join(", ")}): ${ratio(median(freshMs), run)} one run`);
    console.log(`   carried passes: ${counts.symbols} (screen, symbol) held, ${counts.restored} bars taken in a step (${counts.across} of them across symbols), ${counts.fresh} passes from the anchor, ${counts.shared} call steps taken from another screen's`);
    console.log(`\n3. the store's run from anchors ${ms(run)} against the run before anchors (fetch F, run over it) ${ms(median(oldMs))} (${oldMs.map(ms).join(", ")}): ${ratio(run, median(oldMs))} (target ≤ 1.3×)`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}; ${loadAverage()}\n`);
  if (PARTS.has("1")) await history();
  if (PARTS.has("2") || PARTS.has("3")) await rounds();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
