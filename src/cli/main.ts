/**
 * The `xql` command line: dispatches to the commands in `./commands/`. `main(argv, io)` runs
 * in-process (the tests call it with their own streams); run as a program, this module calls
 * it with the process's.
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { CliIo, Command } from "./command.js";
import { CliError, UsageError, processIo, wantsHelp } from "./command.js";
import { closest } from "../suggest.js";
import { VERSION } from "../version.js";
import { messageOf } from "../errors.js";

const loaders: Record<string, () => Promise<Command>> = {
  validate: async () => (await import("./commands/query.js")).validateCommand,
  explain: async () => (await import("./commands/query.js")).explainCommand,
  mcp: async () => (await import("./commands/mcp.js")).mcpCommand,
  run: async () => (await import("./commands/run.js")).runCommand,
  history: async () => (await import("./commands/history.js")).historyCommand,
  watch: async () => (await import("./commands/watch.js")).watchCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
  keys: async () => (await import("./commands/keys.js")).keysCommand,
  data: async () => (await import("./commands/data.js")).dataCommand,
  lsp: async () => (await import("./commands/lsp.js")).lspCommand,
  watchlists: async () => (await import("./commands/watchlists.js")).watchlistsCommand,
  why: async () => (await import("./commands/why.js")).whyCommand,
};

/**
 * The packages `npm i xql` leaves out (optional peer dependencies, so a library user installs
 * no native addon and no server framework) that a command needs. Commands not listed need none.
 * A command module imports them only when it runs, never at its top level: `xql --help` loads
 * every command module, and must work in a library install (test/cli/light-install.test.ts).
 */
const OPTIONAL_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  run: ["better-sqlite3", "pg"],
  history: ["better-sqlite3", "pg"],
  watch: ["better-sqlite3", "pg"],
  keys: ["better-sqlite3", "pg"],
  data: ["better-sqlite3", "pg"],
  serve: ["fastify", "better-sqlite3", "pg", "ioredis"],
  mcp: ["@modelcontextprotocol/sdk", "zod"],
  lsp: ["vscode-languageserver", "vscode-languageserver-textdocument"],
};

function usage(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `xql ${VERSION}: the XQL market-screening language`,
    "",
    "Usage: xql <command> [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run `xql <command> --help` for a command's options.",
    "",
  ].join("\n");
}

/** The command's optional packages that cannot be found from here, with the ranges xql supports. */
function missingPackages(name: string): string[] {
  const require = createRequire(import.meta.url);
  let peers: Record<string, string> = {};
  try {
    peers = (require("../../package.json") as { peerDependencies?: Record<string, string> }).peerDependencies ?? {};
  } catch {
    // Run from the sources without a package.json two levels up: ranges are left out.
  }
  return (OPTIONAL_PACKAGES[name] ?? [])
    .filter((pkg) => {
      try {
        require.resolve(pkg);
        return false;
      } catch {
        return true;
      }
    })
    .map((pkg) => (peers[pkg] ? `${pkg}@${peers[pkg]}` : pkg));
}

/** Runs `xql ...argv`; resolves to the exit code. Never throws: every failure is a message. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Bare `xql` is someone finding their way: the list of commands, as `--help` prints it.
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const commands = await Promise.all(Object.values(loaders).map((load) => load()));
    io.stdout.write(usage(commands));
    return 0;
  }
  const load = loaders[name];
  if (!load) {
    const meant = closest(name, Object.keys(loaders));
    io.stderr.write(`xql: unknown command '${name}'${meant ? `, did you mean '${meant}'?` : ""} Run \`xql --help\` for the list.\n`);
    return 2;
  }
  let command: Command | undefined;
  try {
    command = await load();
    if (wantsHelp(rest)) {
      io.stdout.write(command.help.endsWith("\n") ? command.help : `${command.help}\n`);
      return 0;
    }
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\nRun \`xql ${name} --help\` for its options.\n`);
      return 2;
    }
    if (error instanceof CliError) {
      io.stderr.write(`xql ${name}: ${error.message}\n`);
      return 1;
    }
    const code = (error as { code?: string }).code;
    const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" ? missingPackages(name) : [];
    if (missing.length > 0) {
      io.stderr.write(
        `xql ${name}: needs ${missing.map((m) => m.replace(/@[^@]*$/, "")).join(", ")}, which \`npm install xql\` leaves out ` +
          `so that the library installs light. Install ${missing.length === 1 ? "it" : "them"} beside xql: npm install ${missing.join(" ")}\n`,
      );
      return 1;
    }
    io.stderr.write(`xql ${name}: ${messageOf(error)}\n`);
    return 1;
  }
}

/** True when this module is the program node was started with (the `xql` bin, or `tsx src/cli/main.ts`). */
function isEntryPoint(): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${messageOf(error)}\n`);
      process.exitCode = 1;
    },
  );
}
