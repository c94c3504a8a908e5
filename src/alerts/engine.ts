/**
 * The alert engine of one service process: it evaluates every alert when base bars close and
 * commits the outcome, and it runs the delivery worker and the stream hub.
 *
 * Rounds run when bars are written or close by the clock (`./schedule.ts`). A round reads
 * every alert, evaluates each (market, base timeframe) group once (`./evaluate.ts`), and
 * commits each alert's new bars with their claims and deliveries
 * (`AlertStore.commitEvaluations`), so replicas that evaluate the same bar commit it once.
 */
import type { CompiledQuery } from "../api.js";
import { randomBase62 } from "../accounts/keys.js";
import { type WatchlistStore, resolveWatchlist } from "../accounts/watchlists.js";
import { XqlError, messageOf } from "../errors.js";
import type { HotTier } from "../store/hot-tier.js";
import type { BarStore } from "../store/store.js";
import type { AlertHead, AlertState, AlertStore, BarOutcome, EvaluationCommit, MatchRow } from "./alerts.js";
import { DeliveryWorker, type WorkerLog } from "./deliver.js";
import { type EvaluatedBar, type Screen, baselineOf, evaluateGroup } from "./evaluate.js";
import { CarryStore } from "../eval/carry.js";
import { ScreenLeases, screenKey } from "./leases.js";
import { type AlertObserver, observeCommit } from "./observer.js";
import { RoundScheduler } from "./schedule.js";
import { StreamHub } from "./stream.js";
import { type Resolver, systemResolver } from "./webhook-url.js";
import type { Clock, Sleep } from "../clock.js";

/** Claims and settled deliveries are kept a week (the stream resumes within 24 h). */
const KEEP_MS = 7 * 24 * 3_600_000;

export interface AlertEngineOptions {
  bars: BarStore;
  alerts: AlertStore;
  clock: Clock;
  /** The service's compilation (its markets, ceilings and cost guard); undefined for a query it refuses. */
  compile(query: string): CompiledQuery | undefined;
  /** Bars per source beyond the plan's need, as a run fetches. */
  warmup: number;
  cache?: HotTier;
  /** ms of evaluation between turns of the event loop. Default 10. */
  sliceMs?: number;
  /** Let `http://` and private addresses through as webhooks. */
  allowPrivateWebhooks: boolean;
  /** How webhook host names are resolved (the system resolver by default). */
  resolve?: Resolver;
  /** Per delivery attempt, ms. Default 10,000. */
  deliveryTimeoutMs?: number;
  /** How a delivery attempt waits out its timeout (`DeliveryWorkerOptions.attemptTimeout`): real timers by default. */
  deliveryTimeout?: Sleep;
  /** How often the worker and the stream look for other processes' deliveries, ms. Default 1,000. */
  pollMs?: number;
  /** How long after a write a round starts, ms. Default 100. */
  settleMs?: number;
  /** How the rounds' scheduler waits (`RoundSchedulerOptions.sleep`): real timers by default. */
  roundWait?: Sleep;
  /** How long after a bar's close its round waits for symbols still to write it, ms. Default 5,000. */
  graceMs?: number;
  log?: WorkerLog;
  /** How long a screen's lease lasts without renewal, ms, on a store replicas share (`./leases.ts`). Default 15,000. */
  leaseMs?: number;
  /** Told what the rounds did (`/metrics`). */
  observer?: AlertObserver;
  /** The accounts' saved lists: an alert on `watchlist = "name"` screens its owner's list as it is at each bar. */
  watchlists?: WatchlistStore;
}

/** The webhook body of one delivery, keys in the contract's order. */
export function deliveryBody(alert: Pick<AlertHead, "id" | "name" | "timeframe">, bar: EvaluatedBar, delivery: string): string {
  return JSON.stringify({ alert: { id: alert.id, name: alert.name }, timeframe: alert.timeframe, time: bar.time, events: bar.events, delivery });
}

/** A new delivery id: `dlv_` + 20 base62 characters. */
export function generateDeliveryId(): string {
  return `dlv_${randomBase62(20)}`;
}

