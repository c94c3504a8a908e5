/** Runs the `xql` command line in this process through `main(argv, io)`, with collected streams. */
import { main } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/command.js";
import { ROOT } from "./run-cli.js";

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Pretend standard error is a terminal (carets, progress bars). */
  tty?: boolean;
  /** Aborting it stops a long-running command, as SIGTERM does. */
  stop?: AbortSignal;
  /** Called with each chunk of standard error as it is written (to wait for "listening"). */
  onStderr?: (text: string) => void;
  /** Called with all of standard output so far each time it is written (to wait for a line). */
  onStdout?: (text: string) => void;
}

/** `xql ...args` in-process. `env` replaces the environment (nothing leaks in from the test runner's). */
export async function xqlIn(args: readonly string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
        options.onStdout?.(stdout);
      },
      isTTY: false,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        options.onStderr?.(stderr);
      },
      isTTY: options.tty ?? false,
    },
    stdin: (async function* () {
      if (options.input !== undefined) yield options.input;
    })(),
    env: options.env ?? { HOME: "/nonexistent-home-for-xql-tests" },
    cwd: options.cwd ?? ROOT,
    onStop(listener) {
      const signal = options.stop;
      if (!signal) return;
      if (signal.aborted) listener(String(signal.reason));
      else signal.addEventListener("abort", () => listener(String(signal.reason)), { once: true });
    },
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
