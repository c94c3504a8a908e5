/**
 * What the embedded store's parts share about one SQLite connection: telling a lock held by
 * another connection from a real failure, the file's identity (so `/health` notices a deleted
 * or replaced file), and running a quick write on the service's request path without blocking
 * the event loop on another writer's lock.
 */
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { StoreBusyError } from "./store.js";

/** SQLite said another connection holds the lock (SQLITE_BUSY, SQLITE_LOCKED and their extended codes). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** A file's identity (device and inode), `memory` for an in-memory database, or undefined when it is gone. */
export function identityOf(file: string): string | undefined {
  if (file === ":memory:" || file === "") return "memory";
  try {
    const info = statSync(file);
    return `${info.dev}:${info.ino}`;
  } catch {
    return undefined;
  }
}

/** The busy timeouts of one connection: bulk writers wait, request-path writes poll. */
export interface BusyTimeouts {
  /** How long a bulk writer (import, seed, keys) waits for another connection's lock, in ms. */
  readonly busyTimeoutMs: number;
  /** How long a request-path write polls for the lock before a {@link StoreBusyError}, in ms. */
  readonly requestBusyMs: number;
}

/**
 * Runs a quick write on the service's request path without blocking the event loop on a lock:
 * with the connection's busy timeout at 0 the write fails at once when another connection
 * holds the lock, and it is tried again after a short sleep, for at most `requestBusyMs`;
 * then it rejects with a {@link StoreBusyError} (the service answers 503).
 */
export async function withoutWaiting<T>(db: Database.Database, timeouts: BusyTimeouts, write: () => T): Promise<T> {
  const deadline = Date.now() + timeouts.requestBusyMs;
  let pause = 2;
  for (;;) {
    db.pragma("busy_timeout = 0");
    try {
      return write();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) {
        if (isBusy(error)) throw new StoreBusyError({ cause: error });
        throw error;
      }
    } finally {
      db.pragma(`busy_timeout = ${timeouts.busyTimeoutMs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 50);
  }
}
