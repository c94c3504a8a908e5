/** `xql lsp`: the language server on standard input and output. */
import { parseArgs } from "node:util";
import type { Command } from "../command.js";
import { UsageError } from "../command.js";

const help = `Usage: xql lsp [--stdio]

Runs the XQL language server on standard input and output (the Language Server Protocol):
diagnostics as you type (the same errors and positions as \`xql validate\`), completion of
settings, timeframes, markets, series, functions and let names, hover documentation,
signature help, formatting with the canonical printer, and semantic tokens.
Editors start it themselves; see docs/editors.md for VS Code, Neovim and Helix.

Options:
  --stdio   talk over standard input and output (the default; accepted as editors pass it)
`;

export const lspCommand: Command = {
  name: "lsp",
  summary: "Run the language server for editors (stdio)",
  help,
  async run(args) {
    try {
      parseArgs({ args: [...args], options: { stdio: { type: "boolean" } }, strict: true, allowPositionals: false });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const { createConnection, StreamMessageReader } = await import("vscode-languageserver/node.js");
    const { startLanguageServer } = await import("../../lsp/server.js");
    const { FramedMessageWriter } = await import("../../lsp/writer.js");
    const connection = createConnection(new StreamMessageReader(process.stdin), new FramedMessageWriter(process.stdout));
    startLanguageServer(connection);
    connection.listen();
    // The server runs until the client sends `exit` (or closes the pipe).
    return new Promise<number>((resolve) => {
      connection.onExit(() => resolve(0));
      process.stdin.on("end", () => resolve(0));
    });
  },
};
