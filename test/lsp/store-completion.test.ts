/**
 * `xql lsp` completes the symbols inside `symbols = [...]` and the saved lists after
 * `watchlist =` from the store the other commands open (`--db`, `$XQL_DB`): a real SQLite file
 * written by another connection while the server runs, read through a real LSP client over stdio.
 * The server never creates or writes the file; it follows new bars, new lists and a file
 * replaced under it; a client's `initializationOptions.symbols` still wins for its markets.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node.js";
import { LOCAL_ACCOUNT } from "../../src/accounts/watchlists.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { spawnXql } from "../cli/run-cli.js";
import { Signal, barOpen, rampBars, tempDir, until } from "../kit/index.js";
import { NOW, seedSmallUniverse } from "../server/helpers.js";

interface CompletionItem {
  label: string;
  kind: number;
  textEdit: { newText: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } };
}

/** A language server started as an editor starts it, and its client. */
interface Server {
  completions(text: string, line?: number, character?: number): Promise<CompletionItem[]>;
  /** Sets the document's text (opened the first time). */
  write(text: string): Promise<void>;
  /** The document's diagnostics as last published (undefined before any), and the signal each publication fires. */
  diagnostics(): { message: string }[] | undefined;
  readonly published: Signal;
  stderr(): string;
  stop(): Promise<number | null>;
}

let version = 0;
const URI = "file:///work/list.xql";

async function startServer(args: readonly string[], env: NodeJS.ProcessEnv = {}, initializationOptions: object = {}): Promise<Server> {
  const child: ChildProcess = spawnXql(["lsp", "--stdio", ...args], { env });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const connection: MessageConnection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const warnings: string[] = [];
  connection.onNotification("window/logMessage", (params: { message: string }) => warnings.push(params.message));
  let diagnostics: { message: string }[] | undefined;
  const published = new Signal();
  connection.onNotification("textDocument/publishDiagnostics", (params: { uri: string; diagnostics: { message: string }[] }) => {
    if (params.uri !== URI) return;
    diagnostics = params.diagnostics;
    published.notify();
  });
  connection.listen();
  await connection.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions });
  await connection.sendNotification("initialized", {});
  let opened = false;
  const write = async (text: string): Promise<void> => {
    version++;
    if (!opened) await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: URI, languageId: "xql", version, text } });
    else await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version }, contentChanges: [{ text }] });
    opened = true;
  };
  return {
    write,
    diagnostics: () => diagnostics,
    published,
    async completions(text, line, character) {
      await write(text);
      const lines = text.split("\n");
      const position = { line: line ?? lines.length - 1, character: character ?? lines[lines.length - 1]!.length };
      return (await connection.sendRequest("textDocument/completion", { textDocument: { uri: URI }, position })) as CompletionItem[];
    },
    stderr: () => [stderr, ...warnings].join("\n"),
    async stop() {
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      connection.dispose();
      return child.exitCode ?? new Promise<number | null>((resolve) => child.once("close", resolve));
    },
  };
}

const FOREX = 'market = "FOREX"\ntimeframe = h1\nsymbols = [';
const labels = (items: readonly CompletionItem[]): string[] => items.map((i) => i.label);

let temp: { dir: string; cleanup(): void };
const running: Server[] = [];
beforeAll(() => {
  temp = tempDir("xql-lsp-store-");
});
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});
afterAll(() => temp.cleanup());

async function started(args: readonly string[], env?: NodeJS.ProcessEnv, init?: object): Promise<Server> {
  const server = await startServer(args, env, init);
  running.push(server);
  return server;
}

