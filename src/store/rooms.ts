/**
 * The bar store's rooms of the schema (src/db/migrations.ts): their SQL is in
 * src/store/migrations/<room>/<backend>/; each backend adds its code step of bars version 4
 * (sqlite.ts, postgres.ts).
 */
import type { Room } from "../db/migrations.js";

/** Bars, the series catalog, the data version and the change log: versions 1 (its part) to 4 of the global list. */
export const BARS_ROOM: Room = { name: "bars", folder: "store", legacy: { 1: 1, 2: 2, 3: 3, 4: 4 } };

/** Which account's push created each series (the series caps per tier): version 7 of the global list. */
export const SERIES_OWNERS_ROOM: Room = { name: "series-owners", folder: "store", legacy: { 7: 1 } };

/** Where each synced series' bars came from: version 8 of the global list. */
export const FEEDS_ROOM: Room = { name: "feeds", folder: "store", legacy: { 8: 1 } };
