/**
 * Why a symbol matches a screen at a bar, or not (decisions §11): the condition as a tree of
 * its parts, each with its value at that bar.
 *
 * Not a second interpreter. Every part of the tree is asked of the screen's own evaluation as a
 * column: the query is written again with the condition `true` and one column per part (and the
 * query's own columns and sort keys, so its plan — sources, fetch, anchors — is the original's,
 * which every part needs no more than). A run of that query, or its history at an earlier bar,
 * computes each part in the same slot program over the same bars as the screen's run does, so
 * a part's value is the run's at that bar, bit for bit: `and`/`or` no longer short-circuit
 * there only because each part is asked for itself.
 */
import type { Expression, LetBinding, Query } from "../ast/nodes.js";
import { printExpression, printStatement } from "../ast/print.js";
import { lastClosedIndex } from "../alignment.js";
import { TIMEFRAME_MS, type Instrument, type Timeframe } from "../types.js";

/** One part of the condition at the bar asked. */
export interface WhyNode {
  /** The part's canonical text, as explain prints it. */
  expr: string;
  /** Its value at the bar: a number, a boolean, or null where it is undefined (warm-up, NaN, no data). */
  value: number | boolean | null;
  /**
   * For a part read at another bar than the one asked — a coarser timeframe's last closed bar
   * (`d::sma(close, 200)`), or an offset (`close[3]`) — the open time (ms) of the bar it read.
   */
  time?: number;
  /** `and`/`or`/`not` and comparisons: their operands; a `let` name: its definition. */
  children?: WhyNode[];
}

/** The answer of `why`: `POST /xql/why`'s body. */
export interface WhyResult {
  /** The symbol asked about. */
  symbol: string;
  /** Open time (ms) of the base bar evaluated. */
  time: number;
  /** Whether the condition holds at that bar. */
  matched: boolean;
  /** The query's columns at that bar (empty without `columns`), as a run reports them. */
  columns: Record<string, number | null>;
  /** The condition, part by part. */
  tree: WhyNode;
}

/** The shape of a tree before its values: each part with the column that carries its value. */
interface Shape {
  readonly expression: Expression;
  readonly text: string;
  readonly boolean: boolean;
  readonly children: readonly Shape[];
}

/** What the tree is built from: the checked query's parts that matter here. */
export interface WhySource {
  readonly ast: Query;
  readonly lets: readonly LetBinding[];
  readonly condition: Expression;
  readonly columns: readonly { readonly text: string; readonly expression: Expression }[];
  readonly sort: readonly { readonly expression: Expression }[];
  /** Whether an expression is boolean (from the checker's types). */
  readonly isBoolean: (e: Expression) => boolean;
}

/** Operands of a chain of one `and`/`or` (`a and b and c` is one part with three operands). */
function chainOperands(e: Expression, operator: "and" | "or"): Expression[] {
  const out: Expression[] = [];
  const stack: Expression[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === "binary" && x.operator === operator) stack.push(x.right, x.left);
    else out.push(x);
  }
  return out;
}

const COMPARISONS = new Set(["<", "<=", ">", ">=", "==", "!="]);

/** The tree's shape: which parts it shows and which column carries each. */
export function whyShape(source: WhySource): Shape {
  const lets = new Map(source.lets.map((l) => [l.name, l]));
  const shape = (e: Expression, seen: ReadonlySet<string>): Shape => {
    const text = printExpression(e);
    const boolean = source.isBoolean(e);
    let children: Shape[] = [];
    if (e.kind === "binary" && (e.operator === "and" || e.operator === "or")) {
      children = chainOperands(e, e.operator).map((x) => shape(x, seen));
    } else if (e.kind === "binary" && COMPARISONS.has(e.operator)) {
      children = [shape(e.left, seen), shape(e.right, seen)];
    } else if (e.kind === "unary" && e.operator === "not") {
      children = [shape(e.operand, seen)];
    } else if (e.kind === "identifier" && lets.has(e.name) && !seen.has(e.name)) {
      children = [shape(lets.get(e.name)!.expression, new Set([...seen, e.name]))];
    }
    return { expression: e, text, boolean, children };
  };
  return shape(source.condition, new Set());
}

/** Every column text the tree reads, once each. */
function partTexts(root: Shape): string[] {
  const texts = new Set<string>();
  const stack: Shape[] = [root];
  while (stack.length > 0) {
    const s = stack.pop()!;
    texts.add(s.text);
    stack.push(...s.children);
  }
  return [...texts];
}

/**
 * The query that evaluates the tree: the settings that decide the plan (market, timeframe),
 * every `let`, and as columns the query's own columns (under their keys), its sort keys and
 * every part; the condition `true`, so every instrument with enough bars gives a row.
 */
export function whyQueryText(source: WhySource, root: Shape): string {
  const statements: string[] = [];
  for (const s of source.ast.statements) {
    if (s.kind === "market" || s.kind === "timeframeSetting" || s.kind === "let") statements.push(printStatement(s));
  }
  const columns = new Set<string>();
  for (const c of source.columns) columns.add(c.text.includes("//") ? `${c.text}\n` : c.text);
  for (const k of source.sort) columns.add(printExpression(k.expression));
  for (const text of partTexts(root)) columns.add(text);
  statements.push(`columns = [${[...columns].join(", ")}]`);
  statements.push("true");
  // Each statement ends with `;`: a line break is not a token.
  return statements.map((s) => `${s};`).join("\n");
}

/** The base bar index at or before `at` (ms), or the latest; -1 when there is none. */
export function whyIndex(times: ArrayLike<number>, at: number | undefined): number {
  if (at === undefined) return times.length - 1;
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The bar a part reads, as (timeframe, index), following its prefixes and offsets from the base
 * bar `index`: `d::x` reads the last day closed by the base bar's close, `x[k]` k bars earlier
 * on its timeframe. Undefined when the instrument lacks that timeframe or the bar is before its first.
 */
function barOf(e: Expression, instrument: Instrument, timeframe: Timeframe, index: number): { timeframe: Timeframe; index: number } | undefined {
  let tf = timeframe;
  let i = index;
  let x = e;
  for (;;) {
    if (x.kind === "history") {
      i -= x.offset;
      x = x.expression;
    } else if (x.kind === "timeframe") {
      const outer = instrument.bars[tf];
      const inner = instrument.bars[x.timeframe];
      if (!outer || !inner || i < 0) return undefined;
      const close = outer.time[i]! + TIMEFRAME_MS[tf];
      i = lastClosedIndex(inner.time, inner.time.length, TIMEFRAME_MS[x.timeframe], close);
      tf = x.timeframe;
      x = x.expression;
    } else break;
    if (i < 0) return undefined;
  }
  return { timeframe: tf, index: i };
}

/** The tree with its values: `columns` is the why-query's row at the bar (undefined: no row, every part undefined). */
export function whyTree(
  root: Shape,
  columns: Record<string, number | null> | undefined,
  instrument: Instrument,
  base: Timeframe,
  index: number,
): WhyNode {
  const build = (s: Shape): WhyNode => {
    const raw = columns?.[s.text];
    const value = raw === undefined || raw === null ? null : s.boolean ? raw === 1 : raw;
    const node: WhyNode = { expr: s.text, value };
    if (s.expression.kind === "history" || s.expression.kind === "timeframe") {
      const read = barOf(s.expression, instrument, base, index);
      const bars = read ? instrument.bars[read.timeframe] : undefined;
      if (read && bars && read.index < bars.time.length) node.time = bars.time[read.index]!;
    }
    if (s.children.length > 0) node.children = s.children.map(build);
    return node;
  };
  return build(root);
}
