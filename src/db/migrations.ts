/**
 * Migrations by room. Each room of the house that keeps tables (the bars, the accounts, the
 * alerts, …) owns its numbered migrations as plain SQL files, one folder per backend:
 * `src/<folder>/migrations/<room>/<backend>/0001-<what>.sql`, shipped as
 * `dist/migrations/<room>/<backend>/` (copied by the build). A file's first line, a `--`
 * comment, is the migration's name. Work SQL cannot do (rebuilding bars from an older layout)
 * is the room's code, run after the file of that version in the same transaction.
 *
 * What is applied is recorded per room in `xql_migrations (room, version)`. Databases written
 * before rooms recorded one global list in `schema_migrations` (versions 1 to 10); each room
 * says which of those versions were its own (`legacy`), so a database of any of them upgrades
 * in place: those versions are recorded as the room's and only what is missing runs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { XqlDataError } from "../errors.js";

/** The backends a room writes SQL for. */
export type Backend = "sqlite" | "postgres";

/** A room's part in the schema: where its SQL lives, what it had of the global list, its code steps. */
export interface Room<Sqlite = unknown, Postgres = unknown> {
  /** The room's name, unique in the house: its folder of migrations and its key in `xql_migrations`. */
  readonly name: string;
  /** The folder of src/ that owns it (`store`, `accounts`, `alerts`). */
  readonly folder: string;
  /** The versions of the global `schema_migrations` list that were this room's: global → the room's. */
  readonly legacy?: Readonly<Record<number, number>>;
  /** Code run after the SQL of a version, in its transaction, per backend. */
  readonly upgrades?: {
    readonly sqlite?: Readonly<Record<number, (db: Sqlite) => void>>;
    readonly postgres?: Readonly<Record<number, (client: Postgres) => Promise<void>>>;
  };
}

/** A room without its code steps: what the runner reads whatever the backend. */
export type RoomPlace = Pick<Room, "name" | "folder" | "legacy">;

/** One step of a room's schema. Versions only grow; a released migration is never edited. */
export interface Migration {
  readonly room: string;
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The version older builds find in `schema_migrations`: one above the last of the global list,
 * so a build from before rooms refuses a database migrated by rooms ("newer than this xql
 * understands") rather than trying to create its tables again.
 */
export const SCHEMA_VERSION = 11;
const SCHEMA_VERSION_NAME = "migrations by room: see xql_migrations";

const FILE = /^(\d{4})-[a-z0-9-]+\.sql$/;

/** The room's migrations for `backend`, in version order (none when it keeps no tables there). */
export function roomMigrations(room: RoomPlace, backend: Backend): Migration[] {
  const dir = sqlFolder(room, backend);
  if (dir === undefined) return [];
  const migrations = readdirSync(dir)
    .filter((file) => FILE.test(file))
    .sort()
    .map((file): Migration => {
      const sql = readFileSync(join(dir, file), "utf8");
      const name = /^--\s*(.+)$/m.exec(sql.split("\n", 1)[0] ?? "")?.[1]?.trim() ?? file;
      return { room: room.name, version: Number(FILE.exec(file)![1]), name, sql };
    });
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`internal: the migrations of ${room.name} (${backend}) skip from ${i} to ${m.version}`);
  });
  return migrations;
}

/**
 * Where the room's SQL for `backend` is: beside the source (src/db → src/<folder>/migrations),
 * or in the build's dist/migrations, seen from a chunk in dist/ or one folder below it.
 */
function sqlFolder(room: RoomPlace, backend: Backend): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, "..", room.folder, "migrations", room.name, backend),
    join(here, "migrations", room.name, backend),
    join(here, "..", "migrations", room.name, backend),
    // A bench or script bundled elsewhere in the repository reads the source's.
    join(here, "..", "src", room.folder, "migrations", room.name, backend),
  ];
  const rooms = candidates.map((dir) => dirname(dir));
  const found = rooms.findIndex((dir) => existsSync(dir));
  if (found < 0) throw new Error(`internal: the migrations of ${room.name} are missing (looked in ${rooms.join(", ")})`);
  return existsSync(candidates[found]!) ? candidates[found] : undefined;
}

/** A migration the database has, as recorded. */
export interface Applied {
  readonly room: string;
  readonly version: number;
}

/** A migration recorded in the global list of the builds before rooms. */
export interface LegacyApplied {
  readonly version: number;
  readonly name: string;
  readonly appliedAt: number;
}

/**
 * What to do to bring a database to the rooms' schema: the legacy versions to record as the
 * rooms', then the migrations to run, room after room in the order given. Throws when a room
 * has versions this build does not know (a newer xql wrote them).
 */
export function plan(
  rooms: readonly RoomPlace[],
  migrations: ReadonlyMap<string, readonly Migration[]>,
  applied: readonly Applied[],
  legacy: readonly LegacyApplied[],
): { adopt: (Applied & { name: string; appliedAt: number })[]; run: Migration[] } {
  const have = new Set(applied.map((a) => `${a.room}/${a.version}`));
  const adopt: (Applied & { name: string; appliedAt: number })[] = [];
  for (const room of rooms) {
    for (const old of legacy) {
      const version = room.legacy?.[old.version];
      if (version === undefined || have.has(`${room.name}/${version}`)) continue;
      have.add(`${room.name}/${version}`);
      adopt.push({ room: room.name, version, name: old.name, appliedAt: old.appliedAt });
    }
  }
  const run: Migration[] = [];
  for (const room of rooms) {
    const known = migrations.get(room.name) ?? [];
    const newest = Math.max(0, ...applied.filter((a) => a.room === room.name).map((a) => a.version));
    if (newest > known.length) {
      throw new XqlDataError("store-schema-newer", { room: room.name, version: newest, understood: known.length });
    }
    // Every migration not yet recorded runs, not only those above the newest: a build may meet
    // a database that has a later one but not an earlier one (the global list allowed it).
    for (const m of known) if (!have.has(`${m.room}/${m.version}`)) run.push(m);
  }
  return { adopt, run };
}

/** The tables of the record, the same SQL on both backends. */
export const RECORD_SQL = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at BIGINT  NOT NULL
  );
  CREATE TABLE IF NOT EXISTS xql_migrations (
    room       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    applied_at BIGINT  NOT NULL,
    PRIMARY KEY (room, version)
  );
`;

/** The row that makes older builds refuse the database (see {@link SCHEMA_VERSION}). */
export const MARK_SQL = `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${SCHEMA_VERSION}, '${SCHEMA_VERSION_NAME}', 0) ON CONFLICT DO NOTHING`;
