/** The EBNF generated from the parser (scripts/gen/grammar.ts) names every rule of the grammar. */
import { describe, expect, it } from "vitest";
import { grammarEbnf } from "../../scripts/gen/grammar.js";

describe("grammar/xql.ebnf", () => {
  it("names every rule of the parser", () => {
    const ebnf = grammarEbnf();
    for (const rule of ["query", "statement", "marketSetting", "letBinding", "expression", "prefixed", "postfix", "nameOrCall"]) {
      expect(ebnf).toMatch(new RegExp(`^${rule} = `, "m"));
    }
  });
});
