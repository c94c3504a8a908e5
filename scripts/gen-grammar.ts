/** Writes grammar/xql.ebnf, grammar/diagrams.html and src/syntax/cst.ts from the parser. */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { cstTypes, grammarDiagramsHtml, grammarEbnf } from "../src/syntax/grammar-docs.js";

const require = createRequire(import.meta.url);
// chevrotain exports no package.json; its CommonJS entry is lib/src/api.js, two folders below the root.
const chevrotainRoot = join(dirname(require.resolve("chevrotain")), "..", "..");
const readResource = (path: string): string => readFileSync(join(chevrotainRoot, "diagrams", path), "utf8");

mkdirSync("grammar", { recursive: true });
writeFileSync("grammar/xql.ebnf", grammarEbnf());
writeFileSync("grammar/diagrams.html", grammarDiagramsHtml(readResource));
writeFileSync("src/syntax/cst.ts", cstTypes());
console.log("wrote grammar/xql.ebnf, grammar/diagrams.html, src/syntax/cst.ts");
