/**
 * xql/testing: fast-check arbitraries for property tests of XQL queries, the same generators
 * the project's own grammar properties use.
 *
 * - `arbitraryExpression()`: typed AST expressions over the whole grammar and every built-in.
 * - `arbitraryQuery()`: a valid query as `{ text, ast }`, where `text` is `printQuery(ast)`,
 *   sometimes screening a list (`symbols = [...]` or `watchlist = "name"`).
 * - `arbitraryMutation(query)`: near-valid text, one to three small edits away from `query`.
 * - `stripSpans(node)`: the node without its source spans, for comparing ASTs.
 *
 * fast-check is an optional peer dependency of xql, needed only by this module. Generated
 * nodes carry the span `{ start: 0, end: 0 }`; compare them with `stripSpans`.
 *
 * @module xql/testing
 */
import fc from "fast-check";
import type {
  Column,
  Expression,
  LetBinding,
  Query,
  SortKey,
  Span,
  Statement,
} from "../ast/nodes.js";
import { MAX_SYMBOLS } from "../ast/lower.js";
import { printExpression, printQuery } from "../ast/print.js";
import { assertNever } from "../errors.js";
import { FUNCTIONS, SERIES, type FunctionSpec, type Param, type ValueType } from "../functions/registry.js";
import { KEYWORDS } from "../syntax/tokens.js";
import { DEFAULT_MARKETS, TIMEFRAME_MS, TIMEFRAMES, type Timeframe } from "../types.js";

export type {
  Query,
  Expression,
  NumberLiteral,
  BooleanLiteral,
  Identifier,
  Call,
  Unary,
  Binary,
  BinaryOperator,
  UnaryOperator,
  TimeframePrefix,
  History,
  Span,
  Statement,
  Setting,
  MarketSetting,
  TimeframeSetting,
  ColumnsSetting,
  Column,
  SortSetting,
  SortKey,
  SortDirection,
  LimitSetting,
  SymbolsSetting,
  WatchlistSetting,
  LetBinding,
  Condition,
} from "../ast/nodes.js";
export type { ValueType } from "../functions/registry.js";

const SPAN: Span = Object.freeze({ start: 0, end: 0 });

/** A `let` name an expression may refer to, with the type of its value. */
export interface LetName {
  /** The `let` name, as bound. */
  readonly name: string;
  /** The type of the bound value: generated expressions use the name only where this type fits. */
  readonly type: ValueType;
}

/** Options of {@link arbitraryExpression}: the type, depth, `let` names and timeframe of the expressions. */
export interface ExpressionOptions {
  /** The type of the generated expression. Default: either. */
  readonly type?: ValueType;
  /** Deepest nesting of operators, calls, prefixes and offsets. Default 4. */
  readonly maxDepth?: number;
  /** `let` names the expression may refer to. Default none. */
  readonly lets?: readonly LetName[];
  /**
   * The timeframe the expression is evaluated on. When given, `tf::` prefixes only move to
   * timeframes at least as long, so history offsets never multiply across a prefix and the
   * lookback stays small (with the default depth and lengths, far below the ceiling of 300).
   * When left out, prefixes use every timeframe.
   */
  readonly timeframe?: Timeframe;
}

// Lengths stay small so that a query of the default depth stays far below the lookback ceiling;
// a parameter may ask for less (`Param.max`).
const MAX_LENGTH = 30;
const MAX_OFFSET = 5;
const MULTIPLIERS = [0.5, 1, 1.5, 2, 2.5, 3];

const number = (value: number): Expression => ({ kind: "number", value, span: SPAN });

/** Non-negative literals as the lexer reads them: integers, decimals, exponents, extremes. */
const numberLiteral: fc.Arbitrary<Expression> = fc
  .oneof(
    fc.integer({ min: 0, max: 1000 }),
    fc.constantFrom(0.5, 2.5, 0.001, 1e6, 1e-7, 1e21, 123456789.125, Number.MAX_VALUE),
    fc.double({ min: 0, max: 1e9, noNaN: true, noDefaultInfinity: true }).map((x) => Math.abs(x)),
  )
  .map(number);

