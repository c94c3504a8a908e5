/**
 * Renders the parser's own grammar (Chevrotain's serialized GAST) as EBNF, as an offline
 * railroad-diagram page and as the CST node types the lowering visitor reads, so none can
 * drift from the parser: `npm run gen` writes them, and a test fails when the committed files
 * differ.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ILookaheadStrategy, ISerializedGast, LookaheadProductionType, Rule } from "chevrotain";
import { LLkLookaheadStrategy, createSyntaxDiagramsCode, generateCstDts, getLookaheadPaths } from "../../src/syntax/chevrotain.js";
import { decisionKey } from "../../src/syntax/lookahead.js";
import { MAX_LOOKAHEAD, XqlParser } from "../../src/syntax/parser.js";
import * as T from "../../src/syntax/tokens.js";
import type { Generated } from "./generated.js";

type Gast = ISerializedGast & {
  name?: string;
  label?: string;
  definition?: Gast[];
  idx?: number;
  terminalLabel?: string;
  pattern?: string;
  separator?: Gast;
  nonTerminalName?: string;
};

function terminal(node: Gast): string {
  const name = node.name ?? node.label ?? "?";
  const token = T.allTokens.find((t) => t.name === name);
  const pattern = token?.PATTERN;
  if (typeof pattern === "string") return JSON.stringify(pattern);
  return name;
}

function sequence(defs: readonly Gast[]): string {
  return defs.map(render).join(" ");
}

function render(node: Gast): string {
  const defs = node.definition ?? [];
  switch (node.type) {
    case "NonTerminal":
      return node.name ?? node.nonTerminalName ?? "?";
    case "Terminal":
      return terminal(node);
    case "Alternative":
      return sequence(defs);
    case "Alternation":
      return `( ${defs.map(render).join(" | ")} )`;
    case "Option":
      return `[ ${sequence(defs)} ]`;
    case "Repetition":
      return `{ ${sequence(defs)} }`;
    case "RepetitionMandatory":
      return `${sequence(defs)} { ${sequence(defs)} }`;
    case "RepetitionWithSeparator": {
      const body = sequence(defs);
      return `[ ${body} { ${terminal(node.separator!)} ${body} } ]`;
    }
    case "RepetitionMandatoryWithSeparator": {
      const body = sequence(defs);
      return `${body} { ${terminal(node.separator!)} ${body} }`;
    }
    default:
      return `? ${node.type} ?`;
  }
}

const LEXICAL = `(* Lexical rules (see docs/language.md):
   whitespace   = { " " | "\\t" | "\\n" | "\\r" } ;            (* skipped; a line break is not a token *)
   comment      = "//" { any character but a line break } ;   (* skipped *)
   Identifier   = letter_ { letter_ | digit } ;                (* letter_ = A-Z a-z _ *)
   TimeframePrefix = Identifier "::" ;                         (* one token: d:: w:: h4:: ... *)
   NumberLiteral = digit { digit } [ "." digit { digit } ] [ ( "e" | "E" ) [ "+" | "-" ] digit { digit } ] ;
   StringLiteral = '"' { any character but '"', '\\\\' or a line break | '\\\\"' | '\\\\\\\\' } '"' ;
   ComparisonOperator = "<=" | ">=" | "==" | "!=" | "<" | ">" ;
   AdditiveOperator = "+" | "-" ;  MultiplicativeOperator = "*" | "/" ;
   Keywords (reserved, lower case): ${T.KEYWORDS.join(" ")} *)`;

/** Chevrotain's LL(k) lookahead, recording the paths of each decision as it builds the parser. */
class RecordingLookahead extends LLkLookaheadStrategy {
  readonly paths = new Map<string, string[][][]>();

  private record(rule: Rule, kind: LookaheadProductionType, occurrence: number, maxLookahead: number): void {
    const paths = getLookaheadPaths({ occurrence, rule, prodType: kind, maxLookahead });
    this.paths.set(
      decisionKey(rule.name, kind, occurrence),
      paths.map((alternative) => alternative.map((path) => path.map((tokenType) => tokenType.name))),
    );
  }

  override buildLookaheadForAlternation(options: Parameters<ILookaheadStrategy["buildLookaheadForAlternation"]>[0]) {
    this.record(options.rule, "Alternation", options.prodOccurrence, options.maxLookahead);
    return super.buildLookaheadForAlternation(options);
  }

