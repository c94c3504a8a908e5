/**
 * What the alert engine tells an observer (`/metrics`, src/server/metrics.ts) about its rounds,
 * in the words of decisions §10.
 */
import type { EvaluationCommit } from "./alerts.js";

export interface AlertObserver {
  /** A round took this long, in seconds. */
  round(seconds: number): void;
  /** This process evaluated and committed this many distinct (screen, bar) pairs. */
  screens(count: number): void;
  /** This process evaluated this many (screen, bar) pairs that another process had committed first (duplicated work). */
  discarded(count: number): void;
  /** This process committed this many (alert, bar) evaluations. */
  committed(count: number): void;
  /** This process now holds this many screens by lease. */
  held(count: number): void;
  /** This process settled a delivery attempt: delivered, to be retried, or failed for good. */
  delivery(outcome: "delivered" | "retried" | "failed"): void;
}

/**
 * Tells the observer what one commit did. A (screen, bar) counts as evaluated here when one of
 * its alerts committed it here, so the counts of all replicas add up to screens × bars even when
 * a replica is killed between evaluating and committing; one lost to another process counts as
 * discarded.
 */
export function observeCommit(
  observer: AlertObserver,
  commits: readonly EvaluationCommit[],
  committed: ReadonlySet<string>,
  queryOf: (alertId: string) => string,
): void {
  const mine = new Set<string>();
  const lost = new Set<string>();
  let evaluations = 0;
  for (const commit of commits) {
    const won = committed.has(commit.alertId);
    if (won) evaluations += commit.bars.length;
    const query = queryOf(commit.alertId);
    for (const bar of commit.bars) (won ? mine : lost).add(`${bar.time}\n${query}`);
  }
  for (const key of mine) lost.delete(key);
  observer.committed(evaluations);
  observer.screens(mine.size);
  if (lost.size > 0) observer.discarded(lost.size);
}
