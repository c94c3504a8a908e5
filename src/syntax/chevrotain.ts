/**
 * Chevrotain, loaded as its single-file build.
 *
 * The package's entry (`lib/src/api.js`) is 79 modules of its own and 641 of lodash-es, and
 * loading them took most of a cold start (0.6–1 s of `import("xql")`); its single-file build,
 * `lib/chevrotain.mjs` (the same version, lodash inlined), loads in 20–50 ms. The package's
 * exports map offers only its entry, so the file is reached by its path in this checkout's
 * node_modules: the build bundles it into `dist` (tsup and the playground's esbuild follow
 * the path and keep only what is used), and the tests (vitest) and tsx load it in place. The
 * types are the package's own. Every value the project takes from Chevrotain comes through
 * here; types may be imported from "chevrotain" directly, as they leave nothing at run time.
 * (No quote characters between the braces of the import below: test/package/exports.test.ts
 * reads import statements with a pattern.)
 */
import type * as Chevrotain from "chevrotain";
import {
  CstParser as cstParser,
  EOF as eof,
  Lexer as lexer,
  LLkLookaheadStrategy as llkLookaheadStrategy,
  createToken as makeToken,
  createSyntaxDiagramsCode as diagramsCode,
  generateCstDts as cstDts,
  getLookaheadPaths as lookaheadPaths,
  tokenMatcher as matcher,
  // @ts-expect-error The single-file build ships no declarations: its values are typed below.
} from "../../node_modules/chevrotain/lib/chevrotain.mjs";

export const CstParser: typeof Chevrotain.CstParser = cstParser;
export const EOF: typeof Chevrotain.EOF = eof;
export const Lexer: typeof Chevrotain.Lexer = lexer;
export const createToken: typeof Chevrotain.createToken = makeToken;
export const createSyntaxDiagramsCode: typeof Chevrotain.createSyntaxDiagramsCode = diagramsCode;
export const generateCstDts: typeof Chevrotain.generateCstDts = cstDts;
export const LLkLookaheadStrategy: typeof Chevrotain.LLkLookaheadStrategy = llkLookaheadStrategy;
export const getLookaheadPaths: typeof Chevrotain.getLookaheadPaths = lookaheadPaths;
export const tokenMatcher: typeof Chevrotain.tokenMatcher = matcher;
