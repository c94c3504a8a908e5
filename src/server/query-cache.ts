/**
 * Parsed queries kept by their text. Screens are saved queries sent again and again
 * (dashboards, scheduled jobs, agents retrying), and validate, explain and compile are pure
 * functions of the text and the server's fixed options, so the work is done once per text.
 *
 * Bounded in bytes (decisions §2 "Fair use"), least recently used dropped first on every
 * insert. What an entry weighs: its text, its validate and explain bodies, and for a compiled
 * query {@link COMPILED_BYTES_PER_CHAR} bytes per character of text (the checked IR, plan and
 * evaluator a compile builds: 207–217 measured per character, 1 to 50 columns) plus the
 * buffers its evaluator keeps after a run, weighed again after each run ({@link QueryCache.reweigh}).
 * Texts longer than `maxTextLength` are never kept.
 */
import { compile, explain, retainedBytesOf, validate, type CompiledQuery, type ExplainResult, type ValidateResult } from "../api.js";
import { ByteLru } from "../byte-lru.js";
import { type QueryErrorCode, XqlError } from "../errors.js";
import type { XqlOptions } from "../types.js";

/** 64 MiB: the query cache's default budget. */
export const DEFAULT_QUERY_CACHE_BYTES = 64 * 1024 * 1024;
/** Heap a compiled query takes per character of its text, before any run (measured, rounded up). */
export const COMPILED_BYTES_PER_CHAR = 256;

interface Entry {
  validated?: ValidateResult;
  explained?: ExplainResult;
  compiled?: CompiledQuery | XqlError;
}

export class QueryCache {
  private readonly entries: ByteLru<Entry>;

  constructor(
    private readonly options: XqlOptions,
    readonly maxBytes = DEFAULT_QUERY_CACHE_BYTES,
    readonly maxTextLength = 8192,
  ) {
    this.entries = new ByteLru(maxBytes);
  }

  /** The body of POST /xql/validate. */
  validate(text: string): ValidateResult {
    return this.through(text, (entry) => (entry.validated ??= validate(text, this.options)), () => validate(text, this.options));
  }

  /** The body of POST /xql/explain. */
  explain(text: string): ExplainResult {
    return this.through(text, (entry) => (entry.explained ??= explain(text, this.options)), () => explain(text, this.options));
  }

  /** The compiled query, or the XqlError that compiling raised (as a value, not thrown). */
  compile(text: string): CompiledQuery | XqlError {
    return this.through(text, (entry) => (entry.compiled ??= compileOrError(text, this.options)), () => compileOrError(text, this.options));
  }

  /**
   * The code of the error compiling `text` raises (the one validate and explain answer with),
   * undefined when it compiles: what a route tells the kind of a query's error by.
   */
  codeOf(text: string): QueryErrorCode | undefined {
    const compiled = this.compile(text);
    return compiled instanceof XqlError ? compiled.code : undefined;
  }

  /** Weighs the entry of `text` again: its compiled query's buffers grow with the bars it ran over. */
  reweigh(text: string): void {
    const entry = this.entries.peek(text);
    if (entry) this.entries.reweigh(text, weigh(text, entry));
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held (as weighed). */
  get bytes(): number {
    return this.entries.bytes;
  }

  private through<T>(text: string, cached: (entry: Entry) => T, uncached: () => T): T {
    if (text.length > this.maxTextLength || this.maxBytes === 0) return uncached();
    const entry = this.entries.get(text) ?? {};
    const value = cached(entry);
    this.entries.set(text, entry, weigh(text, entry));
    return value;
  }
}

/** What an entry holds, in bytes (the text itself is added by the cache). */
function weigh(text: string, entry: Entry): number {
  let bytes = 64;
  if (entry.validated) bytes += entry.validated.valid ? 16 : 2 * entry.validated.error.message.length + 128;
  if (entry.explained) bytes += 2 * JSON.stringify(entry.explained).length;
  const compiled = entry.compiled;
  if (compiled instanceof XqlError) bytes += 2 * compiled.message.length + 256;
  else if (compiled) bytes += COMPILED_BYTES_PER_CHAR * text.length + retainedBytesOf(compiled);
  return bytes;
}

function compileOrError(text: string, options: XqlOptions): CompiledQuery | XqlError {
  try {
    return compile(text, options);
  } catch (error) {
    if (error instanceof XqlError) return error;
    throw error;
  }
}
