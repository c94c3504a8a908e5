/**
 * The playground page: an XQL editor with live checks and completion computed in the browser
 * by the core itself, the explanation and plan beside it, a run against the service (with a
 * key pasted by the user, kept in sessionStorage only) or offline over the synthetic
 * universe, a results table and a candlestick chart of the selected symbol with the screen's
 * numeric columns drawn over the bars the screen used.
 */
import { EditorView, basicSetup } from "codemirror";
import { EditorState, RangeSetBuilder } from "@codemirror/state";
import { Decoration, ViewPlugin, hoverTooltip as cmHover, keymap, type DecorationSet, type ViewUpdate } from "@codemirror/view";
import { linter, lintGutter, type Diagnostic as LintDiagnostic } from "@codemirror/lint";
import { autocompletion, snippetCompletion, type Completion, type CompletionContext } from "@codemirror/autocomplete";
import { CandlestickSeries, LineSeries, createChart, type IChartApi, type UTCTimestamp } from "lightweight-charts";
import {
  DEFAULT_MARKETS,
  PHRASES,
  PHRASE_CATEGORIES,
  TIMEFRAME_MS,
  chartBars,
  columnHistory,
  compile,
  complete,
  deriveTimeframes,
  diagnose,
  explain,
  format,
  formatColumnValue,
  hover,
  priceDecimals,
  scan,
  significantDecimals,
  syntheticUniverse,
  validate,
} from "./core.js";
import type { Bars, Instrument, Plan, ResultRow, Timeframe } from "../types.js";
import type { CompletionOptions, HostData } from "../editor/index.js";
import type { ColumnKind } from "../functions/module.js";
import type { WhyNode, WhyResult } from "../eval/why.js";
import { installWatch } from "./watch.js";
import { XqlDataError, messageOf } from "../errors.js";

const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`internal: #${id} missing from the page`);
  return el as T;
};

/** Bars a run fetches per source beyond its lookback (the service's default warm-up). */
const WARMUP = 300;
/** Instruments of the offline universe. */
const OFFLINE_SYMBOLS = 30;
const KEY_STORAGE = "xql.apiKey";

interface Example {
  name: string;
  text: string;
}
const EXAMPLES = JSON.parse($("examples").textContent ?? "[]") as Example[];
const FIRST_QUERY = EXAMPLES.find((e) => e.name === "oversold")?.text ?? 'market = "FOREX"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nrsi(14) < 30';

// ---- highlighting: the core's own token scan, as classes -------------------------------

const marks = new Map<string, Decoration>();
const markOf = (kind: string): Decoration => {
  let m = marks.get(kind);
  if (!m) marks.set(kind, (m = Decoration.mark({ class: `xql-${kind}` })));
  return m;
};
function decorate(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const piece of scan(view.state.doc.toString())) {
    if (piece.kind !== "punctuation" && piece.end > piece.start) builder.add(piece.start, piece.end, markOf(piece.kind));
  }
  return builder.finish();
}
const highlight = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = decorate(view);
    }
    update(update: ViewUpdate): void {
      if (update.docChanged) this.decorations = decorate(update.view);
    }
  },
  { decorations: (v) => v.decorations },
);

// ---- diagnostics, completion, hover ------------------------------------------------------

let linted = false;
const xqlLinter = linter(
  (view): LintDiagnostic[] => {
    const found = diagnose(view.state.doc.toString()).map((d) => ({ from: d.start, to: d.end, severity: "error" as const, message: d.message, source: d.type }));
    // The bench reads this mark: the first diagnostics of a cold load.
    if (!linted) performance.mark("xql-first-diagnostics");
    linted = true;
    return found;
  },
  { delay: 120 },
);

