/** The store contract on SQLite always, and on PostgreSQL when XQL_TEST_DATABASE_URL is set (CI starts it). */
import { afterAll } from "vitest";
import { join } from "node:path";
import { openStore } from "../../src/data/open.js";
import { freshDatabase } from "../scale/helpers.js";
import { tempDir } from "./helpers.js";
import { storeContract } from "./store-contract.js";

const { dir, cleanup } = tempDir();
let n = 0;
afterAll(cleanup);
storeContract("SQLite", () => openStore(join(dir, `contract-${n++}.db`)));

const url = process.env.XQL_TEST_DATABASE_URL;
if (url) {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });
  storeContract("PostgreSQL", async () => {
    const fresh = await freshDatabase(url);
    drops.push(fresh.drop);
    return openStore(fresh.url);
  });
}
