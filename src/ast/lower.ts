/**
 * Stage `lower`: CST → typed AST. Also enforces the structural rules the grammar leaves wide
 * for better messages: known timeframes, integer limits and history offsets, no chained
 * comparisons, exactly one condition and last.
 */
import type { CstNode, IToken } from "chevrotain";
import { fail, XqlError, type ErrorCodeAt, type ErrorParams } from "../errors.js";
import { unknownTimeframe } from "../suggest.js";
import type * as C from "../syntax/cst.js";
import { miscasedKeyword, miscasedKeywordError, parseText } from "../syntax/parse.js";
import { isTimeframe, TIMEFRAMES, type Timeframe } from "../types.js";
import type {
  BinaryOperator,
  Column,
  ColumnsSetting,
  Expression,
  LetBinding,
  LimitSetting,
  MarketSetting,
  Query,
  SortKey,
  SortSetting,
  Span,
  Statement,
  SymbolsSetting,
  TimeframeSetting,
  WatchlistSetting,
} from "./nodes.js";

export const MAX_LIMIT = 10_000;
/** The most symbols a `symbols = [...]` list or a saved watchlist holds (decisions §13). */
export const MAX_SYMBOLS = 1_000;
/** A watchlist's name (decisions §13). */
export const WATCHLIST_NAME = /^[a-z0-9_-]{1,40}$/;

