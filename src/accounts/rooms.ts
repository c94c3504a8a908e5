/**
 * The accounts' rooms of the schema (src/db/migrations.ts): their SQL is in
 * src/accounts/migrations/<room>/<backend>/.
 */
import type { Room } from "../db/migrations.js";

/** Accounts, API keys (and their scopes) and the quota counters: versions 1 (its part) and 5 of the global list. */
export const ACCOUNTS_ROOM: Room = { name: "accounts", folder: "accounts", legacy: { 1: 1, 5: 2 } };

/** The accounts' saved symbol lists: version 9 of the global list. */
export const WATCHLISTS_ROOM: Room = { name: "watchlists", folder: "accounts", legacy: { 9: 1 } };
