/** The generated TextMate grammar colours a query as the lexer reads it. */
import { describe, expect, it } from "vitest";
import { textMateGrammar } from "../../scripts/gen/textmate.js";

interface Rule {
  name?: string;
  match?: string;
  patterns?: Rule[];
  include?: string;
  captures?: Record<string, { name: string }>;
}
const grammar = JSON.parse(textMateGrammar()) as { patterns: Rule[]; repository: Record<string, Rule> };

/** A small TextMate-style scanner: at each position the first top-level rule that matches there wins. */
function colour(line: string): [string, string][] {
  const rules: Rule[] = [];
  const flatten = (r: Rule): void => {
    if (r.include) flatten(grammar.repository[r.include.slice(1)]!);
    else if (r.patterns) r.patterns.forEach(flatten);
    else rules.push(r);
  };
  grammar.patterns.forEach(flatten);
  const out: [string, string][] = [];
  let i = 0;
  while (i < line.length) {
    if (/\s/.test(line[i]!)) {
      i++;
      continue;
    }
    let hit: [Rule, RegExpExecArray] | undefined;
    for (const rule of rules) {
      const re = new RegExp(rule.match!, "y");
      re.lastIndex = i;
      const m = re.exec(line);
      if (m && m[0].length > 0) {
        hit = [rule, m];
        break;
      }
    }
    if (!hit) {
      out.push([line[i]!, "none"]);
      i++;
      continue;
    }
    const [rule, m] = hit;
    if (rule.captures) for (const [k, v] of Object.entries(rule.captures)) out.push([m[Number(k)]!, v.name]);
    else out.push([m[0], rule.name!]);
    i += m[0].length;
  }
  return out;
}

describe("grammar/xql.tmLanguage.json", () => {
  it("colours settings, timeframes, strings, comments, calls, series, prefixes, numbers and operators", () => {
    expect(colour('market = "FOREX" // fx')).toEqual([
      ["market", "storage.type.setting.xql"],
      ["=", "keyword.operator.assignment.xql"],
      ['"FOREX"', "string.quoted.double.xql"],
      ["// fx", "comment.line.double-slash.xql"],
    ]);
    expect(colour("timeframe = h4")).toEqual([
      ["timeframe", "storage.type.setting.xql"],
      ["=", "keyword.operator.assignment.xql"],
      ["h4", "constant.other.timeframe.xql"],
    ]);
    expect(colour("d::rsi(14) <= 30.5 and not closed")).toEqual([
      ["d::", "entity.name.namespace.timeframe.xql"],
      ["rsi", "support.function.xql"],
      ["(", "none"],
      ["14", "constant.numeric.xql"],
      [")", "none"],
      ["<=", "keyword.operator.comparison.xql"],
      ["30.5", "constant.numeric.xql"],
      ["and", "keyword.operator.logical.xql"],
      ["not", "keyword.operator.logical.xql"],
      ["closed", "variable.other.xql"],
    ]);
    // A function name not followed by a call is just a name (a let cannot shadow it, but it is being typed).
    expect(colour("close > sma")).toEqual([
      ["close", "support.variable.series.xql"],
      [">", "keyword.operator.comparison.xql"],
      ["sma", "variable.other.xql"],
    ]);
  });
});
