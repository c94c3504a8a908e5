/**
 * vscode-languageserver's Node entry, loaded with `require`. The package is CommonJS, and an
 * ES `import` of it has Node's loader scan the source of every module its entry re-exports
 * (about 70 files) for export names before any of them runs: 120 ms of CPU on top of the 80 ms
 * that `require` takes for the same files, all of it before `xql lsp` can answer `initialize`.
 * Every value the language server takes from the package comes through here; types are
 * imported from the package directly, as they leave nothing at run time.
 */
import { createRequire } from "node:module";
import type * as Protocol from "vscode-languageserver/node.js";

export const protocol: typeof Protocol = createRequire(import.meta.url)("vscode-languageserver/node.js");
