/**
 * `xql data sync SOURCE`: keeps the store's bars current from a feed (decisions §6, §12). The
 * sync itself is `ingest/sync.ts`, one loop for every source; this is its command line: the
 * options, the source (a ccxt exchange, `oanda` or `dukascopy`) and its pairs, a progress bar
 * on a terminal, Ctrl-C ending it promptly, and one line per round of `--follow`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIo, OptionTable } from "../command.js";
import { CliError, UsageError, pick, positiveInteger } from "../command.js";
import { closest, intendedTimeframe, unknownTimeframeMessage } from "../../suggest.js";
import { TIMEFRAMES } from "../../types.js";
import { parseTime } from "../../ingest/csv.js";
import { MissingCcxtError, UnknownExchangeError, apiBase, openExchange } from "../../ingest/sync-exchange.js";
import { XqlDataError, messageOf } from "../../errors.js";
import { SymbolChoiceError, choosePairs, type SymbolChoice } from "../../ingest/sync-symbols.js";
import { type ChosenPair, DEFAULT_SYNC_BARS, type FollowRound, SYNC_TIMEFRAMES, type SyncSource, type SyncTimeframe, isSyncTimeframe, syncBars } from "../../ingest/sync.js";
import { FeedRequestError } from "../../ingest/sync-http.js";
import { ForexSymbolError, PRICE_SIDES, type PriceSide, forexPairs, isPriceSide } from "../../ingest/sync-forex.js";
import { OANDA_LIVE_URL, OANDA_TOKEN_VARIABLE, OandaSource, oandaInstrument } from "../../ingest/sync-oanda.js";
import { DukascopySource, MissingDukascopyError, dukascopyInstrument, loadDukascopy } from "../../ingest/sync-dukascopy.js";
import { progressBar } from "../progress.js";
import { databasePath, openStore } from "../store.js";

/** The timeframe stored when `--timeframe` is not given: h1 gives h4, d and w too, and 5,000 bars are seven months. */
export const DEFAULT_SYNC_TIMEFRAME: SyncTimeframe = "h1";

/** The FOREX sources: every other SOURCE is a ccxt exchange id. */
const FOREX_SOURCES = ["oanda", "dukascopy"] as const;

export const SYNC_OPTIONS = {
  symbols: { type: "string", value: "A/B,...", description: "sync: the pairs, e.g. BTC/USDT,ETH/USDT (stored as BTCUSDT) or, for oanda and dukascopy, EUR_USD,USDJPY (default the 28 majors)" },
  quote: { type: "string", value: "Q", description: "sync: every spot pair quoted in Q, e.g. USDT (leveraged tokens and stablecoin pairs left out)" },
  top: { type: "string", value: "N", description: "sync with --quote: only the N pairs most traded over 24 h (by quote volume)" },
  timeframe: {
    type: "string",
    value: "TF",
    description: `one of ${SYNC_TIMEFRAMES.join(" ")} w (import of a Binance dump: from the file name when not given; sync: ${SYNC_TIMEFRAMES.join(" ")}, FOREX up to h4, default ${DEFAULT_SYNC_TIMEFRAME})`,
  },
  since: { type: "string", value: "DATE|30d", description: `sync: the oldest bar wanted, a date (2026-10-01) or an age (30d, 12h, 90m, 2w); default the latest ${DEFAULT_SYNC_BARS.toLocaleString("en-US")} bars` },
  until: { type: "string", value: "DATE|30d", description: "sync: the end of a backfill, exclusive: no bar opening at or after it (not with --follow)" },
  follow: { type: "boolean", description: "sync: keep running, fetching each bar as it closes (Ctrl-C stops it)" },
  price: { type: "string", value: "bid|ask|mid", description: "sync oanda|dukascopy: the price side of the candles (default bid, as FX charts and MetaTrader)" },
  live: { type: "boolean", description: "sync oanda: the live accounts' host instead of the practice one (the token must be a live account's)" },
  "api-url": { type: "string", value: "URL", description: "sync: the source's REST base URL instead of its own (a regional mirror, a proxy, a test stand-in)" },
  ...pick("db"),
} as const satisfies OptionTable;

