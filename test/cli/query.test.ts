/** `xql validate` and `xql explain`, run as the real command line. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { explain, validate } from "../../src/api.js";
import { xqlIn } from "./in-process.js";

const dir = mkdtempSync(join(tmpdir(), "xql-query-cli-"));
const VALID = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nlet avgv = avg(volume, 20)\nrsi(14) < 30 and volume > avgv * 2 and close > d::sma(200)';
const INVALID = 'market = "FOREX"\ntimeframe = h1\nrsii(14) < 30';

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The command line in this process, through main(argv, io). */
const xql = (args: string[], input?: string) => xqlIn(args, { input: input ?? "" });

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

  it("rejects an unknown option with a did-you-mean over its own options, exit 2", async () => {
    const r = await xql(["validate", "--formt", "table"], VALID);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toMatch(/^xql validate: unknown option '--formt', did you mean '--format'\? \(options: --format --ceiling --markets\)\n/);
    const flag = await xql(["validate", "--bogus"], VALID);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--bogus'/);
    expect((await xql(["validate", "--format"], VALID)).stderr).toMatch(/--format needs a value/);
    expect((await xql(["validate", "--format", "yaml"], VALID)).stderr).toMatch(/unknown format 'yaml'/);
    expect((await xql(["validate", "a.xql", "b.xql"])).stderr).toMatch(/at most one FILE; unexpected 'b.xql'/);
  });

  it("shows the source line and a caret under the mistake with --format table, or on a terminal", async () => {
    const query = 'market = "FOREX"\ntimeframe = h1\nlet avgv = avg(volume, 20)\n\tvolume > avgw';
    const table = await xqlIn(["validate", "--format", "table"], { input: query });
    expect(table.code).toBe(1);
    expect(table.stdout).toBe("");
    expect(table.stderr).toBe(
      "syntax error at <stdin>:4:11: Unknown identifier 'avgw', did you mean 'avgv'?\n 4 | \tvolume > avgw\n   | \t         ^\n",
    );
    // JSON stays on standard output for scripts; a terminal on standard error also gets the caret.
    const tty = await xqlIn(["validate", file("caret.xql", query)], { tty: true });
    expect(JSON.parse(tty.stdout)).toEqual(validate(query));
    expect(tty.stderr).toContain(`syntax error at ${join(dir, "caret.xql")}:4:11:`);
    const pipe = await xqlIn(["validate", "-"], { input: query });
    expect(pipe.stderr).toBe("");
    const plan = await xqlIn(["validate", "--format", "table", "--ceiling", "10"], { input: VALID });
    expect(plan.stderr).toBe("plan error in <stdin>: Lookback of 20 bars on timeframe h1 exceeds the ceiling of 10 bars\n");
  });

  it("names a missing file or a directory in one line, exit 1", async () => {
    const missing = await xql(["validate", join(dir, "nope.xql")]);
    expect(missing).toEqual({ code: 1, stdout: "", stderr: `xql validate: no such file: ${join(dir, "nope.xql")}\n` });
    const directory = await xql(["validate", dir]);
    expect(directory.stderr).toBe(`xql validate: ${dir} is a directory, not a file\n`);
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

  it("prints the plan as a table or CSV", async () => {
    const table = await xql(["explain", "--format", "table"], VALID);
    expect(table.stdout).toMatch(/^market: FOREX\ntimeframe +series +minLookback\n/);
    expect(table.stdout).toContain((explain(VALID) as { explanation: string }).explanation);
    const csv = await xql(["explain", "--format", "csv"], VALID);
    expect(csv.stdout).toBe("timeframe,series,minLookback\nh1,close volume,20\nd,close,200\n");
  });
});
