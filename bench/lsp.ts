/**
 * The language server as an editor sees it, from a separate client process over stdio against
 * the built `xql lsp`: start-up (spawn to the `initialize` answer, target ≤ 300 ms; and to the
 * first diagnostics of an opened 2 KB query, which builds the parser), and diagnostics latency
 * for that query after a keystroke, from `didChange` (one character, incremental) to
 * `publishDiagnostics` (target ≤ 5 ms median), beside the in-process cost of `diagnose` (what
 * the server does per change: the floor). Prints the load average before and after.
 *
 *   npm run build && npm run bench:lsp
 *   XQL_LSP_MAIN=/other/checkout/dist/cli/main.js npm run bench:lsp   # another build, for before/after
 *
 * Bundled with tsup and run by plain node, like bench:parse (tsx slows the parser about 3×).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js";
import { diagnose } from "../src/editor/index.js";
import { loadAverage, median } from "./common.js";

const MAIN = process.env.XQL_LSP_MAIN ?? "dist/cli/main.js";
const STARTS = 7;

/** About 2 KB: settings, lets of every kind of expression, a condition. */
function twoKilobytes(): string {
  const lines = ['market = "CRYPTO"', "timeframe = h1", "columns = [close, rsi(14), d::sma(50)]", "sort = rsi(14) asc", "limit = 20"];
  const shapes = [
    (i: number) => `rsi(${(i % 20) + 2}) < ${30 + (i % 40)}`,
    (i: number) => `close > d::sma(${(i % 50) + 10}) and volume > avg(volume, ${(i % 30) + 5}) * 2`,
    (i: number) => `crossover(ema(close, ${(i % 9) + 3}), ema(close, ${(i % 21) + 13}))`,
    (i: number) => `(high - low)[${i % 5}] > atr(${(i % 14) + 2}) * 1.5 or not (close < open)`,
  ];
  let i = 0;
  while (lines.join("\n").length < 1950) lines.push(`let l${i} = ${shapes[i % 4]!(i++)}`);
  lines.push("l0 and l2 or l3");
  return lines.join("\n");
}

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;

async function main(): Promise<void> {
  const text = twoKilobytes();
  // Keystrokes: the condition's last digit typed and deleted in turn (valid, then invalid).
  const variants = [text, `${text}4`];
  console.log(`query: ${text.length} characters, ${text.split("\n").length} lines`);

  for (let i = 0; i < 300; i++) diagnose(variants[i % 2]!);
  for (const [name, variant] of [["valid", variants[0]!], ["invalid (unknown name, with a suggestion)", variants[1]!]] as const) {
    const inProcess: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      diagnose(variant);
      inProcess.push(performance.now() - t);
    }
    console.log(`diagnose in process, ${name}: median ${fmt(quantile(inProcess, 0.5))}, p95 ${fmt(quantile(inProcess, 0.95))} (1000 runs)`);
  }

  if (!existsSync(MAIN)) {
    console.log(`${MAIN} missing: run \`npm run build\` for the stdio round trip`);
    return;
  }
  console.log(`server: node ${MAIN} lsp --stdio; ${loadAverage()}`);

  // Start-up, as an editor opening a file pays it: a fresh process each time.
  const ready: number[] = [];
  const firstDiagnostics: number[] = [];
  for (let s = 0; s < STARTS; s++) {
    const started = performance.now();
    const child = spawn(process.execPath, [MAIN, "lsp", "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const diagnosed = new Promise<void>((resolve) => connection.onNotification("textDocument/publishDiagnostics", () => resolve()));
    connection.listen();
    await connection.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities: {} });
    ready.push(performance.now() - started);
    await connection.sendNotification("initialized", {});
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: "file:///start.xql", languageId: "xql", version: 1, text } });
    await diagnosed;
    firstDiagnostics.push(performance.now() - started);
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
    connection.dispose();
    await new Promise((resolve) => child.once("exit", resolve));
  }
  console.log(`start-up: initialize answered after median ${fmt(median(ready))} (target ≤ 300 ms), first diagnostics after ${fmt(median(firstDiagnostics))} (${STARTS} starts)`);

  const child = spawn(process.execPath, [MAIN, "lsp", "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  let resolveNext: ((version: number) => void) | undefined;
  connection.onNotification("textDocument/publishDiagnostics", (p: { version?: number }) => resolveNext?.(p.version ?? -1));
  connection.listen();
  await connection.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities: {} });
  await connection.sendNotification("initialized", {});
  const uri = "file:///bench.xql";
  const lines = text.split("\n");
  const end = { line: lines.length - 1, character: lines[lines.length - 1]!.length };
  let version = 1;
  const published = (): Promise<number> => new Promise((resolve) => (resolveNext = resolve));
  let next = published();
  await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "xql", version, text } });
  await next;
  const roundTrips: number[] = [];
  // How many reads the client needs per message: each is a wake-up of the editor's process.
  let chunks = 0;
  child.stdout.on("data", () => chunks++);
  for (let i = 0; i < 1300; i++) {
    version++;
    const typing = i % 2 === 0;
    const change = typing
      ? { range: { start: end, end }, text: "4" }
      : { range: { start: end, end: { line: end.line, character: end.character + 1 } }, text: "" };
    next = published();
    const t = performance.now();
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [change] });
    const got = await next;
    if (got !== version) throw new Error(`diagnostics for version ${got}, expected ${version}`);
    if (i >= 300) roundTrips.push(performance.now() - t);
  }
  console.log(`didChange → publishDiagnostics over stdio: median ${fmt(quantile(roundTrips, 0.5))}, p95 ${fmt(quantile(roundTrips, 0.95))} (1000 keystrokes; target ≤ 5 ms median)`);
  console.log(`reads of the server's output per message: ${(chunks / 1300).toFixed(2)}`);
  console.log(`after: ${loadAverage()}`);
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  connection.dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
