/**
 * docs/functions.md, and the function list of README.md, from the function modules
 * (src/functions/builtins/, via the registry), the single source of truth for every built-in
 * (`npm run gen`). Its last section, the recipe for a new built-in, is ./add-a-built-in.md as
 * written, kept beside the generator so that the page a contributor reads for the functions
 * also says how to add one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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

/** docs/functions.md's "Add a built-in" section (ends in a newline). */
const RECIPE = readFileSync(fileURLToPath(new URL("./add-a-built-in.md", import.meta.url)), "utf8");

/** The whole of docs/functions.md. */
export function functionsMarkdown(): string {
  const functions = [...FUNCTIONS.values()];
  return [
    "<!-- Generated from the function modules (src/functions/builtins/) by npm run gen (scripts/gen/functions.ts; the last section from scripts/gen/add-a-built-in.md): do not edit. -->",
    "# XQL functions and series",
    "",
    "Every built-in of XQL, read from the function registry, the single source of truth that",
    "name resolution, type checking, lookback planning, evaluation and these docs share.",
    "`L(x)` is the lookback of an argument: the bars it needs itself (a series needs 1).",
    "See [language.md](language.md) for how lookback adds up across offsets and timeframes.",
    "To add one, follow [Add a built-in](#add-a-built-in), every step.",
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
    RECIPE,
  ].join("\n");
}

/** Words of `items` as code spans on lines of at most `width` characters, each line indented by `indent`. */
function wrapCode(items: readonly string[], indent: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const item of items) {
    const next = line === "" ? item : `${line} ${item}`;
    if (line !== "" && indent.length + next.length + 2 > width) {
      lines.push(line);
      line = item;
    } else {
      line = next;
    }
  }
  if (line !== "") lines.push(line);
  return lines.map((l, i) => `${indent}${i === 0 ? "`" : ""}${l}${i === lines.length - 1 ? "`" : ""}`);
}

/** `lines` with `end` appended to the last. */
const withLast = (lines: string[], end: string): string[] => lines.map((line, i) => (i === lines.length - 1 ? line + end : line));

const README_BEGIN = "<!-- functions: generated from the function modules by npm run gen -->";
const README_END = "<!-- /functions -->";

/** The README's bullet of every built-in function and series, as the registry has them. */
export function readmeFunctionList(): string {
  const functions = [...FUNCTIONS.values()];
  const numbers = functions.filter((fn) => fn.result === "number").map((fn) => fn.name);
  const conditions = functions.filter((fn) => fn.result === "boolean").map((fn) => fn.name);
  return [
    README_BEGIN,
    `- Functions (${functions.length}; signatures, lookbacks and references in [docs/functions.md](docs/functions.md)):`,
    `  ${numbers.length} giving numbers,`,
    ...withLast(wrapCode(numbers, "  ", 92), ";"),
    `  ${conditions.length} giving conditions (crossings, rising and falling, candlestick patterns),`,
    ...withLast(wrapCode(conditions, "  ", 92), "."),
    `- Series: \`${[...SERIES.keys()].join(" ")}\`.`,
    README_END,
  ].join("\n");
}

/** `readme` with its generated function list replaced by the registry's. */
export function readmeWithFunctions(readme: string): string {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no ${README_BEGIN} ... ${README_END} section`);
  return readme.slice(0, begin) + readmeFunctionList() + readme.slice(end + README_END.length);
}

/** docs/functions.md, and README.md with its function list as the registry has it. */
export function functionsFiles(root: string): Generated[] {
  return [
    { path: "docs/functions.md", content: functionsMarkdown() },
    { path: "README.md", content: readmeWithFunctions(readFileSync(join(root, "README.md"), "utf8")) },
  ];
}
