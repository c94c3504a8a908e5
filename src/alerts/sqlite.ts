/**
 * Alerts of the embedded store, on the SQLite connection the bars share ({@link SqliteStore}
 * composes it; migration 6 creates the tables). Writes are serialized by SQLite, so an
 * alert's state read inside the write transaction is the state it commits against, and the
 * outbox's AUTOINCREMENT seq follows commit order. Writes never block the event loop on
 * another writer's lock (an import): they poll for it briefly, then reject busy and are tried
 * again later (the engine and the worker both retry; a route answers 503).
 */
import type Database from "better-sqlite3";
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
import { type BusyTimeouts, withoutWaiting } from "../store/sqlite-database.js";

/** Thrown inside one alert's savepoint to undo that alert alone. */
const SKIP_ALERT = Symbol("skip alert");

export class SqliteAlerts implements AlertStore {
  private readonly stmt;

  constructor(
    private readonly db: Database.Database,
    private readonly timeouts: BusyTimeouts,
  ) {
    this.stmt = {
      create: db.prepare(`INSERT INTO alerts (id, account_id, name, query, webhook, secret, market, timeframe, created_at, last_time, matching)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM alerts WHERE account_id = ?) < ?`),
      list: db.prepare(`SELECT ${HEAD_COLUMNS} FROM alerts WHERE account_id = ? ORDER BY created_at, rowid`),
      find: db.prepare(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE account_id = ? AND id = ?`),
      heads: db.prepare(`SELECT ${HEAD_COLUMNS} FROM alerts ORDER BY market, timeframe, created_at`),
      states: db.prepare("SELECT id, last_time, matching FROM alerts WHERE id IN (SELECT value FROM json_each(?))"),
      remove: db.prepare("DELETE FROM alerts WHERE account_id = ? AND id = ?"),
      lastTime: db.prepare("SELECT last_time FROM alerts WHERE id = ?").pluck(),
      claim: db.prepare(
        "INSERT INTO alert_evaluations (alert_id, time, evaluated_at, matched, events) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      ),
      advance: db.prepare("UPDATE alerts SET last_time = ?, matching = ? WHERE id = ?"),
      outbox: db.prepare(`INSERT INTO alert_deliveries (id, alert_id, account_id, time, events, body, status, created_at, next_attempt_at)
        SELECT ?, id, account_id, ?, ?, ?, CASE WHEN webhook IS NULL THEN 'stream' ELSE 'pending' END, ?, ? FROM alerts WHERE id = ?`),
      recent: db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE alert_id = ? ORDER BY seq DESC LIMIT ?`),
      due: db.prepare(dueDeliveriesSql({ now: "@now", limit: "@limit", perAccount: "@perAccount", alone: "@alone" })),
      lease: db.prepare("UPDATE alert_deliveries SET lease_until = ? WHERE id = ? AND status = 'pending'"),
      settle: db.prepare(`UPDATE alert_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, lease_until = 0,
        delivered_at = ?, last_error = ? WHERE id = ? AND status = 'pending'`),
      nextDue: db.prepare(NEXT_DUE_SQL.replace("greatest(", "max(")).pluck(),
      after: db.prepare(`SELECT seq, id, account_id, body FROM alert_deliveries
        WHERE account_id IN (SELECT value FROM json_each(?)) AND seq > ? AND created_at >= ? ORDER BY seq LIMIT ?`),
      count: db.prepare("SELECT count(*) FROM alert_deliveries WHERE account_id = ? AND seq > ? AND seq <= ? AND created_at >= ?").pluck(),
      seqOf: db.prepare("SELECT seq FROM alert_deliveries WHERE account_id = ? AND id = ?").pluck(),
      latestSeq: db.prepare("SELECT coalesce(max(seq), 0) FROM alert_deliveries").pluck(),
      backlog: db.prepare("SELECT count(*) FROM alert_deliveries WHERE status = 'pending'").pluck(),
      pruneClaims: db.prepare("DELETE FROM alert_evaluations WHERE evaluated_at < ?"),
      pruneDeliveries: db.prepare("DELETE FROM alert_deliveries WHERE status <> 'pending' AND created_at < ?"),
    };
  }

  private write<T>(work: () => T): Promise<T> {
    return withoutWaiting(this.db, this.timeouts, work);
  }

  async createAlert(alert: NewAlert, limit: number): Promise<boolean> {
    const { changes } = await this.write(() =>
      this.stmt.create.run(
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
        alert.accountId,
        limit,
      ),
    );
    return changes === 1;
  }

  async listAlerts(accountId: string): Promise<AlertHead[]> {
    return (this.stmt.list.all(accountId) as AlertHeadRow[]).map(alertHead);
  }

