/**
 * Errors are data: `{ type, message, position? }` exactly as the spec shows, raised as one
 * `XqlError`. Syntax errors always carry a position; plan errors never do.
 *
 * `ERROR_CATALOGUE` is the one table of every error the front end can give: a stable code
 * (a readable kebab-case id such as `unknown-identifier`, never renumbered), its type, the
 * stages that raise it, the template its message is rendered from and an example. Code raises
 * an error by its code and parameters, `fail("unknown-identifier", { name, suggestion }, at)`
 * (as jsonata does), so the code is known where the error is made and the message has one
 * spelling. docs/errors.md's catalogue is generated from the table (`npm run gen`).
 */
import type { ErrorBody, InvalidResult, Position } from "./types.js";

/** The stage that found the problem, for logs and docs (never part of the HTTP body). */
export type Stage = "lex" | "parse" | "lower" | "check" | "plan";

/**
 * The one error type of the library, thrown by {@link compile}. `body` is the spec's error
 * object, the same one {@link validate} returns and the HTTP service answers with a 400.
 *
 * @example
 * ```ts
 * try {
 *   compile('market = "FOREX"\ntimeframe = h1\nrsi(14) <');
 * } catch (error) {
 *   if (error instanceof XqlError) console.log(error.type, error.position, error.toResult());
 *   else throw error;
 * }
 * ```
 */
export class XqlError extends Error {
  /** Always `"XqlError"`. */
  override readonly name = "XqlError";
  /** `syntax` (the text is wrong at `position`) or `plan` (well-formed, but not plannable). */
  readonly type: "syntax" | "plan";
  /** Where a syntax error is; `undefined` for plan errors. */
  readonly position: Position | undefined;
  /** The stage that found the problem, for logs (never part of the body). */
  readonly stage: Stage;
  /**
   * The stable code of the error in {@link ERROR_CATALOGUE} (`"unknown-identifier"`), for
   * programs that branch on the kind of mistake. Library only: HTTP bodies keep exactly
   * `{ type, message, position? }`.
   */
  readonly code: QueryErrorCode;

  /**
   * @param body - The spec's error object.
   * @param stage - The stage that found the problem.
   * @param code - Its kind in {@link ERROR_CATALOGUE}.
   */
  constructor(body: ErrorBody, stage: Stage, code: QueryErrorCode) {
    super(body.message);
    this.type = body.type;
    this.position = body.position;
    this.stage = stage;
    this.code = code;
  }

  /** The spec's error body: `{ type, message, position? }` (position only for syntax errors). */
  get body(): ErrorBody {
    return this.position === undefined
      ? { type: this.type, message: this.message }
      : { type: this.type, message: this.message, position: { ...this.position } };
  }

  /** The HTTP 400 body: `{ valid: false, error }`. */
  toResult(): InvalidResult {
    return { valid: false, error: this.body };
  }
}

/** Line and column (1-based) of a 0-based UTF-16 offset; `\r\n`, `\n` and `\r` each end a line. */
export function positionAt(text: string, offset: number): Position {
  const at = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    const ch = text.charCodeAt(i);
    // A \r followed by \n is one line break, counted at the \n.
    if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1, offset: at };
}

/** The part of docs/errors.md an entry is listed under. */
export type ErrorGroup = "lexical" | "grammar" | "structural" | "check" | "plan" | "outside" | DataErrorGroup;

/** The parts of docs/errors.md for errors outside the query (type `data`): where they arise. */
export type DataErrorGroup = "bars" | "import" | "store" | "accounts" | "feeds" | "alerts" | "playground" | "cli" | "service";

/** The parameters of a message without variable parts. */
type NoParams = Record<never, never>;

/** A value's type as messages name it. */
type ValueKind = "number" | "boolean";

/** Where a value of the wrong type stands, as `type-mismatch` names it. */
export type TypedPlace =
  | {
      /** The prefix operator whose operand it is. */
      readonly operandOf: "not" | "-";
    }
  | {
      /** The binary operator it is a side of. */
      readonly sideOf: string;
    }
  | {
      /** The parameter it is passed as. */
      readonly argument: string;
      /** The function called. */
      readonly of: string;
    };

const article = (kind: ValueKind): string => (kind === "number" ? "a number" : "a boolean");

function placeText(place: TypedPlace): string {
  if ("operandOf" in place) return `The operand of '${place.operandOf}'`;
  if ("sideOf" in place) return `Each side of '${place.sideOf}'`;
  return `Argument '${place.argument}' of ${place.of}`;
}

const didYouMean = (suggestion: string | undefined): string => (suggestion === undefined ? "" : `, did you mean '${suggestion}'?`);

/**
 * Every error the front end can give, by code, in the order docs/errors.md lists them:
 * `message` renders the text from the parameters; `template` is how docs/errors.md shows it
 * (`<x>` marking a part that varies, with notes on where it points).
 */
