/**
 * Completion: what may be written at a cursor, from the registry (functions, series), the
 * timeframes, the configured markets, the settings not yet written and the `let` names in
 * scope. Items are neutral data; the language server and the playground each render them
 * (`${1:n}` snippets for LSP, CodeMirror's own fields in the page).
 */
import { FUNCTIONS, SERIES, arity, type FunctionSpec } from "../functions/registry.js";
import { DEFAULT_MARKETS, TIMEFRAMES, TIMEFRAME_MS, type Timeframe } from "../types.js";
import { endsValue, letName, statementKind, statementsOf, type StatementKind } from "./context.js";
import { scan, type Piece } from "./scan.js";

export type CompletionKind = "function" | "series" | "let" | "timeframe" | "timeframePrefix" | "setting" | "market" | "symbol" | "watchlist" | "keyword";

/** A template: literal text and numbered fields (in order) the user tabs through. */
export type Template = readonly (string | { readonly field: string })[];

export interface CompletionItem {
  readonly label: string;
  readonly kind: CompletionKind;
  /** One line: a signature, a duration, a setting's shape. */
  readonly detail: string;
  /** Markdown. */
  readonly documentation?: string;
  /** What is inserted; fields only where the kind takes arguments. */
  readonly template: Template;
  /** Items sort by this, then by label. */
  readonly rank: number;
}

export interface Completions {
  /** The range the item replaces: the word being typed (`[from, to)`, UTF-16 offsets). */
  readonly from: number;
  readonly to: number;
  readonly items: readonly CompletionItem[];
  /**
   * The host's data this position completes from, whether or not the host gave it: a host that
   * reads its store only when asked (the language server, the playground online) reads what is
   * named here and completes again with it.
   */
  readonly asks?: HostData;
}

/**
 * What only the host knows: the symbols of a market (by its configured spelling), the names of
 * the saved watchlists, or the markets its store holds beyond the configured ones.
 */
export type HostData = { readonly kind: "symbols"; readonly market: string } | { readonly kind: "watchlists" } | { readonly kind: "markets" };

export interface CompletionOptions {
  readonly markets?: readonly string[];
  /**
   * The symbols of each market, by the market's configured spelling, from the host (the
   * service's, the playground's or the CLI's store): offered inside `symbols = [...]`.
   */
  readonly symbols?: Readonly<Record<string, readonly string[]>>;
  /** The names of the saved watchlists the host knows (the store's, the account's): offered in `watchlist = "..."`. */
  readonly watchlists?: readonly string[];
}

/** `rsi([src = close,] n)`; a zero-parameter built-in is its bare name. */
export function signatureOf(fn: FunctionSpec): string {
  if (fn.params.length === 0) return fn.name;
  const parts = fn.params.map((p, i) => (i === 0 && p.default !== undefined ? `[${p.name} = ${p.default},]` : p.name));
  return `${fn.name}(${parts.join(", ").replace(",], ", ",] ")})`;
}

const KIND_WORDS: Record<string, string> = {
  series: "a number series",
  condition: "a boolean condition",
  length: "a positive integer literal",
  number: "a number literal",
};

