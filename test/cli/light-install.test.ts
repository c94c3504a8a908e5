/**
 * The command line in a library install (`npm install xql` alone, no optional peer): every
 * optional peer dependency of package.json is made unresolvable for the child process
 * (test/cli/light/hide-optional.*), as it is there. Help must print for every command; only
 * running a command that needs a missing package says which and how to add it.
 * scripts/pack-check.sh runs the same commands on a real library install of the tarball.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { CliResult } from "./run-cli.js";
import { ROOT } from "./run-cli.js";

const LIGHT = new URL("./light/", import.meta.url);
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const DRIVE = fileURLToPath(new URL("drive.ts", LIGHT));
const home = mkdtempSync(join(tmpdir(), "xql-light-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Starts node on `script ...args` with every optional peer missing. */
function lightNode(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawn(
    process.execPath,
    ["--import", new URL("hide-optional.mjs", LIGHT).href, "--require", fileURLToPath(new URL("hide-optional.cjs", LIGHT)), "--import", TSX, script, ...args],
    {
      cwd: ROOT,
      env: { ...process.env, XQL_DB: "", XQL_DATABASE_URL: "", HOME: home, XDG_DATA_HOME: join(home, "data"), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `xql ...args` for each case, run by `main` in one light process (./light/drive.ts): starting
 * node with tsx for each of a dozen commands would take a minute on a busy machine.
 */
async function lightXql(cases: readonly { args: string[]; input?: string }[]): Promise<CliResult[]> {
  const result = await lightNode(DRIVE, [], { XQL_LIGHT_CASES: JSON.stringify(cases) });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as CliResult[];
}

/** The command names `xql --help` lists. */
function commandsOf(usage: string): string[] {
  const section = usage.split("Commands:\n")[1] ?? "";
  return [...section.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]!);
}

describe("a library install (no optional peer dependency)", () => {
  it("the xql program prints its usage for --help and bare, exit 0", async () => {
    const help = await lightNode(MAIN, ["--help"]);
    expect(help.stderr).toBe("");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^xql \d+\.\d+\.\d+: /);
    expect(commandsOf(help.stdout)).toEqual(expect.arrayContaining(["validate", "explain", "run", "history", "serve", "keys", "data", "mcp", "lsp"]));
    const [bare] = await lightXql([{ args: [] }]);
    expect(bare).toEqual({ code: 0, stdout: help.stdout, stderr: "" });
  });

  it("every command's --help prints its help, exit 0", async () => {
    const [usage] = await lightXql([{ args: ["--help"] }]);
    const commands = commandsOf(usage!.stdout);
    const results = await lightXql(commands.map((command) => ({ args: [command, "--help"] })));
    commands.forEach((command, i) => {
      expect(results[i], command).toMatchObject({ code: 0, stderr: "" });
      expect(results[i]!.stdout, command).toMatch(new RegExp(`^Usage:\\s+xql ${command}\\b`));
    });
  });

  it("running serve, mcp or lsp names the packages it lacks and the npm install line, exit 1; validate and run --synthetic work", async () => {
    const query = 'market = "FOREX"\ntimeframe = h1\nclose > 0\n';
    const [serve, mcp, lsp, validate, run] = await lightXql([
      { args: ["serve", "--port", "0"] },
      { args: ["mcp"] },
      { args: ["lsp"] },
      { args: ["validate", "-"], input: query },
      { args: ["run", "-", "--synthetic", "--format", "csv"], input: query },
    ]);
    const needs: [string, CliResult | undefined, string][] = [
      ["serve", serve, "fastify, better-sqlite3, pg, ioredis"],
      ["mcp", mcp, "@modelcontextprotocol/sdk, zod"],
      ["lsp", lsp, "vscode-languageserver, vscode-languageserver-textdocument"],
    ];
    for (const [command, result, packages] of needs) {
      expect(result!.code, command).toBe(1);
      expect(result!.stderr, command).toContain(`xql ${command}: needs ${packages}, which \`npm install xql\` leaves out`);
      expect(result!.stderr, command).toMatch(/npm install \S+@\^\d/);
    }
    expect(validate).toEqual({ code: 0, stdout: '{"valid":true}\n', stderr: "" });
    expect(run!.code).toBe(0);
    expect(run!.stdout.split("\n")[0]).toBe("symbol");
  });
});