const lengthLiteral = (max: number): fc.Arbitrary<Expression> => fc.integer({ min: 1, max }).map(number);

/** A `number` argument: one of the parameter's samples, or a multiplier (sometimes negated). */
function numberArgument(param: Param): fc.Arbitrary<Expression> {
  if (param.samples !== undefined && param.samples.length > 0) {
    return fc.constantFrom(...param.samples).map((k): Expression =>
      k < 0 || Object.is(k, -0) ? { kind: "unary", operator: "-", operand: number(-k), span: SPAN } : number(k),
    );
  }
  return fc
    .tuple(fc.constantFrom(...MULTIPLIERS), fc.boolean())
    .map(([k, negated]) => (negated ? { kind: "unary", operator: "-", operand: number(k), span: SPAN } : number(k)));
}

const SERIES_NAMES = [...SERIES.keys()];
const NUMBER_FUNCTIONS = [...FUNCTIONS.values()].filter((f) => f.result === "number");
const BOOLEAN_FUNCTIONS = [...FUNCTIONS.values()].filter((f) => f.result === "boolean");

function prefixTargets(timeframe: Timeframe | undefined): readonly Timeframe[] {
  if (timeframe === undefined) return TIMEFRAMES;
  return TIMEFRAMES.filter((tf) => TIMEFRAME_MS[tf] >= TIMEFRAME_MS[timeframe]);
}

/** Builds typed expression arbitraries, one per (type, depth, timeframe), shared across levels. */
class ExpressionArbitraries {
  private readonly cache = new Map<string, fc.Arbitrary<Expression>>();

  /**
   * @param root the timeframe the expression is evaluated on, or undefined for any prefixes.
   * A `let` may hold a prefix of its own, so `let`s are referred to only on `root`: inside a
   * longer prefix, a `let` holding a shorter one would multiply its offsets.
   */
  constructor(
    private readonly lets: readonly LetName[],
    private readonly root: Timeframe | undefined,
  ) {}

  private get bounded(): boolean {
    return this.root !== undefined;
  }

  of(type: ValueType, depth: number, timeframe: Timeframe | undefined): fc.Arbitrary<Expression> {
    const key = `${type}|${depth}|${this.bounded ? (timeframe ?? "") : ""}`;
    let arbitrary = this.cache.get(key);
    if (!arbitrary) {
      arbitrary = type === "number" ? this.numberExpression(depth, timeframe) : this.booleanExpression(depth, timeframe);
      this.cache.set(key, arbitrary);
    }
    return arbitrary;
  }

  private letNames(type: ValueType, timeframe: Timeframe | undefined): fc.Arbitrary<Expression>[] {
    if (this.bounded && timeframe !== this.root) return [];
    const names = this.lets.filter((l) => l.type === type).map((l) => l.name);
    return names.length === 0 ? [] : [fc.constantFrom(...names).map((name) => ({ kind: "identifier", name, span: SPAN }) as Expression)];
  }

  private leaves(type: ValueType, timeframe: Timeframe | undefined): fc.Arbitrary<Expression>[] {
    if (type === "number") {
      const series = fc.constantFrom(...SERIES_NAMES).map((name): Expression => ({ kind: "identifier", name, span: SPAN }));
      return [numberLiteral, series, series, ...this.letNames("number", timeframe)];
    }
    return [fc.boolean().map((value): Expression => ({ kind: "boolean", value, span: SPAN })), ...this.letNames("boolean", timeframe)];
  }

  /** The shapes shared by both types: `tf::e` and `e[n]`. */
  private wrappers(type: ValueType, depth: number, timeframe: Timeframe | undefined): fc.Arbitrary<Expression>[] {
    const targets = prefixTargets(this.bounded ? timeframe : undefined);
    const prefixed = fc
      .constantFrom(...targets)
      .chain((tf) => this.of(type, depth - 1, tf).map((expression): Expression => ({
        kind: "timeframe",
        timeframe: tf,
        timeframeSpan: SPAN,
        expression,
        span: SPAN,
      })));
    const history = fc
      .tuple(this.of(type, depth - 1, timeframe), fc.integer({ min: 0, max: MAX_OFFSET }))
      .map(([expression, offset]): Expression => ({ kind: "history", expression, offset, offsetSpan: SPAN, span: SPAN }));
    return [prefixed, history];
  }