export const SYNC_HELP = `  sync     Keeps bars current from a feed; only closed bars are written, at --timeframe
           (default ${DEFAULT_SYNC_TIMEFRAME}; coarser timeframes are derived):
             EXCHANGE   CRYPTO spot pairs through ccxt (npm install ccxt): --symbols, or
                        every pair quoted in --quote (the --top N most traded over 24 h),
                        stored as BASEQUOTE (BTC/USDT -> BTCUSDT)
             oanda      FOREX from OANDA's v20 API: the token in ${OANDA_TOKEN_VARIABLE}, the
                        practice host unless --live; --price bid|ask|mid
             dukascopy  FOREX history from Dukascopy, no account (npm install
                        dukascopy-node); --price bid|ask|mid
           FOREX pairs: --symbols EUR_USD,USDJPY (default the 28 pairs of the 8 majors),
           stored as EURUSD in market FOREX, days on 17:00 New York.
           It resumes from the bars already stored (fetching the newest missing bars
           first, then older ones back to --since; --until ends a backfill), never fetches
           a stored bar again, respects the source's rate limits (backing off on 429 and
           network errors, saying so on standard error) and writes each batch of pages in
           one transaction. --follow keeps it running: after each close it fetches what
           closed. Ctrl-C (SIGINT, or SIGTERM) stops it within 2 s, writing the pages
           already answered, exit 0.
`;

type Values = Record<string, string | boolean | undefined>;

const AGE = /^(\d+)\s*(m|min|h|d|w)$/i;
const AGE_MS: Readonly<Record<string, number>> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--since` (or `--until`): a date or time (ISO 8601, ms), or an age before `now` such as `30d`. */
export function parseSince(text: string, now: number, option = "--since"): number {
  const age = AGE.exec(text.trim());
  if (age) return now - Number(age[1]) * AGE_MS[age[2]!.toLowerCase()]!;
  const time = parseTime(text.trim());
  if (typeof time === "string") throw new UsageError(`${option}: ${time}; give a date (2026-10-01) or an age (30d, 12h, 90m, 2w)`);
  if (time > now) throw new UsageError(`${option} ${text} is in the future`);
  return time;
}

/** The version range of an optional package that this xql supports, from its package.json. */
function peerRange(name: string): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++, dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; peerDependencies?: Record<string, string> };
    if (manifest.name === "xql") return manifest.peerDependencies?.[name];
  }
  return undefined;
}

/** The message for an optional package the sync needs and the install left out. */
function missingPackage(name: string): CliError {
  const range = peerRange(name);
  return new CliError(`the sync needs ${name}, which \`npm install xql\` leaves out so that the library installs light. Install it beside xql: npm install ${range ? `${name}@${range}` : name}`);
}

/** What the command line chose: the source, its pairs, and how to describe them. */
interface Chosen {
  source: SyncSource;
  pairs: ChosenPair[];
  what: string;
}

