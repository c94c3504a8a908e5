/**
 * Every generated file is what `npm run gen` (scripts/gen.ts) writes now: the module list, the
 * grammar files, the TextMate grammars, docs/functions.md, docs/phrases.md, docs/errors.md's
 * catalogue and the conformance bodies computed from the TA-Lib fixtures and the oracle. And every module has its golden snapshot (gen writes a new module's first one).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generatedFiles } from "../../scripts/gen.js";
import { missingModuleSnapshots } from "../../scripts/gen/golden.js";
import { moduleFiles } from "../../scripts/gen/modules.js";
import { MODULES } from "../../src/functions/builtins/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const files = await generatedFiles(ROOT);

describe("generated files are fresh (npm run gen)", () => {
  it("covers every generator's files", () => {
    expect(files.map((f) => f.path).sort()).toEqual(
      [
        "README.md",
        "docs/errors.md",
        "docs/functions.md",
        "docs/phrases.md",
        "editors/vscode/syntaxes/xql.tmLanguage.json",
        "grammar/diagrams.html",
        "grammar/xql.ebnf",
        "grammar/xql.tmLanguage.json",
        "src/functions/builtins/index.ts",
        "src/syntax/cst.ts",
        "src/syntax/lookahead-paths.ts",
        "test/conformance/functions.json",
      ].sort(),
    );
  });

  it.each(files.map((f) => [f.path, f] as const))("%s", (path, file) => {
    const committed = existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), "utf8") : undefined;
    if (committed !== file.content) expect.fail(`${path} is out of date: run npm run gen`);
  });

  it("lists every module file of src/functions/builtins/ once, and the registry is built from that list", () => {
    expect(MODULES.map((m) => m.name).sort()).toEqual(moduleFiles(ROOT));
  });

  it("leaves no module without its golden snapshot", () => {
    expect(missingModuleSnapshots(ROOT).map((f) => f.path)).toEqual([]);
  });
});