/** The function's hover text (markdown): signature, doc, parameters, lookback, example. */
export function functionMarkdown(fn: FunctionSpec): string {
  const lines = ["```xql", `${signatureOf(fn)} → ${fn.result}`, "```", "", fn.doc, ""];
  if (fn.params.length > 0) {
    lines.push("**Parameters**", "");
    for (const p of fn.params) {
      lines.push(`- \`${p.name}\`: ${KIND_WORDS[p.kind] ?? p.kind}${p.default !== undefined ? ` (optional, default \`${p.default}\`)` : ""}`);
    }
    lines.push("");
  }
  lines.push(`**Lookback**: ${fn.lookbackDoc}`, "");
  if (fn.reference !== undefined) lines.push(`**Reference**: ${fn.reference}`, "");
  lines.push("**Example**", "", "```xql", fn.example, "```");
  return lines.join("\n");
}

function functionTemplate(fn: FunctionSpec): Template {
  if (fn.params.length === 0) return [fn.name];
  const { min } = arity(fn);
  // The short form: an optional leading source is left out (`rsi(14)` reads `rsi(close, 14)`).
  const params = fn.params.slice(fn.params.length - min);
  const out: (string | { field: string })[] = [`${fn.name}(`];
  params.forEach((p, i) => {
    if (i > 0) out.push(", ");
    out.push({ field: p.name });
  });
  out.push(")");
  return out;
}

export function timeframeDuration(tf: Timeframe): string {
  const minutes = TIMEFRAME_MS[tf] / 60_000;
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  if (minutes < 1440) return `${minutes / 60} hour${minutes === 60 ? "" : "s"}`;
  return minutes === 1440 ? "1 day" : "1 week";
}

const SETTINGS: readonly { kind: StatementKind; label: string; detail: string; template: (markets: readonly string[]) => Template }[] = [
  { kind: "market", label: "market", detail: 'market = "FOREX" (required)', template: (m) => ['market = "', { field: m[0] ?? "FOREX" }, '"'] },
  { kind: "timeframe", label: "timeframe", detail: "timeframe = h1 (required: the base timeframe)", template: () => ["timeframe = ", { field: "h1" }] },
  { kind: "columns", label: "columns", detail: "columns = [expr, ...]", template: () => ["columns = [", { field: "close" }, "]"] },
  { kind: "sort", label: "sort", detail: "sort = expr asc|desc, ...", template: () => ["sort = ", { field: "expr" }, " ", { field: "desc" }] },
  { kind: "limit", label: "limit", detail: "limit = 1..10000", template: () => ["limit = ", { field: "20" }] },
  { kind: "symbols", label: "symbols", detail: 'symbols = ["EURUSD", ...] (only these symbols)', template: () => ['symbols = ["', { field: "EURUSD" }, '"]'] },
  { kind: "watchlist", label: "watchlist", detail: 'watchlist = "name" (a saved list of symbols)', template: () => ['watchlist = "', { field: "name" }, '"'] },
  { kind: "let", label: "let", detail: "let name = expr", template: () => ["let ", { field: "name" }, " = ", { field: "expr" }] },
];

function keyword(word: string, detail: string, rank: number): CompletionItem {
  return { label: word, kind: "keyword", detail, template: [word], rank };
}

function expressionItems(lets: readonly { name: string; text: string }[], withPrefixes: boolean): CompletionItem[] {
  const items: CompletionItem[] = [];
  for (const l of lets) items.push({ label: l.name, kind: "let", detail: l.text, template: [l.name], rank: 0 });
  for (const s of SERIES.values()) items.push({ label: s.name, kind: "series", detail: "series", documentation: s.doc, template: [s.name], rank: 1 });
  for (const fn of FUNCTIONS.values()) {
    items.push({
      label: fn.name,
      kind: "function",
      detail: `${signatureOf(fn)} → ${fn.result}`,
      documentation: functionMarkdown(fn),
      template: functionTemplate(fn),
      rank: 2,
    });
  }
  if (withPrefixes) {
    for (const tf of TIMEFRAMES) {
      items.push({
        label: `${tf}::`,
        kind: "timeframePrefix",
        detail: `evaluate on ${tf} bars (${timeframeDuration(tf)})`,
        template: [`${tf}::`],
        rank: 3,
      });
    }
  }
  items.push(keyword("not", "boolean negation", 4), keyword("true", "matches every instrument", 4), keyword("false", "boolean literal", 4));
  return items;
}

/** The `let` names a statement may use: earlier lets for a let, every let elsewhere. */
function letsInScope(statements: readonly Piece[][], current: number, text: string): { name: string; text: string }[] {
  const own = statementKind(statements[current] ?? []);
  const out: { name: string; text: string }[] = [];
  statements.forEach((s, i) => {
    const name = letName(s);
    if (name === undefined || i === current) return;
    if (own === "let" && i > current) return;
    const last = s[s.length - 1]!;
    out.push({ name: name.image, text: text.slice(s[0]!.start, last.end).replace(/\s+/g, " ") });
  });
  return out;
}

/** What may be written at `offset` of `text`. */
export function complete(text: string, offset: number, options: CompletionOptions = {}): Completions {
  const markets = options.markets ?? DEFAULT_MARKETS;
  const at = Math.max(0, Math.min(offset, text.length));
  const pieces = scan(text);
  const none = { from: at, to: at, items: [] };
  const inside = pieces.find((p) => p.start < at && at < p.end) ?? pieces.find((p) => p.type === "Comment" && p.start < at && at === p.end);
  if (inside?.type === "Comment") return none;

  // Inside a string: a market name, a symbol of the query's market inside `symbols = [...]`, a
  // saved list's name after `watchlist =`.
  if (inside?.type === "StringLiteral" || (inside?.type === "Invalid" && inside.image.startsWith('"'))) {
    const statement = statementsOf(pieces.filter((p) => p.end <= inside.start && p.type !== "Comment")).pop() ?? [];
    const closed = inside.type === "StringLiteral";
    return { from: inside.start + 1, to: closed ? inside.end - 1 : inside.end, ...stringItems(text, pieces, markets, options, statement) };
  }
  // A string still open (`market = "FO|`, `watchlist = "my-l|`): the lexer saw a stray quote,
  // then names and signs; its text so far is replaced.
  const stray = pieces.filter((p) => p.type === "Invalid" && p.image === '"' && p.end <= at).pop();
  if (stray !== undefined && /^[^"\s]*$/.test(text.slice(stray.end, at))) {
    const statement = statementsOf(pieces.filter((p) => p.end <= stray.start)).pop() ?? [];
    return { from: stray.end, to: at, ...stringItems(text, pieces, markets, options, statement) };
  }

  // The word being typed (a name, possibly empty) and what precedes it.
  const word = /[A-Za-z_][A-Za-z0-9_]*$/.exec(text.slice(Math.max(0, at - 200), at))?.[0] ?? "";
  const from = at - word.length;
  const before = pieces.filter((p) => p.end <= from);
  const all = statementsOf(pieces);
  const prior = statementsOf(before);
  let statement = prior[prior.length - 1] ?? [];
  const previous = statement[statement.length - 1];
  const newStatement = statement.length === 0 || previous?.type === "Semicolon";
  if (newStatement) statement = [];
  const index = newStatement ? prior.length : prior.length - 1;
  const kind = statementKind(statement);

  const result = (items: CompletionItem[]): Completions => ({ from, to: at, items });
  const written = new Set(all.map(statementKind));

  // A new statement's scope: the statement after the cursor (`all` agrees with `prior` before it).
  const startItems = (scope = index): CompletionItem[] => [
    ...SETTINGS.filter((s) => s.kind === "let" || !written.has(s.kind)).map((s, i) => ({
      label: s.label,
      kind: "setting" as const,
      detail: s.detail,
      template: s.template(markets),
      rank: -10 + i,
    })),
    ...expressionItems(letsInScope(all, scope, text), true),
  ];

  if (statement.length === 0) return result(startItems());
  const second = statement[1];
  switch (kind) {
    case "market":
      if (statement.length === 1) return result([]);
      if (second?.type === "Equals" && statement.length === 2) {
        return { ...result(markets.map((m, i) => ({ label: `"${m}"`, kind: "market" as const, detail: "market", template: [`"${m}"`], rank: i }))), asks: { kind: "markets" } };
      }
      return result(startItems(index + 1));
    case "timeframe":
      if (second?.type === "Equals" && statement.length === 2) {
        return result(
          TIMEFRAMES.map((tf, i) => ({ label: tf, kind: "timeframe" as const, detail: `base timeframe: ${timeframeDuration(tf)} bars`, template: [tf], rank: i })),
        );
      }
      return statement.length >= 3 ? result(startItems(index + 1)) : result([]);
    case "limit":
      return statement.length >= 3 ? result(startItems(index + 1)) : result([]);
    case "watchlist":
      // After `=` a quoted list name; after the name a new statement.
      if (second?.type === "Equals" && statement.length === 2) return { from, to: at, ...watchlistItems(options, true) };
      return statement.length >= 3 ? result(startItems(index + 1)) : result([]);
    case "symbols": {
      // After `[` or `,` a quoted symbol; after the closing `]` a new statement.
      if (previous?.type === "RBracket") return result(startItems(index + 1));
      if (previous?.type === "LBracket" || previous?.type === "Comma") return { from, to: at, ...symbolItems(text, pieces, markets, options, statement, true) };
      return result([]);
    }
    case "let":
      // `let |` names a new binding: nothing to offer until the `=`.
      if (statement.length < 3) return result([]);
      break;
    default:
      break;
  }
  const lets = letsInScope(all, index, text);
  if (previous?.type === "TimeframePrefix" && previous.end === from) return result(expressionItems(lets, false));
  if (endsValue(previous)) {
    const continuing = [keyword("and", "both conditions", 0), keyword("or", "either condition", 0)];
    if (kind === "sort") continuing.push(keyword("asc", "ascending", -1), keyword("desc", "descending", -1));
    // Inside brackets or parentheses nothing else may follow a value; at the top level a new statement may.
    return result(depthOf(statement) > 0 ? continuing : [...continuing, ...startItems(index + 1)]);
  }
  return result(expressionItems(lets, true));
}

/** Inside a string (closed or still open) of `statement`: what that statement's string may hold. */
function stringItems(text: string, pieces: readonly Piece[], markets: readonly string[], options: CompletionOptions, statement: readonly Piece[]): Pick<Completions, "items" | "asks"> {
  switch (statementKind(statement)) {
    case "symbols":
      return symbolItems(text, pieces, markets, options, statement, false);
    case "watchlist":
      return watchlistItems(options, false);
    case "market":
      return { items: markets.map((m, i) => ({ label: m, kind: "market" as const, detail: "market", template: [m], rank: i })), asks: { kind: "markets" } };
    default:
      return { items: [] };
  }
}

/**
 * The symbols of the query's market not yet in the list, for `symbols = [...]`: quoted when
 * the cursor is not inside a string yet. The market is read from the query's `market` setting;
 * without a known one there is nothing to offer, nor to ask the host for.
 */
function symbolItems(text: string, pieces: readonly Piece[], markets: readonly string[], options: CompletionOptions, list: readonly Piece[], quoted: boolean): Pick<Completions, "items" | "asks"> {
  const wanted = marketIn(text, pieces)?.toUpperCase();
  const market = markets.find((m) => m.toUpperCase() === wanted);
  if (market === undefined) return { items: [] };
  const listed = new Set(list.filter((p) => p.type === "StringLiteral").map((p) => text.slice(p.start + 1, p.end - 1)));
  const items = (options.symbols?.[market] ?? [])
    .filter((symbol) => !listed.has(symbol))
    .map((symbol, i) => ({ label: symbol, kind: "symbol" as const, detail: `${market} symbol`, template: [quoted ? `"${symbol}"` : symbol], rank: i }));
  return { items, asks: { kind: "symbols", market } };
}

/** The market the query's `market` setting names, as written (undefined without one). */
export function writtenMarket(text: string): string | undefined {
  return marketIn(text, scan(text));
}

function marketIn(text: string, pieces: readonly Piece[]): string | undefined {
  const marketPiece = statementsOf(pieces.filter((p) => p.type !== "Comment")).find((s) => statementKind(s) === "market")?.find((p) => p.type === "StringLiteral");
  return marketPiece ? text.slice(marketPiece.start + 1, marketPiece.end - 1) : undefined;
}

/** The saved lists' names for `watchlist = "..."`, quoted when the cursor is not inside a string yet. */
function watchlistItems(options: CompletionOptions, quoted: boolean): Pick<Completions, "items" | "asks"> {
  const items = (options.watchlists ?? []).map((name, i) => ({
    label: quoted ? `"${name}"` : name,
    kind: "watchlist" as const,
    detail: "saved watchlist",
    template: [quoted ? `"${name}"` : name],
    rank: i,
  }));
  return { items, asks: { kind: "watchlists" } };
}

function depthOf(statement: readonly Piece[]): number {
  let depth = 0;
  for (const p of statement) {
    if (p.type === "LParen" || p.type === "LBracket") depth++;
    else if ((p.type === "RParen" || p.type === "RBracket") && depth > 0) depth--;
  }
  return depth;
}
