/**
 * What every `xql` command shares: the streams it talks through ({@link CliIo}, so `main` runs
 * in-process in tests), one table of options parsed strictly with `node:util` `parseArgs`
 * (an unknown option is a usage error with a did-you-mean), and the help text generated from
 * that table. Each command lives in `src/cli/commands/` and is listed in `main.ts`.
 */
import { parseArgs } from "node:util";
import { closest } from "../suggest.js";
import { DEFAULT_LOOKBACK_CEILING, DEFAULT_WARMUP_CEILING } from "../types.js";
import { XqlDataError, messageOf } from "../errors.js";

/** A stream a command writes to: `process.stdout`, or a test's collector. */
export interface CliOutput {
  write(text: string): unknown;
  /** True on a terminal: progress bars, tables and carets are for people. */
  readonly isTTY?: boolean;
}

/** Everything a command touches outside itself. {@link processIo} is the real one. */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly env: NodeJS.ProcessEnv;
  /** Relative paths (`--db`, FILE) resolve against this directory. */
  readonly cwd: string;
  /**
   * Calls `listener` once when a long-running command (`serve`) should stop, with the
   * reason (`SIGTERM`, `SIGINT`). Only a command that asks is stopped this way: the others
   * keep the default, so Ctrl-C ends them at once.
   */
  onStop(listener: (reason: string) => void): void;
}

/** The process's own streams, environment and directory; SIGTERM and SIGINT stop `serve`. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onStop(listener) {
      let stopped = false;
      const once = (signal: NodeJS.Signals): void => {
        if (stopped) return;
        stopped = true;
        listener(signal);
      };
      process.once("SIGTERM", once);
      process.once("SIGINT", once);
    },
  };
}

/** One `xql` sub-command. */
export interface Command {
  readonly name: string;
  /** One line for `xql --help`. */
  readonly summary: string;
  /** The full `xql <name> --help` text. */
  readonly help: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** A mistake on the command line: printed with the command's usage, exit code 2. */
export class UsageError extends XqlDataError<"cli-usage"> {
  override readonly name: string = "UsageError";
  constructor(message: string) {
    super("cli-usage", { message });
  }
}

/**
 * A problem outside the query that the CLI explains in one line of its own words (a missing
 * file, a port in use): printed as `xql <command>: <message>`, exit code 1, never a stack.
 */
export class CliError extends XqlDataError<"cli-failure"> {
  override readonly name: string = "CliError";
  constructor(message: string) {
    super("cli-failure", { message });
  }
}

/** One option: its type, the placeholder of its value in help, and one line of help. */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  /** `N`, `FILE|URL`: shown after the name in help. */
  readonly value?: string;
  readonly description: string;
}

/** Options by long name (without `--`). */
export type OptionTable = Readonly<Record<string, OptionSpec>>;

/**
 * Every option any command takes, described once. A command picks its set with {@link pick},
 * so the same option means the same thing everywhere (`xql history` takes `--ceiling` and
 * `--warmup-ceiling` exactly as `run` and `serve` do).
 */