  private call(fn: FunctionSpec, depth: number, timeframe: Timeframe | undefined): fc.Arbitrary<Expression> {
    // A zero-parameter built-in is written as a bare name.
    if (fn.params.length === 0) return fc.constant<Expression>({ kind: "identifier", name: fn.name, span: SPAN });
    const omitSource = fn.params[0]?.default !== undefined ? fc.boolean() : fc.constant(false);
    return omitSource.chain((omit) => {
      const params = omit ? fn.params.slice(1) : fn.params;
      const args = params.map((param) => {
        switch (param.kind) {
          case "series":
            return this.of("number", depth - 1, timeframe);
          case "condition":
            return this.of("boolean", depth - 1, timeframe);
          case "length":
            return lengthLiteral(param.max ?? MAX_LENGTH);
          case "number":
            return numberArgument(param);
          default:
            return assertNever(param.kind, "parameter kind");
        }
      });
      return fc.tuple(...args).map((values): Expression => ({
        kind: "call",
        callee: fn.name,
        calleeSpan: SPAN,
        args: values,
        span: SPAN,
      }));
    });
  }

  private numberExpression(depth: number, timeframe: Timeframe | undefined): fc.Arbitrary<Expression> {
    const leaves = this.leaves("number", timeframe);
    if (depth <= 0) return fc.oneof(...leaves);
    const operand = this.of("number", depth - 1, timeframe);
    const arithmetic = fc
      .tuple(fc.constantFrom<"+" | "-" | "*" | "/">("+", "-", "*", "/"), operand, operand)
      .map(([operator, left, right]): Expression => ({ kind: "binary", operator, left, right, span: SPAN }));
    const negate = operand.map((e): Expression => ({ kind: "unary", operator: "-", operand: e, span: SPAN }));
    const calls = fc.constantFrom(...NUMBER_FUNCTIONS).chain((fn) => this.call(fn, depth, timeframe));
    return fc.oneof(
      { arbitrary: fc.oneof(...leaves), weight: 4 },
      { arbitrary: calls, weight: 4 },
      { arbitrary: arithmetic, weight: 3 },
      { arbitrary: negate, weight: 1 },
      ...this.wrappers("number", depth, timeframe).map((arbitrary) => ({ arbitrary, weight: 1 })),
    );
  }

  private booleanExpression(depth: number, timeframe: Timeframe | undefined): fc.Arbitrary<Expression> {
    const leaves = this.leaves("boolean", timeframe);
    // A comparison needs no boolean below it, so even depth 0 can compare two leaves.
    const numbers = this.of("number", Math.max(0, depth - 1), timeframe);
    const comparison = fc
      .tuple(fc.constantFrom<"<" | "<=" | ">" | ">=" | "==" | "!=">("<", "<=", ">", ">=", "==", "!="), numbers, numbers)
      .map(([operator, left, right]): Expression => ({ kind: "binary", operator, left, right, span: SPAN }));
    if (depth <= 0) return fc.oneof(comparison, ...leaves);
    const operand = this.of("boolean", depth - 1, timeframe);
    const logical = fc
      .tuple(fc.constantFrom<"and" | "or">("and", "or"), operand, operand)
      .map(([operator, left, right]): Expression => ({ kind: "binary", operator, left, right, span: SPAN }));
    const not = operand.map((e): Expression => ({ kind: "unary", operator: "not", operand: e, span: SPAN }));
    const calls = fc.constantFrom(...BOOLEAN_FUNCTIONS).chain((fn) => this.call(fn, depth, timeframe));
    return fc.oneof(
      { arbitrary: comparison, weight: 5 },
      { arbitrary: logical, weight: 3 },
      { arbitrary: not, weight: 1 },
      { arbitrary: calls, weight: 1 },
      { arbitrary: fc.oneof(...leaves), weight: 1 },
      ...this.wrappers("boolean", depth, timeframe).map((arbitrary) => ({ arbitrary, weight: 1 })),
    );
  }
}

