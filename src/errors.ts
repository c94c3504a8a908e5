/**
 * Errors are data: `{ type, message, position? }` exactly as the spec shows, raised as one
 * `XqlError`. Syntax errors always carry a position; plan errors never do.
 *
 * `ERROR_CATALOGUE` is the one table of every error the front end can give: a stable code
 * (a readable kebab-case id such as `unknown-identifier`, never renumbered), its type, the
 * stages that raise it, its message template and an example; `XqlError.code` is the code of
 * the entry whose pattern the message matches. docs/errors.md's catalogue is generated from it
 * (`npx tsx scripts/gen-errors.ts`).
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
  readonly code: ErrorCode;

  /**
   * @param body - The spec's error object.
   * @param stage - The stage that found the problem.
   */
  constructor(body: ErrorBody, stage: Stage) {
    super(body.message);
    this.type = body.type;
    this.position = body.position;
    this.stage = stage;
    this.code = errorCodeOf(body.type, body.message);
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

/** A syntax error at `offset` of `text`. */
export function syntaxError(text: string, offset: number, message: string, stage: Stage): XqlError {
  return new XqlError({ type: "syntax", message, position: positionAt(text, offset) }, stage);
}

/** A plan error (no position). */
export function planError(message: string): XqlError {
  return new XqlError({ type: "plan", message }, "plan");
}

/** The part of docs/errors.md an entry is listed under. */
export type ErrorGroup = "lexical" | "grammar" | "structural" | "check" | "plan" | "outside";

/** One kind of error: its stable code, type, stages, message template and an example. */
export interface ErrorEntry {
  /** Stable, readable id; never reused for another kind. */
  readonly code: Exclude<ErrorCode, "unclassified">;
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
  /** Matches every message of this kind, and no message of an earlier entry. */
  readonly pattern: RegExp;
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";

const CATALOGUE = [
  { code: "unterminated-string", type: "syntax", stages: ["lex"], group: "lexical", template: "`Unterminated string` (at the opening quote; a string may not span lines)", example: '`market = "FOREX`', pattern: /^Unterminated string$/ },
  { code: "invalid-escape", type: "syntax", stages: ["lex"], group: "lexical", template: '`Invalid escape in string: only \\" and \\\\ are allowed` (at the backslash)', example: '`market = "FO\\REX"`', pattern: /^Invalid escape in string: only \\" and \\\\ are allowed$/ },
  { code: "stray-colon", type: "syntax", stages: ["lex"], group: "lexical", template: "`Unexpected character ':'; a timeframe prefix is written like d::close`", example: "`d:close > 1`", pattern: /^Unexpected character ':'; a timeframe prefix is written like d::close$/ },
  { code: "stray-bang", type: "syntax", stages: ["lex"], group: "lexical", template: "`Unexpected character '!'; use 'not' for negation or '!=' for inequality`", example: "`!(close > 1)`", pattern: /^Unexpected character '!'; use 'not' for negation or '!=' for inequality$/ },
  { code: "stray-logical", type: "syntax", stages: ["lex"], group: "lexical", template: "`Unexpected character '&'; use 'and' / 'or'` (also for `\\|`)", example: "`close > 1 && true`", pattern: /^Unexpected character '[&|]'; use 'and' \/ 'or'$/ },
  { code: "single-quote", type: "syntax", stages: ["lex"], group: "lexical", template: "`Unexpected character \"'\"; strings use double quotes`", example: "`market = 'FOREX'`", pattern: /^Unexpected character "'"; strings use double quotes$/ },
  { code: "unexpected-character", type: "syntax", stages: ["lex"], group: "lexical", template: "`Unexpected character '<c>'`; control and invisible characters (no-break and zero-width spaces, a byte-order mark after the first character) are shown as `U+0007`, `U+00A0`, `U+FEFF`, astral characters whole (`'📈'`, at the offset of their first UTF-16 unit)", example: "`close > 1 # note`", pattern: /^Unexpected character '(.|..|U\+[0-9A-F]{4})'$/u },
  { code: "unexpected-end-of-input", type: "syntax", stages: ["parse"], group: "grammar", template: "`Unexpected end of input, expected <what>`, e.g. `expected ')'`, `expected ']'`, `expected '='`", example: "`rsi(14`", pattern: /^Unexpected end of input, expected (?!an expression$).+$/ },
  { code: "expected-expression", type: "syntax", stages: ["parse"], group: "grammar", template: "`Unexpected <token or end of input>, expected an expression`", example: "`close >`, `columns = []`, `rsi(14,)`", pattern: /^Unexpected .+, expected (an expression|a setting, a let binding or a condition)$/ },
  { code: "unexpected-token-expected", type: "syntax", stages: ["parse"], group: "grammar", template: "`Unexpected '<token>', expected <what>`; `<what>` is a token (`'='`, `']'`), `a name`, `a number` or `a string such as \"FOREX\"`", example: "`timeframe h1`, `market = FOREX`, `let and = 1`", pattern: /^Unexpected '.+', expected (?!an expression$).+$/ },
  { code: "unexpected-token", type: "syntax", stages: ["parse"], group: "grammar", template: "`Unexpected '<token>'` (a token that cannot start a statement)", example: "`close > 1)`, `close > 1;;`", pattern: /^Unexpected '.+'$/ },
  { code: "nesting-too-deep", type: "syntax", stages: ["parse"], group: "grammar", template: "`Expression nested too deeply: at most 64 levels of parentheses, brackets and prefix operators` (at the token that goes past 64)", example: "70 `(`; `close[0][0]…` 70 times; `not not …`", pattern: /^Expression nested too deeply: at most 64 levels of parentheses, brackets and prefix operators$/ },
  { code: "query-too-long", type: "syntax", stages: ["lex"], group: "grammar", template: "`Query too long: at most 4000 tokens (names, numbers, operators), this one has <n>` (at the first token beyond the limit; the cost guard, checked right after lexing)", example: "64 KiB of `close > sma(2) or …`", pattern: /^Query too long: at most \d+ tokens \(names, numbers, operators\), this one has \d+$/ },
  { code: "missing-condition", type: "syntax", stages: ["lower"], group: "structural", template: "`Missing condition: a query ends with a boolean condition, such as rsi(14) < 30` (at the end of input)", example: "`` (empty), settings only", pattern: /^Missing condition: a query ends with a boolean condition, such as rsi\(14\) < 30$/ },
  { code: "second-condition", type: "syntax", stages: ["lower"], group: "structural", template: "`A query has exactly one condition; combine conditions with 'and' or 'or'` (at the second)", example: "`close > 1` then `close < 2`", pattern: /^A query has exactly one condition; combine conditions with 'and' or 'or'$/ },
  { code: "condition-not-last", type: "syntax", stages: ["lower"], group: "structural", template: "`The condition must be the last statement; write settings and lets before it`", example: "`true` then `limit = 1`", pattern: /^The condition must be the last statement; write settings and lets before it$/ },
  { code: "unknown-timeframe", type: "syntax", stages: ["parse", "lower"], group: "structural", template: "`Unknown timeframe '<tf>', did you mean '<tf>'? Timeframes are m1 m5 m15 m30 h1 h4 d w` (a prefix shown with its `::`); the suggestion reads common spellings first (`1h`/`60`→`h1`, `15m`→`m15`, `4h`→`h4`, `1d`/`daily`/`D`→`d`, `1w`/`weekly`→`w`, `H1`→`h1`), else the closest within edit distance 2; with none, `; Timeframes are ...`. A count written first (`timeframe = 1h`, `1d::`) is reported at its number", example: "`timeframe = h2`, `timeframe = 1h`, `mn::close`, `1d::sma(200)`, `daily::close`", pattern: /^Unknown timeframe '\w+(::)?'(, did you mean '[a-z0-9]+(::)?'\?|;) Timeframes are m1 m5 m15 m30 h1 h4 d w$/ },
  { code: "number-too-large", type: "syntax", stages: ["lower"], group: "structural", template: "`Number '<literal>' is too large` (beyond the largest double)", example: "`close > 1e400`", pattern: /^Number '.+' is too large$/ },
  { code: "limit-range", type: "syntax", stages: ["lower"], group: "structural", template: "`Limit must be an integer from 1 to 10000, got <literal>`", example: "`limit = 0`, `limit = 2.5`", pattern: /^Limit must be an integer from 1 to 10000, got .+$/ },
  { code: "history-offset", type: "syntax", stages: ["lower"], group: "structural", template: "`A history offset must be a non-negative integer literal, as in close[1]`", example: "`close[1.5]`, `close[-1]`, `close[n]`", pattern: /^A history offset must be a non-negative integer literal, as in close\[1\]$/ },
  { code: "chained-comparison", type: "syntax", stages: ["lower"], group: "structural", template: "`Comparisons cannot be chained; join them with 'and', as in a < b and b < c` (at the second operator)", example: "`1 < close < 2`", pattern: /^Comparisons cannot be chained; join them with 'and', as in a < b and b < c$/ },
  { code: "miscased-keyword", type: "syntax", stages: ["parse", "lower", "check"], group: "structural", template: "`Unexpected '<Word>'; keywords are lower case: did you mean '<word>'?`", example: "`rsi(14) < 30 AND close > 1`, `NOT x`, `Limit = 5`, `TRUE`", pattern: new RegExp(`^Unexpected '${NAME}'; keywords are lower case: did you mean '[a-z]+'\\?$`) },
  { code: "unknown-identifier", type: "syntax", stages: ["check"], group: "check", template: "`Unknown identifier '<name>', did you mean '<suggestion>'?`, or just `Unknown identifier '<name>'` with no candidate within edit distance 2", example: "`rsii(14) < 30`, `zzzz < 30`", pattern: new RegExp(`^Unknown identifier '${NAME}'(, did you mean '${NAME}'\\?)?$`) },
  { code: "function-without-call", type: "syntax", stages: ["check"], group: "check", template: "`'<fn>' is a function; call it with arguments, as in <fn's example>`", example: "`close > sma`", pattern: new RegExp(`^'${NAME}' is a function; call it with arguments, as in .+$`) },
  { code: "call-of-zero-parameter", type: "syntax", stages: ["check"], group: "check", template: "`'<fn>' takes no arguments and is written without parentheses, as in <fn's example>` (at the name)", example: "`obv() > 0`", pattern: new RegExp(`^'${NAME}' takes no arguments and is written without parentheses, as in .+$`) },
  { code: "call-of-series", type: "syntax", stages: ["check"], group: "check", template: "`'<series>' is a series, not a function`", example: "`close(1) > 0`", pattern: new RegExp(`^'${NAME}' is a series, not a function$`) },
  { code: "call-of-let", type: "syntax", stages: ["check"], group: "check", template: "`'<name>' is a let binding, not a function`", example: "`let a = close` then `a(1) > 0`", pattern: new RegExp(`^'${NAME}' is a let binding, not a function$`) },
  { code: "arity", type: "syntax", stages: ["check"], group: "check", template: "`Function '<fn>' takes <n> argument(s) (<signature>), got <m>`, e.g. `Function 'rsi' takes 1 or 2 arguments (rsi([src,], n)), got 3`", example: "`atr()`", pattern: /^Function '\w+' takes \d+( or \d+| to \d+)? arguments? \(.+\), got \d+$/ },
  { code: "length-not-literal", type: "syntax", stages: ["check"], group: "check", template: "`Length '<param>' of <fn> must be a positive integer literal, as in <example>`", example: "`sma(close, 10 + 10)`, `rsi(n)`", pattern: /^Length '\w+' of \w+ must be a positive integer literal, as in .+$/ },
  { code: "length-not-positive-integer", type: "syntax", stages: ["check"], group: "check", template: "`Length '<param>' of <fn> must be a positive integer, got <value>`", example: "`sma(close, 0)`, `ema(close, 2.5)`", pattern: /^Length '\w+' of \w+ must be a positive integer, got .+$/ },
  { code: "number-argument-not-literal", type: "syntax", stages: ["check"], group: "check", template: "`Argument '<param>' of <fn> must be a number literal, as in <example>`", example: "`bb_upper(20, atr(14))`", pattern: /^Argument '\w+' of \w+ must be a number literal, as in .+$/ },
  { code: "type-mismatch", type: "syntax", stages: ["check"], group: "check", template: "`<what> must be a number, got a boolean` (or the reverse); `<what>` is `The operand of 'not'`, `The operand of '-'`, `Each side of '<op>'` or `Argument '<param>' of <fn>`", example: "`not close`, `(close > 1) == (open > 1)`", pattern: /^(The operand of '(not|-)'|Each side of '.+'|Argument '\w+' of \w+) must be (a number|a boolean), got (a number|a boolean)$/ },
  { code: "condition-not-boolean", type: "syntax", stages: ["check"], group: "check", template: "`The condition must be a boolean, got a number; compare it, as in rsi(14) < 30`", example: "`close`", pattern: /^The condition must be a boolean, got a number; compare it, as in rsi\(14\) < 30$/ },
  { code: "let-self-reference", type: "syntax", stages: ["check"], group: "check", template: "`Let '<name>' cannot refer to itself`", example: "`let a = a + 1`", pattern: new RegExp(`^Let '${NAME}' cannot refer to itself$`) },
  { code: "let-forward-reference", type: "syntax", stages: ["check"], group: "check", template: "`Let '<name>' is used before its definition; move it above`", example: "`let a = b * 2` then `let b = close`", pattern: new RegExp(`^Let '${NAME}' is used before its definition; move it above$`) },
  { code: "duplicate-let", type: "syntax", stages: ["check"], group: "check", template: "`Duplicate let '<name>'`", example: "`let a = 1` twice", pattern: new RegExp(`^Duplicate let '${NAME}'$`) },
  { code: "let-shadows-builtin", type: "syntax", stages: ["check"], group: "check", template: "`'<name>' is a built-in function and cannot be redefined by let` (or `series`)", example: "`let rsi = 50`, `let volume = 1`", pattern: new RegExp(`^'${NAME}' is a built-in (function|series) and cannot be redefined by let$`) },
  { code: "duplicate-setting", type: "syntax", stages: ["check"], group: "check", template: "`Duplicate setting '<market\\|timeframe\\|columns\\|sort\\|limit>'`", example: "`limit = 1` twice", pattern: /^Duplicate setting '(market|timeframe|columns|sort|limit)'$/ },
  { code: "duplicate-column", type: "syntax", stages: ["check"], group: "check", template: "`Duplicate column '<text>'` (same text as written; `rsi(14)` and `rsi( 14 )` are different columns)", example: "`columns = [close, close]`", pattern: /^Duplicate column '.+'$/ },
  { code: "too-many-columns", type: "syntax", stages: ["plan"], group: "check", template: "`Too many columns: at most 50 per query (this is column 51 of <n>)` (at the 51st column; the cost guard)", example: "`columns = [sma(2), …, sma(52)]`", pattern: /^Too many columns: at most \d+ per query \(this is column \d+ of \d+\)$/ },
  { code: "unknown-market", type: "syntax", stages: ["check"], group: "check", template: "`Unknown market '<as written>'`, then `, did you mean '<MARKET>'?` when close, then `; known markets: <configured list>` when any are configured", example: '`market = "CRYPT"`, `market = "NYSE"`', pattern: /^Unknown market '.*'(, did you mean '.+'\?)?(; known markets: .+)?$/ },
  { code: "missing-market", type: "plan", stages: ["plan"], group: "plan", template: "`Missing required setting 'market', e.g. market = \"FOREX\"`", example: "`timeframe = h1` / `true`", pattern: /^Missing required setting 'market', e\.g\. market = "FOREX"$/ },
  { code: "missing-timeframe", type: "plan", stages: ["plan"], group: "plan", template: "`Missing required setting 'timeframe', e.g. timeframe = h1`", example: '`market = "FOREX"` / `true`', pattern: /^Missing required setting 'timeframe', e\.g\. timeframe = h1$/ },
  { code: "lookback-ceiling", type: "plan", stages: ["plan"], group: "plan", template: "`Lookback of <n> bars on timeframe <tf> exceeds the ceiling of <ceiling> bars` (the first source in plan order that exceeds it)", example: "`close > d::sma(400)` → `Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars`", pattern: /^Lookback of \d+ bars on timeframe \w+ exceeds the ceiling of \d+ bars$/ },
  { code: "cost-budget", type: "plan", stages: ["plan"], group: "plan", template: "`Query too costly to run: its cost is <n> bar-steps per instrument, above the budget of <budget>; use fewer distinct expressions, shorter lengths or fewer timeframes` (the cost guard; budget 100,000 by default, `costBudget` option, `XQL_COST_BUDGET` for `xql serve`; docs/deployment.md \"Limits and guards\")", example: "400 distinct `ema(n)` comparisons", pattern: /^Query too costly to run: its cost is [\d,]+ bar-steps per instrument, above the budget of [\d,]+; use fewer distinct expressions, shorter lengths or fewer timeframes$/ },
  { code: "history-cost", type: "plan", stages: ["plan"], group: "plan", template: "`History too costly to run: its cost is <total> bar-steps per instrument (<cost> × <bars + 1> for a window of <bars> bars), above the budget of <budget>; ask for at most <n> bars` (or `; use fewer distinct expressions, shorter lengths or fewer timeframes` when no window fits): the service prices `POST /xql/history` as the query's cost × (window + 1) against the cost budget (decisions §2 \"Fair use\")", example: "`rsi(14) < 30` with `?bars=1000`", pattern: /^History too costly to run: its cost is [\d,]+ bar-steps per instrument \([\d,]+ × [\d,]+ for a window of [\d,]+ bars\), above the budget of [\d,]+; (ask for at most [\d,]+ bars|use fewer distinct expressions, shorter lengths or fewer timeframes)$/ },
  { code: "response-too-large", type: "plan", stages: ["plan"], group: "plan", template: "`Response too large: its JSON would exceed <n> bytes; use fewer columns, shorter column expressions or a limit, or ask history for fewer bars` (16 MiB in the service, counted while the rows are built; the library's `history(…, { maxBytes })`)", example: "`true` with 50 columns over `?bars=1000`", pattern: /^Response too large: its JSON would exceed [\d,]+ bytes; use fewer columns, shorter column expressions or a limit, or ask history for fewer bars$/ },
  { code: "query-not-string", type: "syntax", stages: ["parse"], group: "outside", template: "`The query must be a string` (at 1:1): `validate`/`explain` called with a non-string from JavaScript", example: "`validate(42)`", pattern: /^The query must be a string$/ },
  { code: "query-too-complex", type: "syntax", stages: ["parse"], group: "outside", template: "`Query too complex` / `Query too complex to parse` / `Query too deeply nested to parse` (at 1:1): a last line of defence should the JavaScript stack run out anyway; the nesting guard and the loop-based stages make it unreachable for any query the tests and fuzzers have found", example: "none known", pattern: /^Query too (complex( to parse)?|deeply nested to parse)$/ },
] as const satisfies readonly ErrorEntry[];

/** Every error the front end can give, in the order docs/errors.md lists them. */
export const ERROR_CATALOGUE: readonly ErrorEntry[] = CATALOGUE;

/**
 * The stable code of an error kind: one of the catalogue's, or `unclassified` for a message it
 * lacks (a bug the tests catch). The compiler checks that this list and the catalogue agree.
 */
export type ErrorCode =
  | "unterminated-string"
  | "invalid-escape"
  | "stray-colon"
  | "stray-bang"
  | "stray-logical"
  | "single-quote"
  | "unexpected-character"
  | "unexpected-end-of-input"
  | "expected-expression"
  | "unexpected-token-expected"
  | "unexpected-token"
  | "nesting-too-deep"
  | "query-too-long"
  | "missing-condition"
  | "second-condition"
  | "condition-not-last"
  | "unknown-timeframe"
  | "number-too-large"
  | "limit-range"
  | "history-offset"
  | "chained-comparison"
  | "miscased-keyword"
  | "unknown-identifier"
  | "function-without-call"
  | "call-of-zero-parameter"
  | "call-of-series"
  | "call-of-let"
  | "arity"
  | "length-not-literal"
  | "length-not-positive-integer"
  | "number-argument-not-literal"
  | "type-mismatch"
  | "condition-not-boolean"
  | "let-self-reference"
  | "let-forward-reference"
  | "duplicate-let"
  | "let-shadows-builtin"
  | "duplicate-setting"
  | "duplicate-column"
  | "too-many-columns"
  | "unknown-market"
  | "missing-market"
  | "missing-timeframe"
  | "lookback-ceiling"
  | "cost-budget"
  | "history-cost"
  | "response-too-large"
  | "query-not-string"
  | "query-too-complex"
  | "unclassified";

// Both directions: every entry's code is in ErrorCode (`satisfies` above), and every code but
// "unclassified" has an entry (this line fails to compile otherwise).
const everyCodeHasAnEntry: [Exclude<ErrorCode, (typeof CATALOGUE)[number]["code"] | "unclassified">] extends [never] ? true : false = true;
void everyCodeHasAnEntry;

/** The code of the catalogue entry a message belongs to (`unclassified` when none matches). */
export function errorCodeOf(type: "syntax" | "plan", message: string): ErrorCode {
  for (const entry of ERROR_CATALOGUE) {
    if (entry.type === type && entry.pattern.test(message)) return entry.code;
  }
  return "unclassified";
}

/**
 * The exhaustiveness check at the end of a `switch` over a closed union (node kinds, IR ops):
 * a case left out is a type error, and an impossible value at run time an internal error.
 */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
