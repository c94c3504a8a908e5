/**
 * The outbox on both backends. Its claim shares the delivery slots by account (decisions §14):
 * picks go round-robin by account; while another account has deliveries waiting, one account
 * gets no slot beyond its share (4), counting what it has in flight; alone, it may take more but
 * leaves a share free. Its count of an account's deliveries in a seq range is what a stream's
 * bounded replay reports as skipped. SQLite always; PostgreSQL when XQL_TEST_DATABASE_URL is set (the
 * describe's name says it is skipped otherwise).
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AlertStore, DeliveryShares } from "../../src/alerts/alerts.js";
import { openStore, type Store } from "../../src/open/open.js";
import { tempDir, needsPostgres } from "../kit/index.js";
import { freshDatabase } from "../scale/helpers.js";

const SHARES: DeliveryShares = { perAccount: 4, alone: 12 };
const LEASE = 15_000;
const NOW = Date.UTC(2026, 11, 1);
const QUERY = 'market = "CRYPTO"\ntimeframe = h1\nclose > 100';

/** `count` alerts of the account, each with one pending delivery committed at `at`; resolves to their delivery ids in commit order. */
async function pending(alerts: AlertStore, account: string, count: number, at: number): Promise<string[]> {
  const ids: string[] = [];
  const made = (await alerts.listAlerts(account)).length;
  for (let i = made; i < made + count; i++) {
    const id = `alrt_${account}_${i}`;
    expect(await alerts.createAlert({ id, accountId: account, name: id, query: QUERY, webhook: "https://example.com/hook", secret: "whsec_x", market: "CRYPTO", timeframe: "h1", createdAt: at, lastTime: 0, matching: [] }, 1_000)).toBe(true);
    const delivery = `dlv_${account}_${i}`;
    await alerts.commitEvaluations([{ alertId: id, previous: 0, bars: [{ time: 3_600_000, matching: [], delivery: { id: delivery, body: "{}", events: 1 } }] }], at);
    ids.push(delivery);
  }
  return ids;
}

function accountsOf(claimed: { alertId: string }[]): string[] {
  return claimed.map((d) => d.alertId.split("_")[1]!);
}

function claims(name: string, open: () => Promise<Store>): void {
  describe(name, () => {
    it("goes round-robin by account, holds an account to its share while another waits, and lets it use more alone", async () => {
      const store = await open();
      try {
        const { alerts } = store;
        await pending(alerts, "hog", 8, NOW);
        await pending(alerts, "small", 2, NOW);
        // Both waiting: turns alternate, and the hog stops at its share of 4.
        const first = await alerts.claimDeliveries(NOW, LEASE, 16, SHARES);
        expect(accountsOf(first)).toEqual(["hog", "small", "hog", "small", "hog", "hog"]);
        // The small account has nothing left waiting: the hog alone takes the rest of its deliveries.
        const second = await alerts.claimDeliveries(NOW, LEASE, 16, SHARES);
        expect(accountsOf(second)).toEqual(["hog", "hog", "hog", "hog"]);
        // A newcomer's delivery while the hog holds 8: the newcomer gets its slot, the hog none beyond.
        await pending(alerts, "hog", 6, NOW);
        await pending(alerts, "newcomer", 1, NOW);
        expect(accountsOf(await alerts.claimDeliveries(NOW, LEASE, 16, SHARES))).toEqual(["newcomer"]);
        // Alone again (the newcomer's is in flight): the hog fills up to 12, leaving a share free.
        const third = await alerts.claimDeliveries(NOW, LEASE, 16, SHARES);
        expect(accountsOf(third)).toEqual(["hog", "hog", "hog", "hog"]);
        expect(await alerts.claimDeliveries(NOW, LEASE, 16, SHARES)).toEqual([]);
        // Attempts that end give their slots back: the hog's last two go.
        for (const d of [...first, ...second]) await alerts.settleDelivery(d.id, { kind: "delivered", at: NOW });
        expect(accountsOf(await alerts.claimDeliveries(NOW, LEASE, 16, SHARES))).toEqual(["hog", "hog"]);
      } finally {
        await store.close();
      }
    });

    it("counts an account's deliveries in a seq range created since a time", async () => {
      const store = await open();
      try {
        const { alerts } = store;
        await pending(alerts, "mine", 5, NOW);
        await pending(alerts, "theirs", 3, NOW);
        await pending(alerts, "mine", 2, NOW + 1_000);
        const mine = await alerts.deliveriesAfter(["mine"], 0, 0, 100);
        const seqs = mine.map((d) => d.seq);
        expect(await alerts.countDeliveries("mine", 0, await alerts.latestSeq(), 0)).toBe(7);
        expect(await alerts.countDeliveries("mine", seqs[1]!, seqs[5]!, 0)).toBe(4);
        expect(await alerts.countDeliveries("mine", 0, await alerts.latestSeq(), NOW + 1)).toBe(2);
        expect(await alerts.countDeliveries("nobody", 0, await alerts.latestSeq(), 0)).toBe(0);
      } finally {
        await store.close();
      }
    });
  });
}

const { dir, cleanup } = tempDir();
afterAll(cleanup);
let n = 0;
claims("the outbox on SQLite", () => openStore(join(dir, `claims-${n++}.db`)));

const url = process.env.XQL_TEST_DATABASE_URL;
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});
needsPostgres("the outbox on PostgreSQL", () => {
  claims("a fresh database", async () => {
    const fresh = await freshDatabase(url!);
    drops.push(fresh.drop);
    return openStore(fresh.url);
  });
});
