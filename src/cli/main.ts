/** The `xql` command line: dispatches to the commands in `./commands/`. */
import type { Command } from "./command.js";
import { UsageError, wantsHelp } from "./command.js";
import { VERSION } from "../version.js";

const loaders: Record<string, () => Promise<Command>> = {
  validate: async () => (await import("./commands/query.js")).validateCommand,
  explain: async () => (await import("./commands/query.js")).explainCommand,
  mcp: async () => (await import("./commands/mcp.js")).mcpCommand,
  run: async () => (await import("./commands/run.js")).runCommand,
  history: async () => (await import("./commands/history.js")).historyCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
  keys: async () => (await import("./commands/keys.js")).keysCommand,
  data: async () => (await import("./commands/data.js")).dataCommand,
  lsp: async () => (await import("./commands/lsp.js")).lspCommand,
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

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const commands = await Promise.all(Object.values(loaders).map((load) => load()));
    process.stdout.write(usage(commands));
    return name === undefined ? 2 : 0;
  }
  const load = loaders[name];
  if (!load) {
    process.stderr.write(`Unknown command '${name}'. Run \`xql --help\` for the list.\n`);
    return 2;
  }
  const command = await load();
  if (wantsHelp(rest)) {
    process.stdout.write(command.help.endsWith("\n") ? command.help : `${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${command.help}\n`);
      return 2;
    }
    process.stderr.write(`xql ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