const CATALOGUE = {
  "unterminated-string": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (_: NoParams) => "Unterminated string",
    template: "`Unterminated string` (at the opening quote; a string may not span lines)", example: '`market = "FOREX`',
  },
  "invalid-escape": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (_: NoParams) => 'Invalid escape in string: only \\" and \\\\ are allowed',
    template: '`Invalid escape in string: only \\" and \\\\ are allowed` (at the backslash)', example: '`market = "FO\\REX"`',
  },
  "stray-colon": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (_: NoParams) => "Unexpected character ':'; a timeframe prefix is written like d::close",
    template: "`Unexpected character ':'; a timeframe prefix is written like d::close`", example: "`d:close > 1`",
  },
  "stray-bang": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (_: NoParams) => "Unexpected character '!'; use 'not' for negation or '!=' for inequality",
    template: "`Unexpected character '!'; use 'not' for negation or '!=' for inequality`", example: "`!(close > 1)`",
  },
  "stray-logical": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (p: { character: "&" | "|" }) => `Unexpected character '${p.character}'; use 'and' / 'or'`,
    template: "`Unexpected character '&'; use 'and' / 'or'` (also for `\\|`)", example: "`close > 1 && true`",
  },
  "single-quote": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (_: NoParams) => `Unexpected character "'"; strings use double quotes`,
    template: "`Unexpected character \"'\"; strings use double quotes`", example: "`market = 'FOREX'`",
  },
  "unexpected-character": {
    type: "syntax", stages: ["lex"], group: "lexical",
    message: (p: { character: string }) => `Unexpected character '${p.character}'`,
    template: "`Unexpected character '<c>'`; control and invisible characters (no-break and zero-width spaces, a byte-order mark after the first character) are shown as `U+0007`, `U+00A0`, `U+FEFF`, astral characters whole (`'📈'`, at the offset of their first UTF-16 unit)", example: "`close > 1 # note`",
  },
  "unexpected-end-of-input": {
    type: "syntax", stages: ["parse"], group: "grammar",
    message: (p: { expected: string }) => `Unexpected end of input, expected ${p.expected}`,
    template: "`Unexpected end of input, expected <what>`, e.g. `expected ')'`, `expected ']'`, `expected '='`", example: "`rsi(14`",
  },
  "expected-expression": {
    type: "syntax", stages: ["parse"], group: "grammar",
    message: (p: { token?: string; expected: "an expression" | "a setting, a let binding or a condition" }) =>
      `Unexpected ${p.token === undefined ? "end of input" : `'${p.token}'`}, expected ${p.expected}`,
    template: "`Unexpected <token or end of input>, expected an expression`", example: "`close >`, `columns = []`, `rsi(14,)`",
  },
  "unexpected-token-expected": {
    type: "syntax", stages: ["parse"], group: "grammar",
    message: (p: { token: string; expected: string }) => `Unexpected '${p.token}', expected ${p.expected}`,
    template: "`Unexpected '<token>', expected <what>`; `<what>` is a token (`'='`, `']'`), `a name`, `a number` or `a string such as \"FOREX\"`", example: "`timeframe h1`, `market = FOREX`, `let and = 1`",
  },
  "unexpected-token": {
    type: "syntax", stages: ["parse"], group: "grammar",
    message: (p: { token: string }) => `Unexpected '${p.token}'`,
    template: "`Unexpected '<token>'` (a token that cannot start a statement)", example: "`close > 1)`, `close > 1;;`",
  },
  "nesting-too-deep": {
    type: "syntax", stages: ["parse"], group: "grammar",
    message: (p: { max: number }) => `Expression nested too deeply: at most ${p.max} levels of parentheses, brackets and prefix operators`,
    template: "`Expression nested too deeply: at most 64 levels of parentheses, brackets and prefix operators` (at the token that goes past 64)", example: "70 `(`; `close[0][0]…` 70 times; `not not …`",
  },
  "query-too-long": {
    type: "syntax", stages: ["lex"], group: "grammar",
    message: (p: { max: number; count: number }) => `Query too long: at most ${p.max} tokens (names, numbers, operators), this one has ${p.count}`,
    template: "`Query too long: at most 4000 tokens (names, numbers, operators), this one has <n>` (at the first token beyond the limit; the cost guard, checked right after lexing)", example: "64 KiB of `close > sma(2) or …`",
  },
  "missing-condition": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (_: NoParams) => "Missing condition: a query ends with a boolean condition, such as rsi(14) < 30",
    template: "`Missing condition: a query ends with a boolean condition, such as rsi(14) < 30` (at the end of input)", example: "`` (empty), settings only",
  },
  "second-condition": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (_: NoParams) => "A query has exactly one condition; combine conditions with 'and' or 'or'",
    template: "`A query has exactly one condition; combine conditions with 'and' or 'or'` (at the second)", example: "`close > 1` then `close < 2`",
  },
  "condition-not-last": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (_: NoParams) => "The condition must be the last statement; write settings and lets before it",
    template: "`The condition must be the last statement; write settings and lets before it`", example: "`true` then `limit = 1`",
  },
  "unknown-timeframe": {
    type: "syntax", stages: ["parse", "lower"], group: "structural",
    message: (p: { timeframe: string; suggestion?: string; known: readonly string[] }) =>
      `Unknown timeframe '${p.timeframe}'${p.suggestion === undefined ? ";" : `, did you mean '${p.suggestion}'?`} Timeframes are ${p.known.join(" ")}`,
    template: "`Unknown timeframe '<tf>', did you mean '<tf>'? Timeframes are m1 m5 m15 m30 h1 h4 d w` (a prefix shown with its `::`); the suggestion reads common spellings first (`1h`/`60`→`h1`, `15m`→`m15`, `4h`→`h4`, `1d`/`daily`/`D`→`d`, `1w`/`weekly`→`w`, `H1`→`h1`), else the closest within edit distance 2; with none, `; Timeframes are ...`. A count written first (`timeframe = 1h`, `1d::`) is reported at its number", example: "`timeframe = h2`, `timeframe = 1h`, `mn::close`, `1d::sma(200)`, `daily::close`",
  },
  "number-too-large": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (p: { literal: string }) => `Number '${p.literal}' is too large`,
    template: "`Number '<literal>' is too large` (beyond the largest double)", example: "`close > 1e400`",
  },
  "limit-range": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (p: { max: number; literal: string }) => `Limit must be an integer from 1 to ${p.max}, got ${p.literal}`,
    template: "`Limit must be an integer from 1 to 10000, got <literal>`", example: "`limit = 0`, `limit = 2.5`",
  },
  "history-offset": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (_: NoParams) => "A history offset must be a non-negative integer literal, as in close[1]",
    template: "`A history offset must be a non-negative integer literal, as in close[1]`", example: "`close[1.5]`, `close[-1]`, `close[n]`",
  },
  "chained-comparison": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (_: NoParams) => "Comparisons cannot be chained; join them with 'and', as in a < b and b < c",
    template: "`Comparisons cannot be chained; join them with 'and', as in a < b and b < c` (at the second operator)", example: "`1 < close < 2`",
  },
  "miscased-keyword": {
    type: "syntax", stages: ["parse", "lower", "check"], group: "structural",
    message: (p: { word: string }) => `Unexpected '${p.word}'; keywords are lower case: did you mean '${p.word.toLowerCase()}'?`,
    template: "`Unexpected '<Word>'; keywords are lower case: did you mean '<word>'?`", example: "`rsi(14) < 30 AND close > 1`, `NOT x`, `Limit = 5`, `TRUE`",
  },
  "unknown-identifier": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string; suggestion?: string }) => `Unknown identifier '${p.name}'${didYouMean(p.suggestion)}`,
    template: "`Unknown identifier '<name>', did you mean '<suggestion>'?`, or just `Unknown identifier '<name>'` with no candidate within edit distance 2", example: "`rsii(14) < 30`, `zzzz < 30`",
  },
  "function-without-call": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string; example: string }) => `'${p.name}' is a function; call it with arguments, as in ${p.example}`,
    template: "`'<fn>' is a function; call it with arguments, as in <fn's example>`", example: "`close > sma`",
  },
  "call-of-zero-parameter": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string; example: string }) =>
      `'${p.name}' takes no arguments and is written without parentheses, as in ${p.example}`,
    template: "`'<fn>' takes no arguments and is written without parentheses, as in <fn's example>` (at the name)", example: "`obv() > 0`",
  },
  "call-of-series": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string }) => `'${p.name}' is a series, not a function`,
    template: "`'<series>' is a series, not a function`", example: "`close(1) > 0`",
  },
  "call-of-let": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string }) => `'${p.name}' is a let binding, not a function`,
    template: "`'<name>' is a let binding, not a function`", example: "`let a = close` then `a(1) > 0`",
  },
  "arity": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string; min: number; max: number; signature: string; got: number }) =>
      `Function '${p.name}' takes ${p.min === p.max ? p.min : p.max === p.min + 1 ? `${p.min} or ${p.max}` : `${p.min} to ${p.max}`} argument${p.max === 1 ? "" : "s"} (${p.signature}), got ${p.got}`,
    template: "`Function '<fn>' takes <n> argument(s) (<signature>), got <m>`, e.g. `Function 'rsi' takes 1 or 2 arguments (rsi([src,], n)), got 3`", example: "`atr()`",
  },
  "length-not-literal": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { param: string; name: string; example: string }) =>
      `Length '${p.param}' of ${p.name} must be a positive integer literal, as in ${p.example}`,
    template: "`Length '<param>' of <fn> must be a positive integer literal, as in <example>`", example: "`sma(close, 10 + 10)`, `rsi(n)`",
  },
  "length-not-positive-integer": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { param: string; name: string; value: number }) => `Length '${p.param}' of ${p.name} must be a positive integer, got ${p.value}`,
    template: "`Length '<param>' of <fn> must be a positive integer, got <value>`", example: "`sma(close, 0)`, `ema(close, 2.5)`",
  },
  "number-argument-not-literal": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { param: string; name: string; example: string }) =>
      `Argument '${p.param}' of ${p.name} must be a number literal, as in ${p.example}`,
    template: "`Argument '<param>' of <fn> must be a number literal, as in <example>`", example: "`bb_upper(20, atr(14))`",
  },
  "type-mismatch": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { subject: TypedPlace; expected: ValueKind; got: ValueKind }) => `${placeText(p.subject)} must be ${article(p.expected)}, got ${article(p.got)}`,
    template: "`<what> must be a number, got a boolean` (or the reverse); `<what>` is `The operand of 'not'`, `The operand of '-'`, `Each side of '<op>'` or `Argument '<param>' of <fn>`", example: "`not close`, `(close > 1) == (open > 1)`",
  },
  "condition-not-boolean": {
    type: "syntax", stages: ["check"], group: "check",
    message: (_: NoParams) => "The condition must be a boolean, got a number; compare it, as in rsi(14) < 30",
    template: "`The condition must be a boolean, got a number; compare it, as in rsi(14) < 30`", example: "`close`",
  },
  "let-self-reference": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string }) => `Let '${p.name}' cannot refer to itself`,
    template: "`Let '<name>' cannot refer to itself`", example: "`let a = a + 1`",
  },
  "let-forward-reference": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string }) => `Let '${p.name}' is used before its definition; move it above`,
    template: "`Let '<name>' is used before its definition; move it above`", example: "`let a = b * 2` then `let b = close`",
  },
  "duplicate-let": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string }) => `Duplicate let '${p.name}'`,
    template: "`Duplicate let '<name>'`", example: "`let a = 1` twice",
  },
  "let-shadows-builtin": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { name: string; builtin: "function" | "series" }) => `'${p.name}' is a built-in ${p.builtin} and cannot be redefined by let`,
    template: "`'<name>' is a built-in function and cannot be redefined by let` (or `series`)", example: "`let rsi = 50`, `let volume = 1`",
  },
  "duplicate-setting": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { setting: "market" | "timeframe" | "columns" | "sort" | "limit" | "symbols" | "watchlist" }) => `Duplicate setting '${p.setting}'`,
    template: "`Duplicate setting '<market\\|timeframe\\|columns\\|sort\\|limit\\|symbols\\|watchlist>'`", example: "`limit = 1` twice",
  },
  "duplicate-column": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { text: string }) => `Duplicate column '${p.text}'`,
    template: "`Duplicate column '<text>'` (same text as written; `rsi(14)` and `rsi( 14 )` are different columns)", example: "`columns = [close, close]`",
  },
  "too-many-columns": {
    type: "syntax", stages: ["plan"], group: "check",
    message: (p: { max: number; count: number }) => `Too many columns: at most ${p.max} per query (this is column ${p.max + 1} of ${p.count})`,
    template: "`Too many columns: at most 50 per query (this is column 51 of <n>)` (at the 51st column; the cost guard)", example: "`columns = [sma(2), …, sma(52)]`",
  },
  "unknown-market": {
    type: "syntax", stages: ["check"], group: "check",
    message: (p: { market: string; suggestion?: string; known: readonly string[] }) =>
      `Unknown market '${p.market}'${didYouMean(p.suggestion)}${p.known.length > 0 ? `; known markets: ${p.known.join(", ")}` : ""}`,
    template: "`Unknown market '<as written>'`, then `, did you mean '<MARKET>'?` when close, then `; known markets: <configured list>` when any are configured", example: '`market = "CRYPT"`, `market = "NYSE"`',
  },
  "missing-market": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (_: NoParams) => 'Missing required setting \'market\', e.g. market = "FOREX"',
    template: "`Missing required setting 'market', e.g. market = \"FOREX\"`", example: "`timeframe = h1` / `true`",
  },
  "missing-timeframe": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (_: NoParams) => "Missing required setting 'timeframe', e.g. timeframe = h1",
    template: "`Missing required setting 'timeframe', e.g. timeframe = h1`", example: '`market = "FOREX"` / `true`',
  },
  "lookback-ceiling": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (p: { lookback: number; timeframe: string; ceiling: number }) =>
      `Lookback of ${p.lookback} bars on timeframe ${p.timeframe} exceeds the ceiling of ${p.ceiling} bars`,
    template: "`Lookback of <n> bars on timeframe <tf> exceeds the ceiling of <ceiling> bars` (the first source in plan order that exceeds it)", example: "`close > d::sma(400)` → `Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars`",
  },
  "cost-budget": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (p: { cost: number; budget: number }) =>
      `Query too costly to run: its cost is ${p.cost.toLocaleString("en-US")} bar-steps per instrument, above the budget of ${p.budget.toLocaleString("en-US")}; use fewer distinct expressions, shorter lengths or fewer timeframes`,
    template: "`Query too costly to run: its cost is <n> bar-steps per instrument, above the budget of <budget>; use fewer distinct expressions, shorter lengths or fewer timeframes` (the cost guard; budget 100,000 by default, `costBudget` option, `XQL_COST_BUDGET` for `xql serve`; docs/deployment.md \"Limits and guards\")", example: "400 distinct `ema(n)` comparisons",
  },
  "history-cost": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (p: { cost: number; bars: number; budget: number; most: number }) => {
      const advice = p.most >= 1 ? `ask for at most ${p.most.toLocaleString("en-US")} bars` : "use fewer distinct expressions, shorter lengths or fewer timeframes";
      return `History too costly to run: its cost is ${p.cost.toLocaleString("en-US")} bar-steps per instrument for a window of ${p.bars.toLocaleString("en-US")} bars, above the budget of ${p.budget.toLocaleString("en-US")}; ${advice}`;
    },
    template: "`History too costly to run: its cost is <cost> bar-steps per instrument for a window of <bars> bars, above the budget of <budget>; ask for at most <n> bars` (or `; use fewer distinct expressions, shorter lengths or fewer timeframes` when no window fits): the service prices `POST /xql/history` as the work of its passes, one per anchor (a window of up to 100 bars as the query's run, a longer one adding its passes' work beyond that), against the cost budget (decisions §5)", example: "a screen of 20 `kama` calls with `?bars=1000`",
  },
  "response-too-large": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (p: { maxBytes: number }) =>
      `Response too large: its JSON would exceed ${p.maxBytes.toLocaleString("en-US")} bytes; use fewer columns, shorter column expressions or a limit, or ask history for fewer bars`,
    template: "`Response too large: its JSON would exceed <n> bytes; use fewer columns, shorter column expressions or a limit, or ask history for fewer bars` (16 MiB in the service, counted while the rows are built; the library's `history(…, { maxBytes })`)", example: "`true` with 50 columns over `?bars=1000`",
  },
  "query-not-string": {
    type: "syntax", stages: ["parse"], group: "outside",
    message: (_: NoParams) => "The query must be a string",
    template: "`The query must be a string` (at 1:1): `validate`/`explain` called with a non-string from JavaScript", example: "`validate(42)`",
  },
  "query-too-complex": {
    type: "syntax", stages: ["parse"], group: "outside",
    message: (p: { what: "complex" | "complex to parse" | "deeply nested to parse" }) => `Query too ${p.what}`,
    template: "`Query too complex` / `Query too complex to parse` / `Query too deeply nested to parse` (at 1:1): a last line of defence should the JavaScript stack run out anyway; the nesting guard and the loop-based stages make it unreachable for any query the tests and fuzzers have found", example: "none known",
  },
  "symbols-count": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (p: { max: number; count: number }) => `A symbols list holds 1 to ${p.max} symbols, got ${p.count}`,
    template: "`A symbols list holds 1 to 1000 symbols, got <n>` (at the `[`)", example: "`symbols = []`",
  },
  "symbol-blank": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (_: NoParams) => "A symbol may not be empty or start or end with a space",
    template: "`A symbol may not be empty or start or end with a space` (at the string)", example: '`symbols = [""]`',
  },
  "duplicate-symbol": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (p: { symbol: string }) => `Duplicate symbol '${p.symbol}'`,
    template: "`Duplicate symbol '<symbol>'` (at its second occurrence)", example: '`symbols = ["EURUSD", "EURUSD"]`',
  },
  "watchlist-name": {
    type: "syntax", stages: ["lower"], group: "structural",
    message: (p: { name: string }) => `A watchlist name is 1 to 40 characters of a-z, 0-9, _ and -, got '${p.name}'`,
    template: "`A watchlist name is 1 to 40 characters of a-z, 0-9, _ and -, got '<name>'` (at the string)", example: '`watchlist = "My List"`',
  },
  "symbols-and-watchlist": {
    type: "syntax", stages: ["check"], group: "check",
    message: (_: NoParams) => "A query screens either a symbols list or a watchlist, not both",
    template: "`A query screens either a symbols list or a watchlist, not both` (at the second of the two settings)", example: '`symbols = ["EURUSD"]` and `watchlist = "majors"`',
  },
  "unknown-watchlist": {
    type: "plan", stages: ["plan"], group: "plan",
    message: (p: { name: string }) => `Unknown watchlist '${p.name}'`,
    template: "`Unknown watchlist '<name>'`: the account (the service), the store (the CLI) or the `watchlists` option (the library) has no list of that name", example: '`watchlist = "nope"`',
  },
  // Errors outside the query (type `data`, raised as `XqlDataError` or an area's subclass of
  // it): the bars, files, stores, accounts and feeds around a query. They have no stage and no
  // position; `example` says what gives them.
  "bars-columns": {
    type: "data", group: "bars",
    message: (p: { symbol: string; timeframe: string; problem: string }) => `Instrument '${p.symbol}', timeframe ${p.timeframe}: ${p.problem}`,
    template: "`Instrument '<symbol>', timeframe <tf>: bars have no time column` / `column '<name>' has <n> values for <m> bars` / `every column must have as many values as time` (`run`, `history`, `why`, `deriveTimeframes`)", example: "bars whose `close` is shorter than `time`",
  },
  "bars-times": {
    type: "data", group: "bars",
    message: (p: { symbol: string; timeframe: string; problem: string }) => `Instrument '${p.symbol}', timeframe ${p.timeframe}: ${p.problem}`,
    template: "`Instrument '<symbol>', timeframe <tf>: bar times must be finite and strictly increasing, oldest first (…)` / `bar time <t> is not finite` / `bar time <t> is not on the <tf> grid (…)`", example: "bars given newest first, or an h1 bar at 10:30",
  },
  "no-bars-at": {
    type: "data", group: "bars",
    message: (p: { symbol: string; market: string; timeframe: string }) => `No bars for ${p.symbol} on ${p.market} ${p.timeframe}`,
    template: "`No bars for <symbol> on <market> <tf>`: `why` asked about an instrument with no base bar at or before `at`", example: "`why(…, { at })` before the first bar",
  },
  "bars-write": {
    type: "data", group: "bars",
    message: (p: { problem: string }) => p.problem,
    template: "`Bars of one series must have as many <column> values as times` / `Bar <column> <value> at <time> is not a finite number`: bars handed to a store's write", example: "`store.write` with a NaN close",
  },
  "import-line": {
    type: "data", group: "import",
    message: (p: { line: number; reason: string }) => (p.line > 0 ? `line ${p.line}: ${p.reason}` : p.reason),
    template: "`line <n>: <reason>`, or `<reason>` when the file as a whole is wrong (no format fits): the first bad line of a `xql data import` or a push (`CsvImportError`, `PushError`), nothing written", example: "`line 3: high 1.1 is below open, close or low`",
  },
  "import-empty": {
    type: "data", group: "import",
    message: (p: { line: number; reason: string }) => p.reason,
    template: "`the file holds no bars` (a push: `the body holds no bars`)", example: "an empty file",
  },
  "import-market": {
    type: "data", group: "import",
    message: (p: { name: string }) => `Invalid market name '${p.name}': use letters, digits and _ (starting with a letter)`,
    template: "`Invalid market name '<name>': use letters, digits and _ (starting with a letter)`", example: "`--market 'my market'`",
  },
  "import-timeframe": {
    type: "data", group: "import",
    message: (p: { timeframe: string }) => `Unknown timeframe '${p.timeframe}': use one of m1 m5 m15 m30 h1 h4 d w`,
    template: "`Unknown timeframe '<tf>': use one of m1 m5 m15 m30 h1 h4 d w`", example: "`--timeframe 1h`",
  },
  "import-needs-timeframe": {
    type: "data", group: "import",
    message: (_: NoParams) => "data import needs --timeframe TF (the file name does not tell it)",
    template: "`data import needs --timeframe TF (the file name does not tell it)`", example: "`xql data import bars.csv`",
  },
  "import-symbol": {
    type: "data", group: "import",
    message: (p: { symbol: string }) => `Invalid symbol '${p.symbol}' (1-32 letters, digits or . _ : / -)`,
    template: "`Invalid symbol '<symbol>' (1-32 letters, digits or . _ : / -)`", example: "`--symbol 'EUR USD'`",
  },
  "import-needs-symbol": {
    type: "data", group: "import",
    message: (p: { format: string }) => `${p.format}: its rows carry no symbol; give --symbol S`,
    template: "`<format>: its rows carry no symbol; give --symbol S` (a push: `?symbol=`)", example: "a MetaTrader export without `--symbol`",
  },
  "import-format": {
    type: "data", group: "import",
    message: (p: { format: string; known: readonly string[] }) => `Unknown format '${p.format}': use one of ${p.known.join(" ")}`,
    template: "`Unknown format '<format>': use one of xql binance metatrader histdata generic`", example: "`--format excel`",
  },
  "import-needs-columns": {
    type: "data", group: "import",
    message: (_: NoParams) => "The generic format needs --columns",
    template: "`The generic format needs --columns`", example: "`--format generic` alone",
  },
  "import-columns": {
    type: "data", group: "import",
    message: (p: { problem: string }) => p.problem,
    template: "`Unknown column '<name>' in --columns: use symbol time open high low close volume -` / `--columns needs a '<name>' column` / `--columns names a column twice`", example: "`--columns time,open,close`",
  },
  "import-time-zone": {
    type: "data", group: "import",
    message: (p: { tz: string; fault: "out-of-range" | "unknown" }) =>
      p.fault === "out-of-range" ? `Time zone offset '${p.tz}' is out of range` : `Unknown time zone '${p.tz}': use UTC, EST, an offset such as +02:00, or an IANA name such as Europe/Athens`,
    template: "`Time zone offset '<tz>' is out of range` / `Unknown time zone '<tz>': use UTC, EST, an offset such as +02:00, or an IANA name such as Europe/Athens`", example: "`--tz +15:00`, `--tz Mars/Olympus`",
  },
  "import-staging": {
    type: "data", group: "import",
    message: (_: NoParams) => "The import's staging file ended early",
    template: "`The import's staging file ended early`: the temporary file an import sorts its bars in was cut short under it (a full or failing disk)", example: "none known",
  },
  "store-open": {
    type: "data", group: "store",
    message: (p: { database: string; reason: string }) => `Cannot open the database ${p.database}: ${p.reason}`,
    template: "`Cannot open the database <file or URL, password hidden>: <reason>`, e.g. `it is a directory; give a file name such as <dir>/xql.db`, `permission denied in <dir>`", example: "`--db /tmp`",
  },
  "store-schema-newer": {
    type: "data", group: "store",
    message: (p: { room: string; version: number; understood: number }) => `The database schema of ${p.room} is at version ${p.version}, newer than this xql understands (${p.understood}); upgrade xql`,
    template: "`The database schema of <room> is at version <n>, newer than this xql understands (<m>); upgrade xql`", example: "an older xql on a database a newer one migrated",
  },
  "store-timeframe": {
    type: "data", group: "store",
    message: (p: { timeframe: string }) => `Unknown timeframe '${p.timeframe}'`,
    template: "`Unknown timeframe '<tf>'`: a write to the store of a timeframe it does not keep", example: "`store.write({ timeframe: \"h2\", … })`",
  },
  "store-inconsistent": {
    type: "data", group: "store",
    message: (p: { problem: string }) => p.problem,
    template: "`Series <symbol>: more bars read than its catalog row counts`, `COPY TO STDOUT …`: the database answered what its own rows rule out (a damaged file, a server that is not PostgreSQL's binary COPY)", example: "none known",
  },
  "account-unknown": {
    type: "data", group: "accounts",
    message: (p: { account: string }) => `No account '${p.account}'`,
    template: "`No account '<id>'`", example: "`xql keys create --account acc_nope`",
  },
  "account-tier": {
    type: "data", group: "accounts",
    message: (p: { tier: string; account?: string; current?: string }) =>
      p.account === undefined ? `Unknown tier '${p.tier}'` : `Account '${p.account}' is on the ${p.current} tier, not ${p.tier}`,
    template: "`Unknown tier '<tier>'` / `Account '<id>' is on the <tier> tier, not <tier>`", example: "`--tier gold`",
  },
  "account-needs-tier": {
    type: "data", group: "accounts",
    message: (_: NoParams) => "A new account needs a tier",
    template: "`A new account needs a tier`", example: "`createKey(store, {})`",
  },
  "key-scope": {
    type: "data", group: "accounts",
    message: (p: { scope: string }) => `Unknown scope '${p.scope}': use run or write`,
    template: "`Unknown scope '<scope>': use run or write`", example: "`--scope admin`",
  },
  "quota-day": {
    type: "data", group: "accounts",
    message: (p: { day: string }) => `Not a UTC day: '${p.day}'`,
    template: "`Not a UTC day: '<day>'` (a quota counter's day is `YYYY-MM-DD`)", example: "`quotaExpiry(\"today\")`",
  },
  "redis-unreachable": {
    type: "data", group: "accounts",
    message: (p: { url: string; reason: string }) => `Cannot reach Redis at ${p.url}: ${p.reason}`,
    template: "`Cannot reach Redis at <url, password hidden>: <reason>`", example: "`XQL_REDIS_URL=redis://127.0.0.1:1`",
  },
  "feed-no-ohlcv": {
    type: "data", group: "feeds",
    message: (p: { exchange: string }) => `${p.exchange} offers no OHLCV candles through ccxt`,
    template: "`<exchange> offers no OHLCV candles through ccxt`", example: "an exchange ccxt lists without candles",
  },
  "feed-api-url": {
    type: "data", group: "feeds",
    message: (p: { url: string; fault: "not-url" | "protocol" }) =>
      p.fault === "not-url" ? `--api-url '${p.url}' is not a URL (e.g. http://127.0.0.1:8080 or https://api1.binance.com)` : `--api-url '${p.url}' must be http:// or https://`,
    template: "`--api-url '<url>' is not a URL (e.g. http://127.0.0.1:8080 or https://api1.binance.com)` / `--api-url '<url>' must be http:// or https://`", example: "`--api-url ftp://x`",
  },
  "webhook-no-address": {
    type: "data", group: "feeds",
    message: (p: { host: string }) => `${p.host} has no address`,
    template: "`<host> has no address`: a webhook's host resolves to no address (a delivery retries it)", example: "a webhook at a name with no A or AAAA record",
  },
  "playground-request": {
    type: "data", group: "playground",
    message: (p: { what: string; status: number; reason: string }) => `${p.what === "" ? "" : `${p.what} `}${p.status}: ${p.reason}`,
    template: "`<status>: <the service's message>` (a run, a why) / `bars <status>: <message>` / `stream <status>: the alerts stream did not open` (the playground, shown on the page)", example: "a playground run while the service is down",
  },
  // The classes of an area that its callers catch by class carry one code each: the kind is
  // the class, the words are the area's own (a command line's mistake, a feed's refusal).
  "cli-usage": {
    type: "data", group: "cli",
    message: (p: { message: string }) => p.message,
    template: "`<what is wrong with the command line>`, then ``Run `xql <command> --help` for its options.`` (`UsageError`, exit code 2)", example: "`xql run --formt json`",
  },
  "cli-failure": {
    type: "data", group: "cli",
    message: (p: { message: string }) => p.message,
    template: "`xql <command>: <message>` (`CliError`, exit code 1): a problem outside the query the CLI explains in its own words", example: "`xql run missing.xql`, a port in use",
  },
  "package-missing": {
    type: "data", group: "cli",
    message: (p: { name: string }) => `${p.name} is not installed`,
    template: "`<package> is not installed` (`MissingCcxtError`, `MissingDukascopyError`): the CLI says how to install it beside xql", example: "`xql data sync binance` without ccxt",
  },
  "feed-request": {
    type: "data", group: "feeds",
    message: (p: { message: string }) => p.message,
    template: "what a feed's request did wrong, by its `kind` (`unreachable`, `network`, `rate-limited`, `server`, `too-large`, `bad-reply`, `refused`, `client`, `stopped`; `FeedRequestError`): retried or said on a line", example: "a 503 from the exchange",
  },
  "feed-symbols": {
    type: "data", group: "feeds",
    message: (p: { message: string }) => p.message,
    template: "`'<pair>' is not a currency pair: …`, `… is not a trading spot pair …` (`ForexSymbolError`, `SymbolChoiceError`): a pair asked for that the feed does not have, with the closest one that is", example: "`--symbols EURUSX`",
  },
  "feed-unknown-exchange": {
    type: "data", group: "feeds",
    message: (p: { exchange: string }) => `ccxt knows no exchange '${p.exchange}'`,
    template: "`ccxt knows no exchange '<id>'` (`UnknownExchangeError`; the CLI adds the closest id)", example: "`xql data sync binanse`",
  },
  "store-busy": {
    type: "data", group: "store",
    message: (_: NoParams) => "The database is busy with another writer",
    template: "`The database is busy with another writer` (`StoreBusyError`): the service answers 503 with `Retry-After`", example: "a push during an import",
  },
  "store-unavailable": {
    type: "data", group: "store",
    message: (_: NoParams) => "Data store call failed",
    template: "`Data store call failed` (`StoreUnavailable`, the cause kept for the log): the service answers 500 `Data store unavailable`", example: "the database server down",
  },
  "store-health": {
    type: "data", group: "store",
    message: (p: { dependency: string; reason: string }) => `${p.dependency}: ${p.reason}`,
    template: "`<dependency>: <reason>` (`HealthError`), e.g. `database: cannot be written`: what `/health` reports, never a host, path or credential", example: "a read-only database file",
  },
  "series-limit": {
    type: "data", group: "store",
    message: (p: { kind: "push" | "account"; created: number; limit: number }) =>
      p.kind === "push"
        ? `the push would create ${p.created.toLocaleString("en-US")} new series; one push creates at most ${p.limit.toLocaleString("en-US")}`
        : "Series limit reached for this tier",
    template: "`the push would create <n> new series; one push creates at most <limit>` / `Series limit reached for this tier` (`SeriesLimitError`)", example: "a push of 2,000 new symbols",
  },
  "history-window": {
    type: "data", group: "service",
    message: (p: { max: number }) => `Query parameter 'bars' must be an integer from 1 to ${p.max}`,
    template: "`Query parameter 'bars' must be an integer from 1 to 1000` (`POST /xql/history?bars=`, a 400 `{ error }`)", example: "`?bars=0`",
  },
} as const satisfies Readonly<Record<string, CatalogueEntry>>;

