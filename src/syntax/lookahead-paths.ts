/* Generated from src/syntax/parser.ts by npm run gen (scripts/gen/grammar.ts): do not edit. */
/**
 * Each decision's lookahead, as Chevrotain's LL(k) analysis of the grammar finds it: per
 * decision (rule:kind:occurrence), per alternative, the token sequences that begin it.
 * src/syntax/lookahead.ts builds the parser's decisions from them.
 */
export const LOOKAHEAD_PATHS: Readonly<Record<string, readonly (readonly (readonly string[])[])[]>> = {
  "query:Repetition:0": [[["Market"],["Timeframe"],["Columns"],["Sort"],["Limit"],["Symbols"],["Watchlist"],["Let"],["Not"],["Minus"],["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]],[[]]],
  "statement:Alternation:0": [[["Market"]],[["Timeframe"]],[["Columns"]],[["Sort"]],[["Limit"]],[["Symbols"]],[["Watchlist"]],[["Let"]],[["Not"],["Minus"],["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]]],
  "statement:Option:0": [[["Semicolon"]],[[]]],
  "columnsSetting:RepetitionMandatoryWithSeparator:0": [[["Not"],["Minus"],["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]],[["RBracket"]]],
  "sortSetting:RepetitionMandatoryWithSeparator:0": [[["Not"],["Minus"],["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]],[[]]],
  "sortKey:Alternation:0": [[["Asc"]],[["Desc"]]],
  "sortKey:Option:0": [[["Asc"],["Desc"]],[[]]],
  "symbolsSetting:RepetitionWithSeparator:0": [[["StringLiteral"]],[["RBracket"]]],
  "expression:Repetition:0": [[["Or"]],[[]]],
  "andExpression:Repetition:0": [[["And"]],[[]]],
  "notExpression:Alternation:0": [[["Not"]],[["Minus"],["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]]],
  "comparison:Repetition:0": [[["ComparisonOperator"]],[[]]],
  "additive:Repetition:0": [[["AdditiveOperator"]],[[]]],
  "multiplicative:Repetition:0": [[["MultiplicativeOperator"]],[[]]],
  "unary:Alternation:0": [[["Minus"]],[["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]]],
  "prefixed:Alternation:0": [[["TimeframePrefix"]],[["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]]],
  "postfix:Repetition:0": [[["LBracket"]],[[]]],
  "primary:Alternation:0": [[["NumberLiteral"]],[["True"]],[["False"]],[["Identifier"]],[["LParen"]]],
  "nameOrCall:Option:0": [[["LParen"]],[[]]],
  "nameOrCall:RepetitionWithSeparator:0": [[["Not"],["Minus"],["TimeframePrefix"],["NumberLiteral"],["True"],["False"],["Identifier"],["LParen"]],[["RParen"]]],
};
