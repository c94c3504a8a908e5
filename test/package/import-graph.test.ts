/**
 * What `import "xql"` loads, as the build sees it (esbuild's metafile of the core's entry, packages
 * left external): every file is one the runtime reads, parses and evaluates before the first
 * validate. Chevrotain's package entry alone was 720 files and most of a cold start, so the
 * graph has a stated bound, and reaches no package but Chevrotain's single-file build.
 */
import { build } from "esbuild";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The most files `import "xql"` may load. 137 when this was written: 94 of them are the
 * built-ins (one module each, so a new built-in adds one: raise this with it), one is
 * Chevrotain. 151 with the lexer and the recorded lookahead (src/syntax/lexer.ts,
 * lookahead.ts, lookahead-paths.ts), which do at less cost what Chevrotain's file did at
 * start-up. 153 with column kinds (src/check/column-kind.ts, what a table shows a column as).
 * 156 with the anchor rule (src/eval/anchor.ts), the anchored instrument the store's paths and
 * why share (src/eval/truncate.ts) and why's tree (src/eval/why.ts). 157 with carried passes
 * (src/eval/carry.ts: history takes a symbol's next bars in steps from its saved pass). 158 with
 * the store's mark on its bars (src/bars/trust.ts), moved below the store and the evaluator.
 * 159 with alert rounds stepped across symbols (src/eval/round.ts). A package's entry point
 * reached from the core would add hundreds.
 */
const MAX_CORE_FILES = 159;

async function importGraph(entry: string): Promise<{ files: string[]; packages: string[] }> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    outfile: "graph.js",
    platform: "neutral",
    format: "esm",
    packages: "external",
    metafile: true,
    logLevel: "silent",
  });
  const inputs = result.metafile.inputs;
  const packages = new Set<string>();
  for (const input of Object.values(inputs)) for (const imported of input.imports) if (imported.external) packages.add(imported.path);
  return { files: Object.keys(inputs), packages: [...packages] };
}

describe("the core's import graph", () => {
  it(`loads at most ${MAX_CORE_FILES} files, Chevrotain as one of them`, async () => {
    const { files } = await importGraph("src/index.ts");
    expect(files.length).toBeLessThanOrEqual(MAX_CORE_FILES);
    expect(files.filter((file) => file.includes("node_modules/")).map((file) => file.replace(/^.*node_modules\//, ""))).toEqual([
      "chevrotain/lib/chevrotain.mjs",
    ]);
  });

  it("imports no package and no Node built-in (it runs in a browser too)", async () => {
    expect((await importGraph("src/index.ts")).packages).toEqual([]);
  });

  it("xql/client loads a few files and no package (Node's crypto only, for verifyWebhook)", async () => {
    const { files, packages } = await importGraph("src/client/index.ts");
    expect(packages.sort()).toEqual(["node:buffer", "node:crypto"]);
    expect(files.length).toBeLessThanOrEqual(5);
  });
});