/** `xql data sync SOURCE ...`. */
export async function syncAction(positionals: string[], values: Values, io: CliIo): Promise<number> {
  const sourceId = positionals[0];
  if (sourceId === undefined) throw new UsageError("data sync needs a SOURCE: oanda or dukascopy (FOREX), or a ccxt exchange id such as binance, bybit, okx or kraken");
  const forex = (FOREX_SOURCES as readonly string[]).includes(sourceId.toLowerCase());
  const timeframeText = (values.timeframe as string | undefined) ?? DEFAULT_SYNC_TIMEFRAME;
  if (!isSyncTimeframe(timeframeText)) {
    if (intendedTimeframe(timeframeText, TIMEFRAMES) === "w") throw new UsageError("data sync stores m1 to d; weeks are derived from days: use --timeframe d");
    throw new UsageError(unknownTimeframeMessage(timeframeText, SYNC_TIMEFRAMES));
  }
  const timeframe = timeframeText;
  if (forex && timeframe === "d") throw new UsageError("FOREX days are derived from h1 or h4 on the 17:00 New York session: use --timeframe h1 (or h4)");
  const now = Date.now();
  const sinceText = values.since as string | undefined;
  const since = sinceText === undefined ? undefined : parseSince(sinceText, now);
  const untilText = values.until as string | undefined;
  const until = untilText === undefined ? undefined : parseSince(untilText, now, "--until");
  const follow = values.follow === true;
  if (until !== undefined && follow) throw new UsageError("--until ends a backfill and --follow keeps going: choose one");
  if (until !== undefined && since !== undefined && until <= since) throw new UsageError(`--until ${untilText} is not after --since ${sinceText}`);
  const apiUrl = values["api-url"] as string | undefined;
  if (apiUrl !== undefined) checkUrl(apiUrl);
  const controller = new AbortController();
  const onRetry = (line: string): void => void io.stderr.write(`xql data sync: ${line}\n`);

  const chosen = forex ? await forexSource(sourceId.toLowerCase() as (typeof FOREX_SOURCES)[number], values, apiUrl, controller.signal, onRetry, io) : undefined;
  const exchangeChoice = forex ? undefined : exchangeChoiceOf(values);
  let exchange;
  if (exchangeChoice) {
    try {
      exchange = await openExchange(sourceId, { apiUrl, onRetry, stop: controller.signal });
    } catch (error) {
      if (error instanceof MissingCcxtError) throw missingPackage("ccxt");
      if (error instanceof UnknownExchangeError) {
        const meant = closest(sourceId.toLowerCase(), [...error.known, ...FOREX_SOURCES]);
        throw new UsageError(`${error.message}${meant ? `, did you mean '${meant}'?` : ""} (ccxt's ids: binance, bybit, okx, kraken, coinbase, ...; FOREX: oanda, dukascopy)`);
      }
      if (error instanceof XqlDataError && error.code === "feed-api-url") throw new UsageError(error.message);
      throw new CliError(messageOf(error));
    }
  }

  const store = await openStore(databasePath(values.db as string | undefined, io.env, io.cwd), io.stderr);
  try {
    let source: SyncSource;
    let pairs: ChosenPair[];
    let what: string;
    if (chosen) ({ source, pairs, what } = chosen);
    else {
      const choice = exchangeChoice!;
      source = exchange!;
      try {
        const markets = await exchange!.spotMarkets();
        let volumes;
        if (choice.kind === "quote" && choice.top !== undefined) {
          if (!exchange!.hasTickers) throw new CliError(`${sourceId} gives no 24 h volumes for all pairs at once through ccxt, so --top cannot rank them; name the pairs with --symbols`);
          volumes = await exchange!.quoteVolumes();
        }
        pairs = choosePairs(sourceId, markets, choice, volumes);
      } catch (error) {
        if (error instanceof SymbolChoiceError) throw new UsageError(error.message);
        if (error instanceof CliError) throw error;
        throw new CliError(`${sourceId}: ${messageOf(error)}`);
      }
      what =
        choice.kind === "named" ? `${pairs.length} pair${pairs.length === 1 ? "" : "s"}` : `${pairs.length} pairs quoted in ${choice.quote.toUpperCase()}${choice.top === undefined ? "" : ` (the ${choice.top} most traded over 24 h)`}`;
    }

    // The synthetic seed (`xql serve` or `xql run` on an empty store) writes pairs with real
    // names at every timeframe, weeks included; a sync would resume after its last made-up bar.
    const names = new Set(pairs.map((p) => p.stored));
    const seeded = (await store.series(source.market)).filter((s) => s.timeframe === "w" && !s.derived && names.has(s.symbol)).map((s) => s.symbol);
    if (seeded.length > 0) {
      io.stderr.write(
        `xql data sync: warning: ${seeded.length} of these pairs (${seeded.slice(0, 3).join(", ")}${seeded.length > 3 ? ", ..." : ""}) hold weekly bars imported as such, as the synthetic seed writes them; ` +
          `the sync only adds bars after and before them. For real data, sync into a database of its own (--db), or delete them first (xql data delete --symbol S --market ${source.market})\n`,
      );
    }

    // One price side per series: a sync resumes from the stored bars, so another side would
    // append ask bars to bid ones. Another source of the same side is fine (Dukascopy's free
    // history, then OANDA's live bars).
    const sides = (await store.feeds(source.market)).filter((f) => f.timeframe === timeframe && names.has(f.symbol) && f.price !== source.price);
    if (sides.length > 0) {
      const f = sides[0]!;
      throw new UsageError(
        `${f.symbol} ${timeframe} holds ${f.price} bars (from ${f.source}); a sync with --price ${source.price} would mix the two sides in one series. ` +
          `Sync --price ${f.price}, sync into another --db, or delete them first: xql data delete --symbol ${f.symbol} --market ${source.market} --timeframe ${timeframe}`,
      );
    }

    io.onStop((reason) => {
      io.stderr.write(`xql data sync: ${reason}: stopping after the batch in hand${reason === "SIGINT" ? " (Ctrl-C again stops at once)" : ""}\n`);
      controller.abort();
    });
    const from = since === undefined ? `the latest ${DEFAULT_SYNC_BARS.toLocaleString("en-US")} bars` : `bars since ${minute(since)} UTC`;
    const to = until === undefined ? "" : ` until ${minute(until)} UTC`;
    const side = forex ? ` (${source.price})` : "";
    io.stderr.write(`xql data sync: ${source.id}${apiUrl === undefined ? "" : ` at ${apiUrl}`}, ${what}, ${timeframe}${side} ${from}${to}, into market ${source.market} of ${store.file}\n`);

    const progress = progressBar("Syncing", io.stderr);
    const started = Date.now();
    let report;
    try {
      report = await syncBars({
        source,
        store,
        pairs,
        timeframe,
        since,
        until,
        follow,
        signal: controller.signal,
        onProgress: progress.update,
        onNotice: (line) => {
          progress.done();
          io.stderr.write(`xql data sync: ${line}\n`);
        },
        onRound: (round) => {
          progress.done();
          io.stdout.write(roundLine(round, timeframe));
        },
      });
    } catch (error) {
      progress.done();
      if (error instanceof FeedRequestError && error.kind === "refused") throw new CliError(error.message);
      throw error;
    }
    progress.done();
    const seconds = (Date.now() - started) / 1000;
    io.stdout.write(
      `${report.stopped ? "Stopped after" : "Synced"} ${report.written.toLocaleString("en-US")} ${timeframe} bars of ${pairs.length} symbol${pairs.length === 1 ? "" : "s"} from ${source.id} into market ${source.market} (${store.file}) in ${seconds.toFixed(1)} s: ` +
        `${report.requests.toLocaleString("en-US")} requests (${(report.fetchMs / 1000).toFixed(1)} s waiting for ${source.id}), ${report.writes} writes (${(report.writeMs / 1000).toFixed(1)} s)\n`,
    );
    if (report.failed.length > 0) {
      io.stderr.write(`xql data sync: ${report.failed.length} pair${report.failed.length === 1 ? "" : "s"} failed: ${report.failed.map((f) => f.symbol).join(", ")}; the next sync resumes them\n`);
      return report.stopped ? 0 : 1;
    }
    return 0;
  } finally {
    await store.close();
  }
}

