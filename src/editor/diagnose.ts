/**
 * Diagnostics for editors: exactly the error `validate` reports, as a range of the text. The
 * range starts at the error's offset (the same position the service returns) and covers the
 * token there, so an editor underlines `rsii` in `rsii(14) < 30`, not one character of it.
 */
import { validate } from "../api.js";
import type { XqlOptions } from "../types.js";
import { scan } from "./scan.js";

/** One problem in the text: `[start, end)` in UTF-16 offsets. */
export interface Diagnostic {
  readonly start: number;
  readonly end: number;
  readonly message: string;
  /** `syntax` errors point at the text; `plan` errors (a missing setting) concern the whole query. */
  readonly type: "syntax" | "plan";
}

/**
 * The query's problems: none, or the first error `validate` finds. A plan error has no
 * position in the contract; editors show it on the first line (`[0, length of line 1)`).
 */
export function diagnose(text: string, options?: XqlOptions): Diagnostic[] {
  const result = validate(text, options);
  if (result.valid) return [];
  const { type, message, position } = result.error;
  if (position === undefined) {
    const firstLineEnd = text.search(/[\r\n]/);
    return [{ start: 0, end: firstLineEnd < 0 ? text.length : firstLineEnd, message, type }];
  }
  const start = position.offset;
  return [{ start, end: tokenEndAt(text, start), message, type }];
}

/** The end of the token starting at `offset`: the underline's length. */
function tokenEndAt(text: string, offset: number): number {
  if (offset >= text.length) return offset;
  for (const piece of scan(text)) {
    if (piece.start === offset) return piece.end;
    if (piece.start > offset) break;
  }
  return offset + 1;
}
