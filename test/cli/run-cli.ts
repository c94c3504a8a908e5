/** Runs the real `xql` command line (TypeScript sources through tsx) as a child process. */
import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
/** tsx's loader by absolute URL, so commands can run with any working directory. */
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `xql ...args` (after `nodeArgs`, such as another `--import`); the caller owns the process. */
export function spawnXql(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: readonly string[] } = {}): ChildProcess {
  return spawn(process.execPath, ["--import", TSX, ...(options.nodeArgs ?? []), MAIN, ...args], {
    cwd: options.cwd ?? ROOT,
    // A command that names no --db would open the per-user file: keep it in a scratch directory.
    env: { ...process.env, XQL_DB: "", XDG_DATA_HOME: join(tmpdir(), `xql-test-data-${process.pid}`), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs `xql ...args` to completion, feeding `input` on standard input. */
export function xql(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  const child = spawnXql(args, options);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin!.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
