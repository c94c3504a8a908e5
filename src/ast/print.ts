/**
 * The canonical printer: AST → query text with normalized spacing and minimal parentheses.
 * Parsing the printed text gives the same AST (spans aside). Long `a + b + c ...` chains
 * print without recursion down their left spine, so 60 KB queries cost no stack.
 */
import { assertNever, type BinaryOperator, type Expression, type Query, type Statement } from "./nodes.js";

/** Binding strength of each level, lowest first. */
export const PRECEDENCE = {
  or: 1,
  and: 2,
  not: 3,
  comparison: 4,
  additive: 5,
  multiplicative: 6,
  negate: 7,
  timeframe: 8,
  history: 9,
  primary: 10,
} as const;

export function binaryPrecedence(operator: BinaryOperator): number {
  switch (operator) {
    case "or":
      return PRECEDENCE.or;
    case "and":
      return PRECEDENCE.and;
    case "<":
    case "<=":
    case ">":
    case ">=":
    case "==":
    case "!=":
      return PRECEDENCE.comparison;
    case "+":
    case "-":
      return PRECEDENCE.additive;
    case "*":
    case "/":
      return PRECEDENCE.multiplicative;
    default:
      return assertNever(operator);
  }
}

export function formatNumber(value: number): string {
  return String(value);
}

function precedenceOf(e: Expression): number {
  switch (e.kind) {
    case "binary":
      return binaryPrecedence(e.operator);
    case "unary":
      return e.operator === "not" ? PRECEDENCE.not : PRECEDENCE.negate;
    case "timeframe":
      return PRECEDENCE.timeframe;
    case "history":
      return PRECEDENCE.history;
    case "number":
    case "boolean":
    case "identifier":
    case "call":
      return PRECEDENCE.primary;
    default:
      return assertNever(e);
  }
}

function write(e: Expression, minPrecedence: number, out: string[]): void {
  const own = precedenceOf(e);
  const parens = own < minPrecedence;
  if (parens) out.push("(");
  switch (e.kind) {
    case "number":
      out.push(formatNumber(e.value));
      break;
    case "boolean":
      out.push(e.value ? "true" : "false");
      break;
    case "identifier":
      out.push(e.name);
      break;
    case "call":
      out.push(e.callee, "(");
      e.args.forEach((arg, i) => {
        if (i > 0) out.push(", ");
        write(arg, PRECEDENCE.or, out);
      });
      out.push(")");
      break;
    case "unary":
      if (e.operator === "not") {
        out.push("not ");
        write(e.operand, PRECEDENCE.not, out);
      } else {
        out.push("-");
        write(e.operand, PRECEDENCE.negate, out);
      }
      break;
    case "timeframe":
      out.push(`${e.timeframe}::`);
      write(e.expression, PRECEDENCE.timeframe, out);
      break;
    case "history":
      write(e.expression, PRECEDENCE.history, out);
      out.push(`[${e.offset}]`);
      break;
    case "binary": {
      // Walk the left spine of same-level operators (left-associative), then print left to right.
      const spine: Expression[] = [];
      let node: Expression = e;
      const comparison = own === PRECEDENCE.comparison;
      while (node.kind === "binary" && binaryPrecedence(node.operator) === own && (!comparison || node === e)) {
        spine.push(node);
        node = node.left;
      }
      write(node, comparison ? own + 1 : own, out);
      for (let i = spine.length - 1; i >= 0; i--) {
        const b = spine[i] as Extract<Expression, { kind: "binary" }>;
        out.push(` ${b.operator} `);
        write(b.right, own + 1, out);
      }
      break;
    }
    default:
      assertNever(e);
  }
  if (parens) out.push(")");
}

/** Canonical text of an expression. */
export function printExpression(e: Expression): string {
  const out: string[] = [];
  write(e, PRECEDENCE.or, out);
  return out.join("");
}

function escapeString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function printStatement(s: Statement): string {
  switch (s.kind) {
    case "market":
      return `market = ${escapeString(s.value)}`;
    case "timeframeSetting":
      return `timeframe = ${s.timeframe}`;
    case "columns":
      // Columns print as written: their text is the result key, and must survive a round trip.
      // A text ending in a line comment needs its line break back.
      return `columns = [${s.columns.map((c) => (c.text.includes("//") ? `${c.text}\n` : c.text)).join(", ")}]`;
    case "sort":
      return `sort = ${s.keys.map((k) => `${printExpression(k.expression)} ${k.direction}`).join(", ")}`;
    case "limit":
      return `limit = ${s.value}`;
    case "symbols":
      return `symbols = [${s.symbols.map(escapeString).join(", ")}]`;
    case "watchlist":
      return `watchlist = ${escapeString(s.name)}`;
    case "let":
      return `let ${s.name} = ${printExpression(s.expression)}`;
    case "condition":
      return printExpression(s.expression);
    default:
      return assertNever(s);
  }
}

/**
 * Canonical text of a whole query: one statement per line. A line break is not a token, so a
 * `let` whose next statement starts with `(` or `-` ends with `;`: without it, `let a = close`
 * and `(x or y) and z` would read as the call `close(x or y)`, and `-close < 0` as `close - close`.
 */
export function printQuery(q: Query): string {
  const lines = q.statements.map(printStatement);
  return lines
    .map((line, i) => {
      const next = lines[i + 1];
      const continues = next !== undefined && (next.startsWith("(") || next.startsWith("-"));
      return q.statements[i]!.kind === "let" && continues ? `${line};` : line;
    })
    .join("\n");
}
