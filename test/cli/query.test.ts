/** `xql validate` and `xql explain`, run as the real command line. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { explain, validate } from "../../src/api.js";
import { ROOT, xql as run } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "xql-query-cli-"));
const VALID = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nlet avgv = avg(volume, 20)\nrsi(14) < 30 and volume > avgv * 2 and close > d::sma(200)';
const INVALID = 'market = "FOREX"\ntimeframe = h1\nrsii(14) < 30';

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `npx tsx src/cli/main.ts ...args`, exactly as a user would run it from a checkout (slow: npx). */
function npxXql(args: string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync("npx", ["tsx", "src/cli/main.ts", ...args], { cwd: ROOT, input: input ?? "", encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same command line through node and tsx's loader directly, for the other cases. */
const xql = (args: string[], input?: string) => run(args, { input: input ?? "" });

describe("through npx tsx", () => {
  it("validates a file and a query on standard input", () => {
    const ok = npxXql(["validate", file("npx.xql", VALID)]);
    expect(ok).toMatchObject({ code: 0, stdout: '{"valid":true}\n' });
    const bad = npxXql(["validate", "-"], INVALID);
    expect(bad).toMatchObject({ code: 1, stdout: `${JSON.stringify(validate(INVALID))}\n` });
  });
});

describe.concurrent("xql validate", () => {
  it("prints {\"valid\":true} and exits 0 for a valid file", async () => {
    const r = await xql(["validate", file("valid.xql", VALID)]);
    expect(r.stdout).toBe('{"valid":true}\n');
    expect(r.code).toBe(0);
  });

  it("prints the 400 body and exits 1 for an invalid query on standard input", async () => {
    const r = await xql(["validate", "-"], INVALID);
    expect(JSON.parse(r.stdout)).toEqual(validate(INVALID));
    expect(r.stdout).toBe(`${JSON.stringify(validate(INVALID))}\n`);
    expect(r.code).toBe(1);
  });

  it("reads standard input when no FILE is given", async () => {
    const r = await xql(["validate"], VALID);
    expect(r.stdout).toBe('{"valid":true}\n');
  });

  it("takes --ceiling and --markets", async () => {
    const query = 'market = "nyse"\ntimeframe = d\nclose > sma(400)';
    expect(JSON.parse((await xql(["validate", "--markets", "NYSE,NASDAQ", "--ceiling", "400"], query)).stdout)).toEqual({ valid: true });
    const r = await xql(["validate", "--ceiling=10"], 'market = "FOREX"\ntimeframe = h1\nrsi(14) < 30');
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, error: { type: "plan", message: "Lookback of 15 bars on timeframe h1 exceeds the ceiling of 10 bars" } });
    expect(r.code).toBe(1);
  });

  it("rejects a bad option with usage and exit 2", async () => {
    const r = await xql(["validate", "--ceiling", "zero"], VALID);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--ceiling must be a positive integer");
    expect(r.stdout).toBe("");
  });

  it("has --help with examples", async () => {
    const r = await xql(["validate", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: xql validate [FILE|-]");
    expect(r.stdout).toContain("Examples:");
  });
});

describe.concurrent("xql explain", () => {
  it("prints the plan and explanation and exits 0", async () => {
    const r = await xql(["explain", file("explain.xql", VALID)]);
    expect(r.stdout).toBe(`${JSON.stringify(explain(VALID))}\n`);
    expect(Object.keys(JSON.parse(r.stdout))).toEqual(["plan", "explanation"]);
    expect(r.code).toBe(0);
  });

  it("prints the 400 body and exits 1 on a query error", async () => {
    const r = await xql(["explain", "-"], "");
    expect(JSON.parse(r.stdout)).toEqual({
      valid: false,
      error: { type: "syntax", message: "Missing condition: a query ends with a boolean condition, such as rsi(14) < 30", position: { line: 1, column: 1, offset: 0 } },
    });
    expect(r.code).toBe(1);
  });

  it("has --help with examples", async () => {
    const r = await xql(["explain", "--help"]);
    expect(r.stdout).toContain("Usage: xql explain [FILE|-]");
    expect(r.stdout).toContain("--markets A,B");
  });
});
