/**
 * Alerts on PostgreSQL, on the pool the bars share ({@link PostgresStore} composes it and
 * migrates the schema first). Several replicas evaluate and deliver against the same rows:
 * - an evaluation commits under `SELECT … FOR UPDATE` of its alerts, with its (alert, bar)
 *   claims inserted `ON CONFLICT DO NOTHING`, so each (alert, bar) is committed once;
 * - deliveries are leased with `FOR UPDATE SKIP LOCKED`, so two workers never send the same
 *   delivery at once;
 * - outbox rows take their seq under a transaction-scoped advisory lock, so seq follows commit
 *   order and the stream's cursor never skips a delivery committed late.
 */
import type pg from "pg";
import type {
  AlertHead,
  AlertRecord,
  AlertState,
  AlertStore,
  DeliveryOutcome,
  DeliveryShares,
  DeliverySummary,
  DueDelivery,
  EvaluationCommit,
  NewAlert,
  StreamItem,
} from "./alerts.js";
import {
  ALERT_COLUMNS,
  DELIVERY_COLUMNS,
  HEAD_COLUMNS,
  NEXT_DUE_SQL,
  alertHead,
  alertRecord,
  deliverySummary,
  dueDeliveriesSql,
  dueDelivery,
  matchingJson,
  settlement,
  type AlertHeadRow,
  type AlertRow,
  type DeliveryRow,
  type DueRow,
} from "./records.js";
import { PgScreenLeases } from "./leases.js";

/** How the alerts reach the database: a statement, or a transaction on one pooled client. */
export interface PgAlertQueries {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

/** Advisory lock key held while outbox rows are inserted ("xql" in ASCII, then 6: migration 6's tables). */
const OUTBOX_LOCK = 0x78716c06;
/** First half of the advisory lock held while one account creates an alert (the second: its id hashed). */
const ACCOUNT_LOCK = 0x78716c07;

export class PostgresAlerts implements AlertStore {
  /** Replicas on this database share the screens by lease. */
  readonly leases: PgScreenLeases;

  constructor(private readonly db: PgAlertQueries) {
    this.leases = new PgScreenLeases(db);
  }

  async createAlert(alert: NewAlert, limit: number): Promise<boolean> {
    return this.db.transaction(async (client) => {
      // Concurrent creations of one account queue on this lock, so the count below is the truth.
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [ACCOUNT_LOCK, alert.accountId]);
      const { rowCount } = await client.query(
        `INSERT INTO alerts (id, account_id, name, query, webhook, secret, market, timeframe, created_at, last_time, matching)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE (SELECT count(*) FROM alerts WHERE account_id = $2) < $12`,
        [
          alert.id,
          alert.accountId,
          alert.name,
          alert.query,
          alert.webhook,
          alert.secret,
          alert.market,
          alert.timeframe,
          alert.createdAt,
          alert.lastTime,
          matchingJson(alert.matching),
          limit,
        ],
      );
      return rowCount === 1;
    });
  }

  async listAlerts(accountId: string): Promise<AlertHead[]> {
    const { rows } = await this.db.query<AlertHeadRow>(`SELECT ${HEAD_COLUMNS} FROM alerts WHERE account_id = $1 ORDER BY created_at, id`, [accountId]);
    return rows.map(alertHead);
  }

  async findAlert(accountId: string, id: string): Promise<AlertRecord | undefined> {
    const { rows } = await this.db.query<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows[0] && alertRecord(rows[0]);
  }

  async deleteAlert(accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.query("DELETE FROM alerts WHERE account_id = $1 AND id = $2", [accountId, id]);
    return rowCount === 1;
  }

  async alertHeads(): Promise<AlertHead[]> {
    const { rows } = await this.db.query<AlertHeadRow>(`SELECT ${HEAD_COLUMNS} FROM alerts ORDER BY market, timeframe, created_at`);
    return rows.map(alertHead);
  }

