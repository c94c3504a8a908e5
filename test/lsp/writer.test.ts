/**
 * The language server's writer (src/lsp/writer.ts): each message one write of header and body,
 * read back whole by vscode-jsonrpc's own reader, as an editor reads it.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { StreamMessageReader, type Message } from "vscode-jsonrpc/node.js";
import { FramedMessageWriter } from "../../src/lsp/writer.js";
import { Signal, until } from "../kit/index.js";

describe("FramedMessageWriter", () => {
  it("writes each message as one chunk holding its Content-Length header (bytes, not characters) and body", async () => {
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on("data", (chunk: Buffer) => chunks.push(chunk));
    const writer = new FramedMessageWriter(output);
    const message = { jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params: { message: "Unknown name 'rsí', did you mean 'rsi'?" } };
    await writer.write(message as Message);
    await writer.write({ jsonrpc: "2.0", method: "second" } as Message);
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(2);
    const text = chunks[0]!.toString("utf8");
    const body = JSON.stringify(message);
    expect(text).toBe(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
  });

  it("is read back message by message, in order, by vscode-jsonrpc's reader", async () => {
    const pipe = new PassThrough();
    const writer = new FramedMessageWriter(pipe);
    const reader = new StreamMessageReader(pipe);
    const received: Message[] = [];
    const read = new Signal();
    reader.listen((m) => {
      received.push(m);
      read.notify();
    });
    const sent = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: "2.0", method: "m", params: { i, text: "é".repeat(i) } }) as Message);
    await Promise.all(sent.map((m) => writer.write(m)));
    await until(() => received.length >= sent.length, { signal: read });
    expect(received).toEqual(sent);
  });
});
