/**
 * Hover and signature help: what a name under the cursor is (a function's doc, parameters,
 * lookback and example from the registry; a series; a `let`; a timeframe), and which
 * parameter of which call the cursor is in.
 */
import { FUNCTIONS, SERIES, type FunctionSpec } from "../functions/registry.js";
import { isTimeframe } from "../types.js";
import { letName, statementsOf } from "./context.js";
import { functionMarkdown, signatureOf, timeframeDuration } from "./complete.js";
import { scan, type Piece } from "./scan.js";

export interface Hover {
  readonly start: number;
  readonly end: number;
  /** Markdown. */
  readonly markdown: string;
}

const KEYWORD_DOCS: Readonly<Record<string, string>> = {
  market: 'The market screened: `market = "FOREX"`. Required.',
  timeframe: "The base timeframe: `timeframe = h1`. Required; every value is taken at the latest base bar.",
  columns: "Values reported for each match: `columns = [close, rsi(14)]`. Each key is the column's text as written.",
  sort: "Result order: `sort = rsi(14) asc, volume desc`. Ties break by symbol.",
  limit: "At most this many results (1..10000).",
  let: "A name for a value, usable by later lets, the condition, columns and sort.",
};

/** The piece covering `offset` (a cursor just after a word still hovers it). */
function pieceAt(pieces: readonly Piece[], offset: number): Piece | undefined {
  return pieces.find((p) => p.start <= offset && offset < p.end) ?? pieces.find((p) => p.end === offset && /^[A-Za-z_]/.test(p.image));
}

export function hover(text: string, offset: number): Hover | undefined {
  const pieces = scan(text);
  const piece = pieceAt(pieces, offset);
  if (piece === undefined) return undefined;
  const at = (markdown: string): Hover => ({ start: piece.start, end: piece.end, markdown });
  if (piece.type === "TimeframePrefix") {
    const tf = piece.image.slice(0, -2);
    return isTimeframe(tf)
      ? at(`\`${piece.image}\`: evaluate the following expression on ${tf} bars (${timeframeDuration(tf)}), aligned on closed bars.`)
      : undefined;
  }
  if (piece.type === "Identifier") {
    const fn = FUNCTIONS.get(piece.image);
    if (fn) return at(functionMarkdown(fn));
    const series = SERIES.get(piece.image);
    if (series) return at(`\`${series.name}\`: series\n\n${series.doc}`);
    if (isTimeframe(piece.image)) return at(`\`${piece.image}\`: timeframe of ${timeframeDuration(piece.image)} bars.`);
    for (const statement of statementsOf(pieces)) {
      if (letName(statement)?.image !== piece.image) continue;
      const last = statement[statement.length - 1]!;
      return at(`\`\`\`xql\n${text.slice(statement[0]!.start, last.end)}\n\`\`\``);
    }
    return undefined;
  }
  const doc = KEYWORD_DOCS[piece.image];
  return doc !== undefined && piece.kind === "setting" ? at(doc) : undefined;
}

export interface SignatureHelp {
  readonly fn: FunctionSpec;
  /** `rsi([src = close,] n)` */
  readonly label: string;
  /** The parameters' `[start, end)` inside `label`, in order. */
  readonly parameters: readonly { readonly name: string; readonly start: number; readonly end: number; readonly doc: string }[];
  /** Which parameter the cursor is on, counting a left-out optional source. */
  readonly active: number;
}

/**
 * Whether a call's first argument is where a length goes when the optional source is left out:
 * a number literal (`bb_upper(20, `), or nothing yet (`rsi(`, where a length is the usual
 * start). Anything else is a series, and so the source (`bb_upper(close, ` is on `n`): while a
 * call is being written its argument count cannot tell yet.
 */
function writesLength(first: readonly Piece[]): boolean {
  const rest = first[0]?.type === "Minus" ? first.slice(1) : first;
  return rest.length === 0 || (rest.length === 1 && rest[0]!.type === "NumberLiteral");
}

/** The call the cursor is inside, if it names a function, and the parameter being written. */
export function signatureHelp(text: string, offset: number): SignatureHelp | undefined {
  const pieces = scan(text).filter((p) => p.type !== "Comment" && p.type !== "Invalid");
  // Walk back to the innermost unclosed `(` before the cursor, counting commas on its level.
  let depth = 0;
  let commas = 0;
  let open = -1;
  for (let i = pieces.length - 1; i >= 0; i--) {
    const p = pieces[i]!;
    if (p.end > offset) continue;
    if (p.type === "RParen" || p.type === "RBracket") depth++;
    else if (p.type === "LParen" || p.type === "LBracket") {
      if (depth === 0) {
        if (p.type === "LBracket") return undefined;
        open = i;
        break;
      }
      depth--;
    } else if (p.type === "Comma" && depth === 0) commas++;
  }
  const callee = pieces[open - 1];
  if (open < 0 || callee?.type !== "Identifier") return undefined;
  const fn = FUNCTIONS.get(callee.image);
  if (fn === undefined || fn.params.length === 0) return undefined;
  // All the call's arguments, and the pieces of the first, to see whether an optional leading
  // source was left out.
  let total = 1;
  const first: Piece[] = [];
  depth = 0;
  for (let i = open + 1; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (p.type === "LParen" || p.type === "LBracket") depth++;
    else if (p.type === "RParen" || p.type === "RBracket") {
      if (depth === 0) break;
      depth--;
    } else if (p.type === "Comma" && depth === 0) total++;
    if (total === 1) first.push(p);
  }
  const skipsSource = fn.params[0]?.default !== undefined && total < fn.params.length && writesLength(first);
  const label = signatureOf(fn);
  let cursor = fn.name.length + 1;
  const parameters = fn.params.map((p) => {
    const start = label.indexOf(p.name, cursor);
    cursor = start + p.name.length;
    return { name: p.name, start, end: cursor, doc: `${p.kind}${p.default !== undefined ? `, default ${p.default}` : ""}` };
  });
  return { fn, label, parameters, active: Math.min(commas + (skipsSource ? 1 : 0), fn.params.length - 1) };
}