/** An error of the query: raised as an `XqlError` by one of its stages. */
interface QueryCatalogueEntry {
  readonly type: "syntax" | "plan";
  readonly stages: readonly Stage[];
  readonly group: ErrorGroup;
  readonly message: (params: never) => string;
  readonly template: string;
  readonly example: string;
}

/** An error outside the query: raised as an `XqlDataError` (or an area's subclass), no stage, no position. */
interface DataCatalogueEntry {
  readonly type: "data";
  readonly group: DataErrorGroup;
  readonly message: (params: never) => string;
  readonly template: string;
  readonly example: string;
}

type CatalogueEntry = QueryCatalogueEntry | DataCatalogueEntry;

/** The stable code of an error kind (`"unknown-identifier"`): one of the catalogue's, listed in docs/errors.md and {@link ERROR_CATALOGUE}. */
export type ErrorCode = keyof typeof CATALOGUE;

/** The parameters the message of `code` is rendered from. */
export type ErrorParams<C extends ErrorCode> = Parameters<(typeof CATALOGUE)[C]["message"]>[0];

/** The codes of syntax errors: they carry a position. */
export type SyntaxErrorCode = { [C in ErrorCode]: (typeof CATALOGUE)[C]["type"] extends "syntax" ? C : never }[ErrorCode];
/** The codes of plan errors: they never carry a position. */
export type PlanErrorCode = { [C in ErrorCode]: (typeof CATALOGUE)[C]["type"] extends "plan" ? C : never }[ErrorCode];
/** The codes of errors outside the query, raised as {@link XqlDataError}. */
export type DataErrorCode = { [C in ErrorCode]: (typeof CATALOGUE)[C]["type"] extends "data" ? C : never }[ErrorCode];
/** The codes of errors of the query, raised as {@link XqlError}. */
export type QueryErrorCode = SyntaxErrorCode | PlanErrorCode;

