/**
 * Build-free checks of the package surface: every subpath of decisions §4 is in the exports
 * map with ESM and CJS entries and types, each maps to a source entry point, and the core's
 * static import graph reaches no server, database or MCP package.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
  bin: Record<string, string>;
  files: string[];
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

const SUBPATHS: Record<string, string> = {
  ".": "src/index.ts",
  "./testing": "src/testing/index.ts",
  "./server": "src/server/index.ts",
  "./client": "src/client/index.ts",
};

/** Packages only the server, the stores, the MCP bridge or the CLI may load. */
const SERVER_ONLY = ["fastify", "better-sqlite3", "pg", "ioredis", "@modelcontextprotocol/sdk", "zod", "fast-check"];

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers: string[] = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const whole = match[0];
    // Type-only imports and exports are erased from the build.
    if (/^\s*(?:import|export)\s+type\s/.test(whole.replace(/^[;\s]*/, " "))) continue;
    specifiers.push((match[1] ?? match[2])!);
  }
  return specifiers;
}

/** Every package a module reaches through value imports, following relative imports. */
function reachablePackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = [join(root, entry)];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of importsOf(file)) {
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        stack.push(existsSync(target) ? target : target.replace(/\.ts$/, "/index.ts"));
      } else if (!spec.startsWith("node:")) {
        packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
      }
    }
  }
  return packages;
}

describe("package surface", () => {
  for (const [subpath, source] of Object.entries(SUBPATHS)) {
    it(`exports ${subpath === "." ? "xql" : `xql/${subpath.slice(2)}`} as ESM and CJS with types`, () => {
      expect(existsSync(join(root, source)), source).toBe(true);
      const base = source.replace(/^src\//, "./dist/").replace(/\.ts$/, "");
      expect(pkg.exports[subpath]).toEqual({
        import: { types: `${base}.d.ts`, default: `${base}.js` },
        require: { types: `${base}.d.cts`, default: `${base}.cjs` },
      });
    });
  }

  it("has the CLI as bin and ships dist and docs", () => {
    expect(pkg.bin).toEqual({ xql: "./dist/cli/main.js" });
    for (const entry of ["dist", "docs", "README.md", "LICENSE", "CHANGELOG.md"]) expect(pkg.files).toContain(entry);
  });

  it("has fast-check as an optional peer dependency", () => {
    expect(pkg.peerDependencies?.["fast-check"]).toBeDefined();
    expect(pkg.peerDependenciesMeta?.["fast-check"]?.optional).toBe(true);
  });

  it("installs light: no dependency (chevrotain is bundled); the server, store and MCP packages are optional peers, installed here for development", () => {
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
    expect(pkg.devDependencies?.["chevrotain"]).toBeDefined();
    for (const name of SERVER_ONLY) {
      expect(pkg.peerDependencies?.[name], name).toBeDefined();
      expect(pkg.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
      expect(pkg.devDependencies?.[name], name).toBe(pkg.peerDependencies?.[name]);
    }
  });

  it("the core reaches no server, database or MCP package", () => {
    const reached = [...reachablePackages("src/index.ts")];
    expect(reached.filter((name) => SERVER_ONLY.includes(name))).toEqual([]);
  });

  it("xql/client reaches no server, database or MCP package", () => {
    expect([...reachablePackages("src/client/index.ts")].filter((name) => SERVER_ONLY.includes(name))).toEqual([]);
  });
});
