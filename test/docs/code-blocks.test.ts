/**
 * The JavaScript and TypeScript blocks of README.md and docs/*.md are programs a reader copies,
 * so each is run here as written (issue 31: docs/embedding.md's example had not been). A block
 * is written to a file inside the checkout and run by a child process, `node` for ```js and
 * `tsx` for ```ts, so its `import ... from "xql"` resolves the way a user's does: through
 * package.json's exports to the built package (Node's self-reference; `npm run build` first).
 * A program ends with exit 0; a server is asked what the docs say it answers, then stopped with
 * SIGTERM and ends with exit 0; a test file passes under vitest. The ```ts blocks also
 * typecheck (strict) against the built package's declarations. A block that is not a program
 * of its own (it uses names the reader already has, or lists options at production values), or
 * that another test runs, is named in NOT_RUN_HERE with why; every other block is run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, openStore } from "../../src/server/index.js";
import { ROOT } from "../cli/run-cli.js";
import { xqlIn } from "../cli/in-process.js";

interface CodeBlock {
  readonly doc: string;
  /** The line of the opening fence. */
  readonly line: number;
  readonly lang: "js" | "ts";
  readonly code: string;
}

/** The ```js and ```ts blocks of a document. */
function codeBlocks(doc: string, text: string): CodeBlock[] {
  return [...text.matchAll(/^```(js|ts|javascript|typescript)\n([\s\S]*?)^```$/gm)].map((m) => ({
    doc,
    line: text.slice(0, m.index).split("\n").length,
    lang: m[1]!.startsWith("t") ? "ts" : "js",
    code: m[2]!,
  }));
}

/**
 * Blocks not run here, by document and first line, with why. A ```ts block that is a whole
 * program of its own is still typechecked (`typechecked`): its options must exist.
 */
const NOT_RUN_HERE: readonly { readonly doc: string; readonly starts: string; readonly why: string; readonly typechecked?: true }[] = [
  {
    doc: "docs/alerts.md",
    starts: 'import { createServer } from "node:http";',
    why: "the webhook receiver: test/alerts/docs.test.ts runs it as written against real signed deliveries, forged and stale ones",
  },
  {
    doc: "docs/alerts.md",
    starts: 'import { Webhook } from "standardwebhooks";',
    why: "a fragment: the receiver's verify call with the Standard Webhooks package, over the receiver's secret, body and req",
  },
  {
    doc: "docs/history.md",
    starts: 'import { compile } from "xql";',
    why: "a fragment: the shape of the call over the reader's query text and universe (README.md's example, run here, calls it)",
  },
  {
    doc: "docs/service.md",
    starts: 'import { createServer, openStore } from "xql/server";',
    why: "createServer's options at production values (a /var/lib path, every interface, port 8787); docs/embedding.md's example, run here, makes the same calls",
    typechecked: true,
  },
];

const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const BLOCKS = DOCS.flatMap((doc) => codeBlocks(doc, readFileSync(join(ROOT, doc), "utf8")));
const notRun = (block: CodeBlock) => NOT_RUN_HERE.find((n) => n.doc === block.doc && block.code.startsWith(`${n.starts}\n`));
const RUN = BLOCKS.filter((block) => !notRun(block));
const named = (block: CodeBlock): string => `${block.doc}:${block.line}`;

interface Ended {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A child's exit, with everything it printed. */
function ended(child: ChildProcess): Promise<Ended> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The first match of `pattern` in what the child prints on standard output; fails if it exits first. */
function printed(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  let seen = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer | string) => {
      seen += String(chunk);
      const match = pattern.exec(seen);
      if (match) resolve(match);
    });
    child.on("close", (code) => reject(new Error(`exited ${code} before printing ${pattern}: ${seen}`)));
  });
}