export class AlertEngine {
  readonly hub: StreamHub;
  readonly worker: DeliveryWorker;
  private readonly scheduler: RoundScheduler;
  private stopped = true;
  private lastPrune = 0;
  private readonly refused = new Set<string>();
  /**
   * Each alert's state as this engine last read or committed it: a round reads only the alerts'
   * heads and the states that moved elsewhere (another replica, a restart), not every alert's
   * rows each time.
   */
  private readonly states = new Map<string, AlertState>();
  /** Compiled queries of the alerts alive, by text: compiled once, whatever the service's query cache keeps. */
  private readonly compiled = new Map<string, CompiledQuery | undefined>();
  /** The carried passes of each (market, base timeframe) group's screens (eval/carry.ts). */
  private readonly carries = new Map<string, CarryStore>();
  /** On a store replicas share: the screens this process evaluates (decisions §7, 2026-12-05). */
  private readonly leases: ScreenLeases | undefined;

  constructor(private readonly options: AlertEngineOptions) {
    this.hub = new StreamHub({ store: options.alerts, clock: options.clock, pollMs: options.pollMs });
    this.worker = new DeliveryWorker({
      store: options.alerts,
      clock: options.clock,
      allowPrivate: options.allowPrivateWebhooks,
      resolve: options.resolve ?? systemResolver,
      timeoutMs: options.deliveryTimeoutMs,
      attemptTimeout: options.deliveryTimeout,
      pollMs: options.pollMs,
      log: options.log,
      observer: options.observer,
    });
    this.scheduler = new RoundScheduler({
      bars: options.bars,
      clock: options.clock,
      settleMs: options.settleMs,
      sleep: options.roundWait,
      round: () => this.round(),
      onFailure: (error, retryInMs) =>
        options.log?.warn({ err: messageOf(error), retryInMs }, "alerts: evaluation failed; trying again"),
    });
    const shared = options.alerts.leases;
    this.leases = shared && new ScreenLeases({
      store: shared,
      leaseMs: options.leaseMs,
      rebalance: () => void this.scheduler.run(),
      onHeld: (count) => options.observer?.held(count),
      onError: (error) => options.log?.warn({ err: messageOf(error) }, "alerts: renewing or releasing screen leases failed; unrenewed leases run out"),
    });
  }

  /** Starts watching the store, evaluates what closed while nobody watched, and starts delivering. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.scheduler.start();
    this.leases?.start();
    this.worker.start();
  }

  /** Stops evaluating and delivering: waits for the round and the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.hub.close();
    await this.scheduler.stop();
    // After the last round: the other replicas take these screens over at once.
    await this.leases?.stop();
    await this.worker.stop();
  }

  /** The rows matching at the latest closed base bar: a new alert's baseline. */
  baseline(compiled: CompiledQuery): Promise<{ time: number | null; matching: MatchRow[] }> {
    return baselineOf(this.options.bars, compiled, this.options.clock.now(), this.evaluateOptions());
  }

  /** Evaluates now (or once more right after the round in progress); resolves when that round is done. */
  evaluate(): Promise<void> {
    return this.scheduler.run();
  }

  private evaluateOptions() {
    return { warmup: this.options.warmup, cache: this.options.cache, sliceMs: this.options.sliceMs, graceMs: this.options.graceMs };
  }