/** The syntax errors stage `S` may raise: those whose catalogue entry lists it. */
export type ErrorCodeAt<S extends Stage> = { [C in SyntaxErrorCode]: S extends (typeof CATALOGUE)[C]["stages"][number] ? C : never }[SyntaxErrorCode];

/** Where a syntax error points: the query text, the offset in it, and the stage that found it (one of the entry's). */
export interface ErrorSite<C extends SyntaxErrorCode = SyntaxErrorCode> {
  readonly text: string;
  readonly offset: number;
  readonly stage: (typeof CATALOGUE)[C]["stages"][number];
}

/** A code with its parameters: an error decided in one place and raised in another (the parser's messages). */
export type Failure<C extends ErrorCode = ErrorCode> = { [K in C]: { readonly code: K; readonly params: ErrorParams<K> } }[C];

/** One kind of query error: its stable code, type, stages, message template and an example. */
export interface ErrorEntry {
  /** Stable, readable id; never reused for another kind. */
  readonly code: QueryErrorCode;
  /** The `type` of the error body. */
  readonly type: "syntax" | "plan";
  /** The stages that raise it (a miscased keyword is noticed wherever its mistake surfaces). */
  readonly stages: readonly Stage[];
  /** The section of docs/errors.md it is listed in. */
  readonly group: ErrorGroup;
  /** The message, `<x>` marking a part that varies, with notes on where it points (markdown). */
  readonly template: string;
  /** A query that gives it (markdown, after `market`/`timeframe`). */
  readonly example: string;
}

