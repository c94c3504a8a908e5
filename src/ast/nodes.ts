/**
 * The typed AST: readonly interfaces with a literal `kind`, and a source span on every node.
 * Spans are 0-based UTF-16 offsets, `end` exclusive. Parentheses leave no node behind: the
 * tree's shape carries grouping, and the canonical printer puts back only what is needed.
 */
import type { Timeframe } from "../types.js";

export interface Span {
  readonly start: number;
  readonly end: number;
}

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

export type UnaryOperator = "not" | "-";

export interface NumberLiteral {
  readonly kind: "number";
  readonly value: number;
  readonly span: Span;
}

export interface BooleanLiteral {
  readonly kind: "boolean";
  readonly value: boolean;
  readonly span: Span;
}

/** A bare name: a series (`close`), a `let` binding, or (an error) a function without a call. */
export interface Identifier {
  readonly kind: "identifier";
  readonly name: string;
  readonly span: Span;
}

export interface Call {
  readonly kind: "call";
  readonly callee: string;
  readonly calleeSpan: Span;
  readonly args: readonly Expression[];
  readonly span: Span;
}

export interface Unary {
  readonly kind: "unary";
  readonly operator: UnaryOperator;
  readonly operand: Expression;
  readonly span: Span;
}

export interface Binary {
  readonly kind: "binary";
  readonly operator: BinaryOperator;
  readonly left: Expression;
  readonly right: Expression;
  readonly span: Span;
}

/** `tf::expr`: `expr` evaluated on timeframe `timeframe`, aligned on closed bars. */
export interface TimeframePrefix {
  readonly kind: "timeframe";
  readonly timeframe: Timeframe;
  readonly timeframeSpan: Span;
  readonly expression: Expression;
  readonly span: Span;
}

/** `expr[n]`: the value n bars ago on the expression's timeframe. */
export interface History {
  readonly kind: "history";
  readonly expression: Expression;
  readonly offset: number;
  readonly offsetSpan: Span;
  readonly span: Span;
}

export type Expression =
  | NumberLiteral
  | BooleanLiteral
  | Identifier
  | Call
  | Unary
  | Binary
  | TimeframePrefix
  | History;

export interface MarketSetting {
  readonly kind: "market";
  /** The market as written (unescaped), before case-insensitive matching. */
  readonly value: string;
  readonly valueSpan: Span;
  readonly span: Span;
}

export interface TimeframeSetting {
  readonly kind: "timeframeSetting";
  readonly timeframe: Timeframe;
  readonly valueSpan: Span;
  readonly span: Span;
}

export interface Column {
  /** The column's key: its source text exactly as written, trimmed. */
  readonly text: string;
  readonly expression: Expression;
  readonly span: Span;
}

export interface ColumnsSetting {
  readonly kind: "columns";
  readonly columns: readonly Column[];
  readonly span: Span;
}

export type SortDirection = "asc" | "desc";

export interface SortKey {
  readonly expression: Expression;
  /** `asc` when not written. */
  readonly direction: SortDirection;
  readonly span: Span;
}

export interface SortSetting {
  readonly kind: "sort";
  readonly keys: readonly SortKey[];
  readonly span: Span;
}

export interface LimitSetting {
  readonly kind: "limit";
  readonly value: number;
  readonly valueSpan: Span;
  readonly span: Span;
}

export interface LetBinding {
  readonly kind: "let";
  readonly name: string;
  readonly nameSpan: Span;
  readonly expression: Expression;
  readonly span: Span;
}

export interface Condition {
  readonly kind: "condition";
  readonly expression: Expression;
  readonly span: Span;
}

export type Setting = MarketSetting | TimeframeSetting | ColumnsSetting | SortSetting | LimitSetting;
export type Statement = Setting | LetBinding | Condition;

/** A whole query: its statements in source order (the condition is the last). */
export interface Query {
  readonly kind: "query";
  readonly statements: readonly Statement[];
  readonly span: Span;
}

/** Compile-time exhaustiveness: adding a node kind without handling it fails to compile. */
export function assertNever(value: never): never {
  throw new Error(`unhandled node: ${JSON.stringify(value)}`);
}