/** A string literal's value: its quotes dropped and its two escapes resolved. */
const stringValue = (token: IToken): string => token.image.slice(1, -1).replace(/\\(["\\])/g, "$1");

const tokenSpan = (token: IToken): Span => ({ start: token.startOffset, end: token.endOffset! + 1 });
const nodeSpan = (node: CstNode): Span => ({ start: node.location!.startOffset, end: node.location!.endOffset! + 1 });
const join = (a: Span, b: Span): Span => ({ start: a.start, end: b.end });

/** The errors lowering raises: those whose catalogue entry lists stage `lower`. */
type LowerCode = ErrorCodeAt<"lower">;

class Lowerer {
  constructor(private readonly text: string) {}

  private fail<C extends LowerCode>(offset: number, code: C, params: ErrorParams<C>): never {
    throw fail<LowerCode>(code, params, { text: this.text, offset, stage: "lower" });
  }

  private timeframe(name: string, at: number, asPrefix = false): Timeframe {
    if (!isTimeframe(name)) this.fail(at, "unknown-timeframe", unknownTimeframe(name, TIMEFRAMES, asPrefix));
    return name;
  }

  private number(token: IToken): number {
    const value = Number(token.image);
    if (!Number.isFinite(value)) this.fail(token.startOffset, "number-too-large", { literal: token.image });
    return value;
  }

  query(cst: C.QueryCstNode): Query {
    const statements = (cst.children.statement ?? []).map((s) => this.statement(s));
    let conditionIndex = -1;
    statements.forEach((statement, index) => {
      if (conditionIndex >= 0) {
        // `close > 1 AND close < 2` lexes AND as a name and so reads as a second condition;
        // parse() turns this error into a hint at the AND.
        this.fail(statement.span.start, statement.kind === "condition" ? "second-condition" : "condition-not-last", {});
      }
      if (statement.kind === "condition") conditionIndex = index;
    });
    if (conditionIndex < 0) {
      this.fail(this.text.length, "missing-condition", {});
    }
    return { kind: "query", statements, span: { start: 0, end: this.text.length } };
  }

  statement(cst: C.StatementCstNode): Statement {
    const c = cst.children;
    if (c.marketSetting) return this.market(c.marketSetting[0]!);
    if (c.timeframeSetting) return this.timeframeSetting(c.timeframeSetting[0]!);
    if (c.columnsSetting) return this.columns(c.columnsSetting[0]!);
    if (c.sortSetting) return this.sort(c.sortSetting[0]!);
    if (c.limitSetting) return this.limit(c.limitSetting[0]!);
    if (c.symbolsSetting) return this.symbols(c.symbolsSetting[0]!);
    if (c.watchlistSetting) return this.watchlist(c.watchlistSetting[0]!);
    if (c.letBinding) return this.letBinding(c.letBinding[0]!);
    const condition = c.condition![0]!;
    return { kind: "condition", expression: this.expression(condition.children.expression[0]!), span: nodeSpan(condition) };
  }

  market(cst: C.MarketSettingCstNode): MarketSetting {
    const token = cst.children.StringLiteral[0]!;
    const value = stringValue(token);
    return { kind: "market", value, valueSpan: tokenSpan(token), span: nodeSpan(cst) };
  }

  timeframeSetting(cst: C.TimeframeSettingCstNode): TimeframeSetting {
    const token = cst.children.Identifier[0]!;
    const timeframe = this.timeframe(token.image, token.startOffset);
    return { kind: "timeframeSetting", timeframe, valueSpan: tokenSpan(token), span: nodeSpan(cst) };
  }

  columns(cst: C.ColumnsSettingCstNode): ColumnsSetting {
    const c = cst.children;
    const delimiters = [c.LBracket[0]!, ...(c.Comma ?? []), c.RBracket[0]!];
    const columns: Column[] = c.expression.map((e, i) => {
      const expression = this.expression(e);
      // The key is the source text between the delimiters, trimmed: exactly as written.
      const text = this.text.slice(delimiters[i]!.endOffset! + 1, delimiters[i + 1]!.startOffset).trim();
      return { text, expression, span: nodeSpan(e) };
    });
    return { kind: "columns", columns, span: nodeSpan(cst) };
  }

  sort(cst: C.SortSettingCstNode): SortSetting {
    const keys: SortKey[] = cst.children.sortKey.map((k) => ({
      expression: this.expression(k.children.expression[0]!),
      direction: k.children.Desc ? "desc" : "asc",
      span: nodeSpan(k),
    }));
    return { kind: "sort", keys, span: nodeSpan(cst) };
  }

  limit(cst: C.LimitSettingCstNode): LimitSetting {
    const token = cst.children.NumberLiteral[0]!;
    const value = Number(token.image);
    if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) {
      this.fail(token.startOffset, "limit-range", { max: MAX_LIMIT, literal: token.image });
    }
    return { kind: "limit", value, valueSpan: tokenSpan(token), span: nodeSpan(cst) };
  }

  symbols(cst: C.SymbolsSettingCstNode): SymbolsSetting {
    const tokens = cst.children.StringLiteral ?? [];
    if (tokens.length < 1 || tokens.length > MAX_SYMBOLS) {
      this.fail(cst.children.LBracket[0]!.startOffset, "symbols-count", { max: MAX_SYMBOLS, count: tokens.length });
    }
    const seen = new Set<string>();
    const symbols = tokens.map((token) => {
      const symbol = stringValue(token);
      if (symbol.trim() === "" || symbol !== symbol.trim()) this.fail(token.startOffset, "symbol-blank", {});
      if (seen.has(symbol)) this.fail(token.startOffset, "duplicate-symbol", { symbol });
      seen.add(symbol);
      return symbol;
    });
    return { kind: "symbols", symbols, symbolSpans: tokens.map(tokenSpan), span: nodeSpan(cst) };
  }

  watchlist(cst: C.WatchlistSettingCstNode): WatchlistSetting {
    const token = cst.children.StringLiteral[0]!;
    const name = stringValue(token);
    if (!WATCHLIST_NAME.test(name)) this.fail(token.startOffset, "watchlist-name", { name });
    return { kind: "watchlist", name, valueSpan: tokenSpan(token), span: nodeSpan(cst) };
  }

  letBinding(cst: C.LetBindingCstNode): LetBinding {
    const name = cst.children.Identifier[0]!;
    return {
      kind: "let",
      name: name.image,
      nameSpan: tokenSpan(name),
      expression: this.expression(cst.children.expression[0]!),
      span: nodeSpan(cst),
    };
  }

  /** Folds `a op b op c` left to right without recursion, so long chains cost no stack. */
  private chain(operands: Expression[], operators: readonly IToken[], toOperator: (t: IToken) => BinaryOperator): Expression {
    let node = operands[0]!;
    for (let i = 0; i < operators.length; i++) {
      const right = operands[i + 1]!;
      node = { kind: "binary", operator: toOperator(operators[i]!), left: node, right, span: join(node.span, right.span) };
    }
    return node;
  }

  expression(cst: C.ExpressionCstNode): Expression {
    const c = cst.children;
    return this.chain(c.andExpression.map((a) => this.andExpression(a)), c.Or ?? [], () => "or");
  }

  andExpression(cst: C.AndExpressionCstNode): Expression {
    const c = cst.children;
    return this.chain(c.notExpression.map((n) => this.notExpression(n)), c.And ?? [], () => "and");
  }

  notExpression(cst: C.NotExpressionCstNode): Expression {
    const c = cst.children;
    if (c.Not) {
      return { kind: "unary", operator: "not", operand: this.notExpression(c.notExpression![0]!), span: nodeSpan(cst) };
    }
    return this.comparison(c.comparison![0]!);
  }

  comparison(cst: C.ComparisonCstNode): Expression {
    const c = cst.children;
    const operators = c.ComparisonOperator ?? [];
    if (operators.length > 1) {
      this.fail(operators[1]!.startOffset, "chained-comparison", {});
    }
    return this.chain(c.additive.map((a) => this.additive(a)), operators, (t) => t.image as BinaryOperator);
  }

  additive(cst: C.AdditiveCstNode): Expression {
    const c = cst.children;
    return this.chain(
      c.multiplicative.map((m) => this.multiplicative(m)),
      c.AdditiveOperator ?? [],
      (t) => t.image as BinaryOperator,
    );
  }

  multiplicative(cst: C.MultiplicativeCstNode): Expression {
    const c = cst.children;
    return this.chain(c.unary.map((u) => this.unary(u)), c.MultiplicativeOperator ?? [], (t) => t.image as BinaryOperator);
  }

  unary(cst: C.UnaryCstNode): Expression {
    const c = cst.children;
    if (c.Minus) return { kind: "unary", operator: "-", operand: this.unary(c.unary![0]!), span: nodeSpan(cst) };
    return this.prefixed(c.prefixed![0]!);
  }

  prefixed(cst: C.PrefixedCstNode): Expression {
    const c = cst.children;
    const prefix = c.TimeframePrefix?.[0];
    if (prefix) {
      const timeframe = this.timeframe(prefix.image.slice(0, -2), prefix.startOffset, true);
      return {
        kind: "timeframe",
        timeframe,
        timeframeSpan: tokenSpan(prefix),
        expression: this.prefixed(c.prefixed![0]!),
        span: nodeSpan(cst),
      };
    }
    return this.postfix(c.postfix![0]!);
  }

  postfix(cst: C.PostfixCstNode): Expression {
    const c = cst.children;
    let node = this.primary(c.primary[0]!);
    const offsets = c.expression ?? [];
    const closers = c.RBracket ?? [];
    offsets.forEach((offsetCst, i) => {
      const offset = this.expression(offsetCst);
      if (offset.kind !== "number" || !Number.isInteger(offset.value) || offset.value < 0) {
        this.fail(offset.span.start, "history-offset", {});
      }
      node = {
        kind: "history",
        expression: node,
        offset: offset.value,
        offsetSpan: offset.span,
        span: { start: node.span.start, end: closers[i]!.endOffset! + 1 },
      };
    });
    return node;
  }

  primary(cst: C.PrimaryCstNode): Expression {
    const c = cst.children;
    if (c.NumberLiteral) {
      const token = c.NumberLiteral[0]!;
      return { kind: "number", value: this.number(token), span: tokenSpan(token) };
    }
    if (c.True) return { kind: "boolean", value: true, span: tokenSpan(c.True[0]!) };
    if (c.False) return { kind: "boolean", value: false, span: tokenSpan(c.False[0]!) };
    if (c.nameOrCall) return this.nameOrCall(c.nameOrCall[0]!);
    return this.expression(c.expression![0]!);
  }

  nameOrCall(cst: C.NameOrCallCstNode): Expression {
    const c = cst.children;
    const name = c.Identifier[0]!;
    if (!c.LParen) return { kind: "identifier", name: name.image, span: tokenSpan(name) };
    return {
      kind: "call",
      callee: name.image,
      calleeSpan: tokenSpan(name),
      args: (c.expression ?? []).map((e) => this.expression(e)),
      span: nodeSpan(cst),
    };
  }
}

/** Parses and lowers query text into the AST; throws `XqlError` at the first syntax error. */
export function parse(text: string): Query {
  const { cst, tokens } = parseText(text);
  try {
    return new Lowerer(text).query(cst);
  } catch (error) {
    const miscased = error instanceof XqlError && error.position ? miscasedKeyword(tokens, error.position.offset) : undefined;
    if (miscased) throw miscasedKeywordError(text, miscased, "lower");
    throw error;
  }
}
