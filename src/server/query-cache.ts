/**
 * Parsed queries kept by their text. Screens are saved queries sent again and again
 * (dashboards, scheduled jobs, agents retrying), and validate, explain and compile are pure
 * functions of the text and the server's fixed options, so the work is done once per text.
 * Bounded: at most `capacity` texts, least recently used dropped first, and texts longer
 * than `maxTextLength` are never kept.
 */
import { compile, explain, validate, type CompiledQuery, type ExplainResult, type ValidateResult } from "../api.js";
import { XqlError } from "../errors.js";
import type { XqlOptions } from "../types.js";

interface Entry {
  validated?: ValidateResult;
  explained?: ExplainResult;
  compiled?: CompiledQuery | XqlError;
}

export class QueryCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: XqlOptions,
    readonly capacity = 1024,
    readonly maxTextLength = 8192,
  ) {}

  /** The body of POST /xql/validate. */
  validate(text: string): ValidateResult {
    const entry = this.entry(text);
    if (!entry) return validate(text, this.options);
    return (entry.validated ??= validate(text, this.options));
  }

  /** The body of POST /xql/explain. */
  explain(text: string): ExplainResult {
    const entry = this.entry(text);
    if (!entry) return explain(text, this.options);
    return (entry.explained ??= explain(text, this.options));
  }

  /** The compiled query, or the XqlError that compiling raised (as a value, not thrown). */
  compile(text: string): CompiledQuery | XqlError {
    const entry = this.entry(text);
    if (!entry) return compileOrError(text, this.options);
    return (entry.compiled ??= compileOrError(text, this.options));
  }

  get size(): number {
    return this.entries.size;
  }

  private entry(text: string): Entry | undefined {
    if (text.length > this.maxTextLength || this.capacity === 0) return undefined;
    let entry = this.entries.get(text);
    if (entry) {
      this.entries.delete(text);
    } else {
      entry = {};
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(text, entry);
    return entry;
  }
}

function compileOrError(text: string, options: XqlOptions): CompiledQuery | XqlError {
  try {
    return compile(text, options);
  } catch (error) {
    if (error instanceof XqlError) return error;
    throw error;
  }
}
