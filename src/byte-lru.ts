/**
 * A least-recently-used map bounded by the bytes of what it holds, not by its number of
 * entries (decisions §2 "Fair use"): one entry may be a 40-byte answer or a 16 MiB one, so a
 * count says nothing about memory. Every `set` evicts the least recently used entries until
 * the total fits, whatever keys are read later; an entry larger than the whole budget is not
 * kept at all. The caller says what an entry weighs; the key's own characters are added.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  /** @param maxBytes - The most bytes held; 0 keeps nothing. */
  constructor(readonly maxBytes: number) {
    if (!(maxBytes >= 0)) throw new TypeError("ByteLru: maxBytes must be a non-negative number");
  }

  /** The value under `key`, which becomes the most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value under `key` without touching its recency. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key`, weighing `bytes` (plus the key), then evicts down to the budget. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    const weight = bytes + 2 * key.length;
    if (weight > this.maxBytes) return;
    this.entries.set(key, { value, bytes: weight });
    this.total += weight;
    this.evict();
  }

  /** Weighs the entry under `key` again (what it holds grew or shrank), evicting down to the budget. */
  reweigh(key: string, bytes: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    const weight = bytes + 2 * key.length;
    this.total += weight - entry.bytes;
    entry.bytes = weight;
    if (weight > this.maxBytes) this.delete(key);
    else this.evict();
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held (as weighed by the caller, keys included). */
  get bytes(): number {
    return this.total;
  }

  /** Drops the least recently used entries until the total fits the budget. */
  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.total <= this.maxBytes) return;
      this.entries.delete(key);
      this.total -= entry.bytes;
    }
  }
}
