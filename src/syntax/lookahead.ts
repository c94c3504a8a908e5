/**
 * The parser's lookahead from paths computed when the grammar was generated, not at start-up.
 *
 * Chevrotain decides each `OR`, `OPTION` and `MANY` by the token sequences that can begin each
 * choice (its LL(k) lookahead paths), which its `LLkLookaheadStrategy` computes from the grammar
 * when the parser is built: about half of building the parser, some 10 ms of every cold start.
 * The paths depend on the grammar alone, so `npm run gen` (scripts/gen/grammar.ts) records them
 * from that strategy into lookahead-paths.ts, and this strategy turns them into the same
 * decision functions Chevrotain's would (its `buildAlternativesLookAheadFunc` and
 * `buildSingleAlternativeLookaheadFunction`, rewritten here as they are not exported).
 * test/scripts/gen.test.ts fails when the recorded paths are stale, and test/syntax/lookahead.test.ts
 * holds the parser to one built with Chevrotain's own strategy.
 */
import type { ILookaheadStrategy, ILookaheadValidationError, IOrAlt, IToken, LookaheadProductionType, OptionalProductionType, Rule, TokenType } from "chevrotain";
import { tokenMatcher } from "./chevrotain.js";
import { LOOKAHEAD_PATHS } from "./lookahead-paths.js";
import { allTokens } from "./tokens.js";

/** The key of one decision: its rule, kind and occurrence (`primary:Alternation:0`). */
export function decisionKey(rule: string, kind: LookaheadProductionType, occurrence: number): string {
  return `${rule}:${kind}:${occurrence}`;
}

/** A decision function runs with the parser as `this`; it reads the tokens ahead. */
interface Lookahead {
  LA(howMuch: number): IToken;
}

/** A path matches when each token ahead is of its type (or of a type in its category). */
function pathMatches(parser: Lookahead, path: readonly TokenType[]): boolean {
  for (let i = 0; i < path.length; i++) if (!tokenMatcher(parser.LA(i + 1), path[i]!)) return false;
  return true;
}

/** Token type index → the first alternative a single-token path of that type (or category) begins. */
function firstTokenChoices(alternatives: readonly (readonly TokenType[])[]): Map<number, number> {
  const choice = new Map<number, number>();
  alternatives.forEach((tokenTypes, alternative) => {
    for (const tokenType of tokenTypes) {
      for (const index of [tokenType.tokenTypeIdx!, ...(tokenType.categoryMatches ?? [])]) {
        if (!choice.has(index)) choice.set(index, alternative);
      }
    }
  });
  return choice;
}

function alternationLookahead(alternatives: readonly (readonly (readonly TokenType[])[])[], hasPredicates: boolean) {
  if (hasPredicates) {
    return function (this: Lookahead, orAlts?: IOrAlt<unknown>[]): number | undefined {
      for (let t = 0; t < alternatives.length; t++) {
        const gate = orAlts?.[t]?.GATE;
        if (gate !== undefined && gate.call(this) === false) continue;
        if (alternatives[t]!.some((path) => pathMatches(this, path))) return t;
      }
      return undefined;
    };
  }
  if (alternatives.every((paths) => paths.every((path) => path.length === 1))) {
    const choice = firstTokenChoices(alternatives.map((paths) => paths.map((path) => path[0]!)));
    return function (this: Lookahead): number | undefined {
      return choice.get(this.LA(1).tokenTypeIdx);
    };
  }
  return function (this: Lookahead): number | undefined {
    for (let t = 0; t < alternatives.length; t++) if (alternatives[t]!.some((path) => pathMatches(this, path))) return t;
    return undefined;
  };
}

function optionalLookahead(paths: readonly (readonly TokenType[])[]) {
  if (paths.every((path) => path.length === 1)) {
    const choice = firstTokenChoices([paths.map((path) => path[0]!)]);
    return function (this: Lookahead): boolean {
      return choice.has(this.LA(1).tokenTypeIdx);
    };
  }
  return function (this: Lookahead): boolean {
    return paths.some((path) => pathMatches(this, path));
  };
}

const TOKEN_BY_NAME = new Map(allTokens.map((t) => [t.name, t]));

/** The recorded paths of a decision, as token types. */
function recordedPaths(rule: Rule, kind: LookaheadProductionType, occurrence: number): TokenType[][][] {
  const key = decisionKey(rule.name, kind, occurrence);
  const paths = LOOKAHEAD_PATHS[key];
  if (paths === undefined) throw new Error(`internal: no recorded lookahead for ${key}: the grammar changed, run npm run gen`);
  return paths.map((alternative) =>
    alternative.map((path) =>
      path.map((name) => {
        const tokenType = TOKEN_BY_NAME.get(name);
        if (tokenType === undefined) throw new Error(`internal: recorded lookahead for ${key} names an unknown token ${name}: run npm run gen`);
        return tokenType;
      }),
    ),
  );
}

/**
 * The process's parser's lookahead. It does not validate the grammar: the parser built with
 * validations on (test/syntax/definitions.test.ts, `npm run gen`) uses Chevrotain's strategy.
 */
export class RecordedLookahead implements ILookaheadStrategy {
  validate(): ILookaheadValidationError[] {
    return [];
  }

  buildLookaheadForAlternation(options: { prodOccurrence: number; rule: Rule; hasPredicates: boolean }) {
    return alternationLookahead(recordedPaths(options.rule, "Alternation", options.prodOccurrence), options.hasPredicates);
  }

  buildLookaheadForOptional(options: { prodOccurrence: number; prodType: OptionalProductionType; rule: Rule }) {
    // Chevrotain's paths for an optional part are [inside it, after it]; the decision reads the first.
    return optionalLookahead(recordedPaths(options.rule, options.prodType, options.prodOccurrence)[0]!);
  }
}