/**
 * Well-typed AST expressions: literals, series, `let` names, calls of every built-in (with and
 * without their optional leading source), unary and binary operators of every precedence,
 * `tf::` prefixes and `[n]` offsets. Printing one with `printExpression` and parsing it back
 * gives the same expression (spans aside).
 */
export function arbitraryExpression(options: ExpressionOptions = {}): fc.Arbitrary<Expression> {
  const builder = new ExpressionArbitraries(options.lets ?? [], options.timeframe);
  const depth = options.maxDepth ?? 4;
  if (options.type !== undefined) return builder.of(options.type, depth, options.timeframe);
  return fc.oneof(builder.of("boolean", depth, options.timeframe), builder.of("number", depth, options.timeframe));
}

const RESERVED = new Set<string>([...KEYWORDS, ...FUNCTIONS.keys(), ...SERIES.keys()]);

/** Names a `let` may take: identifiers that are neither keywords nor built-in names. */
export const arbitraryLetName: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"),
    fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789_"), maxLength: 7 }),
  )
  .map(([first, rest]) => first + rest)
  .filter((name) => !RESERVED.has(name));

/** Options of {@link arbitraryQuery}: the markets, the depth of expressions, the number of `let`s and the lists screened. */
export interface QueryOptions {
  /** Markets to pick from (any case is written, as users do). Default `FOREX`, `CRYPTO`. */
  readonly markets?: readonly string[];
  /** Deepest nesting of each expression. Default 3. */
  readonly maxDepth?: number;
  /** Most `let` bindings. Default 3. */
  readonly maxLets?: number;
  /**
   * The symbols a `symbols = [...]` setting lists, 1 to 8 distinct ones of these (your
   * universe's, and some it lacks, to screen both). Default: generated symbols, mostly like
   * `EURUSD`, some with spaces, quotes and backslashes inside (escaped in the text), and
   * sometimes the most a query may list (1,000) of them. `[]`: never a `symbols` setting.
   */
  readonly symbols?: readonly string[];
  /**
   * The names a `watchlist = "name"` setting picks from: the lists you give `compile` (or
   * `validate`) as its `watchlists` option, where a name it lacks is the plan error `Unknown
   * watchlist`. Default: generated names (`a-z 0-9 _ -`, 1 to 40), which the text validates
   * with when no `watchlists` option is given (the name is then left unresolved and a run
   * screens the whole market). `[]`: never a `watchlist` setting.
   */
  readonly watchlists?: readonly string[];
}

/** Characters of generated symbols: mostly a ticker's, with the few a string must escape and a space. */
const SYMBOL_CHARACTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "/", "-", ".", "_", " ", '"', "\\", "\u00e9"];

/** A symbol as the lower stage accepts it: not blank, no space at either end, no line break. */
const arbitrarySymbol: fc.Arbitrary<string> = fc
  .string({ unit: fc.constantFrom(...SYMBOL_CHARACTERS), minLength: 1, maxLength: 12 })
  .filter((symbol) => symbol.trim() === symbol && symbol !== "");

/** A watchlist name: 1 to 40 of `a-z 0-9 _ -` (decisions §13). */
const arbitraryWatchlistName: fc.Arbitrary<string> = fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789_-"), minLength: 1, maxLength: 40 });

/**
 * At most one list setting: none (most often), `symbols = [...]` or `watchlist = "name"` (a
 * query never has both: a syntax error). An empty pool leaves its setting out.
 */
