/**
 * Lines of a file of bars, read in chunks with bounded memory: `\n`, `\r\n` and a lone `\r`
 * each end a line, and a line longer than {@link MAX_LINE_CHARS} is refused as soon as it
 * passes that length (a gigabyte without a line break is a clear error, not an out-of-memory
 * crash). Lines come in batches, one per chunk read, so the reader costs no promise per line.
 */
import { isAscii } from "node:buffer";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { CsvImportError } from "./errors.js";

/** The longest line accepted: a bar is under 200 characters; 64 KiB leaves room for any header. */
export const MAX_LINE_CHARS = 65_536;

/** Lines of `stream` in batches; `firstLine` is the 1-based number of a batch's first line. */
export async function* readLines(stream: Readable): AsyncGenerator<{ lines: string[]; firstLine: number }> {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let next = 1;
  /** The previous chunk ended on `\r`: a `\n` starting this one ends no new line. */
  let afterCr = false;
  const split = (text: string, last: boolean): string[] => {
    // Lines are sliced from the chunk's own string: a slice of a concatenation copies in V8,
    // so only the line a chunk boundary cut in two is joined with what came before it.
    const lines: string[] = [];
    let start = afterCr && text.charCodeAt(0) === 10 ? 1 : 0;
    afterCr = false;
    let cr = text.indexOf("\r", start);
    for (;;) {
      let nl = text.indexOf("\n", start);
      if (cr >= 0 && cr < start) cr = text.indexOf("\r", start);
      let end: number;
      if (cr >= 0 && (nl < 0 || cr < nl)) {
        end = cr;
        if (cr + 1 === text.length) afterCr = true;
        nl = text.charCodeAt(cr + 1) === 10 ? cr + 1 : cr;
      } else if (nl >= 0) end = nl;
      else break;
      if (pending !== "") {
        if (pending.length + end - start > MAX_LINE_CHARS) throw tooLong(next + lines.length);
        lines.push(pending + text.slice(start, end));
        pending = "";
      } else {
        if (end - start > MAX_LINE_CHARS) throw tooLong(next + lines.length);
        lines.push(text.slice(start, end));
      }
      start = nl + 1;
    }
    if (start < text.length) {
      if (pending.length + text.length - start > MAX_LINE_CHARS) throw tooLong(next + lines.length);
      pending += text.slice(start);
    }
    if (last && pending !== "") {
      lines.push(pending);
      pending = "";
    }
    return lines;
  };
  /** Bytes so far were all ASCII: a chunk decodes as latin1 (no UTF-8 state to carry, several times faster). */
  let ascii = true;
  for await (const chunk of stream) {
    let text: string;
    if (typeof chunk === "string") text = chunk;
    else if (ascii && isAscii(chunk as Buffer)) text = (chunk as Buffer).toString("latin1");
    else {
      ascii = false;
      text = decoder.write(chunk as Buffer);
    }
    if (text === "") continue;
    const lines = split(text, false);
    if (lines.length > 0) {
      yield { lines, firstLine: next };
      next += lines.length;
    }
  }
  const lines = split(decoder.end(), true);
  if (lines.length > 0) yield { lines, firstLine: next };
}

function tooLong(line: number): CsvImportError {
  return new CsvImportError(line, `the line is longer than ${MAX_LINE_CHARS.toLocaleString("en-US")} characters: not a file of bars (or its line breaks are missing)`);
}