/** Every error the front end can give, in the order docs/errors.md lists them. */
export const ERROR_CATALOGUE: readonly ErrorEntry[] = (Object.keys(CATALOGUE) as ErrorCode[]).flatMap((code) => {
  const entry: CatalogueEntry = CATALOGUE[code];
  if (entry.type === "data") return [];
  const { type, stages, group, template, example } = entry;
  return [{ code: code as QueryErrorCode, type, stages, group, template, example }];
});

/** One kind of error outside the query: its stable code, where it arises, message template and what gives it. */
export interface DataErrorEntry {
  /** Stable, readable id; never reused for another kind. */
  readonly code: DataErrorCode;
  /** The section of docs/errors.md it is listed in. */
  readonly group: DataErrorGroup;
  /** The message, `<x>` marking a part that varies (markdown). */
  readonly template: string;
  /** What gives it (markdown). */
  readonly example: string;
}

/** Every error outside the query (`XqlDataError.code`), in the order docs/errors.md lists them. */
export const DATA_ERROR_CATALOGUE: readonly DataErrorEntry[] = (Object.keys(CATALOGUE) as ErrorCode[]).flatMap((code) => {
  const entry: CatalogueEntry = CATALOGUE[code];
  if (entry.type !== "data") return [];
  const { group, template, example } = entry;
  return [{ code: code as DataErrorCode, group, template, example }];
});

