/** The store contract on SQLite always, and on PostgreSQL when XQL_TEST_DATABASE_URL is set (CI starts it). */
import { afterAll } from "vitest";
import { join } from "node:path";
import { openStore, type Store } from "../../src/open/open.js";
import { freshDatabase } from "../scale/helpers.js";
import { DATABASE_URL, needsPostgres, tempDir } from "../kit/index.js";
import { storeContract } from "./store-contract.js";

const { dir, cleanup } = tempDir();
let n = 0;
afterAll(cleanup);
storeContract(
  "SQLite",
  () => openStore(join(dir, `contract-${n++}.db`)),
  (store) => openStore(store.file),
);

needsPostgres("the store contract on PostgreSQL", () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });
  // The URL (with its password) of each store opened, for a second connection to it.
  const urls = new Map<Store, string>();
  storeContract(
    "PostgreSQL",
    async () => {
      const fresh = await freshDatabase(DATABASE_URL!);
      drops.push(fresh.drop);
      const store = await openStore(fresh.url);
      urls.set(store, fresh.url);
      return store;
    },
    (store) => openStore(urls.get(store)!),
  );
});
