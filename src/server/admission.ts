/**
 * Fair use across accounts (decisions §2 "Fair use"): one admission for every authenticated
 * request, and the event loop's turns shared round-robin by account.
 *
 * The service runs on one thread. What one caller waits for is the work of everyone else
 * that runs before its next step, so fairness is two things:
 * - **admission**: at most `limit` requests of an account are worked on at once and
 *   `queueLimit` wait; beyond that the request is refused at once (429, nothing read, no quota
 *   taken). Requests wait before their body is read, so a queued upload costs nothing. Several
 *   keys of one account are one account.
 * - **turns**: long work (an evaluation, slice by slice) and the start of waiting requests
 *   take turns of the event loop round-robin by account, one turn per loop iteration with
 *   network I/O polled between turns. Five accounts with four heavy runs each and an ordinary
 *   caller get one turn in six each, where first-come order would give the ordinary caller
 *   one turn in twenty-one.
 */
import type { FastifyReply, FastifyRequest } from "fastify";

/** Requests one account may have worked on at once by default; more wait their turn. */
export const DEFAULT_MAX_RUNS_IN_FLIGHT = 4;
/** Requests one account may have waiting by default; more answer 429. */
export const DEFAULT_MAX_RUNS_QUEUED = 100;

/**
 * A turn of the event loop: `setImmediate` in Node (after pending I/O, without a timer's
 * minimum delay), so the network is polled between any two turns.
 */
const nextTurn: (callback: () => void) => void = (callback) => setImmediate(callback);

/** Turns of the event loop handed out one per loop iteration, round-robin by account. */
export class FairTurns {
  /** Accounts with turns waiting, in the order they are served next. */
  private readonly ring: string[] = [];
  private readonly waiting = new Map<string, (() => void)[]>();
  private scheduled = false;

  /** Resolves at this account's next turn; its continuation then runs before any other turn. */
  turn(account: string): Promise<void> {
    return new Promise((resolve) => {
      let queue = this.waiting.get(account);
      if (!queue) {
        this.waiting.set(account, (queue = []));
        this.ring.push(account);
      }
      queue.push(resolve);
      this.schedule();
    });
  }

  /** Turns waiting, over every account. */
  get pending(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    nextTurn(() => this.grant());
  }

  private grant(): void {
    this.scheduled = false;
    const account = this.ring.shift();
    if (account === undefined) return;
    const queue = this.waiting.get(account)!;
    const next = queue.shift()!;
    // The account goes to the back of the ring: every other account waiting is served first.
    if (queue.length > 0) this.ring.push(account);
    else this.waiting.delete(account);
    if (this.ring.length > 0) this.schedule();
    next();
  }
}

/** A request waiting for a slot of its account. */
interface Ticket {
  readonly resolve: (entry: Entry) => void;
  /** queued; handed a slot, starting at its turn; withdrawn while handed; settled. */
  state: "queued" | "handed" | "withdrawn" | "settled";
}

/** How {@link Admission.enter} ended. */
export type Entry = "admitted" | "refused";

/**
 * Slots per account: at most `limit` requests in work, `queueLimit` waiting in order, the rest
 * refused. A slot freed passes to the account's next waiter, woken at a fair turn.
 */
export class Admission {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Ticket[]>();

  constructor(
    readonly limit = DEFAULT_MAX_RUNS_IN_FLIGHT,
    readonly queueLimit = DEFAULT_MAX_RUNS_QUEUED,
    readonly turns = new FairTurns(),
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError("maxRunsInFlight must be a positive integer");
    if (!Number.isInteger(queueLimit) || queueLimit < 0) throw new TypeError("maxRunsQueued must be a non-negative integer");
  }

  /**
   * Takes a slot of the account: at once when one is free, else after waiting in the account's
   * queue; `refused` at once when the queue is full. `onCancel` receives the function that
   * withdraws a waiting request (its client went away): it then ends `refused`.
   */
  enter(account: string, onCancel?: (cancel: () => void) => void): Promise<Entry> {
    const count = this.running.get(account) ?? 0;
    if (count < this.limit) {
      this.running.set(account, count + 1);
      return Promise.resolve("admitted");
    }
    const queue = this.waiting.get(account) ?? [];
    if (queue.length >= this.queueLimit) return Promise.resolve("refused");
    this.waiting.set(account, queue);
    return new Promise<Entry>((resolve) => {
      const ticket: Ticket = { resolve, state: "queued" };
      queue.push(ticket);
      onCancel?.(() => {
        if (ticket.state === "handed") ticket.state = "withdrawn";
        if (ticket.state !== "queued") return;
        ticket.state = "settled";
        queue.splice(queue.indexOf(ticket), 1);
        if (queue.length === 0 && this.waiting.get(account) === queue) this.waiting.delete(account);
        resolve("refused");
      });
    });
  }

  /** Gives the account's slot back: to its next waiter (at a fair turn), or free. */
  leave(account: string): void {
    const queue = this.waiting.get(account);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(account);
    if (next) {
      // The slot passes to the waiter (the count stays); it starts at the account's next turn,
      // never in this call's stack, so a burst of one account cannot run back to back.
      next.state = "handed";
      void this.turns.turn(account).then(() => {
        const withdrawn = next.state === "withdrawn";
        next.state = "settled";
        next.resolve(withdrawn ? "refused" : "admitted");
        if (withdrawn) this.leave(account);
      });
      return;
    }
    const count = (this.running.get(account) ?? 1) - 1;
    if (count <= 0) this.running.delete(account);
    else this.running.set(account, count);
  }

  /** Requests of the account in work. */
  inWork(account: string): number {
    return this.running.get(account) ?? 0;
  }

  /** Requests of the account waiting. */
  queued(account: string): number {
    return this.waiting.get(account)?.length ?? 0;
  }
}

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * A long-lived route (a Server-Sent Events stream): admitted like any request, then it
     * leaves the account's in-flight count at once, so an open stream never holds a slot.
     */
    longLived?: boolean;
  }
}

/** 429 body beyond an account's queue (decisions §2 "Fair use"). */
export const TOO_MANY_REQUESTS = { error: "Too many concurrent requests for this account" } as const;
/** Seconds a refused caller is asked to wait. */
export const ADMISSION_RETRY_AFTER_S = 1;

/**
 * Admits an authenticated request for its account (the authenticator calls it): waits for a
 * slot, answers 429 when the account's queue is full, and gives the slot back when the
 * response is over (sent, failed or its connection closed). A request whose client leaves
 * while it waits leaves the queue. Resolves true when the request goes on.
 */
export async function admitRequest(
  admission: Admission,
  account: string,
  request: FastifyRequest,
  reply: FastifyReply,
  beforeRefusal?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): Promise<boolean> {
  let cancel: (() => void) | undefined;
  let admitted = false;
  let closed = false;
  reply.raw.once("close", () => {
    closed = true;
    if (admitted) admission.leave(account);
    else cancel?.();
  });
  const entry = await admission.enter(account, (withdraw) => (cancel = withdraw));
  if (entry === "refused" || closed) {
    if (entry === "admitted") admission.leave(account);
    if (!closed) {
      await beforeRefusal?.(request, reply);
      await reply.code(429).header("Retry-After", String(ADMISSION_RETRY_AFTER_S)).send(TOO_MANY_REQUESTS);
    }
    return false;
  }
  if (request.routeOptions.config?.longLived === true) {
    admission.leave(account);
    return true;
  }
  admitted = true;
  return true;
}
