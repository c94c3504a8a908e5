/**
 * Errors are data: `{ type, message, position? }` exactly as the spec shows, raised as one
 * `XqlError`. Syntax errors always carry a position; plan errors never do.
 */
import type { ErrorBody, InvalidResult, Position } from "./types.js";

/** The stage that found the problem, for logs and docs (never part of the HTTP body). */
export type Stage = "lex" | "parse" | "lower" | "check" | "plan";

/**
 * The one error type of the library, thrown by {@link compile}. `body` is the spec's error
 * object, the same one {@link validate} returns and the HTTP service answers with a 400.
 *
 * @example
 * ```ts
 * try {
 *   compile('market = "FOREX"\ntimeframe = h1\nrsi(14) <');
 * } catch (error) {
 *   if (error instanceof XqlError) console.log(error.type, error.position, error.toResult());
 *   else throw error;
 * }
 * ```
 */
export class XqlError extends Error {
  /** Always `"XqlError"`. */
  override readonly name = "XqlError";
  /** `syntax` (the text is wrong at `position`) or `plan` (well-formed, but not plannable). */
  readonly type: "syntax" | "plan";
  /** Where a syntax error is; `undefined` for plan errors. */
  readonly position: Position | undefined;
  /** The stage that found the problem, for logs (never part of the body). */
  readonly stage: Stage;

  /**
   * @param body - The spec's error object.
   * @param stage - The stage that found the problem.
   */
  constructor(body: ErrorBody, stage: Stage) {
    super(body.message);
    this.type = body.type;
    this.position = body.position;
    this.stage = stage;
  }

  /** The spec's error body: `{ type, message, position? }` (position only for syntax errors). */
  get body(): ErrorBody {
    return this.position === undefined
      ? { type: this.type, message: this.message }
      : { type: this.type, message: this.message, position: { ...this.position } };
  }

  /** The HTTP 400 body: `{ valid: false, error }`. */
  toResult(): InvalidResult {
    return { valid: false, error: this.body };
  }
}

/** Line and column (1-based) of a 0-based UTF-16 offset; `\r\n`, `\n` and `\r` each end a line. */
export function positionAt(text: string, offset: number): Position {
  const at = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    const ch = text.charCodeAt(i);
    // A \r followed by \n is one line break, counted at the \n.
    if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1, offset: at };
}

/** A syntax error at `offset` of `text`. */
export function syntaxError(text: string, offset: number, message: string, stage: Stage): XqlError {
  return new XqlError({ type: "syntax", message, position: positionAt(text, offset) }, stage);
}

/** A plan error (no position). */
export function planError(message: string): XqlError {
  return new XqlError({ type: "plan", message }, "plan");
}
