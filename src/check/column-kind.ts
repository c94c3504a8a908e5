/**
 * What a query's column holds, for people reading a table: a price, an oscillator, a volume or
 * another number (the {@link ColumnKind}s a function module and a series spec declare). An
 * expression's kind follows from its parts as a trader reads them (docs/service.md, "How the
 * table shows numbers"):
 * - a series or a call has the kind its spec declares; a call declared `input` has the kind of
 *   its series arguments when they agree (`sma(volume, 20)` is a volume), else `number`;
 * - `tf::x`, `x[n]` and `-x` have the kind of x;
 * - `a + b` and `a − b` of one kind keep it (`high − low` is a price range, `close − open` a
 *   price move), as does adding a literal (`close + 0.001`, a price offset); mixed kinds are a
 *   `number`;
 * - `x * k`, `k * x` and `x / k` with a literal k keep x's kind (`close * 1.01` is a price level,
 *   `avg(volume, 20) * 2` a volume); a product or quotient of two series is a `number`
 *   (`close / sma(200)` is a ratio);
 * - a literal alone, and a condition (shown as 1 or 0), are a `number`.
 * Pure and browser-safe: the CLI's table and the playground's read it.
 */
import { assertNever } from "../errors.js";
import type { ColumnKind } from "../functions/module.js";
import type { IrNode } from "./ir.js";

/** A literal: it takes the kind of what it is combined with. */
type Kind = ColumnKind | "literal";

function kindOf(node: IrNode): Kind {
  switch (node.op) {
    case "number":
      return "literal";
    case "boolean":
    case "not":
    case "and":
    case "or":
    case "compare":
      return "number";
    case "series":
      return node.series.column;
    case "call":
      return node.fn.column === "input" ? agreed(node.args.map(kindOf)) : node.fn.column;
    case "negate":
    case "timeframe":
    case "history":
      return kindOf(node.operand);
    case "arithmetic": {
      const left = kindOf(node.left);
      const right = kindOf(node.right);
      const operator = node.operator;
      switch (operator) {
        case "+":
        case "-":
          return left === "literal" ? right : right === "literal" || left === right ? left : "number";
        case "*":
          return left === "literal" ? right : right === "literal" ? left : "number";
        case "/":
          return right === "literal" ? left : "number";
      }
      return assertNever(operator, "arithmetic operator");
    }
    default:
      return assertNever(node, "IR op");
  }
}

/** The one kind the arguments share, literals aside; `number` when they differ. */
function agreed(kinds: readonly Kind[]): Kind {
  const distinct = new Set(kinds.filter((k) => k !== "literal"));
  if (distinct.size === 0) return kinds.length > 0 ? "literal" : "number";
  return distinct.size === 1 ? [...distinct][0]! : "number";
}

/** The kind of a checked column expression. */
export function columnKind(node: IrNode): ColumnKind {
  const kind = kindOf(node);
  return kind === "literal" ? "number" : kind;
}
