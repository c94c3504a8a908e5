/**
 * How `openStore`'s stores answer for the rooms composed beside the bars: each contract's
 * methods, named once here (the compiler holds each list to its interface, every method and
 * no other), answered by the room's own object. No store forwards them one by one.
 */
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import type { WatchlistStore } from "../accounts/watchlists.js";

/** The methods of {@link KeyStore}. */
export const KEY_STORE: Readonly<Record<keyof KeyStore, true>> = {
  createAccount: true,
  findAccount: true,
  createKey: true,
  findKeyByHash: true,
  revokeKey: true,
  listKeys: true,
};

/** The methods of {@link QuotaStore}. */
export const QUOTA_STORE: Readonly<Record<keyof QuotaStore, true>> = { reserve: true, release: true, usage: true };

/** The methods of {@link WatchlistStore}. */
export const WATCHLIST_STORE: Readonly<Record<keyof WatchlistStore, true>> = {
  putWatchlist: true,
  listWatchlists: true,
  getWatchlist: true,
  deleteWatchlist: true,
};

/**
 * The methods of `contract`, each calling the same method of the room `part()` returns, with
 * every argument (a room prepared on first use is prepared by the first call).
 */
export function delegate<T extends object>(part: () => T, contract: Readonly<Record<keyof T, true>>): T {
  const methods: Record<string, unknown> = {};
  for (const name of Object.keys(contract)) {
    methods[name] = (...args: unknown[]) => (part() as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
  }
  return methods as T;
}