describe("xql lsp completes from its store", () => {
  it("offers nothing before the store exists, without creating it; then the market's symbols, new bars and lists as they are written", async () => {
    const db = join(temp.dir, "follow.db");
    const server = await started(["--db", db]);
    expect(await server.completions(FOREX)).toEqual([]);
    expect(await server.completions('market = "FOREX"\ntimeframe = h1\nwatchlist = ')).toEqual([]);
    expect(existsSync(db)).toBe(false);

    const store = new SqliteStore(db);
    try {
      await seedSmallUniverse(store);
      // Quoted after `[`, the query's market only.
      const after = await server.completions(FOREX);
      expect(after.map((i) => [i.label, i.textEdit.newText])).toEqual([
        ["EURUSD", '"EURUSD"'],
        ["GBPUSD", '"GBPUSD"'],
        ["USDJPY", '"USDJPY"'],
      ]);
      expect(labels(await server.completions('market = "crypto"\ntimeframe = h1\nsymbols = ['))).toEqual(["BTCUSDT"]);
      // Inside a string, the listed ones left out, the typed text replaced.
      const inside = await server.completions('market = "FOREX"\ntimeframe = h1\nsymbols = ["EURUSD", "GB"]\ntrue', 2, 24);
      expect(inside.map((i) => i.label)).toEqual(["GBPUSD", "USDJPY"]);
      expect(inside[0]!.textEdit).toEqual({ newText: "GBPUSD", range: { start: { line: 2, character: 22 }, end: { line: 2, character: 24 } } });

      // Bars of a new symbol written by another connection: the next completion has it.
      await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "AUDUSD", bars: rampBars("h1", 10, barOpen("h1", NOW), 2) }] }]);
      expect(labels(await server.completions(FOREX))).toEqual(["AUDUSD", "EURUSD", "GBPUSD", "USDJPY"]);

      // The store's lists (`xql watchlists set`), quoted after `=`, bare inside the quotes.
      const watchlist = 'market = "FOREX"\ntimeframe = h1\nwatchlist = ';
      expect(await server.completions(watchlist)).toEqual([]);
      await store.putWatchlist(LOCAL_ACCOUNT, "majors", ["EURUSD", "GBPUSD"], NOW);
      await store.putWatchlist(LOCAL_ACCOUNT, "yen-pairs", ["USDJPY"], NOW);
      expect((await server.completions(watchlist)).map((i) => i.textEdit.newText)).toEqual(['"majors"', '"yen-pairs"']);
      const typing = await server.completions(`${watchlist}"yen-p`);
      expect(typing.map((i) => i.label)).toEqual(["majors", "yen-pairs"]);
      expect(typing[1]!.textEdit.range).toEqual({ start: { line: 2, character: 13 }, end: { line: 2, character: 18 } });
      await store.deleteWatchlist(LOCAL_ACCOUNT, "majors");
      expect(labels(await server.completions(watchlist))).toEqual(['"yen-pairs"']);
    } finally {
      await store.close();
    }
    expect(server.stderr()).toBe("");
    expect(await server.stop()).toBe(0);
    running.splice(0);
  }, 60_000);

  it("follows a store replaced under it (a fresh seed), found through $XQL_DB", async () => {
    const db = join(temp.dir, "replaced.db");
    const first = new SqliteStore(db);
    await first.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "OLDPAIR", bars: rampBars("h1", 10, barOpen("h1", NOW), 1) }] }]);
    await first.close();
    const server = await started([], { XQL_DB: db });
    expect(labels(await server.completions(FOREX))).toEqual(["OLDPAIR"]);

    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    const second = new SqliteStore(db);
    await seedSmallUniverse(second);
    await second.close();
    expect(labels(await server.completions(FOREX))).toEqual(["EURUSD", "GBPUSD", "USDJPY"]);
  }, 60_000);

  it("takes a client's initializationOptions.symbols for its markets, the store's for the others, an imported market's once the client names it", async () => {
    const db = join(temp.dir, "client.db");
    const store = new SqliteStore(db);
    await seedSmallUniverse(store);
    await store.upsertBars([{ market: "STOCKS", timeframe: "d", symbols: [{ symbol: "ACME", bars: rampBars("d", 5, barOpen("d", NOW), 10) }] }]);
    await store.close();
    const stocks = 'market = "stocks"\ntimeframe = d\nsymbols = [';
    const server = await started(["--db", db], {}, { symbols: { FOREX: ["NZDUSD"] }, markets: ["FOREX", "CRYPTO", "STOCKS"] });
    expect(labels(await server.completions(FOREX))).toEqual(["NZDUSD"]);
    expect(labels(await server.completions('market = "CRYPTO"\ntimeframe = h1\nsymbols = ['))).toEqual(["BTCUSDT"]);
    expect(labels(await server.completions(stocks))).toEqual(["ACME"]);
    // A server not told the markets knows the store's, as `xql run` on it does: a query on the
    // imported market is not flagged (once read), and its symbols are offered.
    const defaults = await started(["--db", db]);
    await defaults.write(`${stocks}"ACME"]\nclose > 1`);
    await until(() => defaults.diagnostics()?.length === 0, { signal: defaults.published, what: "the STOCKS query checked clean" });
    expect(labels(await defaults.completions(stocks))).toEqual(["ACME"]);
    expect(labels(await defaults.completions("market = "))).toEqual(['"FOREX"', '"CRYPTO"', '"STOCKS"']);
    // A market the store does not hold is still flagged, the store's among those known.
    await defaults.write('market = "BONDS"\ntimeframe = d\nclose > 1');
    await until(() => defaults.diagnostics()?.[0]?.message.includes("'BONDS'") === true, { signal: defaults.published, what: "BONDS flagged" });
    expect(defaults.diagnostics()!.map((d) => d.message)).toEqual(["Unknown market 'BONDS'; known markets: FOREX, CRYPTO, STOCKS"]);
  }, 60_000);

  it("completes without the store's data when it cannot be read, and says why once", async () => {
    // A directory where the database should be: opening it fails, completion still answers.
    const server = await started(["--db", temp.dir]);
    expect(await server.completions(FOREX)).toEqual([]);
    expect(labels(await server.completions('market = "FOREX"\ntimeframe = h1\n'))).toContain("symbols");
    expect(await server.completions(FOREX)).toEqual([]);
    const said = server.stderr().split("\n").filter((line) => line.includes("completing without the store's symbols"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("it is a directory");
  }, 60_000);
});
