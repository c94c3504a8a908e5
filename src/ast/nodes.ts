/**
 * The typed AST: readonly interfaces with a literal `kind`, and a source span on every node.
 * Spans are 0-based UTF-16 offsets, `end` exclusive. Parentheses leave no node behind: the
 * tree's shape carries grouping, and the canonical printer puts back only what is needed.
 */
import type { Timeframe } from "../types.js";

/** A range of the query text: 0-based UTF-16 offsets, `end` exclusive (`{ start: 0, end: 0 }` on generated nodes). */
export interface Span {
  /** Offset of the first character of the range. */
  readonly start: number;
  /** Offset just past the last character of the range. */
  readonly end: number;
}

/** The operator of a {@link Binary} node, lowest precedence first: `or`, `and`, comparisons, `+ -`, `* /`. */
export type BinaryOperator =
  | "or"
  | "and"
  | "<"
  | "<="
  | ">"
  | ">="
  | "=="
  | "!="
  | "+"
  | "-"
  | "*"
  | "/";

/** The operator of a {@link Unary} node: boolean `not`, or numeric negation `-`. */
export type UnaryOperator = "not" | "-";

/** A number literal (`14`, `2.5`, `1e6`). Never negative: `-1` is a {@link Unary} minus applied to `1`. */
export interface NumberLiteral {
  /** Always `"number"`. */
  readonly kind: "number";
  /** The literal's value: a finite, non-negative double. */
  readonly value: number;
  /** Where the literal is written. */
  readonly span: Span;
}

/** The literal `true` or `false`. */
export interface BooleanLiteral {
  /** Always `"boolean"`. */
  readonly kind: "boolean";
  /** The literal's value. */
  readonly value: boolean;
  /** Where the literal is written. */
  readonly span: Span;
}

/** A bare name: a series (`close`), a `let` binding, or (an error) a function without a call. */
export interface Identifier {
  /** Always `"identifier"`. */
  readonly kind: "identifier";
  /** The name as written (names are case-sensitive). */
  readonly name: string;
  /** Where the name is written. */
  readonly span: Span;
}

/** A function call `name(arg, ...)`, such as `rsi(14)` or `sma(close, 20)`. */
export interface Call {
  /** Always `"call"`. */
  readonly kind: "call";
  /** The function's name as written, such as `rsi`. */
  readonly callee: string;
  /** Where the function's name is written. */
  readonly calleeSpan: Span;
  /** The arguments as written, in order; an omitted optional source (`sma(20)`) is not filled in. */
  readonly args: readonly Expression[];
  /** From the function's name to the closing parenthesis. */
  readonly span: Span;
}

/** A prefix operator applied to one operand: `not a` or `-x`. */
export interface Unary {
  /** Always `"unary"`. */
  readonly kind: "unary";
  /** `not` (boolean) or `-` (numeric negation). */
  readonly operator: UnaryOperator;
  /** The expression the operator applies to. */
  readonly operand: Expression;
  /** From the operator to the end of the operand. */
  readonly span: Span;
}

/** An infix operation `left operator right`: logical, comparison or arithmetic. Chains fold left to right. */
export interface Binary {
  /** Always `"binary"`. */
  readonly kind: "binary";
  /** The infix operator. */
  readonly operator: BinaryOperator;
  /** The left operand (in `a - b - c`, the node for `a - b`). */
  readonly left: Expression;
  /** The right operand. */
  readonly right: Expression;
  /** From the start of the left operand to the end of the right operand. */
  readonly span: Span;
}

/** `tf::expr`: `expr` evaluated on timeframe `timeframe`, aligned on closed bars. */
export interface TimeframePrefix {
  /** Always `"timeframe"`. */
  readonly kind: "timeframe";
  /** The timeframe the expression is evaluated on. */
  readonly timeframe: Timeframe;
  /** Where the prefix token (`d::`) is written. */
  readonly timeframeSpan: Span;
  /** The prefixed expression. */
  readonly expression: Expression;
  /** From the prefix to the end of the prefixed expression. */
  readonly span: Span;
}

/** `expr[n]`: the value n bars ago on the expression's timeframe. */
export interface History {
  /** Always `"history"`. */
  readonly kind: "history";
  /** The expression whose earlier value is taken. */
  readonly expression: Expression;
  /** How many bars back: a non-negative integer (`close[0]` is `close`). */
  readonly offset: number;
  /** Where the offset is written, inside the brackets. */
  readonly offsetSpan: Span;
  /** From the start of the expression to the closing `]`. */
  readonly span: Span;
}

/** Any expression node; switch on `kind` to tell them apart. */
export type Expression =
  | NumberLiteral
  | BooleanLiteral
  | Identifier
  | Call
  | Unary
  | Binary
  | TimeframePrefix
  | History;

/** `market = "FOREX"`: the market the query screens. */
export interface MarketSetting {
  /** Always `"market"`. */
  readonly kind: "market";
  /** The market as written (unescaped), before case-insensitive matching. */
  readonly value: string;
  /** Where the string literal is written, quotes included. */
  readonly valueSpan: Span;
  /** From the `market` keyword to the end of the string (an optional `;` excluded). */
  readonly span: Span;
}

