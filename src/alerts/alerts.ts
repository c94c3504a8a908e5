/**
 * Alerts on bar close (decisions §7): the records an alert keeps, the outbox of its
 * deliveries, and the {@link AlertStore} contract the service, the evaluation engine and the
 * delivery worker depend on. The embedded SQLite store and PostgreSQL implement it on the
 * connection (pool) their bars use (`./sqlite.ts`, `./postgres.ts`), so an evaluation's
 * outcome, its claim and its delivery commit together.
 */
import type { Tier } from "../accounts/accounts.js";
import { randomBase62 } from "../accounts/keys.js";
import type { Timeframe } from "../types.js";
import type { PgScreenLeases } from "./leases.js";

/** Active alerts an account may hold, by tier. */
export const ALERT_LIMITS: Readonly<Record<Tier, number>> = {
  free: 1,
  essential: 20,
  plus: 100,
};

/**
 * A new webhook secret: `whsec_` + 32 base62 characters. They are valid base64 too, so the
 * same secret keys the Standard Webhooks signature (`./sign.ts`).
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

/** One symbol matching at a bar, with the values of the query's columns there (as in run). */
export interface MatchRow {
  /** The instrument, as the store spells it. */
  symbol: string;
  /** Column text as written in the query → its value there (null when not finite). */
  columns: Record<string, number | null>;
}

/** What changed for one symbol at a bar, against the alert's previous evaluated bar. */
export interface AlertEvent {
  /** The instrument that entered or exited. */
  symbol: string;
  /** `enter`: matches now, did not before; `exit`: the reverse. */
  kind: "enter" | "exit";
  /**
   * The columns at this bar for both kinds (decisions §7, 2026-12-05): an exit's are the values
   * with which the symbol stopped matching, not those of its last match.
   */
  columns: Record<string, number | null>;
}

/** An alert as stored, without its secret and the rows it last matched. */
export interface AlertHead {
  /** `alrt_` followed by 16 base62 characters. */
  id: string;
  /** The account that owns it (its keys see it; others get 404). */
  accountId: string;
  /** Shown in deliveries; the query's explanation unless the owner named it. */
  name: string;
  /** The saved query text, as validated at creation. */
  query: string;
  /** Where deliveries are POSTed; null: the stream only. */
  webhook: string | null;
  /** The query's market as planned (its configured spelling): the bars it watches. */
  market: string;
  /** The query's base timeframe: a bar of it closing is what the alert is evaluated on. */
  timeframe: Timeframe;
  /** ms since epoch. */
  createdAt: number;
  /** Open time of the last base bar evaluated (the baseline's at creation); null before any. */
  lastTime: number | null;
}

/** An alert as stored, without its secret. */
export interface AlertRecord extends AlertHead {
  /** The rows matching at `lastTime`, by symbol. */
  matching: MatchRow[];
}

/** Where one alert stands: its last evaluated bar and the rows matching there. */
export interface AlertState {
  /** Open time of the last base bar evaluated; null before any. */
  lastTime: number | null;
  /** The rows matching there, by symbol. */
  matching: MatchRow[];
}

/** A new alert: the record and the secret its webhook deliveries are signed with. */
export interface NewAlert extends AlertRecord {
  /** The key of both webhook signatures (`whsec_` + 32 base62 characters, see `./sign.ts`), shown to the owner once. */
  secret: string;
}

/**
 * Where a delivery is: `pending` until its webhook answers 2xx (`delivered`) or its 24 hours
 * run out (`failed`); `stream` for an alert without a webhook (the stream is its only reader).
 */
export type DeliveryStatus = "pending" | "delivered" | "failed" | "stream";

/** One evaluated bar of one alert, ready to commit. */
export interface BarOutcome {
  /** The base bar's open time. */
  time: number;
  /** The rows matching at `time`: the state the next bar is compared with. */
  matching: MatchRow[];
  /** The delivery of this bar, when it has events: its id and the webhook body, exactly as sent. */
  delivery?: {
    /** `dlv_` + 20 base62 characters: `X-XQL-Delivery`, the same on every retry. */
    id: string;
    /** The webhook body (and the stream event's data), as sent. */
    body: string;
    /** How many enter and exit events it carries. */
    events: number;
  };
}

/**
 * The bars one alert evaluated in one round, in bar order. It commits only if the alert is
 * still at `previous` (no other replica or process evaluated those bars first) and every
 * (alert, bar) claim is new.
 */
export interface EvaluationCommit {
  /** The alert evaluated. */
  alertId: string;
  /** Its last evaluated bar when the evaluation started (null before any): it commits only from there. */
  previous: number | null;
  /** The bars evaluated after `previous`, oldest first. */
  bars: readonly BarOutcome[];
}

/** A delivery as the owner sees it (`GET /xql/alerts/{id}`). */
export interface DeliverySummary {
  /** The delivery id (`X-XQL-Delivery`). */
  id: string;
  /** The base bar's open time, ms. */
  time: number;
  /** Events in the delivery. */
  events: number;
  /** Where it is: pending, delivered, failed, or stream-only. */
  status: DeliveryStatus;
  /** POST attempts made so far. */
  attempts: number;
  /** When the evaluation that made it committed, ms. */
  createdAt: number;
  /** When the webhook answered 2xx; null otherwise. */
  deliveredAt: number | null;
  /** When the next attempt is due, for a pending delivery; null otherwise. */
  nextAttemptAt: number | null;
  /** What the last failed attempt met (`HTTP 500`, `timeout`, ...); null when none failed. */
  lastError: string | null;
}