  async statesOf(ids: readonly string[]): Promise<Map<string, AlertState>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.query<{ id: string; last_time: number | null; matching: string }>(
      "SELECT id, last_time, matching FROM alerts WHERE id = ANY($1::text[])",
      [ids],
    );
    return new Map(rows.map((r) => [r.id, { lastTime: r.last_time === null ? null : Number(r.last_time), matching: JSON.parse(r.matching) }]));
  }

  async commitEvaluations(commits: readonly EvaluationCommit[], now: number): Promise<Set<string>> {
    if (commits.length === 0) return new Set();
    return this.db.transaction(async (client) => {
      if (commits.some((c) => c.bars.some((b) => b.delivery))) await client.query("SELECT pg_advisory_xact_lock($1)", [OUTBOX_LOCK]);
      const { rows } = await client.query<{ id: string; last_time: number | null }>(
        "SELECT id, last_time FROM alerts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
        [commits.map((c) => c.alertId)],
      );
      const state = new Map(rows.map((r) => [r.id, r.last_time === null ? null : Number(r.last_time)]));
      const committed = new Set<string>();
      for (const commit of commits) {
        const last = state.get(commit.alertId);
        // Deleted meanwhile, or evaluated by another replica first: its outcome is not ours to write.
        if (last === undefined || last !== commit.previous || commit.bars.length === 0) continue;
        await client.query("SAVEPOINT alert");
        const claimed = await client.query(
          `INSERT INTO alert_evaluations (alert_id, time, evaluated_at, matched, events)
           SELECT $1, u.time, $2, u.matched, u.events FROM unnest($3::bigint[], $4::int[], $5::int[]) AS u(time, matched, events)
           ON CONFLICT DO NOTHING`,
          [commit.alertId, now, commit.bars.map((b) => b.time), commit.bars.map((b) => b.matching.length), commit.bars.map((b) => b.delivery?.events ?? 0)],
        );
        if (claimed.rowCount !== commit.bars.length) {
          await client.query("ROLLBACK TO SAVEPOINT alert");
          continue;
        }
        const delivered = commit.bars.filter((b) => b.delivery);
        if (delivered.length > 0) {
          // unnest keeps the array order, and seq is taken in insertion order: bar order.
          await client.query(
            `INSERT INTO alert_deliveries (id, alert_id, account_id, time, events, body, status, created_at, next_attempt_at)
             SELECT u.id, a.id, a.account_id, u.time, u.events, u.body, CASE WHEN a.webhook IS NULL THEN 'stream' ELSE 'pending' END, $2, $2
             FROM alerts a, unnest($3::text[], $4::bigint[], $5::int[], $6::text[]) WITH ORDINALITY AS u(id, time, events, body, n)
             WHERE a.id = $1 ORDER BY u.n`,
            [
              commit.alertId,
              now,
              delivered.map((b) => b.delivery!.id),
              delivered.map((b) => b.time),
              delivered.map((b) => b.delivery!.events),
              delivered.map((b) => b.delivery!.body),
            ],
          );
        }
        const latest = commit.bars[commit.bars.length - 1]!;
        await client.query("UPDATE alerts SET last_time = $1, matching = $2 WHERE id = $3", [latest.time, matchingJson(latest.matching), commit.alertId]);
        await client.query("RELEASE SAVEPOINT alert");
        committed.add(commit.alertId);
      }
      return committed;
    });
  }

  async recentDeliveries(alertId: string, limit: number): Promise<DeliverySummary[]> {
    const { rows } = await this.db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE alert_id = $1 ORDER BY seq DESC LIMIT $2`, [
      alertId,
      limit,
    ]);
    return rows.map(deliverySummary);
  }

  async claimDeliveries(now: number, leaseMs: number, limit: number, shares: DeliveryShares): Promise<DueDelivery[]> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<DueRow>(`${dueDeliveriesSql({ now: "$1::bigint", limit: "$2::int", perAccount: "$3::int", alone: "$4::int" })} FOR UPDATE OF d SKIP LOCKED`, [
        now,
        limit,
        shares.perAccount,
        shares.alone,
      ]);
      if (rows.length > 0) {
        await client.query("UPDATE alert_deliveries SET lease_until = $1 WHERE id = ANY($2::text[])", [now + leaseMs, rows.map((r) => r.id)]);
      }
      return rows.map(dueDelivery);
    });
  }

  async settleDelivery(id: string, outcome: DeliveryOutcome): Promise<void> {
    const s = settlement(outcome);
    await this.db.query(
      `UPDATE alert_deliveries SET status = $1, attempts = attempts + 1, next_attempt_at = $2, lease_until = 0, delivered_at = $3, last_error = $4
       WHERE id = $5 AND status = 'pending'`,
      [s.status, s.next, s.deliveredAt, s.error, id],
    );
  }

  async nextDeliveryDue(): Promise<number | undefined> {
    const { rows } = await this.db.query<{ next: number | null }>(
      NEXT_DUE_SQL,
    );
    const next = rows[0]?.next;
    return next === null || next === undefined ? undefined : Number(next);
  }

  async deliveriesAfter(accountIds: readonly string[], afterSeq: number, since: number, limit: number): Promise<StreamItem[]> {
    if (accountIds.length === 0) return [];
    const { rows } = await this.db.query<{ seq: number; id: string; account_id: string; body: string }>(
      `SELECT seq, id, account_id, body FROM alert_deliveries
       WHERE account_id = ANY($1::text[]) AND seq > $2 AND created_at >= $3 ORDER BY seq LIMIT $4`,
      [accountIds, afterSeq, since, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), id: r.id, accountId: r.account_id, body: r.body }));
  }

  async countDeliveries(accountId: string, afterSeq: number, throughSeq: number, since: number): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM alert_deliveries WHERE account_id = $1 AND seq > $2 AND seq <= $3 AND created_at >= $4",
      [accountId, afterSeq, throughSeq, since],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async seqOf(accountId: string, deliveryId: string): Promise<number | undefined> {
    const { rows } = await this.db.query<{ seq: number }>("SELECT seq FROM alert_deliveries WHERE account_id = $1 AND id = $2", [accountId, deliveryId]);
    return rows[0] === undefined ? undefined : Number(rows[0].seq);
  }

  async latestSeq(): Promise<number> {
    const { rows } = await this.db.query<{ seq: number }>("SELECT coalesce(max(seq), 0) AS seq FROM alert_deliveries");
    return Number(rows[0]?.seq ?? 0);
  }

  async backlog(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>("SELECT count(*)::int AS n FROM alert_deliveries WHERE status = 'pending'");
    return rows[0]?.n ?? 0;
  }

  async prune(before: number): Promise<void> {
    await this.db.query("DELETE FROM alert_evaluations WHERE evaluated_at < $1", [before]);
    await this.db.query("DELETE FROM alert_deliveries WHERE status <> 'pending' AND created_at < $1", [before]);
  }
}