/** `--symbols` or `--quote [--top]` for an exchange. */
function exchangeChoiceOf(values: Values): SymbolChoice {
  const symbols = values.symbols as string | undefined;
  const quote = values.quote as string | undefined;
  const top = positiveInteger("data sync", "top", values.top as string | undefined);
  for (const option of ["price", "live"] as const) if (values[option] !== undefined) throw new UsageError(`--${option} is for the FOREX sources (oanda, dukascopy); an exchange's candles are its trades`);
  if (symbols !== undefined && quote !== undefined) throw new UsageError("data sync takes --symbols or --quote, not both");
  if (symbols === undefined && quote === undefined) throw new UsageError("data sync needs --symbols A/B,C/D or --quote Q (e.g. --quote USDT --top 50)");
  if (top !== undefined && quote === undefined) throw new UsageError("--top N goes with --quote Q: the N most traded pairs quoted in Q");
  const choice: SymbolChoice = symbols !== undefined ? { kind: "named", symbols: symbols.split(",").filter((s) => s.trim() !== "") } : { kind: "quote", quote: quote!, top };
  if (choice.kind === "named" && choice.symbols.length === 0) throw new UsageError("--symbols needs at least one pair, e.g. BTC/USDT");
  return choice;
}

/** The OANDA or Dukascopy source and its pairs. */
async function forexSource(
  id: (typeof FOREX_SOURCES)[number],
  values: Values,
  apiUrl: string | undefined,
  stop: AbortSignal,
  onRetry: (line: string) => void,
  io: CliIo,
): Promise<Chosen> {
  for (const option of ["quote", "top"] as const) if (values[option] !== undefined) throw new UsageError(`--${option} is for exchanges; ${id} takes --symbols EUR_USD,USDJPY (default the 28 majors)`);
  const priceText = (values.price as string | undefined) ?? "bid";
  if (!isPriceSide(priceText)) {
    const meant = closest(priceText.toLowerCase(), PRICE_SIDES);
    throw new UsageError(`--price must be bid, ask or mid${meant ? ` (did you mean '${meant}'?)` : ""}`);
  }
  const price: PriceSide = priceText;
  const symbolsText = values.symbols as string | undefined;
  const symbols = symbolsText?.split(",").filter((s) => s.trim() !== "");
  if (symbols !== undefined && symbols.length === 0) throw new UsageError("--symbols needs at least one pair, e.g. EUR_USD");
  const what = (pairs: readonly ChosenPair[]): string => (symbols === undefined ? `the ${pairs.length} major pairs` : `${pairs.length} pair${pairs.length === 1 ? "" : "s"}`);
  if (id === "oanda") {
    const token = io.env[OANDA_TOKEN_VARIABLE]?.trim();
    if (!token) {
      throw new CliError(`${OANDA_TOKEN_VARIABLE} is not set: the sync reads OANDA's token from it (never from a flag). Create a token in your OANDA account (Manage API Access), then: export ${OANDA_TOKEN_VARIABLE}=...`);
    }
    if (apiUrl !== undefined && values.live === true) throw new UsageError("--live and --api-url both choose the host: give one");
    const pairs = forexPairsOrUsage(symbols, oandaInstrument);
    const source = new OandaSource({ token, price, apiUrl: apiUrl ?? (values.live === true ? OANDA_LIVE_URL : undefined), onRetry, stop });
    return { source, pairs, what: what(pairs) };
  }
  if (values.live !== undefined) throw new UsageError("--live is for oanda: Dukascopy's history needs no account");
  let lib;
  try {
    lib = await loadDukascopy();
  } catch (error) {
    if (error instanceof MissingDukascopyError) throw missingPackage("dukascopy-node");
    throw error;
  }
  const pairs = forexPairsOrUsage(symbols, (base, quote) => {
    const key = dukascopyInstrument(lib, base, quote);
    if (key === undefined) {
      const meant = closest(`${base}${quote}`.toLowerCase(), Object.keys(lib.instrumentMetaData));
      throw new ForexSymbolError(`Dukascopy has no instrument ${base}${quote}${meant ? `, did you mean ${lib.instrumentMetaData[meant as keyof typeof lib.instrumentMetaData].code}?` : ""}`);
    }
    return key;
  });
  const source = new DukascopySource(lib, { price, apiUrl, onRetry, stop });
  return { source, pairs, what: what(pairs) };
}

function forexPairsOrUsage(symbols: readonly string[] | undefined, spell: (base: string, quote: string) => string): ChosenPair[] {
  try {
    return forexPairs(symbols, spell);
  } catch (error) {
    if (error instanceof ForexSymbolError) throw new UsageError(`--symbols: ${error.message}`);
    throw error;
  }
}

/** `--api-url` checked before anything opens: a mistake in it is a usage error. */
function checkUrl(apiUrl: string): void {
  try {
    apiBase(apiUrl);
  } catch (error) {
    if (error instanceof XqlDataError) throw new UsageError(error.message);
    throw error;
  }
}

function minute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

/** A round of `--follow`, the bar named by its open time and timeframe as `xql watch` names it. */
export function roundLine(round: FollowRound, timeframe: SyncTimeframe): string {
  const bar = `${timeframe} bar of ${minute(round.bar)} UTC`;
  if (round.written === 0) return `${bar}: no new bars\n`;
  return `${bar}: ${round.written.toLocaleString("en-US")} bar${round.written === 1 ? "" : "s"} of ${round.symbols} symbol${round.symbols === 1 ? "" : "s"} written ${(round.lagMs / 1000).toFixed(1)} s after its close\n`;
}

