/**
 * The playground on a cold load in Chromium: first paint, first contentful paint, and the
 * first diagnostics (the linter's first pass over the example query, a performance mark the
 * page sets), each a fresh browser context (empty cache) against `xql serve`'s routes on
 * loopback.
 *
 *   npm run build && npm run bench:playground
 */
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { SqliteStore } from "../src/open/sqlite.js";
import { createServer } from "../src/server/index.js";

declare const location: { href: string };

const CHROMIUM = process.env.XQL_CHROMIUM ?? "/usr/bin/chromium";
const RUNS = 7;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  if (!existsSync("dist/playground/index.html")) throw new Error("dist/playground missing: run `npm run build`");
  const store = new SqliteStore(":memory:");
  const app = createServer({ store, playgroundDir: "dist/playground" });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  const rows: { fp: number; fcp: number; diagnostics: number; load: number }[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url, { waitUntil: "load" });
      await page.waitForFunction(() => performance.getEntriesByName("xql-first-diagnostics").length > 0);
      const timing = await page.evaluate(() => {
        const paint = (name: string): number => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
        // In the page: a PerformanceNavigationTiming (this Node program has no DOM types).
        const nav = performance.getEntriesByName(location.href)[0] as unknown as { loadEventEnd: number };
        return { fp: paint("first-paint"), fcp: paint("first-contentful-paint"), diagnostics: paint("xql-first-diagnostics"), load: nav.loadEventEnd };
      });
      rows.push(timing);
      await context.close();
    }
  } finally {
    await browser.close();
    await app.close();
    store.close();
  }
  const show = (k: keyof (typeof rows)[number]): string => `median ${median(rows.map((r) => r[k])).toFixed(0)} ms (${rows.map((r) => r[k].toFixed(0)).join(", ")})`;
  console.log(`cold loads: ${RUNS}, each a fresh context`);
  console.log(`first paint:             ${show("fp")}`);
  console.log(`first contentful paint:  ${show("fcp")}`);
  console.log(`load event end:          ${show("load")}`);
  console.log(`first diagnostics:       ${show("diagnostics")}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
