/**
 * Independent checks of the error bodies the spec promises, written without the library's
 * own `positionAt`: `\r\n`, `\r` and `\n` each end a line; column = offset − line start + 1,
 * in UTF-16 code units.
 */
import { expect } from "vitest";

export interface Body {
  type: string;
  message: string;
  position?: { line: number; column: number; offset: number };
}

/** Line and column of `offset`, recomputed from scratch. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const breaks = before.match(/\r\n|\r|\n/g) ?? [];
  // A `\r` just before the offset whose `\n` lies after it is still one break, at the `\n`.
  const splitPair = before.endsWith("\r") && text[offset] === "\n";
  const lines = breaks.length - (splitPair ? 1 : 0);
  let lineStart = 0;
  const pattern = /\r\n|\r|\n/g;
  let match: RegExpExecArray | null;
  let counted = 0;
  while (counted < lines && (match = pattern.exec(before)) !== null) {
    lineStart = match.index + match[0].length;
    counted++;
  }
  return { line: lines + 1, column: offset - lineStart + 1 };
}

/** Asserts the spec's failure shape: `{ valid: false, error: { type, message, position? } }`. */
export function expectErrorShape(text: string, result: unknown): Body {
  expect(result).toMatchObject({ valid: false });
  const body = result as { valid: false; error: Body };
  expect(Object.keys(body).sort()).toEqual(["error", "valid"]);
  const error = body.error;
  expect(typeof error.message).toBe("string");
  expect(error.message.length).toBeGreaterThan(0);
  if (error.type === "syntax") {
    expect(Object.keys(error).sort()).toEqual(["message", "position", "type"]);
    const position = error.position!;
    expect(Object.keys(position).sort()).toEqual(["column", "line", "offset"]);
    expect(Number.isInteger(position.offset)).toBe(true);
    expect(position.offset).toBeGreaterThanOrEqual(0);
    expect(position.offset).toBeLessThanOrEqual(text.length);
    expect({ line: position.line, column: position.column }).toEqual(lineAndColumn(text, position.offset));
  } else {
    expect(error.type).toBe("plan");
    expect(Object.keys(error).sort()).toEqual(["message", "type"]);
  }
  return error;
}
