// Builds the playground page into dist/playground/ (part of `npm run build`):
//  1. the core as the browser sees it (src/playground/core.ts) is bundled alone, minified,
//     and must reach no Node built-in and no server, data-store, CLI or MCP code; its
//     gzipped size is printed and held to a budget of 200 KB;
//  2. the page (CodeMirror 6, lightweight-charts and that core) is bundled into one script
//     and one stylesheet with content hashes, and index.html names them, with the examples
//     of examples/*.xql inlined.
// Exits non-zero when a check fails, so the build fails.
import { build } from "esbuild";
import { builtinModules } from "node:module";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = process.env.XQL_PLAYGROUND_OUT ?? join(ROOT, "dist", "playground");
const CORE_BUDGET = 200 * 1024;
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/** Code the page must never contain: the service, stores, command line, tool bridge, and their packages. */
const FORBIDDEN = [/^src\/(server|cli|mcp|client|lsp)\//, /^src\/(store|accounts|ingest)\//, /^src\/synthetic\/seed\.ts/, /node_modules\/(fastify|pg|ioredis|better-sqlite3|@modelcontextprotocol|vscode-)/];

/** Fails the bundle at the first import of a Node built-in, naming the importer. */
const noNodeBuiltins = {
  name: "no-node-builtins",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (BUILTINS.has(args.path)) {
        return { errors: [{ text: `the browser bundle imports the Node built-in '${args.path}' (from ${relative(ROOT, args.importer)})` }] };
      }
      return undefined;
    });
  },
};

function checkInputs(metafile, what) {
  const bad = Object.keys(metafile.inputs).filter((input) => FORBIDDEN.some((re) => re.test(input)));
  if (bad.length > 0) throw new Error(`${what} pulls code that must stay out of the browser:\n  ${bad.join("\n  ")}`);
}

const common = {
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  legalComments: "none",
  absWorkingDir: ROOT,
  logLevel: "warning",
  plugins: [noNodeBuiltins],
  metafile: true,
};

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/**
 * Bundles `entry` as the browser's core: rejects when it reaches a Node built-in or code
 * that must stay out of the browser, or exceeds the gzip budget. Resolves to its sizes.
 */
export async function bundleCore(entry = "src/playground/core.ts", budget = CORE_BUDGET) {
  const core = await build({ ...common, entryPoints: [entry], write: false, outdir: "out", logLevel: "silent" });
  checkInputs(core.metafile, "the core bundle");
  const js = core.outputFiles.find((f) => f.path.endsWith(".js")).contents;
  const gzipped = gzipSync(js, { level: 9 }).length;
  if (gzipped > budget) throw new Error(`the core bundle is ${kb(gzipped)} gzipped, over the budget of ${kb(budget)}`);
  return { minified: js.length, gzipped, inputs: Object.keys(core.metafile.inputs) };
}

async function main() {
  const started = Date.now();
  const core = await bundleCore();
  console.log(`playground: core bundle ${kb(core.minified)} minified, ${kb(core.gzipped)} gzipped (budget ${kb(CORE_BUDGET)})`);

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const page = await build({
    ...common,
    entryPoints: { app: "src/playground/main.ts", style: "src/playground/style.css" },
    entryNames: "[name]-[hash]",
    outdir: OUT,
    write: true,
  });
  checkInputs(page.metafile, "the page bundle");
  const outputs = Object.keys(page.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((n) => n.startsWith("app-") && n.endsWith(".js"));
  const css = outputs.find((n) => n.startsWith("style-") && n.endsWith(".css"));
  // esbuild emits an empty style-*.js stub for the CSS entry: the page does not need it.
  for (const n of outputs) if (n.startsWith("style-") && n.endsWith(".js")) rmSync(join(OUT, n));
  const examples = readdirSync(join(ROOT, "examples"))
    .filter((n) => n.endsWith(".xql"))
    .sort()
    .map((n) => ({ name: n.slice(0, -4), text: readFileSync(join(ROOT, "examples", n), "utf8").trimEnd() }));
  // JSON inside <script>: `</` must not close the element.
  const examplesJson = JSON.stringify(examples).replace(/<\//g, "<\\/");
  const html = readFileSync(join(ROOT, "src/playground/index.html"), "utf8")
    .replace("__CSS__", css)
    .replace("__JS__", js)
    .replace("__EXAMPLES__", () => examplesJson);
  writeFileSync(join(OUT, "index.html"), html);
  const appSize = readFileSync(join(OUT, js)).length;
  console.log(`playground: page ${kb(appSize)} (${kb(gzipSync(readFileSync(join(OUT, js))).length)} gzipped) into ${relative(ROOT, OUT) || OUT} in ${Date.now() - started} ms`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(`playground build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