function arbitraryListSetting(options: QueryOptions): fc.Arbitrary<Statement | undefined> {
  const pool = options.symbols;
  const symbols =
    pool === undefined
      ? fc.oneof(
          { arbitrary: fc.uniqueArray(arbitrarySymbol, { minLength: 1, maxLength: 8 }), weight: 19 },
          { arbitrary: fc.uniqueArray(arbitrarySymbol, { minLength: MAX_SYMBOLS, maxLength: MAX_SYMBOLS }), weight: 1 },
        )
      : pool.length === 0
        ? undefined
        : fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: Math.min(8, new Set(pool).size) });
  const names = options.watchlists === undefined ? arbitraryWatchlistName : options.watchlists.length === 0 ? undefined : fc.constantFrom(...options.watchlists);
  const choices: fc.Arbitrary<Statement | undefined>[] = [fc.constant(undefined), fc.constant(undefined)];
  if (symbols) choices.push(symbols.map((list): Statement => ({ kind: "symbols", symbols: list, symbolSpans: list.map(() => SPAN), span: SPAN })));
  if (names) choices.push(names.map((name): Statement => ({ kind: "watchlist", name, valueSpan: SPAN, span: SPAN })));
  return fc.oneof(...choices);
}

interface Setting {
  readonly statement: Statement;
  /** Where among the lets the setting is written (0 = before the first). */
  readonly slot: number;
}

/**
 * A valid query and its AST: `market` and `timeframe`, optionally `columns`, `sort` and
 * `limit`, sometimes one list to screen (`symbols = [...]` or `watchlist = "name"`, see
 * {@link QueryOptions}), zero or more `let`s (each using only earlier ones), settings and lets
 * in any order, then a boolean condition. `text` is `printQuery(ast)`, and `validate(text)` is
 * `{ valid: true }` under the default options (or the given markets, and a `watchlists` option
 * holding the names given).
 */
export function arbitraryQuery(options: QueryOptions = {}): fc.Arbitrary<{
  /** The query text: `printQuery(ast)`. */
  text: string;
  /** The query's AST, every span `{ start: 0, end: 0 }`. */
  ast: Query;
}> {
  const markets = options.markets ?? DEFAULT_MARKETS;
  const depth = options.maxDepth ?? 3;
  const maxLets = options.maxLets ?? 3;
  const market = fc
    .tuple(fc.constantFrom(...markets), fc.constantFrom("as configured", "lower"))
    .map(([m, spelling]) => (spelling === "lower" ? m.toLowerCase() : m));
  return fc
    .record({
      market,
      timeframe: fc.constantFrom(...TIMEFRAMES),
      letNames: fc.uniqueArray(arbitraryLetName, { maxLength: maxLets }),
    })
    .chain(({ market, timeframe, letNames }) => {
      // Each let gets a type and an expression over the lets before it.
      const letTypes = fc.tuple(...letNames.map(() => fc.constantFrom<ValueType>("number", "boolean")));
      return letTypes.chain((types) => {
        const scope = (count: number): LetName[] => letNames.slice(0, count).map((name, i) => ({ name, type: types[i]! }));
        const lets = fc.tuple(
          ...letNames.map((name, i) =>
            arbitraryExpression({ type: types[i]!, maxDepth: depth, lets: scope(i), timeframe }).map(
              (expression): LetBinding => ({ kind: "let", name, nameSpan: SPAN, expression, span: SPAN }),
            ),
          ),
        );
        const all = scope(letNames.length);
        const anyExpression = arbitraryExpression({ maxDepth: depth - 1, lets: all, timeframe });
        const columns = fc
          .uniqueArray(anyExpression, { minLength: 1, maxLength: 4, selector: printExpression })
          .map((expressions): Statement => ({
            kind: "columns",
            columns: expressions.map((expression): Column => ({ text: printExpression(expression), expression, span: SPAN })),
            span: SPAN,
          }));
        const sort = fc
          .array(fc.tuple(anyExpression, fc.constantFrom<"asc" | "desc">("asc", "desc")), { minLength: 1, maxLength: 3 })
          .map((keys): Statement => ({
            kind: "sort",
            keys: keys.map(([expression, direction]): SortKey => ({ expression, direction, span: SPAN })),
            span: SPAN,
          }));
        const limit = fc
          .oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(1, 10_000))
          .map((value): Statement => ({ kind: "limit", value, valueSpan: SPAN, span: SPAN }));
        const slot = fc.integer({ min: 0, max: letNames.length });
        const setting = (statement: fc.Arbitrary<Statement>): fc.Arbitrary<Setting> =>
          fc.record({ statement, slot });
        const optional = (statement: fc.Arbitrary<Statement>): fc.Arbitrary<Setting | undefined> =>
          fc.option(setting(statement), { nil: undefined });
        return fc
          .record({
            lets,
            settings: fc.tuple(
              setting(fc.constant<Statement>({ kind: "market", value: market, valueSpan: SPAN, span: SPAN })),
              setting(fc.constant<Statement>({ kind: "timeframeSetting", timeframe, valueSpan: SPAN, span: SPAN })),
              optional(columns),
              optional(sort),
              optional(limit),
              arbitraryListSetting(options).chain((list) => (list === undefined ? fc.constant(undefined) : setting(fc.constant(list)))),
            ),
            order: fc.integer(),
            condition: arbitraryExpression({ type: "boolean", maxDepth: depth, lets: all, timeframe }),
          })
          .map(({ lets, settings, order, condition }) => {
            const present = settings.filter((s): s is Setting => s !== undefined);
            // Rotate the settings among themselves, so the required ones are not always first.
            const rotation = Math.abs(order) % present.length;
            const rotated = [...present.slice(rotation), ...present.slice(0, rotation)];
            const statements: Statement[] = [];
            for (let i = 0; i <= lets.length; i++) {
              for (const s of rotated) if (s.slot === i) statements.push(s.statement);
              if (i < lets.length) statements.push(lets[i]!);
            }
            statements.push({ kind: "condition", expression: condition, span: SPAN });
            const ast: Query = { kind: "query", statements, span: SPAN };
            return { text: printQuery(ast), ast };
          });
      });
    });
}

