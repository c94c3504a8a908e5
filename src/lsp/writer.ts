/**
 * The language server's message writer: each message as one write of its header and body.
 *
 * vscode-jsonrpc's stream writer writes the `Content-Length` header and the body separately,
 * waiting for the first write before the second, after a semaphore and an encoder promise.
 * On a pipe each write wakes the editor's process, which then finds half a message and
 * sleeps again; on a busy machine every wake-up waits for a free core, so a keystroke's
 * diagnostics paid that wait twice. One buffer, one write: the editor wakes once to a whole
 * message. Messages are written in the order they are sent, as before.
 */
import type { Message, MessageWriter } from "vscode-languageserver/node.js";
import { protocol } from "./protocol.js";

export class FramedMessageWriter extends protocol.AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly output: NodeJS.WritableStream) {
    super();
    output.on("error", (error: Error) => this.fireError(error));
    output.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    const body = Buffer.from(JSON.stringify(message), "utf8");
    const frame = Buffer.concat([Buffer.from(`Content-Length: ${body.byteLength}\r\n\r\n`, "ascii"), body]);
    return new Promise((resolve, reject) => {
      this.output.write(frame, (error?: Error | null) => {
        if (!error) return resolve();
        this.fireError(error, message, ++this.errors);
        reject(error);
      });
    });
  }

  end(): void {}
}
