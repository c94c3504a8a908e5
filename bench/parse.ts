/**
 * Cold start and parsing speed.
 *
 * Cold start, as whole processes (needs `npm run build`): `import("xql")` plus the first
 * `validate`, timed inside a fresh node (ESM and CJS; target ≤ 60 ms), and the wall time of the
 * whole process; `xql validate q.xql` as a whole process (target ≤ 250 ms wall); `node -e 0`
 * beside them, the floor no JavaScript program goes below. Medians of BENCH_STARTS (default 15)
 * processes each, interleaved.
 *
 * Parsing: median µs per `validate` beside the bare lex + Chevrotain CST parse of the same text
 * (the floor any front end on this grammar pays), and throughput on 2, 5 and 10 KB queries to
 * show that time grows linearly with the text (10 KB is about the 4,000-token cap a query may have).
 *
 *   npm run build && npm run bench:parse
 *
 * The script bundles this file with tsup (as the package itself is built) and runs it with
 * plain node. Under tsx the Chevrotain parser built from TypeScript source runs about 3×
 * slower than the same parser from a build, which would inflate both columns and flatter
 * the ratio.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { validate } from "../src/api.js";
import { xqlParser } from "../src/syntax/parser.js";
import { tokenize } from "../src/syntax/lexer.js";
import { loadAverage, median } from "./common.js";

const SPEC_EXAMPLE =
  'market = "FOREX"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nlet avgv = avg(volume, 20)\nrsi(14) < 30 and volume > avgv * 2 and close > d::sma(200)';

/** A 100-line query: settings, 96 lets mixing every kind of expression, and a condition. */
function hundredLines(): string {
  const lines = ['market = "CRYPTO"', "timeframe = h1", "columns = [close, rsi(14), l95]"];
  const shapes = [
    (i: number) => `rsi(${(i % 20) + 2}) < ${30 + (i % 40)}`,
    (i: number) => `close > d::sma(${(i % 50) + 10}) and volume > avg(volume, ${(i % 30) + 5}) * 2`,
    (i: number) => `crossover(ema(close, ${(i % 9) + 3}), ema(close, ${(i % 21) + 13}))`,
    (i: number) => `(high - low)[${i % 5}] > atr(${(i % 14) + 2}) * 1.5 or not (close < open)`,
  ];
  for (let i = 0; i < 96; i++) lines.push(`let l${i} = ${shapes[i % 4]!(i)}`);
  lines.push("l0 and l3 or l4 and not l8");
  return lines.join("\n");
}

/** An `or` chain of comparisons and calls of about `bytes` characters. */
function sized(bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const part = i % 2 === 0 ? `close > ${i}` : `rsi(${(i % 20) + 2}) < ${i % 100}`;
    parts.push(part);
    length += part.length + 4;
  }
  return `market = "FOREX"\ntimeframe = h1\n${parts.join(" or ")}`;
}

function bareParse(text: string): void {
  const { tokens } = tokenize(text);
  const parser = xqlParser();
  parser.input = tokens;
  parser.query();
}

/**
 * Median time of one call in µs for each of `a` and `b`, after warm-up (at least 300 ms and
 * 20 calls each, so both run optimized code), over batches sized to ~5 ms. Samples of the two
 * alternate, so a busy moment on a shared machine slows both alike and the ratio holds.
 */
function medians(a: () => void, b: () => void, samples = 41): [number, number] {
  const warm = (fn: () => void): number => {
    const until = performance.now() + 300;
    for (let i = 0; i < 20 || performance.now() < until; i++) fn();
    let batch = 1;
    for (;;) {
      const t = performance.now();
      for (let i = 0; i < batch; i++) fn();
      if (performance.now() - t > 5) return batch;
      batch *= 2;
    }
  };
  const batches = [warm(a), warm(b)];
  const times: [number[], number[]] = [[], []];
  for (let s = 0; s < samples; s++) {
    [a, b].forEach((fn, k) => {
      const t = performance.now();
      for (let i = 0; i < batches[k]!; i++) fn();
      times[k]!.push(((performance.now() - t) * 1000) / batches[k]!);
    });
  }
  const mid = (xs: number[]): number => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [mid(times[0]), mid(times[1])];
}

function assertValid(text: string): void {
  const result = validate(text);
  if (!("valid" in result) || !result.valid) throw new Error(`bench query is invalid: ${JSON.stringify(result)}`);
}

