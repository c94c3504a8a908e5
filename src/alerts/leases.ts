/**
 * Replicas share a round's work (decisions §7, 2026-12-05): each distinct screen (market,
 * timeframe, query) is evaluated by the one replica that holds it by a lease in the shared
 * PostgreSQL store, as the PostgreSQL job queues do it (graphile-worker, pg-boss): a claim takes
 * free or expired rows `FOR UPDATE SKIP LOCKED`, a live holder extends its leases on a timer, and
 * a lease not extended for the lease period is anyone's to take. A replica also registers itself
 * with the same expiry, so every replica knows how many are alive and takes about 1/N of the
 * screens: when one joins, the others give up their excess at their next round, and the
 * newcomer takes it; when one dies (SIGKILL), its registration and its leases lapse together and
 * the survivors share its screens.
 *
 * Leases decide who evaluates; they do not guard the outcome. `commitEvaluations` still commits
 * each (alert, bar) once, so a replica that stalls past its lease while another takes the screen
 * over costs a duplicate evaluation, never a duplicate or lost commit.
 *
 * Times are the database's (`now()`), so replicas on machines whose clocks disagree agree on
 * who holds what.
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { randomBase62 } from "../accounts/keys.js";
import type { AlertHead } from "./alerts.js";

/** 15 s: a replica killed with SIGKILL loses its screens at most 15 s + one renewal after its last renewal (< 30 s). */
export const DEFAULT_LEASE_MS = 15_000;

/** A live holder renews this many times per lease period, so one late timer does not cost it the lease. */
const RENEWALS_PER_LEASE = 4;

/** The key of an alert's screen: alerts with the same market, timeframe and query text share it. */
export function screenKey(alert: Pick<AlertHead, "market" | "timeframe" | "query">): string {
  return createHash("sha256").update(`${alert.market}\u0000${alert.timeframe}\u0000${alert.query}`).digest("hex").slice(0, 32);
}

/** How the leases reach the database (the alert store's pool). */
export interface PgLeaseQueries {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

/** Where the replicas and their leases stand, as one replica sees them. */
export interface LeaseView {
  /** The screens this replica holds after the call. */
  held: string[];
  /** Live replicas (this one included), by id. */
  replicas: string[];
  /** Distinct screens with a lease row. */
  screens: number;
  /** Screens no live replica holds (never claimed, released, or expired). */
  free: number;
}

/** The SQL of screen leases: one implementation, on PostgreSQL (`PostgresAlerts.leases`). */
export class PgScreenLeases {
  constructor(private readonly db: PgLeaseQueries) {}