async function completionSource(context: CompletionContext): Promise<{ from: number; to: number; options: Completion[]; validFor: RegExp } | null> {
  const text = context.state.doc.toString();
  const given: CompletionOptions = { markets: DEFAULT_MARKETS };
  let found = complete(text, context.pos, given);
  // Inside `symbols = [...]` or after `watchlist =`: the symbols and lists are the service's (or the offline universe's).
  if (found.asks) {
    const extra = await hostData(found.asks);
    if (context.aborted) return null;
    found = complete(text, context.pos, { ...given, ...extra });
  }
  const { from, to, items } = found;
  if (items.length === 0 || (from === to && !context.explicit && !/[:=(,[\s"]$/.test(context.state.sliceDoc(Math.max(0, from - 1), from)))) return null;
  const options = items.map((item): Completion => {
    let n = 0;
    const template = item.template.map((p) => (typeof p === "string" ? p.replace(/[#$]\{/g, "\\$&") : `\${${++n}:${p.field}}`)).join("");
    const base = {
      label: item.label,
      detail: item.detail,
      type: item.kind === "function" ? "function" : item.kind === "series" || item.kind === "let" ? "variable" : item.kind === "setting" || item.kind === "keyword" ? "keyword" : "constant",
      boost: -item.rank,
      info: item.documentation,
    };
    return n > 0 ? snippetCompletion(template, base) : { ...base, apply: template };
  });
  return { from, to, options, validFor: /^[A-Za-z_0-9]*$/ };
}

// ---- the explanation and plan beside the editor ------------------------------------------

let current = FIRST_QUERY;
function showExplanation(text: string): void {
  const result = explain(text);
  const explanation = $("explanation");
  const plan = $("plan");
  const status = $("status");
  if ("plan" in result) {
    explanation.textContent = result.explanation;
    explanation.classList.remove("invalid");
    plan.textContent = JSON.stringify(result.plan, null, 2);
    status.textContent = "Valid query";
    status.className = "ok";
  } else {
    const { message, position } = result.error;
    const where = position ? `Line ${position.line}, column ${position.column}: ` : "";
    status.textContent = `${where}${message}`;
    status.className = "error";
    explanation.classList.add("invalid");
  }
}

let pending: number | undefined;
const onChange = EditorView.updateListener.of((update) => {
  if (!update.docChanged) return;
  current = update.state.doc.toString();
  if (pending !== undefined) clearTimeout(pending);
  pending = window.setTimeout(() => showExplanation(current), 80);
});

// ---- hover docs as a tooltip ---------------------------------------------------------------

const xqlHover = cmHover((view, pos) => {
  const found = hover(view.state.doc.toString(), pos);
  if (!found) return null;
  return {
    pos: found.start,
    end: found.end,
    above: true,
    create: () => {
      const dom = document.createElement("div");
      dom.className = "xql-hover";
      dom.textContent = found.markdown.replace(/```xql\n?|```/g, "").replace(/\*\*/g, "");
      return { dom };
    },
  };
});

const view = new EditorView({
  parent: $("editor"),
  state: EditorState.create({
    doc: FIRST_QUERY,
    extensions: [
      basicSetup,
      highlight,
      lintGutter(),
      xqlLinter,
      autocompletion({ override: [completionSource], activateOnTyping: true }),
      xqlHover,
      onChange,
      keymap.of([
        { key: "Mod-Enter", run: () => (void run(), true) },
        { key: "Shift-Alt-f", run: () => (formatEditor(), true) },
      ]),
      EditorView.theme({ "&": { height: "100%" }, ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" } }),
    ],
  }),
});
showExplanation(FIRST_QUERY);
(window as unknown as { xqlEditor: EditorView }).xqlEditor = view;

function setText(text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  view.focus();
}

function formatEditor(): void {
  const formatted = format(view.state.doc.toString());
  if (formatted !== undefined) setText(formatted.replace(/\n$/, ""));
}

// ---- examples and the phrase reference -----------------------------------------------------

const exampleSelect = $<HTMLSelectElement>("example");
for (const e of EXAMPLES) exampleSelect.append(new Option(e.name, e.name));
exampleSelect.addEventListener("change", () => {
  const e = EXAMPLES.find((x) => x.name === exampleSelect.value);
  if (e) setText(e.text);
  exampleSelect.value = "";
});

const reference = $<HTMLDialogElement>("reference");
const referenceList = $("reference-list");
for (const category of PHRASE_CATEGORIES) {
  const entries = PHRASES.filter((p) => p.category === category);
  if (entries.length === 0) continue;
  const h = document.createElement("h3");
  h.textContent = category;
  referenceList.append(h);
  const ul = document.createElement("ul");
  for (const p of entries) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = p.phrase;
    b.title = "Use this condition";
    b.addEventListener("click", () => {
      const market = /market\s*=\s*"[^"]*"/.exec(current)?.[0] ?? 'market = "FOREX"';
      const timeframe = /timeframe\s*=\s*\w+/.exec(current)?.[0] ?? "timeframe = h1";
      setText(`${market}\n${timeframe}\n${p.query}`);
      reference.close();
    });
    const code = document.createElement("code");
    code.textContent = p.query;
    li.append(b, " ", code);
    ul.append(li);
  }
  referenceList.append(ul);
}
$("open-reference").addEventListener("click", () => reference.showModal());
$("close-reference").addEventListener("click", () => reference.close());
$("format").addEventListener("click", formatEditor);

// ---- the API key: sessionStorage only -------------------------------------------------------

const keyInput = $<HTMLInputElement>("api-key");
keyInput.value = sessionStorage.getItem(KEY_STORAGE) ?? "";
keyInput.addEventListener("input", () => {
  const key = keyInput.value.trim();
  if (key === "") sessionStorage.removeItem(KEY_STORAGE);
  else sessionStorage.setItem(KEY_STORAGE, key);
});
const offlineBox = $<HTMLInputElement>("offline");

// ---- watching: the screen as an alert, its events live ---------------------------------------

// ---- the account's watchlists ---------------------------------------------------------------

const watchlistSelect = $<HTMLSelectElement>("watchlist");

/** The account's saved lists (a key is needed: lists are the account's); none without a key or an answer. */
async function accountWatchlists(): Promise<{ name: string; symbols: string[] }[]> {
  const key = keyInput.value.trim();
  if (key === "") return [];
  const response = await fetch("/xql/watchlists", { headers: { Authorization: `Bearer ${key}` } }).catch(() => undefined);
  if (!response?.ok) return [];
  return ((await response.json()) as { watchlists: { name: string; symbols: string[] }[] }).watchlists;
}

/** Fills the list picker with the account's saved lists. */
async function loadWatchlists(): Promise<void> {
  const watchlists = await accountWatchlists();
  watchlistSelect.replaceChildren(new Option("whole market", ""));
  for (const w of watchlists) watchlistSelect.append(new Option(`${w.name} (${w.symbols.length})`, w.name));
}

/**
 * What completion asks the page for. Online, the service's: the market's symbols from `GET
 * /xql/symbols` (asked at each such completion; the browser revalidates its copy by ETag, so an
 * unchanged list costs a 304) and the account's lists. Offline, the symbols of the synthetic
 * universe the offline run screens, and no lists (a list lives on the service).
 */
async function hostData(asks: HostData): Promise<Pick<CompletionOptions, "symbols" | "watchlists">> {
  if (offlineBox.checked) {
    return asks.kind === "symbols" ? { symbols: { [asks.market]: offlineUniverse(asks.market, 0, []).map((i) => i.symbol) } } : {};
  }
  if (asks.kind === "watchlists") return { watchlists: (await accountWatchlists()).map((w) => w.name) };
  // The service's markets are its configuration, which the page's list already is.
  if (asks.kind === "markets") return {};
  const key = keyInput.value.trim();
  if (key === "") return {};
  const response = await fetch(`/xql/symbols?market=${encodeURIComponent(asks.market)}`, { headers: { Authorization: `Bearer ${key}` } }).catch(() => undefined);
  if (!response?.ok) return {};
  return { symbols: { [asks.market]: ((await response.json()) as { symbols: string[] }).symbols } };
}
keyInput.addEventListener("change", () => void loadWatchlists());
watchlistSelect.addEventListener("focus", () => void loadWatchlists(), { once: true });

/** Picking a list writes `watchlist = "name"` into the query (replacing one there); "whole market" removes it. */
watchlistSelect.addEventListener("change", () => {
  const text = view.state.doc.toString();
  const name = watchlistSelect.value;
  const line = name === "" ? "" : `watchlist = "${name}"`;
  const existing = /^watchlist\s*=\s*"[^"\n]*";?[ \t]*\n?/m.exec(text);
  let next: string;
  if (existing) next = text.slice(0, existing.index) + (line === "" ? "" : `${line}\n`) + text.slice(existing.index + existing[0].length);
  else if (line === "") next = text;
  else {
    const timeframe = /^timeframe\s*=.*$/m.exec(text);
    const at = timeframe ? timeframe.index + timeframe[0].length : 0;
    next = timeframe ? `${text.slice(0, at)}\n${line}${text.slice(at)}` : `${line}\n${text}`;
  }
  view.dispatch({ changes: { from: 0, to: text.length, insert: next } });
});

installWatch({ query: () => view.state.doc.toString(), key: () => keyInput.value.trim(), offline: () => offlineBox.checked });

// ---- running ---------------------------------------------------------------------------------

interface RunOutcome {
  plan: Plan;
  results: ResultRow[];
  /** The bars of a symbol, per timeframe of the plan, as the screen used them. */
  barsOf(symbol: string): Promise<Instrument | undefined>;
  /** Where a symbol's bars came from (`oanda bid, synced 2026-12-06 00:40 UTC`), once its bars were read. */
  feeds: Map<string, string>;
  /** Why a symbol matches the screen at its latest bar, or not (decisions §11), where the run was made. */
  whyOf(symbol: string): Promise<WhyResult>;
  source: string;
  /** What each column holds, so the table shows it as the CLI's does. */
  kinds: Readonly<Record<string, ColumnKind>>;
  /** The decimals each symbol's prices are quoted in, as far as its bars are known here. */
  decimals: Map<string, number>;
}

const fetchCount = (plan: Plan, timeframe: Timeframe): number => Math.max(plan.sources.find((s) => s.timeframe === timeframe)?.minLookback ?? 1, WARMUP);

/** The instruments the page screens offline: the synthetic universe's first {@link OFFLINE_SYMBOLS} of the market. */
function offlineUniverse(market: string, bars: number, timeframes: Timeframe[]): Instrument[] {
  return syntheticUniverse({ market, symbols: OFFLINE_SYMBOLS, timeframes, bars });
}

/** Most bars of the finest timeframe generated offline (12 weeks of m1, 3 years of h1). */
const OFFLINE_MAX_BARS = 30_000;

/**
 * Offline, the screen runs as the service would run it over bars imported at the plan's finest
 * timeframe: that one is generated, and every coarser one is derived from it by
 * `deriveTimeframes`, the store's own derivation (FOREX on its 17:00 New York session).
 */
function runOffline(text: string, plan: Plan): RunOutcome {
  const timeframes = plan.sources.map((s) => s.timeframe);
  const finest = [...timeframes].sort((a, b) => TIMEFRAME_MS[a] - TIMEFRAME_MS[b])[0]!;
  // Enough finest bars to cover every source's fetch (FOREX trades five days of seven).
  const perWeek = plan.market.toUpperCase() === "FOREX" ? 5 / 7 : 1;
  const needed = Math.max(...plan.sources.map((s) => Math.ceil(((fetchCount(plan, s.timeframe) + 1) * TIMEFRAME_MS[s.timeframe]) / TIMEFRAME_MS[finest] * perWeek) + 1));
  const bars = Math.min(needed, OFFLINE_MAX_BARS);
  const universe = offlineUniverse(plan.market, bars, [finest]).map((instrument) => deriveTimeframes(instrument, { market: plan.market, to: timeframes }));
  const compiled = compile(text);
  const { results } = compiled.run(universe);
  const base = plan.sources[0]!.timeframe;
  const shown = new Set(results.map((r) => r.symbol));
  const decimals = new Map(universe.filter((i) => shown.has(i.symbol)).map((i) => [i.symbol, priceDecimals(i.bars[base])] as const));
  return {
    plan,
    results,
    feeds: new Map(),
    kinds: compiled.columnKinds,
    decimals,
    source: `offline: ${OFFLINE_SYMBOLS} synthetic ${plan.market} instruments`,
    barsOf: async (symbol) => universe.find((i) => i.symbol === symbol),
    whyOf: async (symbol) => {
      const instrument = universe.find((i) => i.symbol === symbol);
      if (!instrument) throw new XqlDataError("no-bars-at", { symbol, market: plan.market, timeframe: plan.sources[0]!.timeframe });
      return compiled.why(instrument);
    },
  };
}

async function runOnline(text: string, plan: Plan, key: string): Promise<RunOutcome> {
  const headers = { Authorization: `Bearer ${key}` };
  const response = await fetch("/xql/run", { method: "POST", headers: { ...headers, "Content-Type": "text/plain" }, body: text });
  const body = (await response.json()) as { results?: ResultRow[]; error?: unknown };
  if (!response.ok) {
    const error = body.error as { message?: string } | string | undefined;
    throw new XqlDataError("playground-request", { what: "", status: response.status, reason: typeof error === "string" ? error : (error?.message ?? "run failed") });
  }
  const remaining = response.headers.get("X-RateLimit-Remaining");
  const feeds = new Map<string, string>();
  // The service's answer carries no bars: a symbol's price decimals are known once its bars are fetched for the chart.
  const decimals = new Map<string, number>();
  return {
    plan,
    feeds,
    results: body.results ?? [],
    kinds: compile(text).columnKinds,
    decimals,
    source: `service${remaining !== null ? ` (${remaining} runs left today)` : ""}`,
    whyOf: async (symbol) => {
      const r = await fetch("/xql/why", { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify({ query: text, symbol }) });
      const answer = (await r.json()) as WhyResult & { error?: unknown };
      if (!r.ok) {
        const error = answer.error as { message?: string } | string | undefined;
        throw new XqlDataError("playground-request", { what: "", status: r.status, reason: typeof error === "string" ? error : (error?.message ?? "why failed") });
      }
      return answer;
    },
    barsOf: async (symbol) => {
      const bars: Partial<Record<Timeframe, Bars>> = {};
      for (const source of plan.sources) {
        // From the screen's anchor at the latest bar (decisions §9): the chart ends at the table's value.
        const count = Math.max(fetchCount(plan, source.timeframe), chartBars(text, source.timeframe));
        const q = new URLSearchParams({ market: plan.market, symbol, timeframe: source.timeframe, bars: String(count) });
        const r = await fetch(`/xql/bars?${q}`, { headers });
        if (!r.ok) throw new XqlDataError("playground-request", { what: "bars", status: r.status, reason: ((await r.json()) as { error?: string }).error ?? "" });
        const got = (await r.json()) as { bars: Record<keyof Bars, (number | null)[]>; feed?: { source: string; price: string; lastSync: string } };
        if (got.feed) feeds.set(symbol, `${got.feed.source} ${got.feed.price}, synced ${got.feed.lastSync.slice(0, 16).replace("T", " ")} UTC`);
        const col = (k: keyof Bars): Float64Array => Float64Array.from(got.bars[k], (v) => (v === null ? NaN : v));
        bars[source.timeframe] = { time: col("time"), open: col("open"), high: col("high"), low: col("low"), close: col("close"), volume: col("volume") };
      }
      decimals.set(symbol, priceDecimals(bars[plan.sources[0]!.timeframe]));
      return { symbol, bars };
    },
  };
}

let lastRun: RunOutcome | undefined;
let lastText = "";

async function run(): Promise<void> {
  const text = view.state.doc.toString();
  const message = $("run-status");
  const checked = validate(text);
  if (!checked.valid) {
    message.textContent = `Fix the query first: ${checked.error.message}`;
    message.className = "error";
    return;
  }
  const explained = explain(text);
  if (!("plan" in explained)) return;
  const key = keyInput.value.trim();
  const offline = offlineBox.checked;
  if (!offline && key === "") {
    message.textContent = "Paste an API key (xql keys create), or tick Offline to run in the browser";
    message.className = "error";
    return;
  }
  message.textContent = "Running…";
  message.className = "";
  const started = performance.now();
  try {
    lastRun = offline ? runOffline(text, explained.plan) : await runOnline(text, explained.plan, key);
    lastText = text;
    const ms = Math.round(performance.now() - started);
    message.textContent = `${lastRun.results.length} match${lastRun.results.length === 1 ? "" : "es"} in ${ms} ms (${lastRun.source})`;
    message.className = "ok";
    showResults(lastRun);
    if (lastRun.results[0]) await showChart(lastRun.results[0].symbol);
    else clearChart("No match to chart");
  } catch (error) {
    showFailure(error);
  }
}
$("run").addEventListener("click", () => void run());

// ---- the results table ----------------------------------------------------------------------

function showResults(outcome: RunOutcome): void {
  const table = $<HTMLTableElement>("results");
  table.replaceChildren();
  const keys = [...new Set(outcome.results.flatMap((r) => Object.keys(r.columns)))];
  const head = table.createTHead().insertRow();
  for (const k of ["symbol", ...keys]) {
    const th = document.createElement("th");
    th.textContent = k;
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of outcome.results) {
    const tr = body.insertRow();
    tr.dataset.symbol = r.symbol;
    tr.tabIndex = 0;
    tr.insertCell().textContent = r.symbol;
    for (const k of keys) {
      const td = tr.insertCell();
      td.textContent = formatColumnValue(r.columns[k], outcome.kinds[k] ?? "number", outcome.decimals.get(r.symbol));
      td.className = "num";
    }
    const choose = (): void => {
      void showChart(r.symbol).catch(showFailure);
      void showWhy(r.symbol);
    };
    tr.addEventListener("click", choose);
    tr.addEventListener("keydown", (e) => e.key === "Enter" && choose());
  }
}

function showFailure(error: unknown): void {
  const message = $("run-status");
  message.textContent = messageOf(error);
  message.className = "error";
}

// ---- why a symbol matches or not ------------------------------------------------------------

/** The tree as nested lists: ✓/✗ per condition, failing parts marked, each number with its value. */
function whyList(node: WhyNode): HTMLLIElement {
  const li = document.createElement("li");
  const mark = node.value === true ? "✓ " : node.value === false ? "✗ " : "";
  const value = typeof node.value === "number" ? ` = ${Number.isInteger(node.value) ? node.value : node.value.toPrecision(6)}` : node.value === null ? " = —" : "";
  const at = node.time === undefined ? "" : `  (bar of ${new Date(node.time).toISOString().slice(0, 16).replace("T", " ")} UTC)`;
  li.textContent = `${mark}${node.expr}${value}${at}`;
  li.className = node.value === false ? "fail" : node.value === true ? "pass" : "";
  if (node.children && node.children.length > 0) {
    const ul = document.createElement("ul");
    for (const child of node.children) ul.append(whyList(child));
    li.append(ul);
  }
  return li;
}

async function showWhy(symbol: string): Promise<void> {
  const status = $("why-status");
  const tree = $("why-tree");
  $<HTMLInputElement>("why-symbol").value = symbol;
  if (!lastRun) {
    status.textContent = "Run the screen first";
    return;
  }
  status.textContent = `Why ${symbol}…`;
  try {
    const why = await lastRun.whyOf(symbol);
    status.textContent = `${why.symbol} at ${new Date(why.time).toISOString().slice(0, 16).replace("T", " ")} UTC: ${why.matched ? "matches" : "does not match"}`;
    const ul = document.createElement("ul");
    ul.append(whyList(why.tree));
    tree.replaceChildren(ul);
    tree.dataset.symbol = why.symbol;
  } catch (error) {
    status.textContent = messageOf(error);
    tree.replaceChildren();
  }
}
$("why-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const symbol = $<HTMLInputElement>("why-symbol").value.trim();
  if (symbol !== "") void showWhy(symbol);
});

// ---- the chart ------------------------------------------------------------------------------

let chart: IChartApi | undefined;
/** Empty bars right of the last one: room for the time label under it. */
const RIGHT_OFFSET_BARS = 6;
const COLOURS = ["#2962ff", "#ff6d00", "#00897b", "#d81b60", "#6d4c41", "#7cb342"];

function clearChart(note: string): void {
  chart?.remove();
  chart = undefined;
  $("chart-title").textContent = note;
}

async function showChart(symbol: string): Promise<void> {
  if (!lastRun) return;
  for (const tr of document.querySelectorAll<HTMLTableRowElement>("#results tbody tr")) tr.classList.toggle("selected", tr.dataset.symbol === symbol);
  const known = lastRun.decimals.has(symbol);
  const instrument = await lastRun.barsOf(symbol);
  // Prices of a symbol whose bars just arrived are shown again to its quoted decimals.
  if (!known && lastRun.decimals.has(symbol)) {
    showResults(lastRun);
    for (const tr of document.querySelectorAll<HTMLTableRowElement>("#results tbody tr")) tr.classList.toggle("selected", tr.dataset.symbol === symbol);
  }
  const base = lastRun.plan.sources[0]!.timeframe;
  const bars = instrument?.bars[base];
  if (!instrument || !bars) return clearChart(`No ${base} bars for ${symbol}`);
  const feed = lastRun.feeds.get(symbol);
  clearChart(`${symbol} · ${base} · ${bars.time.length} bars${feed ? ` · ${feed}` : ""}`);
  const host = $("chart");
  // Bars of room right of the last one, so the time label under it is not cut by the price scale.
  chart = createChart(host, {
    autoSize: true,
    layout: { background: { color: "#ffffff" }, textColor: "#333" },
    timeScale: { timeVisible: true, rightOffset: RIGHT_OFFSET_BARS },
  });
  // Prices to the decimals the instrument is quoted in (2 by default would show 0.00 for a token at 0.00001234).
  const decimals = priceDecimals(bars);
  const priceFormat = { type: "price" as const, precision: decimals, minMove: 10 ** -decimals };
  const candles = chart.addSeries(CandlestickSeries, { priceFormat });
  const t = (i: number): UTCTimestamp => Math.floor(bars.time[i]! / 1000) as UTCTimestamp;
  const data = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < bars.time.length; i++) {
    const [o, h, l, c] = [bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.close[i]!];
    if (![o, h, l, c].every(Number.isFinite)) continue;
    data.push({ time: t(i), open: o, high: h, low: l, close: c });
    lo = Math.min(lo, l);
    hi = Math.max(hi, h);
  }
  candles.setData(data);
  // The screen's numeric columns: on the price pane when they live in the price range, else below.
  const history = columnHistory(lastText, instrument, base, bars.time.length);
  let colour = 0;
  const legend = $("chart-legend");
  legend.replaceChildren();
  for (const [key, values] of history) {
    const first = bars.time.length - values.length;
    const points = values.flatMap((v, k) => (v === null ? [] : [{ time: t(first + k), value: v }]));
    if (points.length === 0) continue;
    const sorted = points.map((p) => p.value).sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1]!;
    const last = points[points.length - 1]!.value;
    const item = document.createElement("span");
    item.dataset.column = key;
    legend.append(item);
    // A column that is the close itself (`close`) is what the candles show: a line over them
    // would only hide them.
    if (values.every((v, k) => v === null || v === bars.close[first + k])) {
      item.textContent = `${key} ${candles.priceFormatter().format(last)} (the candles)`;
      continue;
    }
    // A price-like column (an average, a band) sits within a range's height of the bars; an oscillator does not.
    const onPrice = median >= lo - (hi - lo) && median <= hi + (hi - lo);
    const color = COLOURS[colour++ % COLOURS.length]!;
    // On the price pane a thin line, so the candles under it stay visible; an oscillator's own
    // pane shows four significant digits of its typical size.
    const precision = onPrice ? decimals : Math.max(significantDecimals(median, 4), significantDecimals(sorted[sorted.length - 1]!, 4));
    const line = chart.addSeries(
      LineSeries,
      { color, lineWidth: onPrice ? 1 : 2, title: key, priceLineVisible: false, priceFormat: { type: "price", precision, minMove: 10 ** -precision } },
      onPrice ? 0 : 1,
    );
    line.setData(points);
    item.style.color = color;
    item.textContent = `${key} ${line.priceFormatter().format(last)}${onPrice ? "" : " (pane)"}`;
  }
  chart.timeScale().fitContent();
  host.dataset.symbol = symbol;
  host.dataset.drawn = String(data.length);
}
