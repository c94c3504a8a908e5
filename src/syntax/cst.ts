/* Generated from src/syntax/parser.ts by npm run gen (scripts/gen/grammar.ts): do not edit. */
import type { CstNode, IToken } from "chevrotain";

export interface QueryCstNode extends CstNode {
  name: "query";
  children: QueryCstChildren;
}

export type QueryCstChildren = {
  statement?: StatementCstNode[];
};

export interface StatementCstNode extends CstNode {
  name: "statement";
  children: StatementCstChildren;
}

export type StatementCstChildren = {
  marketSetting?: MarketSettingCstNode[];
  timeframeSetting?: TimeframeSettingCstNode[];
  columnsSetting?: ColumnsSettingCstNode[];
  sortSetting?: SortSettingCstNode[];
  limitSetting?: LimitSettingCstNode[];
  symbolsSetting?: SymbolsSettingCstNode[];
  watchlistSetting?: WatchlistSettingCstNode[];
  letBinding?: LetBindingCstNode[];
  condition?: ConditionCstNode[];
  Semicolon?: IToken[];
};

export interface MarketSettingCstNode extends CstNode {
  name: "marketSetting";
  children: MarketSettingCstChildren;
}

export type MarketSettingCstChildren = {
  Market: IToken[];
  Equals: IToken[];
  StringLiteral: IToken[];
};

export interface TimeframeSettingCstNode extends CstNode {
  name: "timeframeSetting";
  children: TimeframeSettingCstChildren;
}

export type TimeframeSettingCstChildren = {
  Timeframe: IToken[];
  Equals: IToken[];
  Identifier: IToken[];
};

export interface ColumnsSettingCstNode extends CstNode {
  name: "columnsSetting";
  children: ColumnsSettingCstChildren;
}

export type ColumnsSettingCstChildren = {
  Columns: IToken[];
  Equals: IToken[];
  LBracket: IToken[];
  expression: ExpressionCstNode[];
  Comma?: IToken[];
  RBracket: IToken[];
};

export interface SortSettingCstNode extends CstNode {
  name: "sortSetting";
  children: SortSettingCstChildren;
}

export type SortSettingCstChildren = {
  Sort: IToken[];
  Equals: IToken[];
  sortKey: SortKeyCstNode[];
  Comma?: IToken[];
};

export interface SortKeyCstNode extends CstNode {
  name: "sortKey";
  children: SortKeyCstChildren;
}

export type SortKeyCstChildren = {
  expression: ExpressionCstNode[];
  Asc?: IToken[];
  Desc?: IToken[];
};

export interface LimitSettingCstNode extends CstNode {
  name: "limitSetting";
  children: LimitSettingCstChildren;
}

export type LimitSettingCstChildren = {
  Limit: IToken[];
  Equals: IToken[];
  NumberLiteral: IToken[];
};

export interface SymbolsSettingCstNode extends CstNode {
  name: "symbolsSetting";
  children: SymbolsSettingCstChildren;
}

export type SymbolsSettingCstChildren = {
  Symbols: IToken[];
  Equals: IToken[];
  LBracket: IToken[];
  StringLiteral?: IToken[];
  Comma?: IToken[];
  RBracket: IToken[];
};

export interface WatchlistSettingCstNode extends CstNode {
  name: "watchlistSetting";
  children: WatchlistSettingCstChildren;
}

export type WatchlistSettingCstChildren = {
  Watchlist: IToken[];
  Equals: IToken[];
  StringLiteral: IToken[];
};

export interface LetBindingCstNode extends CstNode {
  name: "letBinding";
  children: LetBindingCstChildren;
}

export type LetBindingCstChildren = {
  Let: IToken[];
  Identifier: IToken[];
  Equals: IToken[];
  expression: ExpressionCstNode[];
};

export interface ConditionCstNode extends CstNode {
  name: "condition";
  children: ConditionCstChildren;
}

export type ConditionCstChildren = {
  expression: ExpressionCstNode[];
};

export interface ExpressionCstNode extends CstNode {
  name: "expression";
  children: ExpressionCstChildren;
}

export type ExpressionCstChildren = {
  andExpression: (AndExpressionCstNode)[];
  Or?: IToken[];
};

export interface AndExpressionCstNode extends CstNode {
  name: "andExpression";
  children: AndExpressionCstChildren;
}

export type AndExpressionCstChildren = {
  notExpression: (NotExpressionCstNode)[];
  And?: IToken[];
};

export interface NotExpressionCstNode extends CstNode {
  name: "notExpression";
  children: NotExpressionCstChildren;
}

export type NotExpressionCstChildren = {
  Not?: IToken[];
  notExpression?: NotExpressionCstNode[];
  comparison?: ComparisonCstNode[];
};

export interface ComparisonCstNode extends CstNode {
  name: "comparison";
  children: ComparisonCstChildren;
}

export type ComparisonCstChildren = {
  additive: (AdditiveCstNode)[];
  ComparisonOperator?: IToken[];
};

export interface AdditiveCstNode extends CstNode {
  name: "additive";
  children: AdditiveCstChildren;
}

export type AdditiveCstChildren = {
  multiplicative: (MultiplicativeCstNode)[];
  AdditiveOperator?: IToken[];
};

export interface MultiplicativeCstNode extends CstNode {
  name: "multiplicative";
  children: MultiplicativeCstChildren;
}

export type MultiplicativeCstChildren = {
  unary: (UnaryCstNode)[];
  MultiplicativeOperator?: IToken[];
};

export interface UnaryCstNode extends CstNode {
  name: "unary";
  children: UnaryCstChildren;
}

export type UnaryCstChildren = {
  Minus?: IToken[];
  unary?: UnaryCstNode[];
  prefixed?: PrefixedCstNode[];
};

export interface PrefixedCstNode extends CstNode {
  name: "prefixed";
  children: PrefixedCstChildren;
}

export type PrefixedCstChildren = {
  TimeframePrefix?: IToken[];
  prefixed?: PrefixedCstNode[];
  postfix?: PostfixCstNode[];
};

export interface PostfixCstNode extends CstNode {
  name: "postfix";
  children: PostfixCstChildren;
}

export type PostfixCstChildren = {
  primary: PrimaryCstNode[];
  LBracket?: IToken[];
  expression?: ExpressionCstNode[];
  RBracket?: IToken[];
};

export interface PrimaryCstNode extends CstNode {
  name: "primary";
  children: PrimaryCstChildren;
}

export type PrimaryCstChildren = {
  NumberLiteral?: IToken[];
  True?: IToken[];
  False?: IToken[];
  nameOrCall?: NameOrCallCstNode[];
  LParen?: IToken[];
  expression?: ExpressionCstNode[];
  RParen?: IToken[];
};

export interface NameOrCallCstNode extends CstNode {
  name: "nameOrCall";
  children: NameOrCallCstChildren;
}

export type NameOrCallCstChildren = {
  Identifier: IToken[];
  LParen?: IToken[];
  expression?: ExpressionCstNode[];
  Comma?: IToken[];
  RParen?: IToken[];
};
