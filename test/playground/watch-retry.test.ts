/**
 * The playground's watch pane when the service refuses its stream, in a real browser against a
 * real server on loopback: a free account holds two open streams (decisions §14), so a third
 * watch is refused with a 429. The pane says so, waits longer after each refusal instead of
 * asking every second, and follows the stream once another one closes.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Running } from "../server/helpers.js";
import { buildPlayground, launch } from "./browser.js";

let server: Running;
let browser: Browser;
let page: Page;
let key: string;

beforeAll(async () => {
  const dir = buildPlayground();
  server = await startServer({ playgroundDir: dir });
  ({ key } = await server.key("free"));
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/`);
  await page.locator(".cm-content").waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens one of the account's streams from here and keeps it open until aborted. */
async function openStream(): Promise<AbortController> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/xql/alerts/stream`, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }, signal: controller.signal });
  expect(response.status).toBe(200);
  return controller;
}

describe("watching while the account's streams are all open", () => {
  it("says the stream was refused, backs off, and follows it once a stream closes", async () => {
    const held = [await openStream(), await openStream()];
    const asked: number[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/xql/alerts/stream")) asked.push(asked.length);
    });
    try {
      await page.locator("#api-key").fill(key);
      await page.locator(".cm-content").click();
      await page.keyboard.press("Control+A");
      await page.keyboard.press("Delete");
      await page.keyboard.insertText('market = "FOREX"\ntimeframe = h1\nclose > 1000000000');
      await page.locator("#watch").click();
      const status = page.locator("#watch-status");
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe(
        "The stream was refused (429 Too many open streams for this account); trying again in 1 s…",
      );
      // The second refusal waits twice as long: the pane does not ask every second.
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe(
        "The stream was refused (429 Too many open streams for this account); trying again in 2 s…",
      );
      expect(asked.length).toBe(2);
      expect(await page.locator("#watch-pane").getAttribute("data-streaming")).toBe("false");

      // Another stream closes: the next try opens it, and the pane shows the watch.
      held.pop()!.abort();
      await expect.poll(() => page.locator("#watch-pane").getAttribute("data-streaming"), { timeout: 30_000 }).toBe("true");
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Watching “.*”: 0 matching\. Events appear as bars close\.$/);
    } finally {
      for (const controller of held) controller.abort();
      if ((await page.locator("#watch").textContent()) === "Stop watching") await page.locator("#watch").click();
    }
  });
});
