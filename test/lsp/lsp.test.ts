/**
 * The language server through a real LSP client over stdio: `xql lsp` as a child process,
 * JSON-RPC framed by vscode-jsonrpc, as an editor talks to it.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node.js";
import { FUNCTIONS, SERIES } from "../../src/functions/registry.js";
import { validate } from "../../src/api.js";
import { spawnXql } from "../cli/run-cli.js";

interface Position {
  line: number;
  character: number;
}
interface Diagnostic {
  range: { start: Position; end: Position };
  message: string;
  severity: number;
}
interface CompletionItem {
  label: string;
  kind: number;
  insertTextFormat?: number;
  textEdit: { range: { start: Position; end: Position }; newText: string };
  documentation?: { value: string };
}

const URI = "file:///work/screen.xql";
let child: ChildProcess;
let connection: MessageConnection;
const published: { uri: string; version?: number; diagnostics: Diagnostic[] }[] = [];
let waiters: (() => void)[] = [];

/** The diagnostics published for a document version (waits for them). */
async function diagnosticsFor(version: number): Promise<Diagnostic[]> {
  for (;;) {
    const found = published.find((p) => p.uri === URI && p.version === version);
    if (found) return found.diagnostics;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

/** Line and character of the `n`th (0-based) occurrence of `needle` in `text`, plus `shift`. */
function positionOf(text: string, needle: string, shift = 0): Position {
  const offset = text.indexOf(needle) + shift;
  const before = text.slice(0, offset).split("\n");
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

beforeAll(async () => {
  child = spawnXql(["lsp", "--stdio"]);
  connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  connection.onNotification("textDocument/publishDiagnostics", (params: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
    published.push(params);
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  });
  connection.listen();
  const init = (await connection.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities: {} })) as {
    capabilities: Record<string, unknown>;
  };
  expect(init.capabilities).toMatchObject({ hoverProvider: true, documentFormattingProvider: true, completionProvider: {} });
  await connection.sendNotification("initialized", {});
}, 30_000);

afterAll(async () => {
  if (connection) {
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
    connection.dispose();
  }
  await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("close", () => resolve())));
});

const BROKEN = 'market = "FOREX"\ntimeframe = h1\nlet fast = ema(9)\nrsii(14) < 30 and fast > close';

