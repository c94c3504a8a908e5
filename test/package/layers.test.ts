/**
 * The floors of src/: the bar store lies below the domains (accounts, alerts, the evaluator),
 * so nothing it loads at run time comes from them; `openStore` composes them from above.
 * Type-only imports are no arrow (they vanish from the build). Read from the source with the
 * TypeScript parser: static imports, `export … from` and dynamic `import()` alike.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Every .ts file under `dir` (relative to the repository), recursively. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** The files `file` loads at run time, as paths relative to the repository (packages left out). */
function runtimeImports(file: string, text = readFileSync(join(root, file), "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const add = (specifier: ts.Expression | undefined): void => {
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) return;
    found.push(relative(root, resolve(join(root, dirname(file)), specifier.text)).replace(/\.js$/, ".ts"));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) add(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The arrows from files under `from` into any folder of `into` (relative to src/). */
function arrows(from: readonly string[], into: readonly string[]): string[] {
  return from.flatMap((file) =>
    runtimeImports(file)
      .filter((target) => into.some((folder) => target.startsWith(`src/${folder}/`)))
      .map((target) => `${file} → ${target}`),
  );
}

describe("the floors of src/", () => {
  it("reads runtime arrows and leaves type-only imports out", () => {
    const text = [
      'import type { A } from "../accounts/a.js";',
      'import { type B, type C } from "../alerts/b.js";',
      'import { D, type E } from "../eval/d.js";',
      'export { F } from "../eval/f.js";',
      'export type { G } from "../eval/g.js";',
      'const h = await import("../alerts/h.js");',
    ].join("\n");
    expect(runtimeImports("src/store/x.ts", text)).toEqual(["src/eval/d.ts", "src/eval/f.ts", "src/alerts/h.ts"]);
  });

  it("src/store/ loads nothing from the domains above it (accounts, alerts, the evaluator), nor from the service", () => {
    expect(arrows(sources("src/store"), ["accounts", "alerts", "eval", "fetch", "open", "server", "cli", "mcp", "lsp"])).toEqual([]);
  });

  it("src/db/ is the floor: it loads nothing of the house", () => {
    expect(arrows(sources("src/db"), ["store", "accounts", "alerts", "eval", "fetch", "open", "ingest", "sessions", "server", "cli"])).toEqual([]);
  });

  it("only src/open/ composes the bars with the accounts and the alerts", () => {
    const all = sources("src").filter((file) => !file.startsWith("src/open/"));
    const composers = all.filter((file) => {
      const targets = runtimeImports(file);
      return targets.some((t) => t.startsWith("src/store/sqlite") || t.startsWith("src/store/postgres.ts")) && targets.some((t) => /^src\/(accounts|alerts)\/(sqlite|postgres)\.ts$/.test(t));
    });
    expect(composers).toEqual([]);
  });

  it("src/bars/ and src/sessions/ load nothing from the evaluator or the store", () => {
    expect(arrows([...sources("src/bars"), ...sources("src/sessions")], ["eval", "store", "fetch", "accounts", "alerts"])).toEqual([]);
  });
});
