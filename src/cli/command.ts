/** One `xql` sub-command. Each lives in `src/cli/commands/` and is listed in `main.ts`. */
export interface Command {
  readonly name: string;
  /** One line for `xql --help`. */
  readonly summary: string;
  /** The full `xql <name> --help` text. */
  readonly help: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: readonly string[]): Promise<number>;
}

/** Reads a query from a file path, or from standard input for `-` or no path. */
export async function readQueryArg(path: string | undefined): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  if (path === undefined || path === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  return readFile(path, "utf8");
}

/** True when `--help` or `-h` is among the arguments. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}

/**
 * Splits arguments into flags (`--name value`, `--name=value`, bare `--flag`) and positionals.
 * `booleans` names the flags that take no value.
 */
export function parseFlags(
  args: readonly string[],
  booleans: readonly string[] = [],
): { flags: Map<string, string>; positionals: string[] } {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith("--") && arg.length > 2) {
      const eq = arg.indexOf("=");
      if (eq > 0) {
        flags.set(arg.slice(2, eq), arg.slice(eq + 1));
      } else {
        const name = arg.slice(2);
        if (booleans.includes(name)) flags.set(name, "true");
        else {
          const value = args[i + 1];
          if (value === undefined) throw new UsageError(`Option --${name} needs a value`);
          flags.set(name, value);
          i++;
        }
      }
    } else {
      positionals.push(arg);
    }
  }
  return { flags, positionals };
}

/** A mistake on the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
