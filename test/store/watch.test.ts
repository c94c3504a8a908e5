/**
 * The change feed's ordering (src/store/watch.ts): a store's own commit is told once, as local
 * with what it touched, even when its notification or the version timer sees it first (the
 * PostgreSQL race that made a write look like another process's under load); a version whose
 * write failed is another writer's and is told as remote.
 */
import { describe, expect, it } from "vitest";
import type { DataChange } from "../../src/store/store.js";
import { ChangeFeed } from "../../src/store/watch.js";

function feed(): { feed: ChangeFeed; seen: DataChange[]; stop: () => void } {
  const changes = new ChangeFeed(() => undefined, 60_000);
  const seen: DataChange[] = [];
  const stop = changes.subscribe((change) => seen.push(change));
  return { feed: changes, seen, stop };
}

const touched = [{ market: "FOREX", timeframe: "h1" as const, symbol: "EURUSD", from: Date.UTC(2024, 0, 1) }];

describe("ChangeFeed", () => {
  it("tells an own commit once, as local, when its notification arrives before the commit returns", () => {
    const { feed: f, seen, stop } = feed();
    f.expect(5);
    f.publish(5, "remote");
    expect(seen).toEqual([]);
    f.publish(5, "local", touched);
    f.publish(5, "remote");
    expect(seen).toEqual([{ version: 5, origin: "local", touched }]);
    stop();
  });

  it("tells a version held back for a write that failed as another writer's", () => {
    const { feed: f, seen, stop } = feed();
    f.expect(6);
    f.publish(6, "remote");
    f.abandon(6);
    expect(seen).toEqual([{ version: 6, origin: "remote" }]);
    // Abandoned with nothing seen: the next writer's 7 is told when it comes.
    f.expect(7);
    f.abandon(7);
    expect(seen).toHaveLength(1);
    f.publish(7, "remote");
    expect(seen.at(-1)).toEqual({ version: 7, origin: "remote" });
    stop();
  });

  it("keeps versions increasing: an own commit told after a later one is dropped", () => {
    const { feed: f, seen, stop } = feed();
    f.expect(8);
    f.publish(9, "remote");
    f.publish(8, "local", touched);
    expect(seen).toEqual([{ version: 9, origin: "remote" }]);
    // Nothing is left expected or held: a later 8 from outside stays dropped as old.
    f.publish(8, "remote");
    expect(seen).toHaveLength(1);
    stop();
  });
});
