/**
 * Editor services over the core: diagnostics, completion, hover, signature help, formatting
 * and token classes. Pure and browser-safe (no Node built-ins): the language server
 * (`src/lsp/`) and the playground (`src/playground/`) both run them.
 */
export { diagnose, type Diagnostic } from "./diagnose.js";
export { complete, signatureOf, functionMarkdown, writtenMarket, type CompletionItem, type CompletionKind, type CompletionOptions, type Completions, type HostData, type Template } from "./complete.js";
export { hover, signatureHelp, type Hover, type SignatureHelp } from "./hover.js";
export { format } from "./format.js";
export { scan, type Piece, type PieceKind } from "./scan.js";
