/**
 * The XQL grammar as one Chevrotain `CstParser`, built once per process on first use
 * (Chevrotain's self-analysis is the expensive part). Precedence, lowest first:
 * `or` < `and` < `not` < comparison < `+ -` < `* /` < unary `-` < `tf::` < `expr[n]` < primary.
 *
 * The grammar is deliberately a little wider than the language where that buys a better
 * message: comparisons may chain and history offsets may be any expression here, and the
 * lowering stage rejects both with a position and a plain explanation.
 */
import type { ILookaheadStrategy, IParserErrorMessageProvider, IToken, TokenType } from "chevrotain";
import { CstParser, EOF, LLkLookaheadStrategy } from "./chevrotain.js";
import type { Failure } from "../errors.js";
import { RecordedLookahead } from "./lookahead.js";
import * as T from "./tokens.js";

function label(tokenType: TokenType): string {
  return T.TOKEN_LABELS[tokenType.name] ?? tokenType.name;
}

const RULE_EXPECTATIONS: Readonly<Record<string, "an expression" | "a setting, a let binding or a condition">> = {
  statement: "a setting, a let binding or a condition",
  primary: "an expression",
  sortKey: "an expression",
  expression: "an expression",
};

/**
 * The error a parser exception stands for, as a catalogue code and its parameters. Chevrotain
 * keeps only a message string per error, so the failure travels in it as JSON and
 * {@link parseFailure} reads it back: the code is decided here, where the error is made.
 */
function unexpected(actual: IToken, ruleName: string): string {
  const expected = RULE_EXPECTATIONS[ruleName] ?? "an expression";
  // At the end of the text every expectation but "an expression" reads as "end of input, expected ...".
  const failure: Failure<ParseFailureCode> =
    actual.tokenType === EOF && expected !== "an expression"
      ? { code: "unexpected-end-of-input", params: { expected } }
      : { code: "expected-expression", params: actual.tokenType === EOF ? { expected } : { token: actual.image, expected } };
  return JSON.stringify(failure);
}

const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    const failure: Failure<ParseFailureCode> =
      actual.tokenType === EOF
        ? { code: "unexpected-end-of-input", params: { expected: label(expected) } }
        : { code: "unexpected-token-expected", params: { token: actual.image, expected: label(expected) } };
    return JSON.stringify(failure);
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    const failure: Failure<ParseFailureCode> = { code: "unexpected-token", params: { token: firstRedundant.image } };
    return JSON.stringify(failure);
  },
  buildNoViableAltMessage({ actual, ruleName }) {
    return unexpected(actual[0]!, ruleName);
  },
  buildEarlyExitMessage({ actual, ruleName }) {
    return unexpected(actual[0]!, ruleName);
  },
};

/** The codes the grammar itself raises. */
export type ParseFailureCode = "unexpected-end-of-input" | "expected-expression" | "unexpected-token-expected" | "unexpected-token";

/** The failure behind a message of this parser's provider. */
export function parseFailure(message: string): Failure<ParseFailureCode> {
  return JSON.parse(message) as Failure<ParseFailureCode>;
}

/** The most tokens any decision of the grammar looks ahead. */
export const MAX_LOOKAHEAD = 2;

export class XqlParser extends CstParser {
  /**
   * `validate`: run Chevrotain's grammar validations (ambiguities, left recursion, ...), which
   * throw on a defect, and decide with Chevrotain's own LL(k) lookahead computed from the
   * grammar. Both cost a cold start tens of milliseconds and can only change when this file
   * does, so the process's parser skips the validations and reads the lookahead recorded by
   * `npm run gen` (lookahead.ts); `test/syntax/definitions.test.ts` and `npm run gen`
   * (scripts/gen/grammar.ts, which records the lookahead with `lookaheadStrategy`) build one
   * with them.
   */
  constructor({ validate = false, lookaheadStrategy }: { validate?: boolean; lookaheadStrategy?: ILookaheadStrategy } = {}) {
    super(T.allTokens, {
      nodeLocationTracking: "onlyOffset",
      errorMessageProvider: messages,
      recoveryEnabled: false,
      maxLookahead: MAX_LOOKAHEAD,
      skipValidations: !validate,
      lookaheadStrategy: lookaheadStrategy ?? (validate ? new LLkLookaheadStrategy({ maxLookahead: MAX_LOOKAHEAD }) : new RecordedLookahead()),
    });
    this.performSelfAnalysis();
  }

  public query = this.RULE("query", () => {
    this.MANY(() => this.SUBRULE(this.statement));
  });

