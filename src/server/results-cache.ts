/**
 * Run (and history) response bodies kept per (endpoint with its query string, query text,
 * data version) for a short time. A run is a pure function
 * of the compiled query and the bars, and the store's data version changes on every write,
 * so a popular screen repeated by many callers costs one lookup until the data moves or the
 * entry expires. Bounded: at most `capacity` entries (least recently used dropped first),
 * texts longer than `maxTextLength` never kept. Quota is metered per request all the same:
 * the route reserves before it looks here.
 */
/** A response body: `{ results, meta }` of a run, or the body of a history. */
type Body = object;

interface Entry {
  version: number;
  expires: number;
  result: Body;
}

export class ResultsCache {
  private readonly entries = new Map<string, Entry>();

  /**
   * @param capacity - Most entries kept (0 turns the cache off). Default 256.
   * @param ttlMs - How long an entry is served, in ms. Default 5,000.
   */
  constructor(
    readonly capacity = 256,
    readonly ttlMs = 5_000,
    readonly maxTextLength = 8192,
  ) {}

  /** The result cached for `text` at `version`, unexpired at `now`, or undefined. */
  get(text: string, version: number, now: number): Body | undefined {
    const entry = this.entries.get(text);
    if (!entry) return undefined;
    if (entry.version !== version || entry.expires <= now) {
      this.entries.delete(text);
      return undefined;
    }
    this.entries.delete(text);
    this.entries.set(text, entry);
    return entry.result;
  }

  /** Keeps `result` for `text` at `version` until `now + ttlMs`. */
  set(text: string, version: number, now: number, result: Body): void {
    if (this.capacity === 0 || text.length > this.maxTextLength) return;
    this.entries.delete(text);
    this.entries.set(text, { version, expires: now + this.ttlMs, result });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }
}
