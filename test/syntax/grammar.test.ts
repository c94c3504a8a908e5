/** The committed grammar files are what the parser generates (scripts/gen-grammar.ts). */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cstTypes, grammarDiagramsHtml, grammarEbnf } from "../../src/syntax/grammar-docs.js";
import { textMateGrammar } from "../../src/syntax/textmate.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(import.meta.url);
// The same resources scripts/gen-grammar.ts inlines: chevrotain's diagrams folder.
const chevrotainRoot = join(dirname(require.resolve("chevrotain")), "..", "..");
const readResource = (path: string): string => readFileSync(join(chevrotainRoot, "diagrams", path), "utf8");

const FIX = "run npx tsx scripts/gen-grammar.ts";

describe("generated grammar files are fresh", () => {
  it.each([
    ["grammar/xql.ebnf", () => grammarEbnf()],
    ["grammar/diagrams.html", () => grammarDiagramsHtml(readResource)],
    ["src/syntax/cst.ts", () => cstTypes()],
    ["grammar/xql.tmLanguage.json", () => textMateGrammar()],
    ["editors/vscode/syntaxes/xql.tmLanguage.json", () => textMateGrammar()],
  ] as const)("%s", (path, generate) => {
    const committed = readFileSync(join(ROOT, path), "utf8");
    if (committed !== generate()) expect.fail(`${path} is out of date: ${FIX}`);
  });

  it("names every rule of the parser in the EBNF", () => {
    const ebnf = grammarEbnf();
    for (const rule of ["query", "statement", "marketSetting", "letBinding", "expression", "prefixed", "postfix", "nameOrCall"]) {
      expect(ebnf).toMatch(new RegExp(`^${rule} = `, "m"));
    }
  });
});