describe("xql lsp over stdio", () => {
  it("publishes validate's error at validate's position on open, and clears it after a fix", async () => {
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: URI, languageId: "xql", version: 1, text: BROKEN } });
    const [diagnostic, ...rest] = await diagnosticsFor(1);
    expect(rest).toEqual([]);
    const error = validate(BROKEN);
    if (error.valid) throw new Error("expected an invalid query");
    expect(diagnostic!.message).toBe(error.error.message);
    // validate's 1-based line/column is the LSP's 0-based line/character, and the range covers the token.
    expect(diagnostic!.range.start).toEqual({ line: error.error.position!.line - 1, character: error.error.position!.column - 1 });
    expect(diagnostic!.range).toEqual({ start: positionOf(BROKEN, "rsii"), end: positionOf(BROKEN, "rsii", 4) });

    // An incremental change: rsii -> rsi (delete one character).
    const at = positionOf(BROKEN, "rsii", 3);
    await connection.sendNotification("textDocument/didChange", {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: "" }],
    });
    expect(await diagnosticsFor(2)).toEqual([]);

    // A plan error (no position in the contract) sits on the first line.
    await connection.sendNotification("textDocument/didChange", {
      textDocument: { uri: URI, version: 3 },
      contentChanges: [{ text: "timeframe = h1\nclose > 1" }],
    });
    const [plan] = await diagnosticsFor(3);
    expect(plan!.message).toContain("Missing required setting 'market'");
    expect(plan!.range).toEqual({ start: { line: 0, character: 0 }, end: { line: 0, character: 14 } });
  });

  it("completes at 20 positions with what may be written there", async () => {
    const text = [
      'market = "FOREX"', //                                         0
      "timeframe = h1", //                                            1
      "columns = [close, rsi(14)]", //                               2
      "sort = rsi(14) desc", //                                      3
      "let fast = ema(close, 9)", //                                 4
      "let slow = ema(close, 21)", //                                5
      "rsi(14) < 30 and fast > slow and d::close > d::sma(200)", //  6
    ].join("\n");
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 4 }, contentChanges: [{ text }] });
    await diagnosticsFor(4);
    const lines = text.split("\n");
    const complete = async (line: number, character: number): Promise<CompletionItem[]> =>
      (await connection.sendRequest("textDocument/completion", { textDocument: { uri: URI }, position: { line, character } })) as CompletionItem[];
    const labels = async (line: number, character: number): Promise<string[]> => (await complete(line, character)).map((i) => i.label);
    const fnCount = FUNCTIONS.size;

    // 1-2: market value, after `=` and inside the quotes.
    expect(await labels(0, 9)).toEqual(['"FOREX"', '"CRYPTO"']);
    expect(await labels(0, 11)).toEqual(["FOREX", "CRYPTO"]);
    // 3: timeframe value.
    expect(await labels(1, 12)).toEqual(["m1", "m5", "m15", "m30", "h1", "h4", "d", "w"]);
    // 4: inside columns, after `[`: series and functions, timeframe prefixes, lets.
    const inColumns = await labels(2, 11);
    expect(inColumns).toEqual(expect.arrayContaining([...SERIES.keys(), ...FUNCTIONS.keys(), "d::", "h4::", "fast", "slow"]));
    // 5: after `, ` in columns.
    expect(await labels(2, 18)).toEqual(expect.arrayContaining(["close", "rsi", "fast"]));
    // 6: inside a call's parentheses.
    expect(await labels(2, 22)).toEqual(expect.arrayContaining(["close", "sma"]));
    // 7: after a sort expression: a direction.
    expect(await labels(3, 15)).toEqual(expect.arrayContaining(["asc", "desc"]));
    // 8: sort expression start.
    expect(await labels(3, 7)).toContain("rsi");
    // 9: after `let ` a new name is written: nothing to offer.
    expect(await labels(4, 4)).toEqual([]);
    // 10: a let's expression sees only earlier lets.
    const inFirstLet = await labels(4, 11);
    expect(inFirstLet).toContain("close");
    expect(inFirstLet).not.toContain("slow");
    expect(inFirstLet).not.toContain("fast");
    // 11: the second let sees the first.
    const inSecondLet = await labels(5, 11);
    expect(inSecondLet).toContain("fast");
    expect(inSecondLet).not.toContain("slow");
    // 12: condition start: lets, series, functions; no setting already written.
    const atCondition = await labels(6, 0);
    expect(atCondition).toEqual(expect.arrayContaining(["fast", "slow", "close", "rsi", "let"]));
    expect(atCondition).not.toContain("market");
    expect(atCondition).not.toContain("timeframe");
    // 13: typing a word in the condition: the replaced range is the word.
    const word = await complete(6, 2);
    const rsi = word.find((i) => i.label === "rsi")!;
    expect(rsi.textEdit.range).toEqual({ start: { line: 6, character: 0 }, end: { line: 6, character: 2 } });
    // Snippet parameters, the optional source left out.
    expect(rsi.textEdit.newText).toBe("rsi(${1:n})");
    expect(rsi.insertTextFormat).toBe(2);
    expect(rsi.documentation!.value).toContain("Lookback");
    const macd = word.find((i) => i.label === "macd_signal")!;
    expect(macd.textEdit.newText).toBe("macd_signal(${1:fast}, ${2:slow}, ${3:signal})");
    // Every function of the registry, by its name; zero-parameter built-ins bare (no parentheses).
    expect(word.filter((i) => i.kind === 3).map((i) => i.label).sort()).toEqual([...FUNCTIONS.keys()].sort());
    for (const fn of FUNCTIONS.values()) {
      const item = word.find((i) => i.label === fn.name)!;
      if (fn.params.length === 0) expect(item.textEdit.newText).toBe(fn.name);
      else expect(item.textEdit.newText).toMatch(new RegExp(`^${fn.name}\\(\\$\\{1:`));
    }
    // 14: after a value in the condition: and/or.
    expect(await labels(6, 13)).toEqual(expect.arrayContaining(["and", "or"]));
    // 15: after `and `.
    expect(await labels(6, 17)).toEqual(expect.arrayContaining(["fast", "rsi"]));
    // 16: after `d::`: the expression continues, no second prefix.
    const afterPrefix = await labels(6, lines[6]!.indexOf("d::") + 3);
    expect(afterPrefix).toContain("close");
    expect(afterPrefix).not.toContain("d::");
    // 17: inside `d::sma(`.
    expect(await labels(6, lines[6]!.indexOf("sma(") + 4)).toContain("close");
    // 18: at the end of the text: continue the condition.
    expect(await labels(6, lines[6]!.length)).toEqual(expect.arrayContaining(["and", "or"]));
    // 19: the timeframe prefixes are offered as prefixes.
    expect(await labels(6, 17)).toEqual(expect.arrayContaining(["m1::", "w::"]));
    // 20: inside a comment nothing.
    await connection.sendNotification("textDocument/didChange", {
      textDocument: { uri: URI, version: 5 },
      contentChanges: [{ text: `${text}\n// note: rsi` }],
    });
    await diagnosticsFor(5);
    expect(await labels(7, 12)).toEqual([]);
    expect(fnCount).toBeGreaterThan(0);
  });

  it("hovers a function with its doc, parameters, lookback and example, and helps with its signature", async () => {
    const text = 'market = "FOREX"\ntimeframe = h1\nlet band = bb_upper(20, 2)\nclose > band and rsi(close, 14) < 30';
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 6 }, contentChanges: [{ text }] });
    await diagnosticsFor(6);
    const hoverAt = async (p: Position): Promise<{ contents: { value: string }; range: { start: Position; end: Position } } | null> =>
      (await connection.sendRequest("textDocument/hover", { textDocument: { uri: URI }, position: p })) as never;
    const h = await hoverAt(positionOf(text, "bb_upper", 3));
    const bb = FUNCTIONS.get("bb_upper")!;
    expect(h!.contents.value).toContain(bb.doc);
    expect(h!.contents.value).toContain(bb.lookbackDoc);
    expect(h!.contents.value).toContain(bb.example);
    expect(h!.contents.value).toContain("`k`");
    expect(h!.range).toEqual({ start: positionOf(text, "bb_upper"), end: positionOf(text, "bb_upper", 8) });
    expect((await hoverAt(positionOf(text, "close >", 1)))!.contents.value).toContain(SERIES.get("close")!.doc);
    expect((await hoverAt(positionOf(text, "band and")))!.contents.value).toContain("let band = bb_upper(20, 2)");
    expect(await hoverAt(positionOf(text, "(20"))).toBeNull();

    const help = (await connection.sendRequest("textDocument/signatureHelp", {
      textDocument: { uri: URI },
      position: positionOf(text, "14) < 30"),
    })) as { signatures: { label: string }[]; activeParameter: number };
    expect(help.signatures[0]!.label).toBe("rsi([src = close,] n)");
    expect(help.activeParameter).toBe(1);
    const short = (await connection.sendRequest("textDocument/signatureHelp", {
      textDocument: { uri: URI },
      position: positionOf(text, "20, 2"),
    })) as { signatures: { label: string }[]; activeParameter: number };
    // bb_upper(20, 2): the source is left out, so `20` is n.
    expect(short.signatures[0]!.label).toBe("bb_upper([src = close,] n, k)");
    expect(short.activeParameter).toBe(1);

    // While the call is being written: a series first is the source, so the next is n.
    const writing = 'market = "FOREX"\ntimeframe = h1\nclose > bb_upper(close, ';
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 7 }, contentChanges: [{ text: writing }] });
    await diagnosticsFor(7);
    const typing = (await connection.sendRequest("textDocument/signatureHelp", {
      textDocument: { uri: URI },
      position: positionOf(writing, "close, ", 7),
    })) as { signatures: { label: string }[]; activeParameter: number };
    expect(typing.signatures[0]!.label).toBe("bb_upper([src = close,] n, k)");
    expect(typing.activeParameter).toBe(1);
  });

  it("formats through the canonical printer, keeping comments, and leaves a broken query alone", async () => {
    const text = '// oversold\nmarket="FOREX"\ntimeframe=h1 // hourly\nlet a=close;\n(a>1)  and  (rsi(14)<30)';
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 8 }, contentChanges: [{ text }] });
    await diagnosticsFor(8);
    const edits = (await connection.sendRequest("textDocument/formatting", {
      textDocument: { uri: URI },
      options: { tabSize: 2, insertSpaces: true },
    })) as { newText: string }[];
    expect(edits).toHaveLength(1);
    expect(edits[0]!.newText).toBe('// oversold\nmarket = "FOREX"\ntimeframe = h1 // hourly\nlet a = close\na > 1 and rsi(14) < 30\n');

    // A comment inside the condition stays after the token it followed.
    const inside = 'market="FOREX"\ntimeframe=h1\nrsi(14)<30 and // oversold\nvolume>avg(volume,20)';
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 9 }, contentChanges: [{ text: inside }] });
    await diagnosticsFor(9);
    const kept = (await connection.sendRequest("textDocument/formatting", {
      textDocument: { uri: URI },
      options: { tabSize: 2, insertSpaces: true },
    })) as { newText: string }[];
    expect(kept[0]!.newText).toBe('market = "FOREX"\ntimeframe = h1\nrsi(14) < 30 and // oversold\n  volume > avg(volume, 20)\n');

    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 10 }, contentChanges: [{ text: "market = (" }] });
    await diagnosticsFor(10);
    expect(await connection.sendRequest("textDocument/formatting", { textDocument: { uri: URI }, options: { tabSize: 2, insertSpaces: true } })).toEqual([]);
  });

  it("gives semantic tokens for highlighting", async () => {
    const text = 'market = "FOREX" // m\ntimeframe = h1\nd::rsi(14) < 30';
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri: URI, version: 11 }, contentChanges: [{ text }] });
    await diagnosticsFor(11);
    const { data } = (await connection.sendRequest("textDocument/semanticTokens/full", { textDocument: { uri: URI } })) as { data: number[] };
    // market, =, "FOREX", comment, timeframe, =, h1, d::, rsi, 14, <, 30: five integers each.
    expect(data.length).toBe(12 * 5);
    // The comment: line 0, character 17, length 4, type comment (index 3).
    expect(data.slice(15, 20)).toEqual([0, 8, 4, 3, 0]);
  });
});

describe("xql lsp on the command line", () => {
  it("refuses an unknown option or an argument with its usage (exit 2)", async () => {
    const { xql } = await import("../cli/run-cli.js");
    const bogus = await xql(["lsp", "--bogus"]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain("Unknown option '--bogus'");
    expect(bogus.stderr).toContain("Run `xql lsp --help` for its options.");
    const extra = await xql(["lsp", "file.xql"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("Unexpected argument 'file.xql'");
  });

  it("ends with exit code 0 when the client closes the pipe", async () => {
    const { xql } = await import("../cli/run-cli.js");
    const closed = await xql(["lsp"], { input: "" });
    expect(closed.code).toBe(0);
    expect(closed.stdout).toBe("");
  });
});
