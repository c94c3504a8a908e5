/** The store contract on SQLite always, and on PostgreSQL when XQL_TEST_DATABASE_URL is set (CI starts it). */
import { afterAll } from "vitest";
import { join } from "node:path";
import { openStore } from "../../src/open/open.js";
import { freshPostgresStores } from "../scale/helpers.js";
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
  const stores = freshPostgresStores(DATABASE_URL!);
  storeContract("PostgreSQL", stores.open, stores.reopen);
});
