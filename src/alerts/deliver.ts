/**
 * The delivery worker (decisions §7): it sends the outbox's pending deliveries as signed POSTs.
 * A 2xx within the timeout (10 s) is delivered; anything else — another status, a redirect
 * (never followed), a reset, a timeout, an address that is no longer public — is tried again
 * 1 s later, then 2 s, 4 s, ... at most 1 h apart, until 24 h after the delivery was made,
 * then it is marked failed. Each alert's deliveries go in bar order: a later one waits for the
 * earlier one to be delivered or to fail. Deliveries are rows leased for one attempt, so
 * several workers (replicas) share the outbox and a worker killed mid-attempt leaves a lease
 * that runs out and is taken again: at least once, with the same `X-XQL-Delivery` every time.
 * The slots (16 attempts at once) are shared by account (decisions §14): while another account
 * has deliveries waiting, one account holds at most 4, taken round-robin, so hanging or slow
 * receivers delay only their owner's deliveries. A receiver that answers after the timeout has
 * failed: the request was cut at 10 s, and the delivery is tried again after its backoff.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { VERSION } from "../version.js";
import type { AlertStore, DeliveryOutcome, DeliveryShares, DueDelivery } from "./alerts.js";
import { signedHeaders } from "./sign.js";
import { type ResolvedAddress, type Resolver, checkedAddresses, hostOf, parseWebhookUrl } from "./webhook-url.js";
import type { AlertObserver } from "./observer.js";
import { type Clock, type Sleep, systemSleep } from "../clock.js";
import { XqlDataError, messageOf } from "../errors.js";

/** 10 s: a webhook that has not answered by then is tried again. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** 24 h: how long a delivery is tried before it is marked failed. */
export const RETRY_FOR_MS = 24 * 3_600_000;
/** 1 h: the longest wait between two attempts. */
export const MAX_BACKOFF_MS = 3_600_000;
/** 1 s: the wait after the first failed attempt (doubling after each). */
export const FIRST_BACKOFF_MS = 1_000;
/** Deliveries a worker sends at once: its slots. */
export const DELIVERY_SLOTS = 16;
/** The slots one account holds while another account has deliveries waiting (decisions §14). */
export const SLOTS_PER_ACCOUNT = 4;

/** The wait after the `attempt`-th failed attempt (1-based): 1 s doubling, at most 1 h. */
export function backoffAfter(attempt: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(attempt - 1, 30), MAX_BACKOFF_MS);
}

/** Where the worker logs (Fastify's logger fits); never a secret, a body or a webhook URL. */
export interface WorkerLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface DeliveryWorkerOptions {
  store: AlertStore;
  clock: Clock;
  /** Let `http://` and private, loopback and link-local addresses through (local setups). */
  allowPrivate: boolean;
  resolve: Resolver;
  /** Per attempt, ms. Default 10,000. */
  timeoutMs?: number;
  /**
   * How an attempt waits out its timeout: real timers by default. A test gives one it fires by
   * hand, so a receiver that never answers times out when the test says, and one that answers
   * late but in time is never raced by a timer.
   */
  attemptTimeout?: Sleep;
  /** Deliveries sent at once. Default 16. */
  concurrency?: number;
  /** Of those, what one account holds while another has deliveries waiting. Default 4. */
  perAccount?: number;
  /** How often to look for deliveries other processes committed, ms. Default 1,000. */
  pollMs?: number;
  log?: WorkerLog;
  /** Told each attempt's outcome once it is recorded (`/metrics`). */
  observer?: Pick<AlertObserver, "delivery">;
}

