/**
 * CSV cells that a spreadsheet would run as formulas (issue 24.6, decisions §2): every CSV the
 * command line writes prefixes a text cell starting with `= + - @`, a tab or a carriage return
 * with `'`: `keys list --format csv` (a key's label), `run` and `history --format csv` (a
 * column's name as written). Numbers stay numbers.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvField, renderCsv } from "../../src/cli/report.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

describe("csvField", () => {
  it.each([
    ["=HYPERLINK(\"http://x\",\"y\")", `"'=HYPERLINK(""http://x"",""y"")"`],
    ["+1", "'+1"],
    ["-2+3+close*0", "'-2+3+close*0"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tx", "'\tx"],
    ["\rx", `"'\rx"`],
    ["close", "close"],
    ["sma(close, 20)", '"sma(close, 20)"'],
    ["a=b", "a=b"],
  ])("writes %j as %j", (text, written) => expect(csvField(text)).toBe(written));

  it("leaves numbers, negative ones too, as numbers", () => {
    expect(renderCsv(["-x", "y"], [[-2.5, null], ["=1", 3]])).toBe("'-x,y\n-2.5,\n'=1,3\n");
  });
});

describe("the CSV the command line writes", () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => ({ dir, cleanup } = tempDir()));
  afterAll(() => cleanup());

  it("keys list neutralises a label", async () => {
    const db = join(dir, "keys.db");
    const env = { HOME: join(dir, "home") };
    expect((await xqlIn(["keys", "create", "--tier", "free", "--label", '=HYPERLINK("http://evil","click")', "--db", db], { env })).code).toBe(0);
    const { code, stdout } = await xqlIn(["keys", "list", "--format", "csv", "--db", db], { env });
    expect(code).toBe(0);
    const row = stdout.trimEnd().split("\n")[1]!;
    expect(row).toContain(`"'=HYPERLINK(""http://evil"",""click"")"`);
    expect(row.split(",").some((cell) => cell.startsWith("="))).toBe(false);
  });

  it("run and history neutralise a column's name and keep its negative values as numbers", async () => {
    const file = join(dir, "q.xql");
    writeFileSync(file, 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [-2+3+close*0, close - close - 1]\nlimit = 2\ntrue');
    for (const args of [["run", file, "--synthetic", "--format", "csv"], ["history", file, "--synthetic", "--bars", "2", "--format", "csv"]]) {
      const { code, stdout, stderr } = await xqlIn(args);
      expect(code, stderr).toBe(0);
      const [header, first] = stdout.split("\n");
      expect(header, args[0]).toMatch(/,'-2\+3\+close\*0,close - close - 1$/);
      expect(first!.split(",").slice(-2)).toEqual(["1", "-1"]);
    }
  });
});
