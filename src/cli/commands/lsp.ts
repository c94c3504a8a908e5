/** `xql lsp`: the language server on standard input and output. */
import { parseArgs } from "node:util";
import type { Command } from "../command.js";
import { UsageError, optionsHelp, pick } from "../command.js";
import { databasePath } from "../store.js";
import { messageOf } from "../../errors.js";

const help = `Usage: xql lsp [--stdio] [--db FILE|URL]

Runs the XQL language server on standard input and output (the Language Server Protocol):
diagnostics as you type (the same errors and positions as \`xql validate\`), completion of
settings, timeframes, markets, series, functions and let names, of the market's symbols
inside symbols = [...] and of the saved lists after watchlist = (both from the store, as
\`xql run\` finds it; an SQLite file is only read, and not created), hover documentation,
signature help, formatting with the canonical printer, and semantic tokens.
Editors start it themselves; see docs/editors.md for VS Code, Neovim and Helix.

${optionsHelp({ stdio: { type: "boolean", description: "talk over standard input and output (the default; accepted as editors pass it)" }, ...pick("db") })}
`;

export const lspCommand: Command = {
  name: "lsp",
  summary: "Run the language server for editors (stdio)",
  help,
  async run(args, io) {
    let db: string | undefined;
    try {
      db = parseArgs({ args: [...args], options: { stdio: { type: "boolean" }, db: { type: "string" } }, strict: true, allowPositionals: false }).values.db;
    } catch (error) {
      throw new UsageError(messageOf(error));
    }
    const { protocol } = await import("../../lsp/protocol.js");
    const { createConnection, StreamMessageReader } = protocol;
    const { startLanguageServer } = await import("../../lsp/server.js");
    const { FramedMessageWriter } = await import("../../lsp/writer.js");
    const { StoreData } = await import("../../lsp/store-data.js");
    // The store is opened when a completion first needs its symbols or lists, not here: an
    // editor starts the server for every file, and most completions need neither.
    const storeData = new StoreData(databasePath(db, io.env, io.cwd));
    const reader = new StreamMessageReader(process.stdin);
    const boundary = new MessageBoundary();
    process.stdin.on("data", (chunk: Buffer) => boundary.add(chunk));
    // The reader's partial-message timer re-arms itself forever once a message is cut short
    // (`Content-Length: 100` then 10 bytes and the pipe closed): it kept the process alive.
    // The end of input is noticed here instead, so the timer is never armed.
    reader.partialMessageTimeout = 0;
    const connection = createConnection(reader, new FramedMessageWriter(process.stdout));
    let shutdown = false;
    connection.onShutdown(() => {
      shutdown = true;
    });
    startLanguageServer(connection, { host: storeData });
    connection.listen();
    // The server runs until the client sends `exit` (0 after a `shutdown` request, else 1, as
    // the protocol says), closes the pipe, or sends what cannot be read (1).
    return new Promise<number>((resolve) => {
      let done = false;
      const finish = (code: number, message?: string): void => {
        if (done) return;
        done = true;
        if (message !== undefined) process.stderr.write(`xql lsp: ${message}\n`);
        process.stdin.destroy();
        connection.dispose();
        // A PostgreSQL pool would keep the process alive: the store closes before the exit code.
        void storeData.close().then(
          () => resolve(code),
          () => resolve(code),
        );
      };
      connection.onExit(() => finish(shutdown ? 0 : 1));
      // Malformed headers (no Content-Length, a length that is not a number, no `:`): the
      // stream cannot be framed again, so the server stops instead of waiting on garbage.
      reader.onError((error) => finish(1, `unreadable input from the client: ${firstLine(error)}`));
      // Messages read with the last bytes are still being decoded and handled (asynchronously):
      // two turns of the event loop let them answer before the connection goes.
      // A pipe closed between two messages is the client going away (0); closed in the middle of
      // one, the client broke off (1).
      const closed = (): void =>
        void afterTurns(2).then(() =>
          boundary.midMessage ? finish(1, "standard input closed in the middle of a message") : finish(0),
        );
      process.stdin.on("end", closed);
      process.stdin.on("close", closed);
    });
  },
};

/**
 * Where the input stands in the protocol's framing (`Content-Length: n`, a blank line, n bytes):
 * between two messages or inside one. Only that; the reader does the reading.
 */
class MessageBoundary {
  private header = "";
  private remaining = 0;

  add(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const taken = Math.min(this.remaining, chunk.length - at);
        this.remaining -= taken;
        at += taken;
        continue;
      }
      const end = chunk.indexOf("\r\n\r\n", at);
      const until = end < 0 ? chunk.length : end + 4;
      this.header += chunk.toString("latin1", at, until);
      at = until;
      if (end < 0) {
        // A header that never ends is the reader's to refuse; keep only its tail.
        this.header = this.header.slice(-4096);
        continue;
      }
      const length = /(?:^|\r\n)content-length:\s*(\d+)/i.exec(this.header)?.[1];
      this.remaining = length === undefined ? 0 : Number(length);
      this.header = "";
    }
  }

  get midMessage(): boolean {
    return this.header !== "" || this.remaining > 0;
  }
}

function afterTurns(turns: number): Promise<void> {
  return turns === 0 ? Promise.resolve() : new Promise<void>((resolve) => setImmediate(resolve)).then(() => afterTurns(turns - 1));
}

/** The first line of an error's message (vscode-jsonrpc appends the headers it saw). */
function firstLine(error: unknown): string {
  return messageOf(error).split("\n")[0]!;
}
