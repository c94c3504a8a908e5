/**
 * `src/functions/builtins/index.ts`, the module list the registry is built from, kept in step
 * with the module files beside it: every `<name>.ts` there (which exports `const <name>`) is
 * listed once. The order is editorial (documentation order, with group comments), so entries
 * already listed keep their place; a new module's import and entry are added at the end, and
 * an entry whose file is gone is dropped. Imports nothing of the registry, so `npm run gen`
 * runs it before the generators that read the registry.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const MODULE_LIST = "src/functions/builtins/index.ts";

const IMPORT = /^import \{ (\w+) \} from "\.\/(\w+)\.js";$/;
const LIST_START = "export const MODULES: readonly FunctionModule[] = [";
const LIST_END = "];";

/** The names of the module files in `src/functions/builtins/`, alphabetically. */
export function moduleFiles(root: string): string[] {
  return readdirSync(join(root, "src/functions/builtins"))
    .filter((f) => f.endsWith(".ts") && f !== "index.ts")
    .map((f) => f.slice(0, -3))
    .sort();
}

/** The module list with every module file listed once, in the list's order, new ones last. */
export function syncedModuleList(root: string): string {
  const current = readFileSync(join(root, MODULE_LIST), "utf8");
  const files = new Set(moduleFiles(root));
  const lines = current.split("\n");
  const start = lines.indexOf(LIST_START);
  const end = lines.indexOf(LIST_END, start);
  if (start < 0 || end < 0) throw new Error(`${MODULE_LIST} has lost its "${LIST_START}" ... "${LIST_END}" list`);

  const header: string[] = [];
  const imports: string[] = [];
  for (const line of lines.slice(0, start)) {
    const m = IMPORT.exec(line);
    if (!m) header.push(line);
    else if (m[1] === m[2] && files.has(m[1]!)) imports.push(m[1]!);
  }
  const entries = lines.slice(start + 1, end).filter((line) => {
    const name = /^ {2}(\w+),$/.exec(line)?.[1];
    return name === undefined ? line.trim().startsWith("//") : files.has(name);
  });
  const listed = new Set(entries.map((line) => /^ {2}(\w+),$/.exec(line)?.[1]).filter((n) => n !== undefined));
  const added = [...files].filter((name) => !listed.has(name));
  for (const name of added) entries.push(`  ${name},`);
  const importNames = [...imports.filter((n) => listed.has(n)), ...added];
  // The header keeps everything before the first module import (the doc comment, the type import).
  const blank = header.lastIndexOf("");
  const head = header.slice(0, blank >= 0 && blank === header.length - 1 ? -1 : header.length);
  return [
    ...head,
    ...importNames.map((n) => `import { ${n} } from "./${n}.js";`),
    "",
    LIST_START,
    ...entries,
    LIST_END,
    ...lines.slice(end + 1),
  ].join("\n");
}
