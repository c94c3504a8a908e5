/**
 * docs/architecture.md's recipe for a new built-in, done for real in a copy of the repository:
 * one module file, one test file, `npm run gen` (scripts/gen.ts). Before gen the freshness check
 * fails; after it the module is listed, documented, coloured and snapshotted, and the module's
 * own test, the generic module tests (its stepper among them) and the golden corpus pass in the
 * copy. Then a missing
 * snapshot makes the golden test fail, without the test writing it.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const COPY = mkdtempSync(join(tmpdir(), "xql-recipe-"));
afterAll(() => rmSync(COPY, { recursive: true, force: true }));

const MODULE = `import type { FunctionModule, Kernel } from "../module.js";

/** Midpoint of the window's highest and lowest value (a Donchian midline of one series). */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  for (let i = from; i < to; i++) {
    if (i < n - 1) {
      out[i] = NaN;
      continue;
    }
    let hi = -Infinity;
    let lo = Infinity;
    for (let j = i - n + 1; j <= i; j++) {
      hi = Math.max(hi, x[j]!);
      lo = Math.min(lo, x[j]!);
    }
    out[i] = (hi + lo) / 2;
  }
};

export const midrange: FunctionModule = {
  name: "midrange",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "Midpoint of the highest and lowest of the last n values (source defaults to close).",
  example: "close > midrange(20)",
  reference: "(highest(src, n) + lowest(src, n)) / 2",
  phrases: [
    {
      category: "Highs, lows and breakouts",
      phrase: "above the middle of its 20-bar range",
      query: "close > midrange(20)",
      notes: "Close above the midpoint of the highest and lowest close of the last 20 bars.",
    },
  ],
};
`;

const TEST = `import { describe, expect, it } from "vitest";
import { midrange } from "../../../src/functions/builtins/midrange.js";
import { PLAIN, checkContract, evaluate, expectClose, inputsOf, series, windowMax, windowMin } from "../../kit/index.js";

describe("midrange", () => {
  it("works a hand example: closes 3, 1, 4, 1, 5 over 3 bars", () => {
    expect(Array.from(evaluate(midrange, [Float64Array.from([3, 1, 4, 1, 5])], [3]))).toEqual([NaN, NaN, 2.5, 2.5, 3]);
  });

  it("is (max + min) / 2 of the window at every bar and keeps the kernel contract", () => {
    for (const bars of PLAIN) {
      const expected = series(bars.close.length, 19, (i) => (windowMax(bars.close, i, 20) + windowMin(bars.close, i, 20)) / 2);
      expectClose(checkContract(midrange, inputsOf(midrange, bars), [20]), expected, { rel: 1e-15, floor: 1e-300 }, "midrange(20)");
    }
  });
});
`;

function inCopy(command: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; output: string } {
  const r = spawnSync(command, args, { cwd: COPY, encoding: "utf8", env: { ...process.env, ...env }, timeout: 600_000 });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

const vitest = (...files: string[]) => inCopy("npx", ["vitest", "run", "--project", "unit", ...files]);
const read = (path: string): string => readFileSync(join(COPY, path), "utf8");

// Child processes on a shared machine: minutes, not the default 30 s.
describe("adding a built-in: one module, one test, npm run gen", { timeout: 600_000 }, () => {
  it("copies the repository and writes the module and its test", () => {
    for (const entry of ["package.json", "tsconfig.json", "vitest.config.ts", "README.md", "src", "scripts", "test", "docs", "grammar", "editors"]) {
      cpSync(join(ROOT, entry), join(COPY, entry), { recursive: true });
    }
    symlinkSync(join(ROOT, "node_modules"), join(COPY, "node_modules"));
    writeFileSync(join(COPY, "src/functions/builtins/midrange.ts"), MODULE);
    writeFileSync(join(COPY, "test/functions/builtins/midrange.test.ts"), TEST);
  });

  it("is stale before npm run gen: the freshness check names the module list", () => {
    const r = vitest("test/scripts/gen.test.ts");
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("src/functions/builtins/index.ts is out of date: run npm run gen");
  });

  it("npm run gen lists, documents, colours and snapshots the module", () => {
    const r = inCopy("npx", ["tsx", "scripts/gen.ts"]);
    expect(r.status, r.output).toBe(0);
    expect(read("src/functions/builtins/index.ts")).toMatch(/import \{ midrange \} from "\.\/midrange\.js";[\s\S]*\n {2}midrange,\n\];/);
    expect(read("docs/functions.md")).toContain("### `midrange`");
    expect(read("docs/phrases.md")).toContain("| above the middle of its 20-bar range");
    expect(read("grammar/xql.tmLanguage.json")).toContain("midrange");
    expect(read("editors/vscode/syntaxes/xql.tmLanguage.json")).toContain("midrange");
    expect(existsSync(join(COPY, "test/golden/expected/modules/midrange.json"))).toBe(true);
    // A second run has nothing left to do.
    expect(inCopy("npx", ["tsx", "scripts/gen.ts"]).output).toContain("every generated file is up to date");
  });

  it("then the module's test, the generic module tests, the freshness check and the golden corpus pass", () => {
    const r = vitest(
      "test/functions/builtins/midrange.test.ts",
      "test/functions/modules.test.ts",
      "test/functions/contract.test.ts",
      "test/functions/lookback.test.ts",
      "test/functions/stepper.test.ts",
      "test/scripts/gen.test.ts",
      "test/golden",
      "test/phrases",
    );
    expect(r.status, r.output.slice(-4000)).toBe(0);
  });

  it("the golden test fails on a missing snapshot and does not write it", () => {
    rmSync(join(COPY, "test/golden/expected/modules/midrange.json"));
    const r = vitest("test/golden/golden.test.ts");
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("test/golden/expected/modules/midrange.json is missing");
    expect(existsSync(join(COPY, "test/golden/expected/modules/midrange.json"))).toBe(false);
  });
});
