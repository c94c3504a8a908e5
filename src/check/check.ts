/**
 * Stage `check`: AST → typed IR. Resolves names (with "did you mean"), arity, types, length
 * literals, `let` rules, settings rules and duplicate columns. Every statement is checked and
 * the error that comes first in the text is the one reported, so a column that refers to a
 * later `let` with a mistake in it reports the mistake where it is.
 */
import type {
  Binary,
  Call,
  Expression,
  LetBinding,
  Query,
  SortDirection,
  Span,
} from "../ast/nodes.js";
import { assertNever, fail, XqlError, type ErrorCodeAt, type ErrorParams, type TypedPlace } from "../errors.js";
import { arity, FUNCTIONS, SERIES, type FunctionSpec, type ValueType } from "../functions/registry.js";
import { KEYWORDS } from "../syntax/tokens.js";
import { DEFAULT_MARKETS, type Timeframe } from "../types.js";
import { IrBuilder, type ArithmeticOperator, type CompareOperator, type IrNode } from "./ir.js";
import { closest } from "../suggest.js";

export interface CheckedColumn {
  readonly text: string;
  readonly expression: Expression;
  readonly ir: IrNode;
}

export interface CheckedSortKey {
  readonly expression: Expression;
  readonly direction: SortDirection;
  readonly ir: IrNode;
}

/** A query whose names, types and settings are known good. */
export interface CheckedQuery {
  readonly text: string;
  readonly ast: Query;
  /** The configured spelling of the market, or undefined when the setting is missing (a plan error). */
  readonly market: string | undefined;
  readonly timeframe: Timeframe | undefined;
  readonly columns: readonly CheckedColumn[];
  readonly sort: readonly CheckedSortKey[];
  readonly limit: number | undefined;
  /** `symbols = [...]`: the only symbols the screen considers (decisions §13), or undefined. */
  readonly symbols: readonly string[] | undefined;
  /** `watchlist = "name"`: the saved list the screen considers, resolved by whoever runs it. */
  readonly watchlist: string | undefined;
  readonly lets: readonly LetBinding[];
  readonly condition: { readonly expression: Expression; readonly ir: IrNode };
}

/** A checked value, or `undefined` where an error was already recorded (no cascades). */
type Checked = { readonly type: ValueType; readonly ir: IrNode } | undefined;

interface LetInfo {
  readonly binding: LetBinding;
  readonly index: number;
  result: Checked;
}

const SETTING_NAMES = {
  market: "market",
  timeframeSetting: "timeframe",
  columns: "columns",
  sort: "sort",
  limit: "limit",
  symbols: "symbols",
  watchlist: "watchlist",
} as const;

function signature(fn: FunctionSpec): string {
  const params = fn.params.map((p, i) => (i === 0 && p.default !== undefined ? `[${p.name},]` : p.name));
  return `${fn.name}(${params.join(" ").replace(/,\] /g, ",] ").replace(/ (?=[^\]])/g, ", ")})`;
}

function isComparison(operator: string): boolean {
  return operator === "<" || operator === "<=" || operator === ">" || operator === ">=" || operator === "==" || operator === "!=";
}

/** The errors the checker raises: those whose catalogue entry lists stage `check`. */
type CheckCode = ErrorCodeAt<"check">;

/** `name`, with the closest of `candidates` as a suggestion when one is within reach. */
function suggested(name: string, candidates: readonly string[]): { name: string; suggestion?: string } {
  const suggestion = closest(name, candidates);
  return suggestion === undefined ? { name } : { name, suggestion };
}

class Checker {
  private readonly errors: XqlError[] = [];
  private readonly ir = new IrBuilder();
  private readonly lets = new Map<string, LetInfo>();
  /** Index of the let statement being checked, or Infinity outside lets (all lets visible). */
  private scopeLimit = Infinity;
  private currentLet: string | undefined;

  constructor(
    private readonly text: string,
    private readonly markets: readonly string[],
  ) {}

  private error<C extends CheckCode>(offset: number, code: C, params: ErrorParams<C>): undefined {
    this.errors.push(fail<CheckCode>(code, params, { text: this.text, offset, stage: "check" }));
    return undefined;
  }

