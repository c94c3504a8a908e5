/**
 * docs/functions.md's recipe for a new built-in ("Add a built-in", written in
 * scripts/gen/add-a-built-in.md), followed step by step in a scratch copy of the repository,
 * never in the working tree: two existing modules are copied under new names, `count` as
 * `tally` (a condition argument, a resumable running count: `stateSize`, `rangeIndependent`),
 * `zscore` as `zdev` (undefined on flat windows and, with n = 1, on any data: step 6) and `sum`
 * as `total` (TA-Lib's SUM: step 5), each with its test and its conformance column, the oracle's
 * definition where TA-Lib has none; then `npm run gen`, then the recipe's own test command,
 * which runs every suite that reads the registry (the conformance corpus with its "calls every
 * built-in" check, the golden corpus, the TA-Lib comparison, the module, contract, stepper,
 * lookback and flat-window tests, ...). The one step not done as written is running
 * `scripts/reference/build.sh` (it downloads and compiles TA-Lib): its cases are added to
 * generate.py, which must still parse, and the fixtures it would write for `total` are SUM's,
 * so `sum`'s cases are copied under the new name in its place. The test checks the recipe
 * names each file it edits and each command it runs, so a step the docs leave out fails here.
 * Between the steps it checks that gen, conformance and the module test fail where the steps
 * are not yet done, and that the golden test never writes a snapshot.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../kit/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const { dir: COPY, cleanup } = tempDir("xql-recipe-");
afterAll(() => cleanup());

const RECIPE = readFileSync(join(ROOT, "scripts/gen/add-a-built-in.md"), "utf8");

/** A module copied under a new name: its call in the conformance corpus, and which of steps 5 and 6 apply. */
interface Copy {
  readonly from: string;
  readonly to: string;
  /** The call of `from` in a conformance case over the TA-Lib fixtures. */
  readonly call: string;
  /** Its reference is a TA-Lib function (step 5); otherwise the oracle defines it (step 4). */
  readonly talib?: true;
  /** Undefined on flat bars and, on some ordinary data, after bar L − 1 (step 6). */
  readonly undefinedOnData?: true;
}

const COPIES: readonly Copy[] = [
  { from: "count", to: "tally", call: "count(close > open, 10)" },
  { from: "zscore", to: "zdev", call: "zscore(20)", undefinedOnData: true },
  { from: "sum", to: "total", call: "sum(10)", talib: true },
];
const FIXTURES = "test/reference/fixtures";

/** The files the recipe has a contributor edit by hand (steps 1, 3, 4, 6), for `name`. */
const HAND_EDITED = [
  "src/functions/builtins/<name>.ts",
  "test/functions/builtins/<name>.test.ts",
  "test/conformance/functions.json",
  "test/conformance/oracle.ts",
  "scripts/reference/generate.py",
  "test/reference/exact.ts",
  "docs/functions-reference.md",
  "test/functions/lookback.test.ts",
];