export class DeliveryWorker {
  private running = false;
  private inFlight = new Set<Promise<void>>();
  /** Deliveries this worker is sending: never sent twice at once, even if a lease ran out meanwhile. */
  private readonly sending = new Set<string>();
  private wakeUp: (() => void) | undefined;
  /** A wake that came while the worker was not asleep (claiming, reading): the next sleep is skipped. */
  private woken = false;
  private loop: Promise<void> | undefined;
  private readonly timeoutMs: number;
  private readonly attemptTimeout: Sleep;
  private readonly concurrency: number;
  private readonly shares: DeliveryShares;
  private readonly pollMs: number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.attemptTimeout = options.attemptTimeout ?? systemSleep;
    this.concurrency = options.concurrency ?? DELIVERY_SLOTS;
    const perAccount = Math.min(options.perAccount ?? SLOTS_PER_ACCOUNT, this.concurrency);
    // Alone, an account leaves one share free, so another account's delivery starts at once even
    // when the first one's receivers hang (an attempt in flight is never cut short).
    this.shares = { perAccount, alone: Math.max(perAccount, this.concurrency - perAccount) };
    this.pollMs = options.pollMs ?? 1_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.work();
  }

  /** Looks for due deliveries now (one was just committed, or an attempt ended). */
  wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    if (wake) wake();
    else this.woken = true;
  }

  /** Stops taking deliveries and waits for the attempts in flight to be settled. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async work(): Promise<void> {
    let failures = 0;
    while (this.running) {
      const room = this.concurrency - this.inFlight.size;
      // What a wake announced before this point, the claim below sees.
      this.woken = false;
      let claimed: DueDelivery[] = [];
      if (room > 0) {
        try {
          // A lease outlives an attempt: another worker takes the delivery only once this one is surely done.
          claimed = await this.options.store.claimDeliveries(this.options.clock.now(), this.timeoutMs + 5_000, room, this.shares);
          failures = 0;
        } catch (error) {
          failures++;
          this.options.log?.warn({ err: messageOf(error) }, "alert deliveries: the outbox could not be read");
          await this.sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
          continue;
        }
      }
      for (const delivery of claimed) {
        if (this.sending.has(delivery.id)) continue;
        this.sending.add(delivery.id);
        const attempt = this.attempt(delivery).finally(() => {
          this.sending.delete(delivery.id);
          this.inFlight.delete(attempt);
          this.wake();
        });
        this.inFlight.add(attempt);
      }
      // A claim may have left an account no longer waiting, which frees another's share: look again.
      if (room > 0 && claimed.length > 0) continue;
      let delay = this.pollMs;
      try {
        const next = await this.options.store.nextDeliveryDue();
        // Due already but not claimed: held back by its account's share until one of its attempts ends.
        if (next !== undefined && next > this.options.clock.now()) delay = Math.min(delay, Math.max(25, next - this.options.clock.now()));
      } catch {
        // Looked at again after the poll interval.
      }
      // Full, or nothing due yet: wait for an attempt to end, a commit, the next due time or the poll.
      await this.sleep(room > 0 ? delay : this.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const failure = await this.post(delivery);
    const at = this.options.clock.now();
    let outcome: DeliveryOutcome;
    if (failure === undefined) outcome = { kind: "delivered", at };
    else {
      const deadline = delivery.createdAt + RETRY_FOR_MS;
      outcome = at >= deadline ? { kind: "failed", at, error: failure } : { kind: "retry", at, next: Math.min(at + backoffAfter(delivery.attempts + 1), deadline), error: failure };
      this.options.log?.warn({ delivery: delivery.id, alert: delivery.alertId, attempt: delivery.attempts + 1, error: failure }, outcome.kind === "failed" ? "alert delivery failed" : "alert delivery will be retried");
    }
    try {
      await this.options.store.settleDelivery(delivery.id, outcome);
      this.options.observer?.delivery(outcome.kind === "retry" ? "retried" : outcome.kind);
    } catch (error) {
      // The lease runs out and the delivery is tried again: at least once, never lost.
      this.options.log?.error({ delivery: delivery.id, err: messageOf(error) }, "alert delivery: its outcome could not be recorded");
    }
  }

  /** One signed POST; resolves to undefined when delivered, else to what went wrong. */
  private async post(delivery: DueDelivery): Promise<string | undefined> {
    const url = parseWebhookUrl(delivery.webhook, this.options.allowPrivate);
    if (!url) return "refused: the webhook is not https:// to a public address";
    let addresses: ResolvedAddress[] | undefined;
    try {
      addresses = await checkedAddresses(url, this.options.allowPrivate, this.options.resolve);
    } catch (error) {
      // A resolver's failure says it by its errno code (ENOTFOUND); a name without addresses by our message.
      return `DNS: ${error instanceof XqlDataError ? error.message : ((error as { code?: string }).code ?? messageOf(error))}`;
    }
    if (!addresses) return `refused: ${hostOf(url)} resolves to an address that is not public`;
    const timestamp = Math.floor(this.options.clock.now() / 1000);
    const body = Buffer.from(delivery.body, "utf8");
    const headers = {
      "content-type": "application/json",
      "content-length": String(body.length),
      "user-agent": `xql-webhooks/${VERSION}`,
      ...signedHeaders(delivery.secret, delivery.id, timestamp, body),
    };
    // The connection goes to the address just checked, not to a second resolution.
    const pinned = addresses;
    const lookup: LookupFunction = (_hostname, options, callback) => {
      const first = pinned[0]!;
      if ((options as { all?: boolean }).all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, pinned);
      else callback(null, first.address, first.family);
    };
    const client = url.protocol === "https:" ? https : http;
    return new Promise<string | undefined>((resolve) => {
      let settled = false;
      // Aborted once the attempt is settled: its timeout is waited out no longer.
      const answered = new AbortController();
      const done = (result: string | undefined): void => {
        if (settled) return;
        settled = true;
        answered.abort();
        resolve(result);
      };
      const request = client.request(url, { method: "POST", headers, lookup, agent: false }, (response) => {
        const status = response.statusCode ?? 0;
        // The body is not needed: drained and dropped, the socket closed once it ends.
        response.resume();
        response.on("error", () => undefined);
        if (status >= 200 && status < 300) done(undefined);
        else done(status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`);
        // A receiver that answers and then trickles a body is not waited for.
        setTimeout(() => request.destroy(), 1_000).unref();
      });
      void this.attemptTimeout(this.timeoutMs, answered.signal).then(() => {
        if (settled) return;
        done(`timeout: no answer within ${Math.round(this.timeoutMs / 100) / 10} s`);
        request.destroy();
      });
      request.on("error", (error) => done(networkProblem(error)));
      request.end(body);
    });
  }
}

function networkProblem(error: Error): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ECONNRESET":
      return "connection reset";
    case "ECONNREFUSED":
      return "connection refused";
    case "EPIPE":
      return "connection closed while sending";
    case undefined:
      return error.message;
    default:
      return `${code}${error.message && !error.message.includes(code) ? `: ${error.message}` : ""}`;
  }
}