  run(query: Query): CheckedQuery {
    const statements = query.statements;
    // Let names first, so columns and sort (which may come before a let) can see every let.
    statements.forEach((s, index) => {
      if (s.kind !== "let") return;
      if (this.lets.has(s.name)) {
        this.error(s.nameSpan.start, "duplicate-let", { name: s.name });
      } else if (FUNCTIONS.has(s.name) || SERIES.has(s.name)) {
        this.error(s.nameSpan.start, "let-shadows-builtin", { name: s.name, builtin: FUNCTIONS.has(s.name) ? "function" : "series" });
      } else {
        this.lets.set(s.name, { binding: s, index, result: undefined });
      }
    });
    // Lets in order: each sees only the lets before it.
    for (const info of this.lets.values()) {
      this.scopeLimit = info.index;
      this.currentLet = info.binding.name;
      info.result = this.expression(info.binding.expression);
    }
    this.scopeLimit = Infinity;
    this.currentLet = undefined;

    const seen = new Set<string>();
    let market: string | undefined;
    let timeframe: Timeframe | undefined;
    let limit: number | undefined;
    let symbols: readonly string[] | undefined;
    let watchlist: string | undefined;
    const columns: CheckedColumn[] = [];
    const sort: CheckedSortKey[] = [];
    let condition: { expression: Expression; ir: IrNode } | undefined;
    for (const s of statements) {
      if (s.kind !== "let" && s.kind !== "condition") {
        const name = SETTING_NAMES[s.kind];
        if (seen.has(name)) {
          this.error(s.span.start, "duplicate-setting", { setting: name });
          continue;
        }
        seen.add(name);
      }
      switch (s.kind) {
        case "market": {
          const wanted = s.value.toUpperCase();
          market = this.markets.find((m) => m.toUpperCase() === wanted);
          if (market === undefined) {
            const suggestion = closest(wanted, this.markets.map((m) => m.toUpperCase()));
            this.error(s.valueSpan.start, "unknown-market", { market: s.value, ...(suggestion === undefined ? {} : { suggestion }), known: this.markets });
          }
          break;
        }
        case "timeframeSetting":
          timeframe = s.timeframe;
          break;
        case "limit":
          limit = s.value;
          break;
        case "symbols":
        case "watchlist":
          // A screen has one universe: a list written out, or one saved by name.
          if (seen.has(s.kind === "symbols" ? "watchlist" : "symbols")) {
            this.error(s.span.start, "symbols-and-watchlist", {});
          } else if (s.kind === "symbols") {
            symbols = s.symbols;
          } else {
            watchlist = s.name;
          }
          break;
        case "columns": {
          const texts = new Set<string>();
          for (const column of s.columns) {
            if (texts.has(column.text)) {
              this.error(column.span.start, "duplicate-column", { text: column.text });
              continue;
            }
            texts.add(column.text);
            const checked = this.expression(column.expression);
            if (checked) columns.push({ text: column.text, expression: column.expression, ir: checked.ir });
          }
          break;
        }
        case "sort":
          for (const key of s.keys) {
            const checked = this.expression(key.expression);
            if (checked) sort.push({ expression: key.expression, direction: key.direction, ir: checked.ir });
          }
          break;
        case "let":
          break;
        case "condition": {
          const checked = this.expression(s.expression);
          if (checked && checked.type !== "boolean") {
            this.error(s.expression.span.start, "condition-not-boolean", {});
          } else if (checked) {
            condition = { expression: s.expression, ir: checked.ir };
          }
          break;
        }
        default:
          assertNever(s, "statement kind");
      }
    }
    const first = this.errors.reduce<XqlError | undefined>(
      (best, e) => (best === undefined || e.position!.offset < best.position!.offset ? e : best),
      undefined,
    );
    if (first) throw first;
    return {
      text: this.text,
      ast: query,
      market,
      timeframe,
      columns,
      sort,
      limit,
      symbols,
      watchlist,
      lets: [...this.lets.values()].map((l) => l.binding),
      condition: condition!,
    };
  }

  /**
   * The names a did-you-mean may offer where `place` stands: a value takes the lets in scope,
   * the series and the zero-parameter built-ins (written bare, like `obv`); a call takes the
   * functions that take arguments. So `avgw` written as a value beside `let avgv = ...`
   * suggests `avgv`, never the function `avg`, and `obvv()` does not suggest `obv()`.
   */
  private names(place: "value" | "call"): string[] {
    const functions = [...FUNCTIONS.values()];
    if (place === "call") return functions.filter((fn) => fn.params.length > 0).map((fn) => fn.name);
    const visible = [...this.lets.values()].filter((l) => l.index < this.scopeLimit).map((l) => l.binding.name);
    const bare = functions.filter((fn) => fn.params.length === 0).map((fn) => fn.name);
    return [...visible, ...SERIES.keys(), ...bare];
  }