  /** Every alert, group by group; resolves to the earliest next close. */
  private async round(): Promise<number | undefined> {
    const { alerts, clock } = this.options;
    const now = clock.now();
    const started = performance.now();
    let heads = await alerts.alertHeads();
    if (this.leases) {
      // Only the screens this replica holds; the others' states are read again when it takes them.
      // A screen this replica cannot compile (another's markets or ceilings accepted it) is left
      // to the replicas that can: holding its lease would keep them from evaluating it.
      const held = await this.leases.hold(heads.filter((h) => this.compiledOf(h.query) !== undefined));
      heads = heads.filter((h) => held.has(screenKey(h)));
    } else this.options.observer?.held(new Set(heads.map(screenKey)).size);
    const live = new Set(heads.map((h) => h.id));
    for (const id of this.states.keys()) if (!live.has(id)) this.states.delete(id);
    for (const id of this.refused) if (!live.has(id)) this.refused.delete(id);
    const texts = new Set(heads.map((h) => h.query));
    for (const text of this.compiled.keys()) if (!texts.has(text)) this.compiled.delete(text);
    const stale = heads.filter((h) => this.states.get(h.id)?.lastTime !== h.lastTime).map((h) => h.id);
    for (const [id, state] of await alerts.statesOf(stale)) this.states.set(id, state);
    const groups = new Map<string, AlertHead[]>();
    for (const alert of heads) {
      if (!this.states.has(alert.id)) continue; // deleted between the two reads
      const key = `${alert.market}\u0000${alert.timeframe}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(alert);
    }
    for (const key of this.carries.keys()) if (!groups.has(key)) this.carries.delete(key);
    let nextClose: number | undefined;
    for (const [key, group] of groups) {
      if (this.stopped) return undefined;
      let carry = this.carries.get(key);
      if (!carry) this.carries.set(key, (carry = new CarryStore()));
      const close = await this.evaluateGroup(group, now, carry);
      if (close !== undefined && (nextClose === undefined || close < nextClose)) nextClose = close;
    }
    if (now - this.lastPrune > 3_600_000) {
      this.lastPrune = now;
      await alerts.prune(now - KEEP_MS);
    }
    this.options.observer?.round((performance.now() - started) / 1000);
    return nextClose;
  }

  /** The alert query compiled once (undefined: this service cannot compile it). */
  private compiledOf(query: string): CompiledQuery | undefined {
    if (!this.compiled.has(query)) this.compiled.set(query, this.options.compile(query));
    return this.compiled.get(query);
  }

  /** Evaluates one (market, timeframe) group and commits; resolves to its next close, if any. */
  private async evaluateGroup(group: readonly AlertHead[], now: number, carry: CarryStore): Promise<number | undefined> {
    const screens: Screen[] = [];
    for (const alert of group) {
      const compiled = this.compiledOf(alert.query);
      if (!compiled) {
        // Another replica's configuration (markets, ceilings) accepted it; this one cannot evaluate it.
        if (!this.refused.has(alert.id)) this.options.log?.warn({ alert: alert.id }, "alerts: this service cannot compile the alert's query; skipped");
        this.refused.add(alert.id);
        continue;
      }
      const state = this.states.get(alert.id)!;
      // A watchlist is read as it is now, at this bar: its screen is shared only with alerts over the same list.
      const screen = await resolveWatchlist(compiled, alert.accountId, this.options.watchlists);
      if (screen instanceof XqlError) {
        this.options.log?.warn({ alert: alert.id }, "alerts: the alert's watchlist no longer exists; not evaluated");
        continue;
      }
      const query = screen === compiled ? alert.query : `${alert.query}\n${JSON.stringify(screen.symbols)}`;
      screens.push({ id: alert.id, query, compiled: screen, lastTime: state.lastTime, matching: state.matching });
    }
    const evaluation = await evaluateGroup(this.options.bars, screens, now, { ...this.evaluateOptions(), carry });
    const byId = new Map(group.map((a) => [a.id, a]));
    const commits: EvaluationCommit[] = [];
    for (const [id, bars] of evaluation.bars) {
      if (bars.length === 0) continue;
      const alert = byId.get(id)!;
      const outcomes: BarOutcome[] = bars.map((bar) => {
        if (bar.events.length === 0) return { time: bar.time, matching: bar.matching };
        const delivery = generateDeliveryId();
        return { time: bar.time, matching: bar.matching, delivery: { id: delivery, body: deliveryBody(alert, bar, delivery), events: bar.events.length } };
      });
      commits.push({ alertId: id, previous: this.states.get(id)!.lastTime, bars: outcomes });
    }
    if (commits.length > 0) {
      const committed = await this.options.alerts.commitEvaluations(commits, this.options.clock.now());
      if (this.options.observer) observeCommit(this.options.observer, commits, committed, (id) => byId.get(id)!.query);
      for (const commit of commits) {
        const latest = commit.bars[commit.bars.length - 1]!;
        // Lost to another replica (or deleted): read again next round.
        if (committed.has(commit.alertId)) this.states.set(commit.alertId, { lastTime: latest.time, matching: latest.matching });
        else this.states.delete(commit.alertId);
      }
      if (commits.some((c) => committed.has(c.alertId) && c.bars.some((b) => b.delivery))) {
        this.hub.notify();
        this.worker.wake();
      }
    }
    return evaluation.nextClose;
  }
}