/** Step 8's command, as the recipe writes it. */
const TEST_COMMAND = /`(npx vitest run [^`]+)`/.exec(RECIPE)?.[1];

const renamed = (text: string, { from, to }: Copy): string => text.replace(new RegExp(`\\b${from}\\b`, "g"), to);
const path = (file: string): string => join(COPY, file);
const read = (file: string): string => readFileSync(path(file), "utf8");
const edit = (file: string, change: (text: string) => string): void => {
  const before = read(file);
  const after = change(before);
  expect(after, `${file} unchanged`).not.toBe(before);
  writeFileSync(path(file), after);
};

function inCopy(command: string, args: readonly string[]): { status: number | null; output: string } {
  const r = spawnSync(command, args, { cwd: COPY, encoding: "utf8", timeout: 600_000 });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}
const vitest = (...files: string[]) => inCopy("npx", ["vitest", "run", ...files]);
const gen = () => inCopy("npm", ["run", "gen", "--silent"]);

/** The lines of `text` from the one starting with `start` to the first after it equal to `end` (or that line alone when it ends in `,`). */
function block(text: string, start: string, end: string): string {
  const lines = text.split("\n");
  const first = lines.findIndex((line) => line.startsWith(start));
  expect(first, start).toBeGreaterThanOrEqual(0);
  if (lines[first]!.endsWith(",")) return lines[first]!;
  const last = lines.indexOf(end, first);
  return lines.slice(first, last + 1).join("\n");
}

interface ConformanceFile {
  readonly description: string;
  readonly cases: { readonly query: string; readonly result?: { readonly results: { readonly columns: Record<string, unknown> }[] } }[];
}
const conformance = (): ConformanceFile => JSON.parse(read("test/conformance/functions.json")) as ConformanceFile;

// Child processes on a shared machine: minutes, not the default 30 s.
describe("docs/functions.md, Add a built-in, followed step by step", { timeout: 600_000 }, () => {
  it("names every file this test edits by hand and every command it runs", () => {
    for (const file of HAND_EDITED) expect(RECIPE, file).toContain(file);
    expect(RECIPE).toContain("`npm run gen`");
    expect(RECIPE).toContain("`npm run gen -- --reference`");
    expect(TEST_COMMAND).toBeDefined();
    // The generated docs/functions.md carries the recipe as written.
    expect(readFileSync(join(ROOT, "docs/functions.md"), "utf8")).toContain(RECIPE);
  });

  it("copies the repository (its sources, tests, docs and generated files)", () => {
    for (const entry of ["package.json", "tsconfig.json", "vitest.config.ts", "README.md", "src", "scripts", "test", "docs", "grammar", "editors", "examples"]) {
      cpSync(join(ROOT, entry), path(entry), { recursive: true });
    }
    symlinkSync(join(ROOT, "node_modules"), path("node_modules"));
  });

  it("steps 1-3: the module under its new name, with its column line and stepper contract, and its test", () => {
    for (const copy of COPIES) {
      const module = renamed(read(`src/functions/builtins/${copy.from}.ts`), copy)
        // A phrase names one entry of the reference: the copy's are its own.
        .replace(/phrase: "([^"]*)"/g, `phrase: "$1 (${copy.to})"`);
      expect(module).toMatch(/\n {2}result: "number",\n {2}column: "\w+",\n/);
      expect(module).toContain("rangeIndependent: true");
      expect(module.includes(`reference: "TA-Lib `), copy.to).toBe(copy.talib === true);
      writeFileSync(path(`src/functions/builtins/${copy.to}.ts`), module);
      writeFileSync(path(`test/functions/builtins/${copy.to}.test.ts`), renamed(read(`test/functions/builtins/${copy.from}.test.ts`), copy));
    }
    // The running count carries its state from bar to bar (step 2).
    expect(read("src/functions/builtins/tally.ts")).toContain("stateSize: () => 2");
  });

  it("is stale before npm run gen: the freshness check names the module list", () => {
    const r = vitest("test/scripts/gen.test.ts");
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("src/functions/builtins/index.ts is out of date: run npm run gen");
  });

  it("without step 4, conformance fails: the corpus does not call the new built-ins", () => {
    expect(gen().status).toBe(0);
    const r = vitest("test/conformance/conformance.test.ts");
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/calls every built-in function/);
    for (const { to } of COPIES) expect(r.output).toContain(`'${to}'`);
  });

  it("without step 5, the module test fails: a TA-Lib reference without fixtures", () => {
    const r = vitest("test/functions/modules.test.ts");
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("total declares TA-Lib SUM: add its cases to scripts/reference/generate.py");
  });

  it("step 4: a conformance column in the case of its family, and the oracle's definition", () => {
    for (const copy of COPIES) {
      edit("test/conformance/functions.json", (text) => {
        const file = JSON.parse(text) as ConformanceFile;
        const at = file.cases.findIndex((c) => c.query.includes(`, ${copy.call}`) || c.query.includes(`[${copy.call}`));
        expect(at, copy.call).toBeGreaterThanOrEqual(0);
        const cases = file.cases.map((c, i) => (i === at ? { ...c, query: c.query.replace(copy.call, `${copy.call}, ${renamed(copy.call, copy)}`) } : c));
        return `${JSON.stringify({ ...file, cases }, null, 2)}\n`;
      });
      if (copy.talib) continue;
      edit("test/conformance/oracle.ts", (text) => {
        const definition = block(text, `  ${copy.from}: `, "  },").replace(`  ${copy.from}: `, `  ${copy.to}: `);
        const opening = "const DEFINITIONS: Readonly<Record<string, Definition>> = {\n";
        expect(text).toContain(opening);
        return text.replace(opening, `${opening}${definition}\n`);
      });
    }
  });

  it("step 5: the TA-Lib cases in generate.py, and the fixtures build.sh writes from them", () => {
    for (const copy of COPIES.filter((c) => c.talib)) {
      edit("scripts/reference/generate.py", (text) => {
        const entry = new RegExp(`\\("${copy.from}", "(\\w+)", \\[[^\\]]*\\]\\)`).exec(text)?.[0];
        expect(entry, `${copy.from}'s cases in generate.py`).toBeDefined();
        return text.replace(entry!, `${entry},\n                              ${entry!.replace(`"${copy.from}"`, `"${copy.to}"`)}`);
      });
      // Still Python: build.sh would run it.
      const parsed = inCopy("python3", ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", "scripts/reference/generate.py"]);
      expect(parsed.status, parsed.output).toBe(0);
      // What build.sh then writes for the new name: TA-Lib's output for the same TA-Lib call as the original's.
      for (const name of readdirSync(path(FIXTURES)).filter((f) => f.endsWith(".json"))) {
        const fixture = JSON.parse(read(`${FIXTURES}/${name}`)) as { cases: { function: string; call: string }[] };
        const copied = fixture.cases.filter((c) => c.function === copy.from).map((c) => ({ ...c, function: copy.to, call: renamed(c.call, copy) }));
        if (copied.length > 0) writeFileSync(path(`${FIXTURES}/${name}`), JSON.stringify({ ...fixture, cases: [...fixture.cases, ...copied] }));
      }
      // TA-Lib's running sum drifts after a volume spike; the exact value wins, by the same rule as the original's.
      edit("test/reference/exact.ts", (text) => {
        const rule = block(text, `  ${copy.from}: `, "  },");
        return text.replace(rule, `${rule}\n${rule.replace(`  ${copy.from}: `, `  ${copy.to}: `)}`);
      });
    }
  });

  it("step 6: the flat-window row and the data-dependent entry of a function undefined on some data", () => {
    for (const copy of COPIES.filter((c) => c.undefinedOnData)) {
      edit("docs/functions-reference.md", (text) => {
        const row = text.split("\n").find((line) => line.startsWith("| ") && line.includes(`\`${copy.from}\``) && line.includes(" | undefined | "));
        expect(row, `${copy.from}'s flat-window row`).toBeDefined();
        return text.replace(row!, row!.replace(`\`${copy.from}\``, `\`${copy.from}\`, \`${copy.to}\``));
      });
      edit("test/functions/lookback.test.ts", (text) => {
        const entry = block(text, `  ["${copy.from}", `, "");
        return text.replace(entry, `${entry}\n${entry.replace(`["${copy.from}"`, `["${copy.to}"`)}`);
      });
    }
  });

  it("step 7: npm run gen lists, documents, colours and snapshots the modules and computes their conformance numbers", () => {
    const r = gen();
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain("test/conformance/functions.json");
    for (const { from, to, call } of COPIES) {
      expect(read("src/functions/builtins/index.ts")).toContain(`import { ${to} } from "./${to}.js";`);
      expect(read("docs/functions.md")).toContain(`### \`${to}\``);
      expect(read("README.md")).toMatch(new RegExp(`\\b${to}\\b`));
      expect(read("docs/phrases.md")).toContain(`(${to})`);
      expect(read("grammar/xql.tmLanguage.json")).toContain(to);
      expect(read("editors/vscode/syntaxes/xql.tmLanguage.json")).toContain(to);
      expect(existsSync(path(`test/golden/expected/modules/${to}.json`))).toBe(true);
      // The copy's expected numbers, computed from the copied oracle definition, are the original's.
      const copied = renamed(call, { from, to, call });
      const rows = conformance().cases.find((c) => c.query.includes(copied))!.result!.results;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.columns[copied]).toEqual(row.columns[call]);
    }
    // A second run has nothing left to do.
    expect(gen().output).toContain("every generated file is up to date");
  });

  it("step 8: the recipe's test command passes in the copy", () => {
    const r = inCopy("npx", TEST_COMMAND!.split(" ").slice(1));
    // Vitest's report of the failures, not its list of the files that passed.
    const failures = r.output.slice(r.output.search(/(⎯+ Failed Tests|FAIL )/)).slice(0, 6000);
    expect(r.status, failures).toBe(0);
    // It ran the new modules' own tests and the conformance corpus over them.
    for (const { to } of COPIES) expect(r.output).toContain(`test/functions/builtins/${to}.test.ts`);
    expect(r.output).toContain("test/conformance/conformance.test.ts");
    expect(r.output).toContain("test/reference/talib.test.ts");
    expect(r.output).toContain("test/golden/golden.test.ts");
  });

  it("the golden test fails on a missing snapshot and does not write it", () => {
    rmSync(path("test/golden/expected/modules/tally.json"));
    const r = vitest("test/golden/golden.test.ts");
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("test/golden/expected/modules/tally.json is missing");
    expect(existsSync(path("test/golden/expected/modules/tally.json"))).toBe(false);
  });
});