export const OPTIONS = {
  db: {
    type: "string",
    value: "FILE|URL",
    description: "database file, or a PostgreSQL URL (default: $XQL_DATABASE_URL, else $XQL_DB, else $XDG_DATA_HOME/xql/xql.db, i.e. ~/.local/share/xql/xql.db)",
  },
  format: { type: "string", value: "json|table|csv", description: "output: json (default), table or csv" },
  ceiling: {
    type: "string",
    value: "N",
    description: `lookback ceiling in bars: a source needing more is a plan error (default ${DEFAULT_LOOKBACK_CEILING})`,
  },
  "warmup-ceiling": {
    type: "string",
    value: "N",
    description: `most bars fetched per source so recursive indicators (ema, rsi, atr...) forget their seed (default ${DEFAULT_WARMUP_CEILING})`,
  },
  markets: { type: "string", value: "A,B", description: "known markets, comma-separated (default FOREX,CRYPTO and every market holding bars)" },
  synthetic: { type: "boolean", description: "run over the in-memory synthetic universe instead of the store" },
  bars: { type: "string", value: "N", description: "base bars to evaluate the screen at (default 100, at most 1000)" },
  port: { type: "string", value: "N", description: "TCP port (default 8787; 0 picks a free one)" },
  host: { type: "string", value: "H", description: "interface to listen on (default 127.0.0.1; 0.0.0.0 for all)" },
  redis: {
    type: "string",
    value: "URL",
    description: "Redis for the daily quota counters, shared by replicas (default: $XQL_REDIS_URL; without it the database keeps them)",
  },
  quiet: { type: "boolean", description: "no request logs" },
  "cache-mb": {
    type: "string",
    value: "N",
    description: "memory for the hot tier, the latest bars of the series runs read, in MiB (default 512; 0 reads the store on every run)",
  },
  "metrics-port": {
    type: "string",
    value: "PORT",
    description: "serve GET /metrics (Prometheus text format, unauthenticated; needs prom-client) on this port (default: off)",
  },
  "metrics-host": { type: "string", value: "HOST", description: "interface of the metrics listener (default 127.0.0.1)" },
  "lease-seconds": {
    type: "string",
    value: "N",
    description: "on PostgreSQL, how long a replica's lease on its alert screens lasts unrenewed: a dead replica's screens move within about 1.25 times this (default 15)",
  },
  "alert-grace": {
    type: "string",
    value: "SECONDS",
    description: "how long after a bar's close the alerts' round waits for symbols that have not written it yet (default 5)",
  },
  "allow-private-webhooks": {
    type: "boolean",
    description: "accept alert webhooks over http:// and to private, loopback or link-local addresses (tests and local setups only)",
  },
  tier: { type: "string", value: "T", description: "free, essential or plus (a new account)" },
  account: { type: "string", value: "ID", description: "add the key to this existing account" },
  label: { type: "string", value: "L", description: "a note to tell keys apart" },
  scope: { type: "string", value: "run|write", description: "what the key may do: run screens (default), or write: push bars too (POST /xql/bars)" },
} as const satisfies OptionTable;

export type OptionName = keyof typeof OPTIONS;

/** The options named, from {@link OPTIONS}. */
export function pick<const N extends OptionName>(...names: N[]): { readonly [K in N]: (typeof OPTIONS)[K] } {
  return Object.fromEntries(names.map((name) => [name, OPTIONS[name]])) as { readonly [K in N]: (typeof OPTIONS)[K] };
}

/** The options that bound a query's data, shared by every command that compiles and runs one. */
export const QUERY_LIMIT_OPTIONS = pick("ceiling", "warmup-ceiling");

/** The `Options:` section of a help text, from the table. */
export function optionsHelp(table: OptionTable): string {
  const heads = Object.entries(table).map(([name, spec]) => `--${name}${spec.value ? ` ${spec.value}` : ""}`);
  const width = Math.max(...heads.map((h) => h.length));
  const lines = Object.values(table).map((spec, i) => `  ${heads[i]!.padEnd(width)}  ${spec.description}`);
  return ["Options:", ...lines, `  ${"--help".padEnd(width)}  this text`].join("\n");
}

/** Parsed values: strings for string options, `true` for boolean ones that were given. */
export type OptionValues<T extends OptionTable> = {
  [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean : string;
};

/**
 * Parses `args` strictly against `table`: an unknown option, a missing value, or a value
 * given to a flag is a {@link UsageError} (exit 2) that says what was meant. At most
 * `maxPositionals` arguments that are not options are allowed.
 */
export function parseCommandLine<T extends OptionTable>(
  command: string,
  args: readonly string[],
  table: T,
  maxPositionals = 0,
): { values: OptionValues<T>; positionals: string[] } {
  const options = Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, { type: spec.type }]));
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    throw usageErrorFrom(command, error, args, table);
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals[maxPositionals]!;
    throw new UsageError(
      maxPositionals === 0
        ? `xql ${command} takes no argument '${extra}'`
        : `xql ${command} takes at most ${maxPositionals === 1 ? "one FILE" : `${maxPositionals} arguments`}; unexpected '${extra}'`,
    );
  }
  return { values: parsed.values as OptionValues<T>, positionals: parsed.positionals };
}

