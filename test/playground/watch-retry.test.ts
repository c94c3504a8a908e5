/**
 * The playground's watch pane when the service refuses its stream, in a real browser against a
 * real server on loopback: a free account holds two open streams (decisions §14), so a third
 * watch is refused with a 429. The pane says so, waits longer after each refusal instead of
 * asking every second, and follows the stream once another one closes; a key refused (401)
 * ends the watch. The page runs on Playwright's clock: the test moves it over each wait.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/accounts/keys.js";
import { startServer, type Running } from "../server/helpers.js";
import { buildPlayground, launch } from "./browser.js";

let server: Running;
let browser: Browser;
let page: Page;
/** Stream requests the page made, counted as the browser sends them. */
let asked = 0;

beforeAll(async () => {
  const dir = buildPlayground();
  server = await startServer({ playgroundDir: dir });
  browser = await launch();
  page = await browser.newPage();
  await page.clock.install();
  page.on("request", (request) => {
    if (request.url().endsWith("/xql/alerts/stream")) asked++;
  });
  await page.goto(`${server.url}/`);
  await page.locator(".cm-content").waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens one of the account's streams from here and keeps it open until aborted. */
async function openStream(key: string): Promise<AbortController> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/xql/alerts/stream`, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }, signal: controller.signal });
  expect(response.status).toBe(200);
  return controller;
}

/** A free key whose two streams are open here, pasted into the page, and the watch started on it. */
async function watchWithStreamsFull(): Promise<{ key: string; held: AbortController[] }> {
  const { key } = await server.key("free");
  const held = [await openStream(key), await openStream(key)];
  await page.locator("#api-key").fill(key);
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText('market = "FOREX"\ntimeframe = h1\nclose > 1000000000');
  asked = 0;
  await page.locator("#watch").click();
  return { key, held };
}

const refused = (seconds: number): string => `The stream was refused (429 Too many open streams for this account); trying again in ${seconds} s…`;

describe("watching while the account's streams are all open", () => {
  it("says the stream was refused, backs off, and follows it once a stream closes", async () => {
    const { held } = await watchWithStreamsFull();
    const status = page.locator("#watch-status");
    try {
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe(refused(1));
      expect(asked).toBe(1);
      // The second refusal waits twice as long: the pane does not ask every second.
      await page.clock.fastForward(1_000);
      await expect.poll(() => status.textContent()).toBe(refused(2));
      expect(asked).toBe(2);
      expect(await page.locator("#watch-pane").getAttribute("data-streaming")).toBe("false");

      // Another stream closes: the next try opens it, and the pane shows the watch.
      held.pop()!.abort();
      await page.clock.fastForward(2_000);
      await expect.poll(() => page.locator("#watch-pane").getAttribute("data-streaming")).toBe("true");
      expect(asked).toBe(3);
      await expect.poll(() => status.textContent()).toMatch(/^Watching “.*”: 0 matching\. Events appear as bars close\.$/);
    } finally {
      for (const controller of held) controller.abort();
      if ((await page.locator("#watch").textContent()) === "Stop watching") await page.locator("#watch").click();
    }
  });

  it("ends the watch when the service refuses the key, and says the alert stays", async () => {
    const { key, held } = await watchWithStreamsFull();
    const status = page.locator("#watch-status");
    try {
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe(refused(1));
      const alert = await page.locator("#watch-pane").getAttribute("data-alert");
      expect(alert).toMatch(/^alrt_/);
      await server.store.revokeKey(hashApiKey(key), server.clock.now());
      await page.clock.fastForward(1_000);
      await expect.poll(() => status.textContent()).toBe(
        `Stopped watching: the service refused the key (401 Missing or invalid API key); the alert stays until deleted with a valid key (DELETE /xql/alerts/${alert}).`,
      );
      expect(await page.locator("#watch").textContent()).toBe("Watch this screen");
      expect(await page.locator("#watch-pane").getAttribute("data-alert")).toBeNull();
      // No more tries: the refused key is not asked again.
      await page.clock.fastForward(60_000);
      expect(asked).toBe(2);
    } finally {
      for (const controller of held) controller.abort();
    }
  });
});