/** Cold starts as whole processes: medians of in-process and wall times. */
function coldStart(): void {
  if (!existsSync("dist/index.js") || !existsSync("dist/cli/main.js")) {
    console.log("dist/ missing: run `npm run build` for the cold start figures\n");
    return;
  }
  const starts = Number(process.env.BENCH_STARTS ?? 15);
  const dir = mkdtempSync(join(tmpdir(), "xql-bench-"));
  const file = join(dir, "q.xql");
  writeFileSync(file, SPEC_EXAMPLE);
  const query = JSON.stringify(SPEC_EXAMPLE);
  // performance.now() in the child counts from its own start: import + first validate, measured
  // from inside, and the process's whole life up to that point.
  const esm = `const t = performance.now(); const { validate } = await import(${JSON.stringify(pathToFileURL(resolve("dist/index.js")).href)}); if (!validate(${query}).valid) process.exit(1); console.log(performance.now() - t);`;
  const cjs = `const t = performance.now(); const { validate } = require(${JSON.stringify(resolve("dist/index.cjs"))}); if (!validate(${query}).valid) process.exit(1); console.log(performance.now() - t);`;
  const runs: Record<string, { args: string[]; inside: number[]; wall: number[] }> = {
    "node -e 0": { args: ["-e", "0"], inside: [], wall: [] },
    'import("xql") + first validate (ESM)': { args: ["--input-type=module", "-e", esm], inside: [], wall: [] },
    'require("xql") + first validate (CJS)': { args: ["-e", cjs], inside: [], wall: [] },
    "xql validate q.xql": { args: [resolve("dist/cli/main.js"), "validate", file], inside: [], wall: [] },
  };
  for (let i = 0; i < starts; i++) {
    for (const run of Object.values(runs)) {
      const t = performance.now();
      const child = spawnSync(process.execPath, run.args, { encoding: "utf8" });
      run.wall.push(performance.now() - t);
      if (child.status !== 0) throw new Error(`${run.args.join(" ")} failed: ${child.stderr}`);
      const inside = Number(child.stdout.trim());
      if (run.args[0] !== resolve("dist/cli/main.js") && Number.isFinite(inside) && child.stdout.trim() !== "") run.inside.push(inside);
    }
  }
  const width = 42;
  console.log(`cold start, ${starts} processes each, interleaved; ${loadAverage()}`);
  console.log(`${"".padEnd(width)}  ${"inside ms".padStart(10)}  ${"wall ms".padStart(9)}  target`);
  const targets: Record<string, string> = {
    'import("xql") + first validate (ESM)': "≤ 60 ms inside",
    'require("xql") + first validate (CJS)': "",
    "xql validate q.xql": "≤ 250 ms wall",
    "node -e 0": "(the floor)",
  };
  for (const [name, run] of Object.entries(runs)) {
    const inside = run.inside.length > 0 ? median(run.inside).toFixed(1) : "";
    console.log(`${name.padEnd(width)}  ${inside.padStart(10)}  ${median(run.wall).toFixed(1).padStart(9)}  ${targets[name]}`);
  }
  const floor = median(runs["node -e 0"]!.wall);
  console.log(`xql validate over node -e 0: ${(median(runs["xql validate q.xql"]!.wall) - floor).toFixed(1)} ms more\n`);
}

coldStart();

const rows: string[][] = [];
for (const [name, text] of [
  ["spec example (7 lines)", SPEC_EXAMPLE],
  ["100-line query", hundredLines()],
] as const) {
  assertValid(text);
  const [v, bare] = medians(() => validate(text), () => bareParse(text));
  rows.push([name, `${(text.length / 1024).toFixed(1)} KB`, v.toFixed(1), bare.toFixed(1), (v / bare).toFixed(2)]);
}

const widths = [24, 8, 14, 18, 6];
const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
console.log("");
console.log(line(["query", "size", "validate µs", "bare lex+parse µs", "ratio"]));
for (const row of rows) console.log(line(row));
console.log("");

console.log(line(["throughput", "size", "validate KB/s", "bare KB/s", "ratio"]));
for (const kb of [2, 5, 10]) {
  const text = sized(kb * 1024);
  assertValid(text);
  const [v, bare] = medians(() => validate(text), () => bareParse(text), 15);
  const rate = (us: number): string => ((text.length / 1024) / (us / 1e6)).toFixed(0);
  console.log(line([`or chain, ${kb} KB`, `${(text.length / 1024).toFixed(1)} KB`, rate(v), rate(bare), (v / bare).toFixed(2)]));
}
console.log(`\nafter: ${loadAverage()}`);