  override buildLookaheadForOptional(options: Parameters<ILookaheadStrategy["buildLookaheadForOptional"]>[0]) {
    this.record(options.rule, options.prodType, options.prodOccurrence, options.maxLookahead);
    return super.buildLookaheadForOptional(options);
  }
}

let validated: { parser: XqlParser; lookahead: RecordingLookahead } | undefined;

/**
 * A parser built with Chevrotain's grammar validations and its own lookahead on: the documents
 * come from a checked grammar, and the lookahead paths from Chevrotain's analysis.
 */
function grammarParser(): XqlParser {
  return checkedBuild().parser;
}

function checkedBuild(): { parser: XqlParser; lookahead: RecordingLookahead } {
  if (validated === undefined) {
    const lookahead = new RecordingLookahead({ maxLookahead: MAX_LOOKAHEAD });
    validated = { parser: new XqlParser({ validate: true, lookaheadStrategy: lookahead }), lookahead };
  }
  return validated;
}

/** src/syntax/lookahead-paths.ts: every decision's lookahead paths, for the process's parser. */
export function lookaheadPaths(): string {
  const entries = [...checkedBuild().lookahead.paths].map(([key, paths]) => `  ${JSON.stringify(key)}: ${JSON.stringify(paths)},`);
  return [
    "/* Generated from src/syntax/parser.ts by npm run gen (scripts/gen/grammar.ts): do not edit. */",
    "/**",
    " * Each decision's lookahead, as Chevrotain's LL(k) analysis of the grammar finds it: per",
    " * decision (rule:kind:occurrence), per alternative, the token sequences that begin it.",
    " * src/syntax/lookahead.ts builds the parser's decisions from them.",
    " */",
    "export const LOOKAHEAD_PATHS: Readonly<Record<string, readonly (readonly (readonly string[])[])[]>> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

/** The grammar as EBNF, generated from the parser. */
export function grammarEbnf(): string {
  const rules = grammarParser().getSerializedGastProductions() as Gast[];
  const lines = [
    "(* XQL grammar. Generated from src/syntax/parser.ts by npm run gen (scripts/gen/grammar.ts): do not edit. *)",
    "",
    LEXICAL,
    "",
    ...rules.map((rule) => `${rule.name} = ${sequence(rule.definition ?? [])} ;`),
    "",
  ];
  return lines.join("\n");
}

/** CST node types for the lowering visitor, generated from the parser. */
export function cstTypes(): string {
  const dts = generateCstDts(grammarParser().getGAstProductions(), { includeVisitorInterface: false });
  return `/* Generated from src/syntax/parser.ts by npm run gen (scripts/gen/grammar.ts): do not edit. */\n${dts.replace(/^import type .*$/m, 'import type { CstNode, IToken } from "chevrotain";')}`;
}

/** A file of chevrotain's diagrams folder (the railroad renderer's script and style). */
function chevrotainResource(path: string): string {
  // chevrotain exports no package.json; its CommonJS entry is lib/src/api.js, two folders below the root.
  const root = join(dirname(createRequire(import.meta.url).resolve("chevrotain")), "..", "..");
  return readFileSync(join(root, "diagrams", path), "utf8");
}

/** A self-contained railroad-diagram page: the renderer's scripts are inlined, no network needed. */
export function grammarDiagramsHtml(readResource: (relativePath: string) => string = chevrotainResource): string {
  const html = createSyntaxDiagramsCode(grammarParser().getSerializedGastProductions(), {
    resourceBase: "RESOURCE/",
    css: "RESOURCE/diagrams.css",
  });
  return html
    .replace(/<link rel='stylesheet' href='RESOURCE\/([^']+)'>/g, (_m, path: string) => `<style>\n${readResource(path)}\n</style>`)
    .replace(/<script src='RESOURCE\/([^']+)'><\/script>/g, (_m, path: string) => `<script>\n${readResource(path)}\n</script>`);
}

/** grammar/xql.ebnf, grammar/diagrams.html, src/syntax/cst.ts and src/syntax/lookahead-paths.ts. */
export function grammarFiles(): Generated[] {
  return [
    { path: "grammar/xql.ebnf", content: grammarEbnf() },
    { path: "grammar/diagrams.html", content: grammarDiagramsHtml() },
    { path: "src/syntax/cst.ts", content: cstTypes() },
    { path: "src/syntax/lookahead-paths.ts", content: lookaheadPaths() },
  ];
}
