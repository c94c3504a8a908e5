/**
 * The first golden snapshot of a new module (test/golden/expected/modules/<name>.json), so
 * that adding a built-in needs no separate step for it. It never rewrites a snapshot that exists: the
 * golden test compares against those, and only `UPDATE_GOLDEN=1` rewrites them.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { EXPECTED, groups, snapshot } from "../../test/golden/corpus.js";
import type { Generated } from "./generated.js";

/** The snapshots of module groups that have none yet. */
export function missingModuleSnapshots(root: string): Generated[] {
  return groups
    .filter(({ group }) => group.startsWith("modules/") && !existsSync(join(EXPECTED, `${group}.json`)))
    .map(({ group, cases }) => ({
      path: relative(root, join(EXPECTED, `${group}.json`)),
      content: `${JSON.stringify(cases.map(snapshot), null, 2)}\n`,
    }));
}
