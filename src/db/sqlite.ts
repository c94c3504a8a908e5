/**
 * The migrations runner on SQLite: the rooms' migrations, each in a transaction of its own
 * that takes the write lock at once, so a crash never leaves half a schema and two processes
 * opening one new file never both apply a step.
 */
import type Database from "better-sqlite3";
import { type Applied, type LegacyApplied, MARK_SQL, type Migration, RECORD_SQL, type Room, SCHEMA_VERSION, plan, roomMigrations } from "./migrations.js";

/** A room on SQLite: its code steps take the connection. */
export type SqliteRoom = Room<Database.Database, unknown>;

/** Brings the database to the rooms' schema (in the order given): records legacy versions, runs what is missing. */
export function migrateSqlite(db: Database.Database, rooms: readonly SqliteRoom[]): void {
  const migrations = new Map(rooms.map((room) => [room.name, roomMigrations(room, "sqlite")] as const));
  const upgrades = new Map(rooms.map((room) => [room.name, room.upgrades?.sqlite ?? {}] as const));
  const record = (): { adopt: ReturnType<typeof plan>["adopt"]; run: Migration[] } => {
    db.exec(RECORD_SQL);
    const applied = db.prepare("SELECT room, version FROM xql_migrations").all() as Applied[];
    const legacy = db.prepare(`SELECT version, name, applied_at AS appliedAt FROM schema_migrations WHERE version < ${SCHEMA_VERSION}`).all() as LegacyApplied[];
    const steps = plan(rooms, migrations, applied, legacy);
    const insert = db.prepare("INSERT INTO xql_migrations (room, version, name, applied_at) VALUES (?, ?, ?, ?)");
    for (const a of steps.adopt) insert.run(a.room, a.version, a.name, a.appliedAt);
    db.exec(MARK_SQL);
    return steps;
  };
  const { run } = db.transaction(record).immediate();
  const insert = db.prepare("INSERT INTO xql_migrations (room, version, name, applied_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
  const done = db.prepare("SELECT 1 FROM xql_migrations WHERE room = ? AND version = ?").pluck();
  for (const migration of run) {
    db.transaction(() => {
      // Another process may have applied it since the plan was made.
      if (done.get(migration.room, migration.version) !== undefined) return;
      db.exec(migration.sql);
      upgrades.get(migration.room)?.[migration.version]?.(db);
      insert.run(migration.room, migration.version, migration.name, Date.now());
    }).immediate();
  }
}
