/**
 * Keys for replicas on a networked database: every lookup still asks the store (so a
 * revocation counts at once while it answers), but the last answer for each key is kept,
 * and while the store does not answer a key seen before is served from there. So while
 * PostgreSQL is down, callers this replica already knows keep getting validate, explain and
 * usage (and a clear 500 for run, which needs bars), instead of every request failing
 * authentication. A key never seen, or seen only as unknown, still fails as the store does.
 * A key revoked during the outage stays usable on this replica until the store is back.
 */
import type { Account, KeyRecord, KeyStore, NewKey, Tier } from "./accounts.js";

export class FallbackKeyStore implements KeyStore {
  private readonly known = new Map<string, KeyRecord>();

  /** `capacity`: records kept, least recently used dropped first. */
  constructor(
    readonly inner: KeyStore & { health?: () => Promise<void> },
    readonly capacity = 10_000,
  ) {}

  async findKeyByHash(hash: string): Promise<KeyRecord | undefined> {
    let record: KeyRecord | undefined;
    try {
      record = await this.inner.findKeyByHash(hash);
    } catch (error) {
      const last = this.known.get(hash);
      if (last) return last;
      throw error;
    }
    this.known.delete(hash);
    if (record) {
      this.known.set(hash, record);
      if (this.known.size > this.capacity) this.known.delete(this.known.keys().next().value as string);
    }
    return record;
  }

  createAccount(id: string, tier: Tier, now: number): Promise<Account> {
    return this.inner.createAccount(id, tier, now);
  }

  findAccount(id: string): Promise<Account | undefined> {
    return this.inner.findAccount(id);
  }

  createKey(key: NewKey, now: number): Promise<KeyRecord> {
    return this.inner.createKey(key, now);
  }

  async revokeKey(hash: string, now: number): Promise<boolean> {
    const revoked = await this.inner.revokeKey(hash, now);
    this.known.delete(hash);
    return revoked;
  }

  listKeys(): Promise<KeyRecord[]> {
    return this.inner.listKeys();
  }

  /** The store's health: a fallback answer is not a healthy store. */
  async health(): Promise<void> {
    await this.inner.health?.();
  }
}