/** A delivery due for a POST, leased to one worker. */
export interface DueDelivery {
  /** The delivery id, sent as `X-XQL-Delivery`. */
  id: string;
  /** The alert it belongs to. */
  alertId: string;
  /** The URL to POST to, checked again (resolved) before the attempt. */
  webhook: string;
  /** The alert's secret, to sign the attempt with. */
  secret: string;
  /** The body to send, byte for byte the same on every attempt. */
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  /** When it was made, ms: it is tried until 24 h later. */
  createdAt: number;
}

/**
 * How the delivery slots are shared by account (decisions §14), counting the deliveries an
 * account has in flight on every worker.
 */
export interface DeliveryShares {
  /** The most one account holds while another account has deliveries waiting. */
  perAccount: number;
  /** The most one account holds while no other has any waiting (the rest stay free for a newcomer). */
  alone: number;
}

/** What one POST attempt came to. */
export type DeliveryOutcome =
  | {
      /** The webhook answered 2xx in time. */
      kind: "delivered";
      /** When, ms. */
      at: number;
    }
  | {
      /** It failed and is tried again at `next`. */
      kind: "retry";
      /** When the attempt ended, ms. */
      at: number;
      /** When the next attempt is due, ms. */
      next: number;
      /** What it met: `HTTP 500`, `timeout: …`, `connection reset`, `refused: …`. */
      error: string;
    }
  | {
      /** It failed with its 24 hours over: no more attempts. */
      kind: "failed";
      /** When the last attempt ended, ms. */
      at: number;
      /** What the last attempt met. */
      error: string;
    };

/** A delivery as the stream sends it: its id, the account's order, and the webhook body. */
export interface StreamItem {
  /** The delivery id: the event's `id:`. */
  id: string;
  /** Increases with every delivery committed, in commit order, across the whole store. */
  seq: number;
  /** The account it belongs to (a stream sends only its own account's). */
  accountId: string;
  /** The webhook body: the event's `data:`. */
  body: string;
}

/** Alerts, their evaluation claims and the outbox of deliveries. */
export interface AlertStore {
  /**
   * Saves the alert unless its account already holds `limit` alerts, atomically (concurrent
   * creations cannot pass the limit together); resolves false at the limit.
   */
  createAlert(alert: NewAlert, limit: number): Promise<boolean>;
  /** The account's alerts, oldest first. */
  listAlerts(accountId: string): Promise<AlertHead[]>;
  /** The account's alert with this id; another account's is undefined. */
  findAlert(accountId: string, id: string): Promise<AlertRecord | undefined>;
  /** Removes the account's alert with its pending deliveries; false when it has none such. */
  deleteAlert(accountId: string, id: string): Promise<boolean>;
  /** Every alert, for the evaluation engine (without the rows matching: see {@link AlertStore.statesOf}). */
  alertHeads(): Promise<AlertHead[]>;
  /** The state of each alert named that still exists. */
  statesOf(ids: readonly string[]): Promise<Map<string, AlertState>>;
  /**
   * Commits evaluated bars: per alert, in one transaction with the others, its (alert, bar)
   * claims, its new state and its deliveries. An alert no longer at `previous`, deleted, or
   * with a bar already claimed is left out whole. Resolves to the alerts committed.
   */
  commitEvaluations(commits: readonly EvaluationCommit[], now: number): Promise<Set<string>>;
  /** The alert's latest deliveries, newest first. */
  recentDeliveries(alertId: string, limit: number): Promise<DeliverySummary[]>;
  /**
   * Leases up to `limit` deliveries due at `now` for `leaseMs`: for each alert only its oldest
   * pending delivery (bar order), and only one not leased by another worker; round-robin by
   * account, within each account's share of the slots ({@link DeliveryShares}).
   */
  claimDeliveries(now: number, leaseMs: number, limit: number, shares: DeliveryShares): Promise<DueDelivery[]>;
  /** Records an attempt's outcome and ends the lease. */
  settleDelivery(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** When the next pending delivery is due (ms), or undefined when none is pending. */
  nextDeliveryDue(): Promise<number | undefined>;
  /** Deliveries of these accounts committed after `afterSeq`, created at or after `since`, in order. */
  deliveriesAfter(accountIds: readonly string[], afterSeq: number, since: number, limit: number): Promise<StreamItem[]>;
  /** How many deliveries of the account have a seq in (`afterSeq`, `throughSeq`] and were created at or after `since`. */
  countDeliveries(accountId: string, afterSeq: number, throughSeq: number, since: number): Promise<number>;
  /** The seq of the account's delivery with this id, or undefined (another account's, or unknown). */
  seqOf(accountId: string, deliveryId: string): Promise<number | undefined>;
  /** The highest seq committed so far (0 for none). */
  latestSeq(): Promise<number>;
  /** Forgets claims and settled deliveries older than `before` (ms). */
  prune(before: number): Promise<void>;
  /** Deliveries still waiting for their webhook (status pending): the outbox's backlog, for `/metrics`. */
  backlog(): Promise<number>;
  /**
   * Screen leases, on a store several replicas share (PostgreSQL): each replica evaluates the
   * screens it holds (`./leases.ts`). Absent on a store one process owns: it evaluates them all.
   */
  readonly leases?: PgScreenLeases;
}

/** Tells whether a value is a store that holds alerts (the built-in stores do). */
export function hasAlerts(store: unknown): store is { alerts: AlertStore } {
  return typeof store === "object" && store !== null && typeof (store as { alerts?: { createAlert?: unknown } }).alerts?.createAlert === "function";
}
