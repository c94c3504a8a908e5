/**
 * The expected bodies of the conformance cases over the TA-Lib fixtures (test/conformance/*.json,
 * the cases whose `data` names a fixture): TA-Lib's outputs where the fixture holds the call,
 * else decisions §1's definitions in test/conformance/oracle.ts, never the library under test.
 * A new built-in's conformance column is one more call in such a case's `columns = [...]`; this
 * writes its expected numbers. The hand-worked cases are copied as they are.
 */
import { join, relative } from "node:path";
import { HERE, computedResult, corpus } from "../../test/conformance/corpus.js";
import type { Generated } from "./generated.js";

/** Each corpus file holding a computed case, with every computed case's result as computed now. */
export function conformanceFiles(root: string): Generated[] {
  return corpus
    .filter(({ cases }) => cases.some((c) => typeof c.data === "object"))
    .map(({ file, description, cases }) => ({
      path: relative(root, join(HERE, file)),
      content: `${JSON.stringify({ description, cases: cases.map((c) => (typeof c.data === "object" ? { ...c, result: computedResult(c) } : c)) }, null, 2)}\n`,
    }));
}
