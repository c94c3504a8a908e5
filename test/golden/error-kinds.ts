/**
 * Every error the front end can report for a query text, by kind: its type, the stage that
 * raises it, and the shape of its message. docs/errors.md documents each kind by this id, and
 * the golden corpus holds at least one case of each.
 */
export interface ErrorKind {
  readonly id: string;
  readonly type: "syntax" | "plan";
  /** The stages that raise it (a miscased keyword is noticed wherever its mistake surfaces). */
  readonly stages: readonly ("lex" | "parse" | "lower" | "check" | "plan")[];
  readonly message: RegExp;
}

const name = "[A-Za-z_][A-Za-z0-9_]*";

export const ERROR_KINDS: readonly ErrorKind[] = [
  { id: "unterminated-string", type: "syntax", stages: ["lex"], message: /^Unterminated string$/ },
  { id: "invalid-escape", type: "syntax", stages: ["lex"], message: /^Invalid escape in string: only \\" and \\\\ are allowed$/ },
  { id: "stray-colon", type: "syntax", stages: ["lex"], message: /^Unexpected character ':'; a timeframe prefix is written like d::close$/ },
  { id: "stray-bang", type: "syntax", stages: ["lex"], message: /^Unexpected character '!'; use 'not' for negation or '!=' for inequality$/ },
  { id: "stray-logical", type: "syntax", stages: ["lex"], message: /^Unexpected character '[&|]'; use 'and' \/ 'or'$/ },
  { id: "single-quote", type: "syntax", stages: ["lex"], message: /^Unexpected character "'"; strings use double quotes$/ },
  { id: "unexpected-character", type: "syntax", stages: ["lex"], message: /^Unexpected character '(.|..|U\+[0-9A-F]{4})'$/u },
  { id: "unexpected-end-of-input", type: "syntax", stages: ["parse"], message: /^Unexpected end of input, expected (?!an expression$).+$/ },
  { id: "expected-expression", type: "syntax", stages: ["parse"], message: /^Unexpected .+, expected (an expression|a setting, a let binding or a condition)$/ },
  { id: "unexpected-token-expected", type: "syntax", stages: ["parse"], message: /^Unexpected '.+', expected (?!an expression$).+$/ },
  { id: "unexpected-token", type: "syntax", stages: ["parse"], message: /^Unexpected '.+'$/ },
  { id: "nesting-too-deep", type: "syntax", stages: ["parse"], message: /^Expression nested too deeply: at most 64 levels of parentheses, brackets and prefix operators$/ },
  { id: "miscased-keyword", type: "syntax", stages: ["parse", "lower", "check"], message: new RegExp(`^Unexpected '${name}'; keywords are lower case: did you mean '[a-z]+'\\?$`) },
  { id: "unknown-timeframe", type: "syntax", stages: ["parse", "lower"], message: /^Unknown timeframe '\w+(::)?'(, did you mean '[a-z0-9]+(::)?'\?|;) Timeframes are m1 m5 m15 m30 h1 h4 d w$/ },
  { id: "number-too-large", type: "syntax", stages: ["lower"], message: /^Number '.+' is too large$/ },
  { id: "limit-range", type: "syntax", stages: ["lower"], message: /^Limit must be an integer from 1 to 10000, got .+$/ },
  { id: "history-offset", type: "syntax", stages: ["lower"], message: /^A history offset must be a non-negative integer literal, as in close\[1\]$/ },
  { id: "chained-comparison", type: "syntax", stages: ["lower"], message: /^Comparisons cannot be chained; join them with 'and', as in a < b and b < c$/ },
  { id: "second-condition", type: "syntax", stages: ["lower"], message: /^A query has exactly one condition; combine conditions with 'and' or 'or'$/ },
  { id: "condition-not-last", type: "syntax", stages: ["lower"], message: /^The condition must be the last statement; write settings and lets before it$/ },
  { id: "missing-condition", type: "syntax", stages: ["lower"], message: /^Missing condition: a query ends with a boolean condition, such as rsi\(14\) < 30$/ },
  { id: "duplicate-setting", type: "syntax", stages: ["check"], message: /^Duplicate setting '(market|timeframe|columns|sort|limit)'$/ },
  { id: "duplicate-let", type: "syntax", stages: ["check"], message: new RegExp(`^Duplicate let '${name}'$`) },
  { id: "duplicate-column", type: "syntax", stages: ["check"], message: /^Duplicate column '.+'$/ },
  { id: "let-shadows-builtin", type: "syntax", stages: ["check"], message: new RegExp(`^'${name}' is a built-in (function|series) and cannot be redefined by let$`) },
  { id: "unknown-market", type: "syntax", stages: ["check"], message: /^Unknown market '.*'(, did you mean '.+'\?)?(; known markets: .+)?$/ },
  { id: "unknown-identifier", type: "syntax", stages: ["check"], message: new RegExp(`^Unknown identifier '${name}'(, did you mean '${name}'\\?)?$`) },
  { id: "condition-not-boolean", type: "syntax", stages: ["check"], message: /^The condition must be a boolean, got a number; compare it, as in rsi\(14\) < 30$/ },
  { id: "type-mismatch", type: "syntax", stages: ["check"], message: /^(The operand of '(not|-)'|Each side of '.+'|Argument '\w+' of \w+) must be (a number|a boolean), got (a number|a boolean)$/ },
  { id: "let-self-reference", type: "syntax", stages: ["check"], message: new RegExp(`^Let '${name}' cannot refer to itself$`) },
  { id: "let-forward-reference", type: "syntax", stages: ["check"], message: new RegExp(`^Let '${name}' is used before its definition; move it above$`) },
  { id: "function-without-call", type: "syntax", stages: ["check"], message: new RegExp(`^'${name}' is a function; call it with arguments, as in .+$`) },
  { id: "call-of-series", type: "syntax", stages: ["check"], message: new RegExp(`^'${name}' is a series, not a function$`) },
  { id: "call-of-let", type: "syntax", stages: ["check"], message: new RegExp(`^'${name}' is a let binding, not a function$`) },
  { id: "arity", type: "syntax", stages: ["check"], message: /^Function '\w+' takes \d+( or \d+| to \d+)? arguments? \(.+\), got \d+$/ },
  { id: "length-not-literal", type: "syntax", stages: ["check"], message: /^Length '\w+' of \w+ must be a positive integer literal, as in .+$/ },
  { id: "length-not-positive-integer", type: "syntax", stages: ["check"], message: /^Length '\w+' of \w+ must be a positive integer, got .+$/ },
  { id: "number-argument-not-literal", type: "syntax", stages: ["check"], message: /^Argument '\w+' of \w+ must be a number literal, as in .+$/ },
  { id: "missing-market", type: "plan", stages: ["plan"], message: /^Missing required setting 'market', e\.g\. market = "FOREX"$/ },
  { id: "missing-timeframe", type: "plan", stages: ["plan"], message: /^Missing required setting 'timeframe', e\.g\. timeframe = h1$/ },
  { id: "lookback-ceiling", type: "plan", stages: ["plan"], message: /^Lookback of \d+ bars on timeframe \w+ exceeds the ceiling of \d+ bars$/ },
];
