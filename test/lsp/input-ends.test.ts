/**
 * `xql lsp` at the ends of its input (issue 24.9): standard input closed in the middle of a
 * message, headers that cannot be framed, and a `didOpen` without a text. The server used to
 * stay alive forever in the first two cases and log a stack trace in the third; it now ends
 * with a one-line reason on standard error, and answers the third without failing. A pipe
 * closed between two messages still ends it with 0 (test/lsp/lsp.test.ts).
 */
import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { spawnXql } from "../cli/run-cli.js";

const frame = (message: object): string => {
  const body = JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
const INITIALIZE = frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });

/** Starts `xql lsp`, writes `input`, optionally closes stdin; resolves to how it ended (or rejects after 60 s). */
function run(input: string, closeInput: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawnXql(["lsp", "--stdio"]);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdin!.on("error", () => undefined);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`xql lsp still running after 60 s; stderr: ${stderr}`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin!.write(input);
    if (closeInput) child.stdin!.end();
  });
}

describe("xql lsp at the ends of its input", () => {
  it("exits 1 when standard input closes in the middle of a message", async () => {
    const { code, stderr } = await run(`${INITIALIZE}Content-Length: 100\r\n\r\n0123456789`, true);
    expect(code).toBe(1);
    expect(stderr).toBe("xql lsp: standard input closed in the middle of a message\n");
  }, 70_000);

  it.each([
    ["a length that is not a number", "Content-Length: abc\r\n\r\n{}", "Content-Length value must be a number. Got abc"],
    ["no Content-Length", "X-Other: 1\r\n\r\n{}", "Header must provide a Content-Length property."],
    ["a header line without ':'", "hello world\r\n\r\n", "Message header must separate key and value using ':'"],
  ])("exits 1 on malformed headers (%s) with standard input still open", async (_name, input, reason) => {
    const { code, stderr } = await run(input, false);
    expect(code).toBe(1);
    expect(stderr).toBe(`xql lsp: unreadable input from the client: ${reason}\n`);
  }, 70_000);

  it("answers requests about a document opened with text: null, logs no stack, and exits 0 after shutdown (1 without)", async () => {
    const uri = "file:///work/null.xql";
    const input = [
      INITIALIZE,
      frame({ jsonrpc: "2.0", method: "initialized", params: {} }),
      frame({ jsonrpc: "2.0", method: "textDocument/didOpen", params: { textDocument: { uri, languageId: "xql", version: 1, text: null } } }),
      frame({ jsonrpc: "2.0", id: 2, method: "textDocument/hover", params: { textDocument: { uri }, position: { line: 0, character: 0 } } }),
      frame({ jsonrpc: "2.0", id: 3, method: "textDocument/completion", params: { textDocument: { uri }, position: { line: 0, character: 0 } } }),
      frame({ jsonrpc: "2.0", id: 4, method: "shutdown" }),
      frame({ jsonrpc: "2.0", method: "exit" }),
    ].join("");
    const { code, stdout, stderr } = await run(input, false);
    expect(code).toBe(0);
    expect((await run(`${INITIALIZE}${frame({ jsonrpc: "2.0", method: "exit" })}`, false)).code).toBe(1);
    expect(stdout).toContain('{"jsonrpc":"2.0","id":2,"result":null}');
    expect(stdout).toContain('{"jsonrpc":"2.0","id":3,"result":[]}');
    expect(stdout).toContain(`was opened without a text; it is ignored until the client sends one`);
    expect(stderr).not.toMatch(/TypeError|\n\s+at /);
  }, 70_000);
});