  public statement = this.RULE("statement", () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.marketSetting) },
      { ALT: () => this.SUBRULE(this.timeframeSetting) },
      { ALT: () => this.SUBRULE(this.columnsSetting) },
      { ALT: () => this.SUBRULE(this.sortSetting) },
      { ALT: () => this.SUBRULE(this.limitSetting) },
      { ALT: () => this.SUBRULE(this.symbolsSetting) },
      { ALT: () => this.SUBRULE(this.watchlistSetting) },
      { ALT: () => this.SUBRULE(this.letBinding) },
      { ALT: () => this.SUBRULE(this.condition) },
    ]);
    this.OPTION(() => this.CONSUME(T.Semicolon));
  });

  public marketSetting = this.RULE("marketSetting", () => {
    this.CONSUME(T.Market);
    this.CONSUME(T.Equals);
    this.CONSUME(T.StringLiteral);
  });

  public timeframeSetting = this.RULE("timeframeSetting", () => {
    this.CONSUME(T.Timeframe);
    this.CONSUME(T.Equals);
    this.CONSUME(T.Identifier);
  });

  public columnsSetting = this.RULE("columnsSetting", () => {
    this.CONSUME(T.Columns);
    this.CONSUME(T.Equals);
    this.CONSUME(T.LBracket);
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) });
    this.CONSUME(T.RBracket);
  });

  public sortSetting = this.RULE("sortSetting", () => {
    this.CONSUME(T.Sort);
    this.CONSUME(T.Equals);
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.sortKey) });
  });

  public sortKey = this.RULE("sortKey", () => {
    this.SUBRULE(this.expression);
    this.OPTION(() => this.OR([{ ALT: () => this.CONSUME(T.Asc) }, { ALT: () => this.CONSUME(T.Desc) }]));
  });

  public limitSetting = this.RULE("limitSetting", () => {
    this.CONSUME(T.Limit);
    this.CONSUME(T.Equals);
    this.CONSUME(T.NumberLiteral);
  });

  /** `symbols = ["EURUSD", ...]`; an empty list parses, and lowering says how many a list holds. */
  public symbolsSetting = this.RULE("symbolsSetting", () => {
    this.CONSUME(T.Symbols);
    this.CONSUME(T.Equals);
    this.CONSUME(T.LBracket);
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.CONSUME(T.StringLiteral) });
    this.CONSUME(T.RBracket);
  });

  public watchlistSetting = this.RULE("watchlistSetting", () => {
    this.CONSUME(T.Watchlist);
    this.CONSUME(T.Equals);
    this.CONSUME(T.StringLiteral);
  });

  public letBinding = this.RULE("letBinding", () => {
    this.CONSUME(T.Let);
    this.CONSUME(T.Identifier);
    this.CONSUME(T.Equals);
    this.SUBRULE(this.expression);
  });

  public condition = this.RULE("condition", () => {
    this.SUBRULE(this.expression);
  });

  public expression = this.RULE("expression", () => {
    this.SUBRULE(this.andExpression);
    this.MANY(() => {
      this.CONSUME(T.Or);
      this.SUBRULE2(this.andExpression);
    });
  });

  public andExpression = this.RULE("andExpression", () => {
    this.SUBRULE(this.notExpression);
    this.MANY(() => {
      this.CONSUME(T.And);
      this.SUBRULE2(this.notExpression);
    });
  });

  public notExpression = this.RULE("notExpression", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.Not);
          this.SUBRULE(this.notExpression);
        },
      },
      { ALT: () => this.SUBRULE(this.comparison) },
    ]);
  });

  public comparison = this.RULE("comparison", () => {
    this.SUBRULE(this.additive);
    this.MANY(() => {
      this.CONSUME(T.ComparisonOperator);
      this.SUBRULE2(this.additive);
    });
  });

  public additive = this.RULE("additive", () => {
    this.SUBRULE(this.multiplicative);
    this.MANY(() => {
      this.CONSUME(T.AdditiveOperator);
      this.SUBRULE2(this.multiplicative);
    });
  });

  public multiplicative = this.RULE("multiplicative", () => {
    this.SUBRULE(this.unary);
    this.MANY(() => {
      this.CONSUME(T.MultiplicativeOperator);
      this.SUBRULE2(this.unary);
    });
  });

  public unary = this.RULE("unary", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.Minus);
          this.SUBRULE(this.unary);
        },
      },
      { ALT: () => this.SUBRULE(this.prefixed) },
    ]);
  });

  public prefixed = this.RULE("prefixed", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.TimeframePrefix);
          this.SUBRULE(this.prefixed);
        },
      },
      { ALT: () => this.SUBRULE(this.postfix) },
    ]);
  });

  public postfix = this.RULE("postfix", () => {
    this.SUBRULE(this.primary);
    this.MANY(() => {
      this.CONSUME(T.LBracket);
      this.SUBRULE(this.expression);
      this.CONSUME(T.RBracket);
    });
  });

  public primary = this.RULE("primary", () => {
    this.OR([
      { ALT: () => this.CONSUME(T.NumberLiteral) },
      { ALT: () => this.CONSUME(T.True) },
      { ALT: () => this.CONSUME(T.False) },
      { ALT: () => this.SUBRULE(this.nameOrCall) },
      {
        ALT: () => {
          this.CONSUME(T.LParen);
          this.SUBRULE(this.expression);
          this.CONSUME(T.RParen);
        },
      },
    ]);
  });

  public nameOrCall = this.RULE("nameOrCall", () => {
    this.CONSUME(T.Identifier);
    this.OPTION(() => {
      this.CONSUME(T.LParen);
      this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) });
      this.CONSUME(T.RParen);
    });
  });
}

let parser: XqlParser | undefined;

/** The one parser of the process, built on first use. */
export function xqlParser(): XqlParser {
  return (parser ??= new XqlParser());
}