/** `timeframe = h1`: the base timeframe, on which unprefixed expressions are evaluated. */
export interface TimeframeSetting {
  /** Always `"timeframeSetting"`. */
  readonly kind: "timeframeSetting";
  /** The base timeframe. */
  readonly timeframe: Timeframe;
  /** Where the timeframe name is written. */
  readonly valueSpan: Span;
  /** From the `timeframe` keyword to the end of the name (an optional `;` excluded). */
  readonly span: Span;
}

/** One output column of a {@link ColumnsSetting}. */
export interface Column {
  /** The column's key: its source text exactly as written, trimmed. */
  readonly text: string;
  /** The column's expression, number or boolean (a boolean column is 1 or 0). */
  readonly expression: Expression;
  /** Where the column's expression is written. */
  readonly span: Span;
}

/** `columns = [expr, ...]`: the values every result row reports. */
export interface ColumnsSetting {
  /** Always `"columns"`. */
  readonly kind: "columns";
  /** The columns in the order written; at least one. */
  readonly columns: readonly Column[];
  /** From the `columns` keyword to the closing `]`. */
  readonly span: Span;
}

/** The direction of a {@link SortKey}: ascending or descending. */
export type SortDirection = "asc" | "desc";

/** One key of a {@link SortSetting}: an expression and its direction. */
export interface SortKey {
  /** The value sorted by, number or boolean (a boolean sorts as 1 or 0). */
  readonly expression: Expression;
  /** `asc` when not written. */
  readonly direction: SortDirection;
  /** From the start of the expression to the end of the direction keyword, when written. */
  readonly span: Span;
}

/** `sort = expr [asc|desc], ...`: the order of the results; ties break by symbol ascending. */
export interface SortSetting {
  /** Always `"sort"`. */
  readonly kind: "sort";
  /** The keys, most significant first; at least one. */
  readonly keys: readonly SortKey[];
  /** From the `sort` keyword to the end of the last key. */
  readonly span: Span;
}

/** `limit = N`: the most results a run returns. */
export interface LimitSetting {
  /** Always `"limit"`. */
  readonly kind: "limit";
  /** The limit: an integer from 1 to 10000. */
  readonly value: number;
  /** Where the number is written. */
  readonly valueSpan: Span;
  /** From the `limit` keyword to the end of the number. */
  readonly span: Span;
}

/** `symbols = ["EURUSD", ...]`: the screen considers only these symbols of its market (decisions §13). */
export interface SymbolsSetting {
  /** Always `"symbols"`. */
  readonly kind: "symbols";
  /** The symbols as written (escapes resolved), 1 to 1,000, distinct. */
  readonly symbols: readonly string[];
  /** Where each symbol's string is written. */
  readonly symbolSpans: readonly Span[];
  /** From the `symbols` keyword to the closing `]`. */
  readonly span: Span;
}

/** `watchlist = "name"`: the screen considers only the symbols of a saved list (decisions §13). */
export interface WatchlistSetting {
  /** Always `"watchlist"`. */
  readonly kind: "watchlist";
  /** The list's name: 1 to 40 of `a-z 0-9 _ -`. */
  readonly name: string;
  /** Where the name's string is written. */
  readonly valueSpan: Span;
  /** From the `watchlist` keyword to the end of the string. */
  readonly span: Span;
}

/** `let name = expr`: a name for a value, usable by later lets, the condition, columns and sort. */
export interface LetBinding {
  /** Always `"let"`. */
  readonly kind: "let";
  /** The bound name. */
  readonly name: string;
  /** Where the name is written. */
  readonly nameSpan: Span;
  /** The bound expression, number or boolean. */
  readonly expression: Expression;
  /** From the `let` keyword to the end of the expression (an optional `;` excluded). */
  readonly span: Span;
}

/** The query's boolean condition: an instrument matches when it is true at its latest base bar. */
export interface Condition {
  /** Always `"condition"`. */
  readonly kind: "condition";
  /** The boolean expression. */
  readonly expression: Expression;
  /** Where the condition is written (an optional `;` excluded). */
  readonly span: Span;
}

/** Any setting statement; each may appear at most once in a query. */
export type Setting = MarketSetting | TimeframeSetting | ColumnsSetting | SortSetting | LimitSetting | SymbolsSetting | WatchlistSetting;
/** Any statement of a query: a setting, a `let` binding or the condition. */
export type Statement = Setting | LetBinding | Condition;

/** A whole query: its statements in source order (the condition is the last). */
export interface Query {
  /** Always `"query"`. */
  readonly kind: "query";
  /** Settings and lets in source order, then the condition, last. */
  readonly statements: readonly Statement[];
  /** The whole text: `{ start: 0, end: text.length }`. */
  readonly span: Span;
}

/** Compile-time exhaustiveness: adding a node kind without handling it fails to compile (one definition, in errors.ts). */
export { assertNever } from "../errors.js";
