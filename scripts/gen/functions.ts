/**
 * docs/functions.md from the function modules (src/functions/builtins/, via the registry), the
 * single source of truth for every built-in (`npm run gen`).
 */
import { FUNCTIONS, SERIES, arity, type FunctionSpec, type Param } from "../../src/functions/registry.js";
import type { Generated } from "./generated.js";

const KIND: Readonly<Record<Param["kind"], string>> = {
  series: "a number expression",
  condition: "a boolean expression",
  length: "a positive integer literal",
  number: "a number literal, optionally negated",
};

/** `sma([src = close,] n) → number`: the optional leading source in brackets with its default. */
export function signatureOf(fn: FunctionSpec): string {
  // A zero-parameter built-in is written as a bare name.
  if (fn.params.length === 0) return `${fn.name} → ${fn.result}`;
  const params = fn.params.map((p, i) => (i === 0 && p.default !== undefined ? `[${p.name} = ${p.default},]` : p.name));
  let text = "";
  params.forEach((p, i) => {
    text += p;
    if (i < params.length - 1 && !p.endsWith(",]")) text += ",";
    if (i < params.length - 1) text += " ";
  });
  return `${fn.name}(${text}) → ${fn.result}`;
}

/** The warm-up at the example lengths of the docs (14; MACD 12, 26, 9), for the reader's scale. */
function warmupText(fn: FunctionSpec): string {
  const lengths = fn.params.filter((p) => p.kind === "length").length === 3 ? [12, 26, 9] : [14, 14, 14, 14];
  let nth = 0;
  const consts = fn.params.flatMap((p) => (p.kind === "length" ? [lengths[nth++]!] : p.kind === "number" ? [p.samples?.[0] ?? 2] : []));
  const shown = fn.params.filter((p) => p.kind === "length" || p.kind === "number").map((p, i) => `${p.name} = ${consts[i]}`);
  return `its seed is forgotten to 1e-6 after ${fn.warmup!(consts, 3_600_000)} bars beyond the lookback (${shown.length > 0 ? shown.join(", ") : "on h1"}), which the service fetches (see language.md, "Warm-up")`;
}

function functionSection(fn: FunctionSpec): string {
  const { min, max } = arity(fn);
  const lines = [
    `### \`${fn.name}\``,
    "",
    `\`${signatureOf(fn)}\``,
    "",
    fn.doc,
    "",
    "| parameter | kind |",
    "|---|---|",
    ...fn.params.map((p) => `| \`${p.name}\` | ${KIND[p.kind]}${p.default !== undefined ? `; may be left out (defaults to \`${p.default}\`)` : ""} |`),
    "",
    `- Arguments: ${min === max ? min : `${min} or ${max}`}.`,
    `- Lookback: \`${fn.lookbackDoc}\` bars${fn.implicit.length > 0 ? `; reads ${fn.implicit.map((s) => `\`${s}\``).join(", ")} from the bars` : ""}.`,
    fn.recursive
      ? `- Recursive: warms up on all the history given${fn.warmup ? `; ${warmupText(fn)}` : ""}.`
      : "- Windowed: reads only its lookback.",
    `- Example: \`${fn.example}\``,
    ...(fn.reference ? [`- Reference: ${fn.reference}.`] : []),
    "",
  ];
  return lines.join("\n");
}

/** The whole of docs/functions.md. */
export function functionsMarkdown(): string {
  const functions = [...FUNCTIONS.values()];
  return [
    "<!-- Generated from the function modules (src/functions/builtins/) by npm run gen (scripts/gen/functions.ts): do not edit. -->",
    "# XQL functions and series",
    "",
    "Every built-in of XQL, read from the function registry, the single source of truth that",
    "name resolution, type checking, lookback planning, evaluation and these docs share.",
    "`L(x)` is the lookback of an argument: the bars it needs itself (a series needs 1).",
    "See [language.md](language.md) for how lookback adds up across offsets and timeframes.",
    "",
    "## Series",
    "",
    "| name | raw series read | meaning |",
    "|---|---|---|",
    ...[...SERIES.values()].map((s) => `| \`${s.name}\` | ${s.raw.map((r) => `\`${r}\``).join(", ")} | ${s.doc} |`),
    "",
    "## Functions",
    "",
    "| signature | lookback | meaning |",
    "|---|---|---|",
    ...functions.map((fn) => `| [\`${signatureOf(fn)}\`](#${fn.name}) | \`${fn.lookbackDoc}\` | ${fn.doc} |`),
    "",
    ...functions.map(functionSection),
  ].join("\n");
}

/** docs/functions.md. */
export function functionsFiles(): Generated[] {
  return [{ path: "docs/functions.md", content: functionsMarkdown() }];
}