/** The message of `code` rendered from its parameters. */
export function errorMessage<C extends ErrorCode>(code: C, params: ErrorParams<C>): string {
  return (CATALOGUE[code].message as (p: ErrorParams<C>) => string)(params);
}

/**
 * The error of kind `code`, its message rendered from the catalogue's template with `params`:
 * a syntax error at `at` (line and column computed from the offset), or a plan error (no
 * position). The caller throws it, or (the checker) collects it to report the earliest.
 */
export function fail<C extends SyntaxErrorCode>(code: C, params: ErrorParams<C>, at: ErrorSite<C>): XqlError;
export function fail<C extends PlanErrorCode>(code: C, params: ErrorParams<C>): XqlError;
export function fail(code: ErrorCode, params: unknown, at?: ErrorSite): XqlError {
  const message = (CATALOGUE[code].message as (p: unknown) => string)(params);
  if (CATALOGUE[code].type === "plan") return new XqlError({ type: "plan", message }, "plan", code as PlanErrorCode);
  if (CATALOGUE[code].type === "data" || at === undefined) throw new Error(`internal: fail: ${code} is not a syntax error with a position`);
  return new XqlError({ type: "syntax", message, position: positionAt(at.text, at.offset) }, at.stage, code as SyntaxErrorCode);
}

