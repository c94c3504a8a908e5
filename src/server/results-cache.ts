/**
 * Run (and history) answers kept, as the JSON text sent, per (endpoint with its query string,
 * the body's window, query text, data version) for a short time. A run is a pure function of
 * the compiled query and the bars, and the store's data version changes on every write, so a
 * popular screen repeated by many callers costs one lookup until the data moves or the entry
 * expires. Bounded in bytes (decisions §2 "Fair use": an answer may be 40 bytes or 16 MiB),
 * least recently used dropped first on every insert, so memory stays within the budget
 * whatever is read or not; texts longer than `maxTextLength` are never kept. Quota is metered
 * per request all the same: the route reserves before it looks here.
 */
import { ByteLru } from "../byte-lru.js";

/** 64 MiB: the results cache's default budget. */
export const DEFAULT_RESULTS_CACHE_BYTES = 64 * 1024 * 1024;

interface Entry {
  version: number;
  expires: number;
  text: string;
}

export class ResultsCache {
  private readonly entries: ByteLru<Entry>;

  /**
   * @param maxBytes - Most bytes of answers kept (0 turns the cache off). Default 64 MiB.
   * @param ttlMs - How long an entry is served, in ms. Default 5,000.
   */
  constructor(
    readonly maxBytes = DEFAULT_RESULTS_CACHE_BYTES,
    readonly ttlMs = 5_000,
    readonly maxTextLength = 8192,
  ) {
    this.entries = new ByteLru(maxBytes);
  }

  /** The answer cached for `key` at `version`, unexpired at `now`, or undefined. */
  get(key: string, version: number, now: number): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version || entry.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.text;
  }

  /** Keeps the answer `text` (weighing `bytes`, its UTF-8 size) for `key` at `version` until `now + ttlMs`. */
  set(key: string, version: number, now: number, text: string, bytes = 2 * text.length): void {
    if (this.maxBytes === 0 || key.length > this.maxTextLength) return;
    this.entries.set(key, { version, expires: now + this.ttlMs, text }, bytes);
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.entries.bytes;
  }
}
