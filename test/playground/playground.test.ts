/**
 * The playground in a real browser (Debian's Chromium through playwright-core) against a real
 * server on loopback over a real SQLite file seeded with the synthetic universe.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedStore } from "../../src/synthetic/seed.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { NOW, startServer, type Running } from "../server/helpers.js";
import { barOpen, rampBars } from "../kit/index.js";
import { ROOT, buildPlayground, launch } from "./browser.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
// The callbacks given to page.evaluate run in Chromium, where these exist; this Node test
// program has no DOM library (its fetch types would clash with Node's), so they are declared loosely.
declare const document: any, window: any, sessionStorage: any, localStorage: any, Image: any, requestAnimationFrame: any;
type HTMLCanvasElement = any;
type HTMLDialogElement = any;

const ARTIFACTS = join(ROOT, "test-artifacts");
let server: Running;
let browser: Browser;
let page: Page;
let key: string;
/** The server's clock runs this far ahead of the real one (the watch test closes bars with it). */
let clockAhead = 0;

beforeAll(async () => {
  const dir = buildPlayground();
  server = await startServer({ seed: false, playgroundDir: dir, clock: { now: () => Date.now() + clockAhead }, alertTiming: { settleMs: 10, pollMs: 200 } });
  await seedStore(server.store, { timeframes: ["h1", "d"], bars: 400 });
  ({ key } = await server.key("free"));
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  // The page's time is Playwright's clock: it runs with the real one, and a test moves it on by
  // hand where the page waits for time to pass (CodeMirror's interaction delay).
  await page.clock.install();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.url}/`);
  await page.locator(".cm-content").waitFor();
  expect(errors).toEqual([]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Pixels of the chart's canvases that are not the background: 0 for an empty chart. */
async function paintedPixels(p: Page): Promise<number> {
  return p.evaluate(() => {
    let painted = 0;
    for (const canvas of document.querySelectorAll("#chart canvas") as HTMLCanvasElement[]) {
      const ctx = canvas.getContext("2d");
      if (!ctx || canvas.width === 0 || canvas.height === 0) continue;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! > 0 && !(data[i]! > 245 && data[i + 1]! > 245 && data[i + 2]! > 245)) painted++;
      }
    }
    return painted;
  });
}

/**
 * What the chart drew: candle-coloured pixels of the price pane (lightweight-charts' up and
 * down colours), and how far right the time axis' labels reach (columns with more than the
 * axis' own border line), against the axis' width.
 */
async function chartPixels(p: Page): Promise<{ candles: number; axisWidth: number; labelsEnd: number }> {
  return p.evaluate(() => {
    const rows = document.querySelectorAll("#chart table tr");
    const pane = rows[0].querySelectorAll("td")[1].querySelector("canvas");
    const price = pane.getContext("2d").getImageData(0, 0, pane.width, pane.height).data;
    let candles = 0;
    for (let i = 0; i < price.length; i += 4) {
      const [r, g, b] = [price[i], price[i + 1], price[i + 2]];
      const up = Math.abs(r - 38) < 12 && Math.abs(g - 166) < 12 && Math.abs(b - 154) < 12;
      const down = Math.abs(r - 239) < 12 && Math.abs(g - 83) < 12 && Math.abs(b - 80) < 12;
      if (price[i + 3] > 0 && (up || down)) candles++;
    }
    const axis = rows[rows.length - 1].querySelectorAll("td")[1].querySelector("canvas");
    const text = axis.getContext("2d").getImageData(0, 0, axis.width, axis.height).data;
    let labelsEnd = -1;
    for (let x = 0; x < axis.width; x++) {
      let dark = 0;
      for (let y = 0; y < axis.height; y++) {
        const i = (y * axis.width + x) * 4;
        if (text[i + 3] > 0 && text[i] < 140 && text[i + 1] < 140 && text[i + 2] < 140) dark++;
      }
      if (dark > 1) labelsEnd = x;
    }
    return { candles, axisWidth: axis.width, labelsEnd };
  });
}

/** Puts `text` in the editor and runs it offline; resolves once the chart has drawn. */
async function runOffline(p: Page, text: string): Promise<void> {
  await p.evaluate((t) => {
    const view = (window as { xqlEditor: { state: { doc: { length: number } }; dispatch(tr: unknown): void } }).xqlEditor;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
  }, text);
  await p.locator("#offline").check();
  await p.evaluate(() => document.querySelector("#chart").removeAttribute("data-drawn"));
  await p.locator("#run").click();
  await expect.poll(() => p.locator("#chart").getAttribute("data-drawn"), { timeout: 30_000 }).not.toBeNull();
  // lightweight-charts paints in the next animation frame: once a frame after it has come, it has.
  await p.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/** CodeMirror's `interactionDelay` (its default): no Enter picks for this long after a completion list opens or changes. */
const INTERACTION_DELAY_MS = 75;

/**
 * Moves the page's clock past CodeMirror's interaction delay, the guard against accidental
 * picks: the next Enter takes the completion however slowly the machine runs, and at once.
 */
async function pastInteractionDelay(p: Page): Promise<void> {
  await p.clock.fastForward(INTERACTION_DELAY_MS);
}

const PREFIX = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close, sma(20), rsi(14)]\nsort = rsi(14) asc\nlimit = 8\n';

describe("the playground in Chromium", () => {
  it("underlines an error where validate puts it, and updates the explanation once it is fixed", async () => {
    await page.locator(".cm-content").click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(PREFIX);
    await page.keyboard.type("rsii(14) < 70", { delay: 5 });
    await page.keyboard.press("Escape");
    const underline = page.locator(".cm-lintRange-error");
    await underline.first().waitFor();
    expect((await underline.allTextContents()).join("")).toBe("rsii");
    await expect.poll(() => page.locator("#status").textContent()).toBe("Line 6, column 1: Unknown identifier 'rsii', did you mean 'rsi'?");

    // Fix it by typing: delete the extra "i".
    await page.keyboard.press("Home");
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Delete");
    await expect.poll(() => page.locator(".cm-lintRange-error").count()).toBe(0);
    await expect.poll(() => page.locator("#explanation").textContent()).toContain("rsi(14) < 70");
    expect(await page.locator("#explanation").getAttribute("class")).not.toContain("invalid");
    expect(await page.locator("#plan").textContent()).toContain('"timeframe": "h1"');
    expect(await page.locator("#status").textContent()).toBe("Valid query");
  });

  it("offers completions from the registry as you type", async () => {
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" and bb_u", { delay: 5 });
    const option = page.locator(".cm-tooltip-autocomplete li", { hasText: "bb_upper" });
    await option.first().waitFor();
    await pastInteractionDelay(page);
    await page.keyboard.press("Enter");
    // The snippet's parameters are fields: type them and tab across.
    await page.keyboard.type("20");
    await page.keyboard.press("Tab");
    await page.keyboard.type("2");
    await page.keyboard.press("Escape");
    await page.keyboard.press("End");
    await page.keyboard.type(" > close");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.evaluate(() => (window as unknown as { xqlEditor: { state: { doc: { toString(): string } } } }).xqlEditor.state.doc.toString().split("\n").slice(5).join("\n"))).toBe(
      "rsi(14) < 70 and bb_upper(20, 2) > close",
    );
    await expect.poll(() => page.locator("#status").textContent()).toBe("Valid query");
  });

  it("runs on the service with a pasted key: the table fills and the chart draws", async () => {
    await page.locator("#api-key").fill(key);
    await page.locator("#offline").uncheck();
    await page.locator("#run").click();
    await expect.poll(() => page.locator("#run-status").textContent(), { timeout: 20_000 }).toMatch(/^\d+ match(es)? in \d+ ms \(service/);
    const rows = page.locator("#results tbody tr");
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await page.locator("#results thead th").allTextContents()).toEqual(["symbol", "close", "sma(20)", "rsi(14)"]);
    // The bars the screen used: back to its anchor at the latest bar, up to (1 + 1)·300 + 3 of the
    // base timeframe (decisions §9) — all 400 the seeded store holds.
    await expect.poll(() => page.locator("#chart").getAttribute("data-drawn"), { timeout: 20_000 }).toBe("400");
    await expect.poll(() => paintedPixels(page)).toBeGreaterThan(2000);
    expect(await page.locator("#chart-legend").textContent()).toContain("sma(20)");
    // The key lives in this tab's sessionStorage, nowhere else.
    expect(await page.evaluate(() => [sessionStorage.getItem("xql.apiKey"), localStorage.length])).toEqual([key, 0]);
    // Choosing another row charts that symbol.
    if ((await rows.count()) > 1) {
      const second = await rows.nth(1).getAttribute("data-symbol");
      await rows.nth(1).click();
      await expect.poll(() => page.locator("#chart").getAttribute("data-symbol")).toBe(second);
    }

    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = await page.screenshot({ fullPage: true });
    writeFileSync(join(ARTIFACTS, "playground-run.png"), shot);
    // Non-blank: decode the screenshot in the browser and count its colours.
    const colours = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext("2d")!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, img.width, img.height);
      const seen = new Set<number>();
      for (let i = 0; i < data.length; i += 16) seen.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
      return seen.size;
    }, shot.toString("base64"));
    expect(colours).toBeGreaterThan(50);
  });

  it("shows why a result row matches, and why a typed symbol does not, with failing parts marked (offline and on the service)", async () => {
    const query = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > sma(close, 20) and rsi(14) > 0';
    await runOffline(page, query);
    const first = await page.locator("#results tbody tr").first().getAttribute("data-symbol");
    await page.locator("#results tbody tr").first().click();
    await expect.poll(() => page.locator("#why-tree").getAttribute("data-symbol")).toBe(first);
    expect(await page.locator("#why-status").textContent()).toMatch(/: matches$/);
    expect(await page.locator("#why-tree > ul > li").first().evaluate((li) => li.firstChild?.textContent)).toBe("✓ close > sma(close, 20) and rsi(14) > 0");
    // A symbol typed that does not match: its failing comparison is marked.
    const matched = new Set(await page.locator("#results tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-symbol"))));
    const universe = await page.evaluate(() => [...document.querySelectorAll("#results tbody tr")].length);
    expect(universe).toBeGreaterThan(0);
    await page.locator("#why-symbol").fill("NOPE");
    await page.locator("#why").click();
    await expect.poll(() => page.locator("#why-status").textContent()).toBe("No bars for NOPE on FOREX h1");
    expect(matched.has("NOPE")).toBe(false);
    // On the service: the same tree through POST /xql/why.
    await page.locator("#api-key").fill(key);
    await page.locator("#offline").uncheck();
    await page.locator("#run").click();
    await expect.poll(() => page.locator("#run-status").textContent(), { timeout: 20_000 }).toMatch(/\(service/);
    const rows = page.locator("#results tbody tr");
    if ((await rows.count()) > 0) {
      const symbol = await rows.first().getAttribute("data-symbol");
      await rows.first().click();
      await expect.poll(() => page.locator("#why-tree").getAttribute("data-symbol"), { timeout: 20_000 }).toBe(symbol);
      expect(await page.locator("#why-tree li.pass").count()).toBeGreaterThan(0);
    }
    await page.locator("#why-symbol").fill("EURUSD");
    await page.locator("#why").click();
    await expect.poll(() => page.locator("#why-status").textContent(), { timeout: 20_000 }).toMatch(/^EURUSD at .* UTC: (matches|does not match)$/);
    if ((await page.locator("#why-status").textContent())!.endsWith("does not match")) expect(await page.locator("#why-tree li.fail").count()).toBeGreaterThan(0);
  });

  it("picks one of the account's watchlists: the query screens it, and whole market takes it out again", async () => {
    await page.locator("#api-key").fill(key);
    const saved = await fetch(`${server.url}/xql/watchlists/pair`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ symbols: ["EURUSD", "GBPUSD"] }) });
    expect(saved.ok).toBe(true);
    await page.evaluate((t) => {
      const view = (window as unknown as { xqlEditor: { state: { doc: { length: number } }; dispatch(tr: unknown): void } }).xqlEditor;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
    }, 'market = "FOREX"\ntimeframe = h1\ntrue');
    await page.locator("#api-key").dispatchEvent("change");
    await expect.poll(() => page.locator("#watchlist option").allTextContents()).toEqual(["whole market", "pair (2)"]);
    await page.locator("#watchlist").selectOption("pair");
    const doc = () => page.evaluate(() => (window as unknown as { xqlEditor: { state: { doc: { toString(): string } } } }).xqlEditor.state.doc.toString());
    expect(await doc()).toBe('market = "FOREX"\ntimeframe = h1\nwatchlist = "pair"\ntrue');
    await page.locator("#offline").uncheck();
    await page.locator("#run").click();
    await expect.poll(() => page.locator("#run-status").textContent(), { timeout: 20_000 }).toMatch(/\(service/);
    expect((await page.locator("#results tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-symbol")))).sort()).toEqual(["EURUSD", "GBPUSD"]);
    await page.locator("#watchlist").selectOption("");
    expect(await doc()).toBe('market = "FOREX"\ntimeframe = h1\ntrue');
  });

  it("refuses a run on the service with a bad key, saying so", async () => {
    await page.locator("#api-key").fill("xql_notakeyatallnotakeyatallnotakey");
    await page.locator("#run").click();
    await expect.poll(() => page.locator("#run-status").textContent()).toBe("401: Missing or invalid API key");
  });

  it("runs offline in the browser over the synthetic universe, without a key", async () => {
    await page.locator("#api-key").fill("");
    await page.locator("#offline").check();
    await page.locator("#run").click();
    await expect.poll(() => page.locator("#run-status").textContent(), { timeout: 20_000 }).toMatch(/^\d+ match(es)? in \d+ ms \(offline: 30 synthetic FOREX/);
    expect(await page.locator("#results tbody tr").count()).toBeGreaterThan(0);
    await expect.poll(() => paintedPixels(page)).toBeGreaterThan(2000);
    expect(await page.evaluate(() => sessionStorage.getItem("xql.apiKey"))).toBeNull();
  });

  it("charts a tiny price with its decimals, leaves the candles visible under a close column, and shows the last time label whole", async () => {
    // Sorted by close, the offline CRYPTO universe charts its cheapest token first.
    const screen = (columns: string): string => `market = "CRYPTO"\ntimeframe = h1\ncolumns = [${columns}]\nsort = close asc\nlimit = 8\ntrue`;
    await runOffline(page, screen("rsi(14)"));
    const bare = await chartPixels(page);
    await runOffline(page, screen("close, sma(20), sma(50), rsi(14)"));
    const drawn = await chartPixels(page);
    // The close column is what the candles show: no line over them (it hid four in ten of their pixels).
    expect(drawn.candles / bare.candles).toBeGreaterThan(0.85);
    // The time label under the last bar ends inside the axis, not cut at its edge.
    expect(drawn.labelsEnd).toBeLessThan(drawn.axisWidth - 4);

    const legend = async (column: string): Promise<string> => (await page.locator(`#chart-legend [data-column="${column}"]`).textContent()) ?? "";
    const close = /^close (\S+) \(the candles\)$/.exec(await legend("close"))?.[1];
    const sma = /^sma\(20\) (\S+)$/.exec(await legend("sma(20)"))?.[1];
    expect(close, await legend("close")).toBeDefined();
    // The chart's close is the table's: the data's price, to the last decimal the data has.
    const symbol = await page.locator("#chart").getAttribute("data-symbol");
    const row = page.locator(`#results tbody tr[data-symbol="${symbol}"]`);
    expect(Number(close)).toBe(Number(await row.locator("td").nth(1).textContent()));
    expect(Number(close)).toBeLessThan(0.01);
    // An average of tiny prices keeps the instrument's decimals (it was 0.00, twice).
    expect(sma!.split(".")[1]!.length).toBe(close!.split(".")[1]!.length);
    expect(Number(sma)).toBeGreaterThan(0);
    expect(await legend("rsi(14)")).toMatch(/^rsi\(14\) \d+\.\d{2} \(pane\)$/);
  });

  it("loads an example and a phrase in one click each", async () => {
    await page.locator("#example").selectOption("multi-timeframe");
    await expect.poll(() => page.locator("#explanation").textContent()).toContain("d::sma(200)");
    await page.locator("#open-reference").click();
    await page.locator("#reference-list button").first().click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Valid query");
    expect(await page.locator("#reference").evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
  });

  it("watches the screen: an alert without a webhook, its baseline, then each enter and exit from the stream; Stop deletes it", async () => {
    const query = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 1000000000';
    await page.locator(".cm-content").click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(query);
    await page.locator("#api-key").fill(key);
    await page.locator("#offline").uncheck();
    await page.locator("#watch").click();
    await expect.poll(() => page.locator("#watch-status").textContent(), { timeout: 20_000 }).toBe(
      "Watching “Matches when close > 1000000000. Returns close.”: 0 matching. Events appear as bars close.",
    );
    const listed = (await (await server.get("/xql/alerts", key)).json()) as { alerts: { id: string; query: string; webhook: string | null }[] };
    expect(listed.alerts).toMatchObject([{ query, webhook: null }]);
    expect(await page.locator("#watch-pane").getAttribute("data-alert")).toBe(listed.alerts[0]!.id);
    await expect.poll(() => page.locator("#watch-pane").getAttribute("data-streaming")).toBe("true");

    // The seed's latest h1 bar is in progress; the clock moves an hour on and it closes at a billion.
    const series = (await server.store.series("CRYPTO")).filter((s) => s.timeframe === "h1");
    const symbol = series[0]!.symbol;
    const latest = Math.max(...series.map((s) => s.lastTime));
    const write = (time: number, close: number) =>
      server.store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol, bars: { time: [time], open: [close], high: [close], low: [close], close: [close], volume: [1] } }] }]);
    clockAhead = 3_600_000;
    await write(latest, 2_000_000_000);
    const rows = page.locator("#watch-events tbody tr");
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(1);
    expect(await rows.first().locator("td").allTextContents()).toEqual([
      `${new Date(latest).toISOString().replace("T", " ").slice(0, 16)} UTC`,
      "enter",
      symbol,
      "close 2000000000",
    ]);
    await expect.poll(() => page.locator("#watch-status").textContent()).toContain(`1 matching (${symbol})`);
    clockAhead = 2 * 3_600_000;
    await write(latest + 3_600_000, 5);
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    expect(await rows.first().locator("td").nth(1).textContent()).toBe("exit");
    await expect.poll(() => page.locator("#watch-status").textContent()).toContain("0 matching");

    await page.locator("#watch").click();
    await expect.poll(() => page.locator("#watch-status").textContent()).toBe("Stopped watching; the alert is deleted.");
    await expect.poll(async () => ((await (await server.get("/xql/alerts", key)).json()) as { alerts: unknown[] }).alerts.length).toBe(0);
    expect(await page.locator("#watch").textContent()).toBe("Watch this screen");
  });

  it("brings the matching line up to date with a bar that closed before the stream connected", async () => {
    const query = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 1000000000';
    await page.locator(".cm-content").click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(query);
    // Hold the stream's connection until the bar below has closed and been delivered to nobody.
    let connect!: () => void;
    const held = new Promise<void>((resolve) => (connect = resolve));
    await page.route("**/xql/alerts/stream", async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.locator("#watch").click();
      await expect.poll(() => page.locator("#watch-status").textContent(), { timeout: 20_000 }).toContain(": 0 matching.");
      const [alert] = ((await (await server.get("/xql/alerts", key)).json()) as { alerts: { id: string }[] }).alerts;
      const series = (await server.store.series("CRYPTO")).filter((s) => s.timeframe === "h1");
      const latest = Math.max(...series.map((s) => s.lastTime));
      const symbol = series.find((s) => s.lastTime === latest)!.symbol;
      clockAhead = latest + 2 * 3_600_000 - Date.now();
      await server.store.upsertBars([
        { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol, bars: { time: [latest + 3_600_000], open: [2e9], high: [2e9], low: [2e9], close: [2e9], volume: [1] } }] },
      ]);
      // The service has moved on: the symbol matches at the closed bar.
      await expect
        .poll(async () => ((await (await server.get(`/xql/alerts/${alert!.id}`, key)).json()) as { matching: string[] }).matching, { timeout: 20_000 })
        .toEqual([symbol]);
      connect();
      await expect.poll(() => page.locator("#watch-pane").getAttribute("data-streaming")).toBe("true");
      await expect.poll(() => page.locator("#watch-status").textContent(), { timeout: 20_000 }).toContain(`: 1 matching (${symbol}).`);
    } finally {
      connect();
      await page.unroute("**/xql/alerts/stream");
      if ((await page.locator("#watch").textContent()) === "Stop watching") await page.locator("#watch").click();
      await expect.poll(async () => ((await (await server.get("/xql/alerts", key)).json()) as { alerts: unknown[] }).alerts.length).toBe(0);
    }
  });

  it("shows the results table by column kind: prices to their decimals, RSI to two", async () => {
    await page.locator(".cm-content").click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText('market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, sma(20), rsi(14), avg(volume, 5) * 1000]\nlimit = 5\ntrue');
    await page.locator("#offline").check();
    await page.locator("#run").click();
    const rows = page.locator("#results tbody tr");
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(5);
    for (let i = 0; i < 5; i++) {
      const [, close, sma, rsi, volume] = await rows.nth(i).locator("td").allTextContents();
      const decimals = close!.split(".")[1]?.length ?? 0;
      expect(sma!.split(".")[1]?.length ?? 0).toBe(decimals);
      expect(rsi).toMatch(/^\d+\.\d{2}$/);
      expect(volume).toMatch(/^\d{1,3}(,\d{3})*(\.\d+)?$/);
    }
  });

  it("completes symbols = [...] with the service's symbols of the query's market, new ones as they are written, the account's lists after watchlist =, and offline the synthetic universe's", async () => {
    const options = () => page.locator(".cm-tooltip-autocomplete li .cm-completionLabel").allTextContents();
    const doc = () => page.evaluate(() => (window as unknown as { xqlEditor: { state: { doc: { toString(): string } } } }).xqlEditor.state.doc.toString());
    /** Puts `text` in the editor, the cursor at its end, then types `typed` there. */
    const write = async (text: string, typed: string): Promise<void> => {
      await page.keyboard.press("Escape");
      await page.locator(".cm-content").click();
      await page.keyboard.press("Control+A");
      await page.keyboard.press("Delete");
      await page.keyboard.insertText(text);
      await page.keyboard.type(typed, { delay: 5 });
    };
    await page.locator("#api-key").fill(key);
    await page.locator("#offline").uncheck();
    const forex = await server.store.symbols("FOREX");
    expect(forex.length).toBeGreaterThan(3);

    // Online: after `[` the service's FOREX symbols, quoted when picked.
    await write('market = "FOREX"\ntimeframe = h1\nsymbols = ', "[");
    await expect.poll(options, { timeout: 20_000 }).toEqual(forex.slice(0, 100));
    await page.keyboard.type("GBPU", { delay: 5 });
    // CodeMirror's own filter (fuzzy: GBPAUD matches too), the closest first.
    await expect.poll(async () => (await options())[0]).toBe("GBPUSD");
    await pastInteractionDelay(page);
    await page.keyboard.press("Enter");
    expect(await doc()).toBe('market = "FOREX"\ntimeframe = h1\nsymbols = ["GBPUSD"]');
    // After a comma, the others.
    await page.keyboard.type(", ", { delay: 5 });
    await expect.poll(options).toEqual(forex.filter((s) => s !== "GBPUSD").slice(0, 100));

    // Bars of a new symbol pushed to the service: the next completion offers it.
    await server.store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "AAAUSD", bars: rampBars("h1", 5, barOpen("h1", NOW), 1) }] }]);
    try {
      await write('market = "FOREX"\ntimeframe = h1\nsymbols = ', "[");
      await expect.poll(options, { timeout: 20_000 }).toEqual(["AAAUSD", ...forex].slice(0, 100));
    } finally {
      await server.store.deleteBars({ market: "FOREX", symbol: "AAAUSD" });
    }

    // The account's lists, inside the quotes after `watchlist =`.
    const saved = await fetch(`${server.url}/xql/watchlists/majors`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ symbols: ["EURUSD"] }) });
    expect(saved.ok).toBe(true);
    await write('market = "FOREX"\ntimeframe = h1\nwatchlist = ', '"');
    await expect.poll(options, { timeout: 20_000 }).toEqual(expect.arrayContaining(["majors"]));
    await page.keyboard.type("maj", { delay: 5 });
    await expect.poll(async () => (await options())[0]).toBe("majors");
    await pastInteractionDelay(page);
    await page.keyboard.press("Enter");
    expect(await doc()).toBe('market = "FOREX"\ntimeframe = h1\nwatchlist = "majors"');

    // Offline: the symbols the offline run screens.
    await page.locator("#offline").check();
    await write('market = "CRYPTO"\ntimeframe = h1\nsymbols = ', "[");
    const offline = syntheticUniverse({ market: "CRYPTO", symbols: 30, timeframes: [], bars: 0 }).map((i) => i.symbol);
    await expect.poll(options, { timeout: 20_000 }).toEqual(offline);
    await page.keyboard.press("Escape");
  });
});