/** parseArgs' errors (codes ERR_PARSE_ARGS_*) in the CLI's words. */
function usageErrorFrom(command: string, error: unknown, args: readonly string[], table: OptionTable): UsageError {
  const code = (error as { code?: string }).code;
  const message = messageOf(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    // parseArgs names the option as written: "Unknown option '--formt'".
    const written = /'(-[^']*)'/.exec(message)?.[1] ?? "";
    const bare = written.replace(/^-+/, "").replace(/=.*$/, "");
    const names = Object.keys(table);
    const meant = closest(bare, names) ?? names.find((n) => bare.length >= 3 && n.startsWith(bare));
    return new UsageError(
      `xql ${command}: unknown option '${written}'${meant ? `, did you mean '--${meant}'?` : ""}` +
        (names.length > 0 ? ` (options: ${names.map((n) => `--${n}`).join(" ")})` : " (it takes no options)"),
    );
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /--([\w-]+)/.exec(message)?.[1];
    const spec = name === undefined ? undefined : table[name];
    if (spec?.type === "boolean") return new UsageError(`xql ${command}: --${name} takes no value`);
    if (name !== undefined) return new UsageError(`xql ${command}: --${name} needs a value${spec?.value ? ` (${spec.value})` : ""}`);
  }
  void args;
  return new UsageError(`xql ${command}: ${message}`);
}

/**
 * A positive integer option of at most `max`, or `undefined` when not given (callers write
 * their default with `??`). The one reading of a count for every command: digits only, so
 * `1e3`, `0x10` and `2.0` are refused rather than read as JavaScript would.
 */
export function positiveInteger(command: string, name: string, text: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? "a positive integer" : `an integer from 1 to ${max}`;
    throw new UsageError(`xql ${command}: --${name} must be ${range}, got '${text}'`);
  }
  return value;
}

/** The output formats of commands that print results. */
export const FORMATS = ["json", "table", "csv"] as const;
export type Format = (typeof FORMATS)[number];

/** `--format`, checked; JSON when not given. */
export function formatOption(command: string, text: string | undefined, fallback: Format = "json"): Format {
  if (text === undefined) return fallback;
  if ((FORMATS as readonly string[]).includes(text)) return text as Format;
  const meant = closest(text, FORMATS);
  throw new UsageError(`xql ${command}: unknown format '${text}'${meant ? `, did you mean '${meant}'?` : ""}: use json, table or csv`);
}

/** Reads a query from a file path, or from standard input for `-` or no path. */
export async function readQueryArg(path: string | undefined, io: CliIo): Promise<string> {
  if (path === undefined || path === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(chunks).toString("utf8");
  }
  const { readFile } = await import("node:fs/promises");
  const { resolve } = await import("node:path");
  try {
    return await readFile(resolve(io.cwd, path), "utf8");
  } catch (error) {
    throw new CliError(fileProblem(path, error));
  }
}

/** `no such file: q.xql` and friends: a file system error in one line. */
export function fileProblem(path: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ENOENT":
      return `no such file: ${path}`;
    case "EISDIR":
      return `${path} is a directory, not a file`;
    case "EACCES":
    case "EPERM":
      return `permission denied: ${path}`;
    case "ENOTDIR":
      return `a part of ${path} is not a directory`;
    default:
      return `cannot read ${path}: ${messageOf(error)}`;
  }
}

/** True when `--help` or `-h` is among the arguments. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}
