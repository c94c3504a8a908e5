/** Writes grammar/xql.ebnf, grammar/diagrams.html and src/syntax/cst.ts from the parser. */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { cstTypes, grammarDiagramsHtml, grammarEbnf } from "../src/syntax/grammar-docs.js";
import { textMateGrammar } from "../src/syntax/textmate.js";

const require = createRequire(import.meta.url);
// chevrotain exports no package.json; its CommonJS entry is lib/src/api.js, two folders below the root.
const chevrotainRoot = join(dirname(require.resolve("chevrotain")), "..", "..");
const readResource = (path: string): string => readFileSync(join(chevrotainRoot, "diagrams", path), "utf8");

mkdirSync("grammar", { recursive: true });
writeFileSync("grammar/xql.ebnf", grammarEbnf());
writeFileSync("grammar/diagrams.html", grammarDiagramsHtml(readResource));
writeFileSync("src/syntax/cst.ts", cstTypes());
// The TextMate grammar, and its copy inside the VS Code extension (an extension ships only its own folder).
writeFileSync("grammar/xql.tmLanguage.json", textMateGrammar());
mkdirSync("editors/vscode/syntaxes", { recursive: true });
writeFileSync("editors/vscode/syntaxes/xql.tmLanguage.json", textMateGrammar());
console.log("wrote grammar/xql.ebnf, grammar/diagrams.html, grammar/xql.tmLanguage.json, editors/vscode/syntaxes/xql.tmLanguage.json, src/syntax/cst.ts");