  /** Registers (or keeps alive) the replica and extends every lease it holds; resolves to the view after. */
  async renew(replica: string, leaseMs: number): Promise<LeaseView> {
    return this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO alert_replicas (id, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`,
        [replica, leaseMs],
      );
      await client.query("UPDATE alert_screen_leases SET expires_at = now() + $2 * interval '1 millisecond' WHERE holder = $1", [replica, leaseMs]);
      return view(client, replica);
    });
  }

  /**
   * Settles this replica's share before a round: adds rows for the screens it knows, forgets
   * rows of screens no alert has (unless held), gives up what it holds beyond its share or no
   * longer knows, and claims free screens up to its share. Resolves to the view after.
   */
  async balance(replica: string, screens: readonly string[], leaseMs: number): Promise<LeaseView> {
    const known = [...screens].sort();
    return this.db.transaction(async (client) => {
      if (known.length > 0) {
        await client.query("INSERT INTO alert_screen_leases (screen) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT DO NOTHING", [known]);
      }
      // A screen whose alerts are gone: its holder lets it go, and its row goes once nobody holds it.
      await client.query("UPDATE alert_screen_leases SET holder = NULL, expires_at = 'epoch' WHERE holder = $1 AND NOT (screen = ANY($2::text[]))", [replica, known]);
      await client.query("DELETE FROM alert_screen_leases WHERE NOT (screen = ANY($1::text[])) AND (holder IS NULL OR expires_at <= now())", [known]);
      let current = await view(client, replica);
      const target = shareOf(replica, current.replicas, current.screens);
      if (current.held.length > target) {
        // The newest-sorted excess goes: which ones does not matter, only that the count is fair.
        const excess = [...current.held].sort().slice(target);
        await client.query("UPDATE alert_screen_leases SET holder = NULL, expires_at = 'epoch' WHERE holder = $1 AND screen = ANY($2::text[])", [replica, excess]);
        current = await view(client, replica);
      } else if (current.held.length < target && known.length > 0) {
        await client.query(
          `UPDATE alert_screen_leases SET holder = $1, expires_at = now() + $2 * interval '1 millisecond'
           WHERE screen IN (
             SELECT screen FROM alert_screen_leases
             WHERE screen = ANY($3::text[]) AND (holder IS NULL OR expires_at <= now())
             ORDER BY screen LIMIT $4 FOR UPDATE SKIP LOCKED)`,
          [replica, leaseMs, known, target - current.held.length],
        );
        current = await view(client, replica);
      }
      return current;
    });
  }

  /** Gives up every lease and the registration (a replica shutting down): the others take its share at once. */
  async release(replica: string): Promise<void> {
    await this.db.transaction(async (client) => {
      await client.query("UPDATE alert_screen_leases SET holder = NULL, expires_at = 'epoch' WHERE holder = $1", [replica]);
      await client.query("DELETE FROM alert_replicas WHERE id = $1 OR expires_at < now() - interval '1 hour'", [replica]);
    });
  }
}

async function view(client: pg.PoolClient, replica: string): Promise<LeaseView> {
  const { rows: replicas } = await client.query<{ id: string }>("SELECT id FROM alert_replicas WHERE expires_at > now() ORDER BY id");
  const { rows: held } = await client.query<{ screen: string }>("SELECT screen FROM alert_screen_leases WHERE holder = $1 AND expires_at > now()", [replica]);
  const { rows: counts } = await client.query<{ screens: number; free: number }>(
    "SELECT count(*)::int AS screens, (count(*) FILTER (WHERE holder IS NULL OR expires_at <= now()))::int AS free FROM alert_screen_leases",
  );
  return { held: held.map((r) => r.screen), replicas: replicas.map((r) => r.id), screens: counts[0]?.screens ?? 0, free: counts[0]?.free ?? 0 };
}

/**
 * This replica's fair share of `screens` among the live replicas: ⌊S/N⌋, plus one for the first
 * S mod N replicas by id, so the shares add up to S exactly and differ by at most one.
 */
export function shareOf(replica: string, replicas: readonly string[], screens: number): number {
  const n = Math.max(1, replicas.length);
  const rank = replicas.indexOf(replica);
  return Math.floor(screens / n) + ((rank < 0 ? n - 1 : rank) < screens % n ? 1 : 0);
}

export interface ScreenLeasesOptions {
  store: PgScreenLeases;
  /** How long a lease lasts without renewal, ms. Default {@link DEFAULT_LEASE_MS}. */
  leaseMs?: number;
  /** A renewal found the share out of balance (screens to claim or to give up): run a round, which balances first. */
  rebalance(): void;
  /** Told the number of screens held after each renewal and balance. */
  onHeld?(count: number): void;
  /** Told about a renewal or release that failed (the database down): the leases lapse unless a later renewal succeeds. */
  onError?(error: unknown): void;
}

/**
 * One replica's side of the leases: a timer renews them (and the registration) every quarter of
 * the lease period; the engine calls {@link ScreenLeases.hold} at the start of each round, so
 * screens are given up and taken only between rounds, never while this replica evaluates them.
 */
export class ScreenLeases {
  /** This process's id among the replicas. */
  readonly replica = `rep_${randomBase62(16)}`;
  readonly leaseMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewing: Promise<void> | undefined;

  constructor(private readonly options: ScreenLeasesOptions) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isInteger(this.leaseMs) || this.leaseMs < 1_000) throw new TypeError("leaseMs must be an integer of at least 1,000 ms");
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.renewing) this.renewing = this.renew().finally(() => (this.renewing = undefined));
    }, Math.floor(this.leaseMs / RENEWALS_PER_LEASE));
    this.timer.unref?.();
  }

  /** Stops renewing and gives up every lease (after the last round: the caller stops rounds first). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
    this.options.onHeld?.(0);
    // The database down: the leases run out by themselves within the period.
    await this.options.store.release(this.replica).catch((error: unknown) => this.options.onError?.(error));
  }

  /** Balances this replica's share among the alerts' screens; resolves to the screens it evaluates this round. */
  async hold(alerts: readonly AlertHead[]): Promise<Set<string>> {
    const keys = new Set(alerts.map(screenKey));
    const current = await this.options.store.balance(this.replica, [...keys], this.leaseMs);
    this.options.onHeld?.(current.held.length);
    return new Set(current.held);
  }

  private async renew(): Promise<void> {
    try {
      const current = await this.options.store.renew(this.replica, this.leaseMs);
      this.options.onHeld?.(current.held.length);
      const target = shareOf(this.replica, current.replicas, current.screens);
      if (current.held.length > target || (current.held.length < target && current.free > 0)) this.options.rebalance();
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}
