/**
 * `npm run gen`: every generator of the repository in one command, the last step of adding a
 * built-in (docs/functions.md, "Add a built-in"). In order:
 *
 * 1. the module list `src/functions/builtins/index.ts`, from the module files beside it;
 * 2. from the parser: grammar/xql.ebnf, grammar/diagrams.html, src/syntax/cst.ts, src/syntax/lookahead-paths.ts;
 * 3. from the tokens and the registry: the TextMate grammar and the VS Code extension's copy;
 * 4. from the registry: docs/functions.md, README.md's function list and docs/phrases.md;
 * 5. from the error catalogue: docs/errors.md's catalogue;
 * 6. from the TA-Lib fixtures and test/conformance/oracle.ts: the expected bodies of the
 *    conformance cases over the fixtures (test/conformance/functions.json);
 * 7. the first golden snapshot of a module that has none (never rewriting one).
 *
 * `npm run gen -- --reference` first rebuilds the TA-Lib fixtures themselves
 * (scripts/reference/build.sh: downloads talib@2.0.5 from npm, needs gcc and python3), for a
 * new built-in with a TA-Lib counterpart; without it gen is offline and takes seconds.
 *
 * The module list is written before anything reads the registry: the other generators are
 * imported only then, so they see a module added a moment ago. test/scripts/gen.test.ts fails
 * when a committed file differs from what this writes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Generated } from "./gen/generated.js";
import { MODULE_LIST, syncedModuleList } from "./gen/modules.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Every file the generators own, as they would write it now (the module list first). */
export async function generatedFiles(root = ROOT): Promise<Generated[]> {
  const [{ grammarFiles }, { textMateFiles }, { functionsFiles }, { phrasesFiles }, { errorsFiles }, { conformanceFiles }] = await Promise.all([
    import("./gen/grammar.js"),
    import("./gen/textmate.js"),
    import("./gen/functions.js"),
    import("./gen/phrases.js"),
    import("./gen/errors.js"),
    import("./gen/conformance.js"),
  ]);
  return [
    { path: MODULE_LIST, content: syncedModuleList(root) },
    ...grammarFiles(),
    ...textMateFiles(),
    ...functionsFiles(root),
    ...phrasesFiles(),
    ...errorsFiles(root),
    ...conformanceFiles(root),
  ];
}

/** Writes `file` under `root` when its content differs; true when it did. */
function write(root: string, file: Generated): boolean {
  const path = join(root, file.path);
  if (existsSync(path) && readFileSync(path, "utf8") === file.content) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, file.content);
  return true;
}

/** Runs every generator over `root`; returns the paths it wrote. */
export async function generate(root = ROOT): Promise<string[]> {
  const written: string[] = [];
  // First, and before any import of the registry: the module list the registry is built from.
  const list = { path: MODULE_LIST, content: syncedModuleList(root) };
  if (write(root, list)) written.push(list.path);
  for (const file of (await generatedFiles(root)).slice(1)) if (write(root, file)) written.push(file.path);
  const { missingModuleSnapshots } = await import("./gen/golden.js");
  for (const file of missingModuleSnapshots(root)) if (write(root, file)) written.push(file.path);
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--reference")) {
    // The fixtures are TA-Lib's own output, the ground truth the conformance bodies are computed from.
    const built = spawnSync("bash", [join(ROOT, "scripts/reference/build.sh")], { stdio: "inherit" });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  const written = await generate();
  console.log(written.length === 0 ? "npm run gen: every generated file is up to date" : `npm run gen: wrote ${written.join(", ")}`);
}