/** {@link fail} for a code and parameters decided elsewhere (a {@link Failure}). */
export function failWith(failure: Failure<SyntaxErrorCode>, at: ErrorSite): XqlError {
  return fail(failure.code, failure.params as never, at as ErrorSite<typeof failure.code>);
}

/**
 * The exhaustiveness check at the end of a `switch` over a closed union (node kinds, IR ops):
 * a case left out is a type error, and an impossible value at run time an internal error.
 */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`internal: unexpected ${what}: ${JSON.stringify(value)}`);
}

/**
 * Thrown for a problem outside the query: bars that cannot be evaluated honestly (times that
 * are not finite and strictly increasing, off the timeframe's grid, columns of unequal
 * length), a file an import cannot read, a store, an account or a feed that refuses. `code` is
 * its kind in the catalogue (type `data`), the message rendered from the catalogue's template
 * with the parameters, as `fail` does for query errors. Query errors are never thrown
 * this way; they come back as data from `validate` and `explain`. An area's errors
 * (`CsvImportError`, `PushError`) are subclasses, so a caller branches on `instanceof` or on
 * `code`, never on the message.
 *
 * @example
 * ```ts
 * import { compile, XqlDataError } from "xql";
 *
 * try {
 *   compile('market = "FOREX"\ntimeframe = h1\nclose > 1').run(myUniverse);
 * } catch (e) {
 *   if (e instanceof XqlDataError) console.error(e.code, e.message); // "bars-times", "Instrument 'EURUSD', timeframe h1: bar times must be ..."
 *   else throw e;
 * }
 * ```
 */
export class XqlDataError<C extends DataErrorCode = DataErrorCode> extends Error {
  /** `"XqlDataError"`, or the subclass's name. */
  override readonly name: string = "XqlDataError";
  /** The stable code of the error in the catalogue (`"bars-times"`), for programs that branch on its kind. */
  readonly code: C;

  /**
   * @param code - Its kind in the catalogue.
   * @param params - The parameters its message is rendered from.
   * @param options - `cause`: the failure underneath, kept for logs.
   */
  constructor(code: C, params: ErrorParams<C>, options?: ErrorOptions) {
    super(errorMessage(code, params), options);
    this.code = code;
  }
}

/**
 * The message of anything thrown: an `Error`'s message, else the value as text. The one way
 * code shows a caught failure in a log line, a CLI message or the playground; the kind of a
 * failure is read from its class or `code`, never from this text.
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
