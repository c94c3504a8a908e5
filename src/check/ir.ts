/**
 * The checked intermediate form: typed, names resolved, `let`s inlined, call defaults filled,
 * lengths split into constants. Nodes are hash-consed, so identical subexpressions (the same
 * `rsi(14)` in columns, sort and condition; a `let` used twice) are one node with one `id`,
 * and the planner and evaluator get common-subexpression elimination for free.
 * `and`/`or` chains are flattened into one n-ary node.
 */
import type { FunctionSpec, SeriesSpec, ValueType } from "../functions/registry.js";
import { assertNever } from "../errors.js";
import type { Timeframe } from "../types.js";

export type CompareOperator = "<" | "<=" | ">" | ">=" | "==" | "!=";
export type ArithmeticOperator = "+" | "-" | "*" | "/";

interface Base {
  /** Dense, unique per distinct node within one query. */
  readonly id: number;
  readonly type: ValueType;
}

export interface IrNumber extends Base { readonly op: "number"; readonly value: number }
export interface IrBoolean extends Base { readonly op: "boolean"; readonly value: boolean }
export interface IrSeries extends Base { readonly op: "series"; readonly series: SeriesSpec }
export interface IrCall extends Base {
  readonly op: "call";
  readonly fn: FunctionSpec;
  /** Series arguments in parameter order (defaults filled in). */
  readonly args: readonly IrNode[];
  /** Length and number arguments in parameter order. */
  readonly consts: readonly number[];
}
export interface IrNegate extends Base { readonly op: "negate"; readonly operand: IrNode }
export interface IrNot extends Base { readonly op: "not"; readonly operand: IrNode }
export interface IrLogical extends Base {
  readonly op: "and" | "or";
  readonly operands: readonly IrNode[];
}
export interface IrCompare extends Base {
  readonly op: "compare";
  readonly operator: CompareOperator;
  readonly left: IrNode;
  readonly right: IrNode;
}
export interface IrArithmetic extends Base {
  readonly op: "arithmetic";
  readonly operator: ArithmeticOperator;
  readonly left: IrNode;
  readonly right: IrNode;
}
export interface IrTimeframe extends Base { readonly op: "timeframe"; readonly timeframe: Timeframe; readonly operand: IrNode }
export interface IrHistory extends Base { readonly op: "history"; readonly offset: number; readonly operand: IrNode }

export type IrNode =
  | IrNumber
  | IrBoolean
  | IrSeries
  | IrCall
  | IrNegate
  | IrNot
  | IrLogical
  | IrCompare
  | IrArithmetic
  | IrTimeframe
  | IrHistory;

type Unbuilt<T> = T extends IrNode ? Omit<T, "id"> : never;

/** The direct children of a node, in order. */
export function children(node: IrNode): readonly IrNode[] {
  switch (node.op) {
    case "number":
    case "boolean":
    case "series":
      return [];
    case "call":
      return node.args;
    case "negate":
    case "not":
    case "timeframe":
    case "history":
      return [node.operand];
    case "and":
    case "or":
      return node.operands;
    case "compare":
    case "arithmetic":
      return [node.left, node.right];
    default:
      return assertNever(node, "IR op");
  }
}

/** Builds hash-consed IR nodes: building the same structure twice returns the same node. */
export class IrBuilder {
  private readonly nodes = new Map<string, IrNode>();
  private nextId = 0;

  get size(): number {
    return this.nextId;
  }

  private key(n: Unbuilt<IrNode>): string {
    switch (n.op) {
      case "number":
        return `n${Object.is(n.value, -0) ? "-0" : n.value}`;
      case "boolean":
        return `b${n.value}`;
      case "series":
        return `s${n.series.name}`;
      case "call":
        return `c${n.fn.name}(${n.args.map((a) => a.id).join(",")};${n.consts.join(",")})`;
      case "negate":
      case "not":
        return `${n.op}${n.operand.id}`;
      case "and":
      case "or":
        return `${n.op}(${n.operands.map((a) => a.id).join(",")})`;
      case "compare":
      case "arithmetic":
        return `${n.operator}(${n.left.id},${n.right.id})`;
      case "timeframe":
        return `${n.timeframe}::${n.operand.id}`;
      case "history":
        return `${n.operand.id}[${n.offset}]`;
      default:
        return assertNever(n, "IR op");
    }
  }

  make<T extends Unbuilt<IrNode>>(n: T): IrNode & T {
    const key = this.key(n);
    const found = this.nodes.get(key);
    if (found) return found as IrNode & T;
    const node = { ...n, id: this.nextId++ } as unknown as IrNode & T;
    this.nodes.set(key, node);
    return node;
  }
}
