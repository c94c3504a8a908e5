/** Rows of the alert tables as both SQL stores select them, and the records they make. */
import type { AlertHead, AlertRecord, DeliveryOutcome, DeliveryStatus, DeliverySummary, DueDelivery, MatchRow } from "./alerts.js";
import type { Timeframe } from "../types.js";
import { assertNever } from "../errors.js";

/** The columns of an {@link AlertHeadRow}, for both backends' SELECTs. */
export const HEAD_COLUMNS = "id, account_id, name, query, webhook, market, timeframe, created_at, last_time";
/** The columns of an {@link AlertRow}. */
export const ALERT_COLUMNS = `${HEAD_COLUMNS}, matching`;

export interface AlertHeadRow {
  id: string;
  account_id: string;
  name: string;
  query: string;
  webhook: string | null;
  market: string;
  timeframe: Timeframe;
  created_at: number;
  last_time: number | null;
}

export interface AlertRow extends AlertHeadRow {
  matching: string;
}

export function alertHead(row: AlertHeadRow): AlertHead {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    query: row.query,
    webhook: row.webhook,
    market: row.market,
    timeframe: row.timeframe,
    createdAt: Number(row.created_at),
    lastTime: row.last_time === null ? null : Number(row.last_time),
  };
}

export function alertRecord(row: AlertRow): AlertRecord {
  return { ...alertHead(row), matching: JSON.parse(row.matching) as MatchRow[] };
}

const serialized = new WeakMap<readonly MatchRow[], string>();

/**
 * The rows as stored (JSON). Alerts with the same query at the same bar share one list of rows
 * (`evaluateGroup` shares the pass), so each list is serialized once.
 */
export function matchingJson(rows: readonly MatchRow[]): string {
  let json = serialized.get(rows);
  if (json === undefined) serialized.set(rows, (json = JSON.stringify(rows)));
  return json;
}

/** The columns of a {@link DeliveryRow}. */
export const DELIVERY_COLUMNS = "id, time, events, status, attempts, created_at, delivered_at, next_attempt_at, last_error";

export interface DeliveryRow {
  id: string;
  time: number;
  events: number;
  status: DeliveryStatus;
  attempts: number;
  created_at: number;
  delivered_at: number | null;
  next_attempt_at: number;
  last_error: string | null;
}

export function deliverySummary(row: DeliveryRow): DeliverySummary {
  return {
    id: row.id,
    time: Number(row.time),
    events: row.events,
    status: row.status,
    attempts: row.attempts,
    createdAt: Number(row.created_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
    nextAttemptAt: row.status === "pending" ? Number(row.next_attempt_at) : null,
    lastError: row.last_error,
  };
}

/**
 * The pending deliveries a worker may send now: each alert's oldest pending one (bar order),
 * due and not leased, shared among accounts (decisions §14). An account's turn at the slots is
 * counted from the deliveries it has in flight (leased, on any worker) plus its place among its
 * own due ones: the picks go round-robin by account, and while another account has deliveries
 * waiting, no account gets a slot beyond `perAccount`; alone, up to `alone`. So one account's
 * hanging receivers hold only its own share, and another's delivery takes a free slot at once.
 * `@name`/`$n` placeholders are the caller's.
 */
export function dueDeliveriesSql(p: { now: string; limit: string; perAccount: string; alone: string }): string {
  return `WITH due AS (
      SELECT d.id, d.account_id, d.next_attempt_at, d.seq,
        row_number() OVER (PARTITION BY d.account_id ORDER BY d.next_attempt_at, d.seq) AS turn
      FROM alert_deliveries d JOIN alerts a ON a.id = d.alert_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${p.now} AND d.lease_until <= ${p.now} AND a.webhook IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM alert_deliveries e WHERE e.alert_id = d.alert_id AND e.status = 'pending' AND e.time < d.time)
    ), held AS (
      SELECT account_id, count(*) AS n FROM alert_deliveries WHERE status = 'pending' AND lease_until > ${p.now} GROUP BY account_id
    ), picked AS (
      SELECT due.id, coalesce(held.n, 0) + due.turn AS slot, due.next_attempt_at, due.seq
      FROM due LEFT JOIN held ON held.account_id = due.account_id
      WHERE coalesce(held.n, 0) + due.turn <= CASE WHEN EXISTS (SELECT 1 FROM due o WHERE o.account_id <> due.account_id) THEN ${p.perAccount} ELSE ${p.alone} END
      ORDER BY slot, due.next_attempt_at, due.seq
      LIMIT ${p.limit}
    )
    SELECT d.id, d.alert_id, a.webhook, a.secret, d.body, d.attempts, d.created_at
    FROM picked JOIN alert_deliveries d ON d.id = picked.id JOIN alerts a ON a.id = d.alert_id
    WHERE d.status = 'pending' AND d.lease_until <= ${p.now}
    ORDER BY picked.slot, picked.next_attempt_at, picked.seq`;
}

/** A row of {@link dueDeliveriesSql}. */
export interface DueRow {
  id: string;
  alert_id: string;
  webhook: string;
  secret: string;
  body: string;
  attempts: number;
  created_at: number;
}

export function dueDelivery(row: DueRow): DueDelivery {
  return {
    id: row.id,
    alertId: row.alert_id,
    webhook: row.webhook,
    secret: row.secret,
    body: row.body,
    attempts: row.attempts,
    createdAt: Number(row.created_at),
  };
}

/**
 * When the next delivery may be sent: the earliest due time (or lease end) among each alert's
 * oldest pending delivery; the later ones wait for it (bar order), so they cannot be due sooner.
 */
export const NEXT_DUE_SQL = `SELECT min(greatest(d.next_attempt_at, d.lease_until)) AS next FROM alert_deliveries d
  WHERE d.status = 'pending'
    AND NOT EXISTS (SELECT 1 FROM alert_deliveries e WHERE e.alert_id = d.alert_id AND e.status = 'pending' AND e.time < d.time)`;

/** The column values an attempt's outcome sets: status, next attempt, delivered time, error. */
export function settlement(outcome: DeliveryOutcome): { status: DeliveryStatus; next: number; deliveredAt: number | null; error: string | null } {
  switch (outcome.kind) {
    case "delivered":
      return { status: "delivered", next: outcome.at, deliveredAt: outcome.at, error: null };
    case "retry":
      return { status: "pending", next: outcome.next, deliveredAt: null, error: outcome.error };
    case "failed":
      return { status: "failed", next: outcome.at, deliveredAt: null, error: outcome.error };
    default:
      return assertNever(outcome, "delivery outcome");
  }
}
