/**
 * The alerts' rooms of the schema (src/db/migrations.ts): their SQL is in
 * src/alerts/migrations/<room>/<backend>/. The tables live beside the bars so that an
 * evaluation's claim, its new state and its delivery commit in one transaction.
 */
import type { Room } from "../db/migrations.js";

/** Alerts, their (alert, bar) claims and the outbox of deliveries: version 6 of the global list. */
export const ALERTS_ROOM: Room = { name: "alerts", folder: "alerts", legacy: { 6: 1 } };

/**
 * Which replica evaluates each distinct screen (PostgreSQL only: SQLite serves one process and
 * has nothing to share): version 10 of the global list.
 */
export const LEASES_ROOM: Room = { name: "leases", folder: "alerts", legacy: { 10: 1 } };