/** Tokens a mutation may insert or substitute: every kind the lexer knows, and some it does not. */
const TOKEN_VOCABULARY = [
  ...KEYWORDS,
  ...FUNCTIONS.keys(),
  ...SERIES.keys(),
  ...TIMEFRAMES.map((tf) => `${tf}::`),
  "x1::",
  "AND",
  "Or",
  "rsii",
  "zzzz",
  "0",
  "14",
  "2.5",
  "1e6",
  "1e999",
  "-1",
  '"FOREX"',
  '"NOPE"',
  '"',
  "(",
  ")",
  "[",
  "]",
  ",",
  ";",
  "=",
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "+",
  "-",
  "*",
  "/",
  "::",
  "//",
  "\n",
  "\r\n",
];

/** Characters a mutation may insert: the language's own, line breaks, and some it rejects. */
const CHARACTERS = [..."()[],;=<>!+-*/:\"\\'.e_aZ09 \t\n\r&|@#$`~{}?", "\u0000", "\u00e9", "\u{1F600}", "\uD83D"];

/** Splits text into tokens and the gaps between them, so token edits keep the rest intact. */
function tokenize(text: string): string[] {
  return text.match(/"(?:[^"\\\r\n]|\\.)*"?|[A-Za-z_][A-Za-z0-9_]*(?:::)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\/\/[^\r\n]*|[<>=!]=|\s+|[\s\S]/gu) ?? [];
}

type Edit = (text: string) => fc.Arbitrary<string>;

const at = (text: string): fc.Arbitrary<number> => fc.integer({ min: 0, max: text.length });

const characterEdits: Edit[] = [
  // Delete one character (possibly half of a surrogate pair).
  (text) => (text.length === 0 ? fc.constant(text) : fc.integer({ min: 0, max: text.length - 1 }).map((i) => text.slice(0, i) + text.slice(i + 1))),
  // Insert one character.
  (text) => fc.tuple(at(text), fc.constantFrom(...CHARACTERS)).map(([i, c]) => text.slice(0, i) + c + text.slice(i)),
  // Replace one character.
  (text) =>
    text.length === 0
      ? fc.constant(text)
      : fc.tuple(fc.integer({ min: 0, max: text.length - 1 }), fc.constantFrom(...CHARACTERS)).map(([i, c]) => text.slice(0, i) + c + text.slice(i + 1)),
  // Truncate.
  (text) => at(text).map((i) => text.slice(0, i)),
];

