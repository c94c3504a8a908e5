/**
 * The migrations runner on PostgreSQL: the rooms' migrations in one transaction under an
 * advisory lock, so replicas starting together queue, the first applies and the others find
 * it done.
 */
import type pg from "pg";
import { type Applied, type LegacyApplied, MARK_SQL, RECORD_SQL, type Room, SCHEMA_VERSION, plan, roomMigrations } from "./migrations.js";

/** A room on PostgreSQL: its code steps take the migrating transaction's client. */
export type PostgresRoom = Room<unknown, pg.PoolClient>;

/** Advisory lock key held while migrating ("xql" in ASCII, then 1). */
const MIGRATION_LOCK = 0x78716c01;

/** Brings the database to the rooms' schema (in the order given), inside the caller's transaction on `client`. */
export async function migratePostgres(client: pg.PoolClient, rooms: readonly PostgresRoom[]): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
  await client.query(RECORD_SQL);
  const migrations = new Map(rooms.map((room) => [room.name, roomMigrations(room, "postgres")] as const));
  const applied = (await client.query<Applied>("SELECT room, version FROM xql_migrations")).rows;
  const legacy = (await client.query<LegacyApplied>(`SELECT version, name, applied_at AS "appliedAt" FROM schema_migrations WHERE version < ${SCHEMA_VERSION}`)).rows;
  const { adopt, run } = plan(rooms, migrations, applied, legacy);
  const insert = "INSERT INTO xql_migrations (room, version, name, applied_at) VALUES ($1, $2, $3, $4)";
  for (const a of adopt) await client.query(insert, [a.room, a.version, a.name, Number(a.appliedAt)]);
  await client.query(MARK_SQL);
  const upgrades = new Map(rooms.map((room) => [room.name, room.upgrades?.postgres ?? {}] as const));
  for (const migration of run) {
    await client.query(migration.sql);
    await upgrades.get(migration.room)?.[migration.version]?.(client);
    await client.query(insert, [migration.room, migration.version, migration.name, Date.now()]);
  }
}