  private expect(checked: Checked, type: ValueType, at: Span, subject: TypedPlace): IrNode | undefined {
    if (!checked) return undefined;
    if (checked.type !== type) {
      return this.error(at.start, "type-mismatch", { subject, expected: type, got: checked.type });
    }
    return checked.ir;
  }

  expression(e: Expression): Checked {
    switch (e.kind) {
      case "number":
        return { type: "number", ir: this.ir.make({ op: "number", type: "number", value: e.value }) };
      case "boolean":
        return { type: "boolean", ir: this.ir.make({ op: "boolean", type: "boolean", value: e.value }) };
      case "identifier":
        return this.identifier(e.name, e.span);
      case "call":
        return this.call(e);
      case "unary": {
        const operand = this.expression(e.operand);
        if (e.operator === "not") {
          const ir = this.expect(operand, "boolean", e.operand.span, { operandOf: "not" });
          return ir && { type: "boolean", ir: this.ir.make({ op: "not", type: "boolean", operand: ir }) };
        }
        const ir = this.expect(operand, "number", e.operand.span, { operandOf: "-" });
        return ir && { type: "number", ir: this.ir.make({ op: "negate", type: "number", operand: ir }) };
      }
      case "timeframe": {
        const operand = this.expression(e.expression);
        return (
          operand && {
            type: operand.type,
            ir: this.ir.make({ op: "timeframe", type: operand.type, timeframe: e.timeframe, operand: operand.ir }),
          }
        );
      }
      case "history": {
        const operand = this.expression(e.expression);
        return (
          operand && {
            type: operand.type,
            ir: this.ir.make({ op: "history", type: operand.type, offset: e.offset, operand: operand.ir }),
          }
        );
      }
      case "binary":
        return this.binary(e);
      default:
        return assertNever(e, "expression kind");
    }
  }

  /** Binary chains are walked down their left spine without recursion (long queries, small stack). */
  private binary(e: Binary): Checked {
    const operator = e.operator;
    if (operator === "and" || operator === "or") {
      const operands: Expression[] = [];
      let node: Expression = e;
      while (node.kind === "binary" && node.operator === operator) {
        operands.push(node.right);
        node = node.left;
      }
      operands.push(node);
      operands.reverse();
      const irs: IrNode[] = [];
      let failed = false;
      for (const operand of operands) {
        const ir = this.expect(this.expression(operand), "boolean", operand.span, { sideOf: operator });
        if (ir) irs.push(ir);
        else failed = true;
      }
      if (failed) return undefined;
      // Flatten nested chains of the same operator built by parentheses: (a or b) or c.
      const flat = irs.flatMap((ir) => (ir.op === operator ? ir.operands : [ir]));
      return { type: "boolean", ir: this.ir.make({ op: operator, type: "boolean", operands: flat }) };
    }
    // Arithmetic chains are left-deep: collect the spine, check its leftmost operand, then fold.
    const spine: Binary[] = [];
    let node: Expression = e;
    while (node.kind === "binary" && node.operator !== "and" && node.operator !== "or") {
      spine.push(node);
      if (isComparison(node.operator)) break; // comparisons do not chain; their left side stands alone
      node = node.left;
    }
    const innermost = spine[spine.length - 1]!;
    let acc: Checked = isComparison(innermost.operator) ? undefined : this.expression(node);
    let accSpan: Span = node.span;
    for (let i = spine.length - 1; i >= 0; i--) {
      const b = spine[i]!;
      const comparison = isComparison(b.operator);
      const left = comparison ? this.expression(b.left) : acc;
      const leftSpan = comparison ? b.left.span : accSpan;
      const right = this.expression(b.right);
      const what = { sideOf: b.operator };
      const l = this.expect(left, "number", leftSpan, what);
      const r = this.expect(right, "number", b.right.span, what);
      accSpan = b.span;
      if (!l || !r) {
        acc = undefined; // recorded; keep checking the rest of the chain for earlier-in-text errors
        continue;
      }
      acc = comparison
        ? {
            type: "boolean",
            ir: this.ir.make({ op: "compare", type: "boolean", operator: b.operator as CompareOperator, left: l, right: r }),
          }
        : {
            type: "number",
            ir: this.ir.make({ op: "arithmetic", type: "number", operator: b.operator as ArithmeticOperator, left: l, right: r }),
          };
    }
    return acc;
  }