// Child processes on a shared machine: minutes, not the default 30 s.
describe("the docs' JavaScript and TypeScript blocks", { timeout: 180_000 }, () => {
  let dir: string;
  beforeAll(() => {
    // Inside the checkout, so that `import "xql"` resolves to this package (self-reference).
    mkdirSync(join(ROOT, ".tmp"), { recursive: true });
    dir = mkdtempSync(join(ROOT, ".tmp", "docs-code-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The block as a file of its own in a directory of its own (its working directory when run). */
  function write(block: CodeBlock, name = `example.${block.lang === "ts" ? "mts" : "mjs"}`): { cwd: string; file: string } {
    const cwd = join(dir, named(block).replace(/[/:.]/g, "-"));
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, name), block.code);
    return { cwd, file: join(cwd, name) };
  }

  function run(block: CodeBlock, env: NodeJS.ProcessEnv = {}): { child: ChildProcess; cwd: string } {
    const { cwd, file } = write(block);
    const [command, args] = block.lang === "ts" ? [join(ROOT, "node_modules/.bin/tsx"), [file]] : [process.execPath, [file]];
    return { child: spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }), cwd };
  }

  /** How a block that is not a plain program is run and checked. */
  const SPECIAL: readonly { readonly doc: string; readonly has: string; readonly check: (block: CodeBlock) => Promise<void> }[] = [
    {
      // Screens over the reader's own bars: each prints its plan and the rows it matched, as the comments show.
      doc: "docs/embedding.md",
      has: "function loadBars(symbol)",
      check: async (block) => {
        const { code, stdout, stderr } = await ended(run(block).child);
        expect(code, stderr).toBe(0);
        expect(stdout).toContain("strong [ { timeframe: 'h1', series: [ 'close' ], minLookback: 15 } ]");
        // Both screens match both instruments: rows, not an empty list.
        expect(stdout.match(/symbol: '(EURUSD|GBPUSD)'/g)).toHaveLength(4);
      },
    },
    {
      // Mounting the service in one's own HTTP server: it answers under /screener as the docs' curl lines show.
      doc: "docs/embedding.md",
      has: "xql.routing(req, res)",
      check: async (block) => {
        const { child, cwd } = run(block, { PORT: "0" });
        const exit = ended(child);
        const [, port] = await printed(child, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
        const base = `http://127.0.0.1:${port}`;
        expect(await (await fetch(`${base}/`)).text()).toBe("my service\n");
        expect(((await (await fetch(`${base}/screener/health`)).json()) as { status: string }).status).toBe("ok");
        // The key the docs' next block creates with the CLI, in the same store file.
        const created = await xqlIn(["keys", "create", "--tier", "free", "--db", join(cwd, ".xql/xql.db")]);
        expect(created.code, created.stderr).toBe(0);
        const key = created.stdout.trim().split("\n").at(-1)!;
        const validated = await fetch(`${base}/screener/xql/validate`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}` },
          body: 'market = "FOREX"\ntimeframe = h1\nclose > 1',
        });
        expect(await validated.json()).toEqual({ valid: true });
        child.kill("SIGTERM");
        const { code, stderr } = await exit;
        expect(code, stderr).toBe(0);
      },
    },
    {
      // A property test of the reader's own, run by vitest as theirs would be.
      doc: "docs/embedding.md",
      has: 'from "xql/testing"',
      check: async (block) => {
        const { cwd } = write(block, "properties.test.ts");
        writeFileSync(join(cwd, "vitest.config.mjs"), 'export default { test: { include: ["*.test.ts"] } };\n');
        const child = spawn(join(ROOT, "node_modules/.bin/vitest"), ["run", "--root", cwd, "--config", join(cwd, "vitest.config.mjs")], {
          cwd,
          stdio: ["ignore", "pipe", "pipe"],
        });
        const { code, stdout, stderr } = await ended(child);
        expect(code, `${stdout}\n${stderr}`.slice(-4000)).toBe(0);
        expect(stdout).toMatch(/2 passed/);
      },
    },
    {
      // The client against a real service on loopback, its key created in that service's store.
      doc: "docs/mcp.md",
      has: "new XqlClient(",
      check: async (block) => {
        const db = join(dir, "client.db");
        const created = await xqlIn(["keys", "create", "--tier", "free", "--db", db]);
        expect(created.code, created.stderr).toBe(0);
        const store = await openStore(db);
        const server: FastifyInstance = createServer({ store, logger: false });
        try {
          await server.listen({ port: 0, host: "127.0.0.1" });
          const { port } = server.server.address() as AddressInfo;
          const key = created.stdout.trim().split("\n").at(-1)!;
          const { child } = run(block, { XQL_BASE_URL: `http://127.0.0.1:${port}`, XQL_API_KEY: key });
          const { code, stdout, stderr } = await ended(child);
          expect(code, stderr).toBe(0);
          expect(stderr).toBe("");
          expect(stdout).toMatch(/runs left today/);
        } finally {
          await server.close();
          await store.close();
        }
      },
    },
  ];

  it("runs every block, or says why not, and names no block that is gone", () => {
    expect(RUN.length).toBeGreaterThan(3);
    for (const n of NOT_RUN_HERE) expect(BLOCKS.some((b) => b.doc === n.doc && b.code.startsWith(`${n.starts}\n`)), `${n.doc}: ${n.starts}`).toBe(true);
    for (const s of SPECIAL) expect(RUN.filter((b) => b.doc === s.doc && b.code.includes(s.has)), `${s.doc}: ${s.has}`).toHaveLength(1);
    // The receiver is run by its own test, over its heading's block.
    expect(readFileSync(join(ROOT, "test/alerts/docs.test.ts"), "utf8")).toContain('codeAfter("### Receiving webhooks")');
  });

  it("typechecks every ```ts program against the package's declarations, strict", async () => {
    const programs = BLOCKS.filter((block) => block.lang === "ts" && (!notRun(block) || notRun(block)!.typechecked));
    expect(programs.length).toBeGreaterThan(2);
    const cwd = join(dir, "typecheck");
    mkdirSync(cwd, { recursive: true });
    for (const block of programs) writeFileSync(join(cwd, `${named(block).replace(/[/:.]/g, "-")}.mts`), block.code);
    const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] };
    writeFileSync(join(cwd, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.mts"] }));
    const { code, stdout } = await ended(spawn(join(ROOT, "node_modules/.bin/tsc"), ["-p", join(cwd, "tsconfig.json")], { cwd, stdio: ["ignore", "pipe", "pipe"] }));
    expect(code, stdout).toBe(0);
  });

  it.each(RUN.map((block) => [named(block), block] as const))("%s runs as written", async (_name, block) => {
    const special = SPECIAL.find((s) => s.doc === block.doc && block.code.includes(s.has));
    if (special) return special.check(block);
    const { code, stderr } = await ended(run(block).child);
    expect(code, stderr).toBe(0);
    expect(stderr).toBe("");
  });
});