const tokenEdits: Edit[] = [
  // Delete a token.
  (text) => {
    const tokens = tokenize(text);
    return tokens.length === 0 ? fc.constant(text) : fc.integer({ min: 0, max: tokens.length - 1 }).map((i) => tokens.filter((_, j) => j !== i).join(""));
  },
  // Insert a token, with or without spaces around it.
  (text) => {
    const tokens = tokenize(text);
    return fc
      .tuple(fc.integer({ min: 0, max: tokens.length }), fc.constantFrom(...TOKEN_VOCABULARY), fc.constantFrom("", " "))
      .map(([i, token, pad]) => [...tokens.slice(0, i), pad + token + pad, ...tokens.slice(i)].join(""));
  },
  // Replace a token.
  (text) => {
    const tokens = tokenize(text);
    return tokens.length === 0
      ? fc.constant(text)
      : fc
          .tuple(fc.integer({ min: 0, max: tokens.length - 1 }), fc.constantFrom(...TOKEN_VOCABULARY))
          .map(([i, token]) => tokens.map((t, j) => (j === i ? token : t)).join(""));
  },
  // Swap two tokens.
  (text) => {
    const tokens = tokenize(text);
    return tokens.length < 2
      ? fc.constant(text)
      : fc.tuple(fc.integer({ min: 0, max: tokens.length - 1 }), fc.integer({ min: 0, max: tokens.length - 1 })).map(([i, j]) => {
          const swapped = [...tokens];
          [swapped[i], swapped[j]] = [swapped[j]!, swapped[i]!];
          return swapped.join("");
        });
  },
  // Duplicate a token.
  (text) => {
    const tokens = tokenize(text);
    return tokens.length === 0
      ? fc.constant(text)
      : fc.integer({ min: 0, max: tokens.length - 1 }).map((i) => [...tokens.slice(0, i + 1), tokens[i]!, ...tokens.slice(i + 1)].join(""));
  },
];

const EDITS = [...characterEdits, ...tokenEdits];

function mutateOnce(text: string): fc.Arbitrary<string> {
  return fc.integer({ min: 0, max: EDITS.length - 1 }).chain((i) => EDITS[i]!(text));
}

/**
 * Near-valid text: `query` after one to three edits, each of which deletes, inserts or
 * replaces a character or a token, swaps or duplicates tokens, or truncates the text.
 * The result may still be valid; most often it is one mistake away.
 */
export function arbitraryMutation(query: string): fc.Arbitrary<string> {
  return fc.integer({ min: 1, max: 3 }).chain((edits) => {
    let arbitrary = mutateOnce(query);
    for (let i = 1; i < edits; i++) arbitrary = arbitrary.chain(mutateOnce);
    return arbitrary;
  });
}

/** `T` without its source spans (`span`, every `...Span` and `...Spans` field), recursively: what {@link stripSpans} returns. */
export type Stripped<T> = T extends readonly (infer U)[]
  ? Stripped<U>[]
  : T extends object
    ? { [K in keyof T as K extends "span" | `${string}Span` | `${string}Spans` ? never : K]: Stripped<T[K]> }
    : T;

/**
 * A deep copy of an AST node without its source spans (`span`, `calleeSpan`, `nameSpan`,
 * `symbolSpans`, …), so that a parsed tree and a generated one compare equal when they say the
 * same thing.
 */
export function stripSpans<T>(node: T): Stripped<T> {
  // Iterative, so the 60 KB left-deep chains of the robustness tests cost no call stack.
  const copy = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.slice();
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === "span" || key.endsWith("Span") || key.endsWith("Spans")) continue;
      out[key] = v;
    }
    return out;
  };
  const root = copy(node);
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        value[i] = copy(value[i]);
        stack.push(value[i]);
      }
    } else if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        record[key] = copy(record[key]);
        stack.push(record[key]);
      }
    }
  }
  return root as Stripped<T>;
}