  private identifier(name: string, span: Span): Checked {
    const info = this.lets.get(name);
    if (info) {
      if (info.index < this.scopeLimit) return info.result;
      if (name === this.currentLet) return this.error(span.start, "let-self-reference", { name });
      return this.error(span.start, "let-forward-reference", { name });
    }
    const series = SERIES.get(name);
    if (series) return { type: "number", ir: this.ir.make({ op: "series", type: "number", series }) };
    const fn = FUNCTIONS.get(name);
    // A zero-parameter built-in (`obv`) is written as a bare name: the name is the call.
    if (fn && fn.params.length === 0) return this.callOf(fn, [], []);
    if (fn) return this.error(span.start, "function-without-call", { name, example: fn.example });
    if ((KEYWORDS as readonly string[]).includes(name.toLowerCase())) return this.error(span.start, "miscased-keyword", { word: name });
    return this.error(span.start, "unknown-identifier", suggested(name, this.names("value")));
  }

  private call(e: Call): Checked {
    const fn = FUNCTIONS.get(e.callee);
    if (!fn) {
      if (SERIES.has(e.callee)) return this.error(e.calleeSpan.start, "call-of-series", { name: e.callee });
      if (this.lets.has(e.callee)) return this.error(e.calleeSpan.start, "call-of-let", { name: e.callee });
      return this.error(e.calleeSpan.start, "unknown-identifier", suggested(e.callee, this.names("call")));
    }
    if (fn.params.length === 0) {
      return this.error(e.calleeSpan.start, "call-of-zero-parameter", { name: fn.name, example: fn.example });
    }
    const { min, max } = arity(fn);
    const n = e.args.length;
    if (n < min || n > max) {
      return this.error(e.calleeSpan.start, "arity", { name: fn.name, min, max, signature: signature(fn), got: n });
    }
    const params = n < fn.params.length ? fn.params.slice(1) : fn.params;
    const args: IrNode[] = [];
    const consts: number[] = [];
    if (n < fn.params.length) {
      const fallback = SERIES.get(fn.params[0]!.default!)!;
      args.push(this.ir.make({ op: "series", type: "number", series: fallback }));
    }
    let failed = false;
    params.forEach((param, i) => {
      const arg = e.args[i]!;
      switch (param.kind) {
        case "series": {
          const ir = this.expect(this.expression(arg), "number", arg.span, { argument: param.name, of: fn.name });
          if (ir) args.push(ir);
          else failed = true;
          break;
        }
        case "condition": {
          const ir = this.expect(this.expression(arg), "boolean", arg.span, { argument: param.name, of: fn.name });
          if (ir) args.push(ir);
          else failed = true;
          break;
        }
        case "length": {
          if (arg.kind !== "number") {
            this.error(arg.span.start, "length-not-literal", { param: param.name, name: fn.name, example: fn.example });
            failed = true;
          } else if (!Number.isInteger(arg.value) || arg.value < 1) {
            this.error(arg.span.start, "length-not-positive-integer", { param: param.name, name: fn.name, value: arg.value });
            failed = true;
          } else consts.push(arg.value);
          break;
        }
        case "number": {
          const literal =
            arg.kind === "number"
              ? arg.value
              : arg.kind === "unary" && arg.operator === "-" && arg.operand.kind === "number"
                ? -arg.operand.value
                : undefined;
          if (literal === undefined) {
            this.error(arg.span.start, "number-argument-not-literal", { param: param.name, name: fn.name, example: fn.example });
            failed = true;
          } else consts.push(literal);
          break;
        }
        default:
          assertNever(param.kind, "parameter kind");
      }
    });
    if (failed) return undefined;
    return this.callOf(fn, args, consts);
  }

  private callOf(fn: FunctionSpec, args: IrNode[], consts: number[]): Checked {
    return { type: fn.result, ir: this.ir.make({ op: "call", type: fn.result, fn, args, consts }) };
  }
}

/** Checks a parsed query; throws the first `XqlError` in source order. */
export function check(query: Query, text: string, markets: readonly string[] = DEFAULT_MARKETS): CheckedQuery {
  return new Checker(text, markets).run(query);
}