  async findAlert(accountId: string, id: string): Promise<AlertRecord | undefined> {
    const row = this.stmt.find.get(accountId, id) as AlertRow | undefined;
    return row && alertRecord(row);
  }

  async deleteAlert(accountId: string, id: string): Promise<boolean> {
    const { changes } = await this.write(() => this.stmt.remove.run(accountId, id));
    return changes === 1;
  }

  async alertHeads(): Promise<AlertHead[]> {
    return (this.stmt.heads.all() as AlertHeadRow[]).map(alertHead);
  }

  async statesOf(ids: readonly string[]): Promise<Map<string, AlertState>> {
    const rows = (ids.length === 0 ? [] : this.stmt.states.all(JSON.stringify(ids))) as { id: string; last_time: number | null; matching: string }[];
    return new Map(rows.map((r) => [r.id, { lastTime: r.last_time, matching: JSON.parse(r.matching) }]));
  }

  async commitEvaluations(commits: readonly EvaluationCommit[], now: number): Promise<Set<string>> {
    const one = this.db.transaction((commit: EvaluationCommit): void => {
      const last = this.stmt.lastTime.get(commit.alertId) as number | null | undefined;
      // Deleted meanwhile, or evaluated by another process first: its outcome is not ours to write.
      if (last === undefined || last !== commit.previous) throw SKIP_ALERT;
      for (const bar of commit.bars) {
        const events = bar.delivery?.events ?? 0;
        if (this.stmt.claim.run(commit.alertId, bar.time, now, bar.matching.length, events).changes !== 1) throw SKIP_ALERT;
        if (bar.delivery) this.stmt.outbox.run(bar.delivery.id, bar.time, events, bar.delivery.body, now, now, commit.alertId);
      }
      const latest = commit.bars[commit.bars.length - 1];
      if (latest) this.stmt.advance.run(latest.time, matchingJson(latest.matching), commit.alertId);
    });
    const all = this.db.transaction((): Set<string> => {
      const committed = new Set<string>();
      for (const commit of commits) {
        try {
          // A nested transaction is a savepoint: a skipped alert undoes its own rows only.
          one(commit);
          committed.add(commit.alertId);
        } catch (error) {
          if (error !== SKIP_ALERT) throw error;
        }
      }
      return committed;
    });
    return this.write(() => all.immediate());
  }

  async recentDeliveries(alertId: string, limit: number): Promise<DeliverySummary[]> {
    return (this.stmt.recent.all(alertId, limit) as DeliveryRow[]).map(deliverySummary);
  }

  async claimDeliveries(now: number, leaseMs: number, limit: number, shares: DeliveryShares): Promise<DueDelivery[]> {
    const claim = this.db.transaction((): DueDelivery[] => {
      const rows = this.stmt.due.all({ now, limit, perAccount: shares.perAccount, alone: shares.alone }) as DueRow[];
      for (const row of rows) this.stmt.lease.run(now + leaseMs, row.id);
      return rows.map(dueDelivery);
    });
    return this.write(() => claim.immediate());
  }

  async settleDelivery(id: string, outcome: DeliveryOutcome): Promise<void> {
    const s = settlement(outcome);
    await this.write(() => this.stmt.settle.run(s.status, s.next, s.deliveredAt, s.error, id));
  }

  async nextDeliveryDue(): Promise<number | undefined> {
    const next = this.stmt.nextDue.get() as number | null;
    return next === null ? undefined : next;
  }

  async deliveriesAfter(accountIds: readonly string[], afterSeq: number, since: number, limit: number): Promise<StreamItem[]> {
    if (accountIds.length === 0) return [];
    const rows = this.stmt.after.all(JSON.stringify(accountIds), afterSeq, since, limit) as { seq: number; id: string; account_id: string; body: string }[];
    return rows.map((r) => ({ seq: r.seq, id: r.id, accountId: r.account_id, body: r.body }));
  }

  async countDeliveries(accountId: string, afterSeq: number, throughSeq: number, since: number): Promise<number> {
    return this.stmt.count.get(accountId, afterSeq, throughSeq, since) as number;
  }

  async seqOf(accountId: string, deliveryId: string): Promise<number | undefined> {
    return this.stmt.seqOf.get(accountId, deliveryId) as number | undefined;
  }

  async latestSeq(): Promise<number> {
    return this.stmt.latestSeq.get() as number;
  }

  async backlog(): Promise<number> {
    return this.stmt.backlog.get() as number;
  }

  async prune(before: number): Promise<void> {
    await this.write(() => {
      this.stmt.pruneClaims.run(before);
      this.stmt.pruneDeliveries.run(before);
    });
  }
}
