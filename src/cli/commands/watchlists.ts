/**
 * `xql watchlists set|list|delete`: the store's local lists, which `watchlist = "name"` names in
 * `xql run`, `history` and `watch` on the same store (decisions §13). The service keeps each
 * account's lists apart; these belong to whoever uses the store from the command line.
 */
import type { CliIo, Command } from "../command.js";
import { UsageError, formatOption, optionsHelp, parseCommandLine, pick } from "../command.js";
import { LOCAL_ACCOUNT, MAX_WATCHLISTS } from "../../accounts/watchlists.js";
import { MAX_SYMBOLS, WATCHLIST_NAME } from "../../ast/lower.js";
import { databasePath, openStore } from "../store.js";
import { renderTable } from "../table.js";

const ACTIONS = ["set", "list", "delete"];
const SET_OPTIONS = pick("db");
const LIST_OPTIONS = pick("format", "db");

const help = `Usage:
  xql watchlists set NAME SYMBOL[,SYMBOL...] [SYMBOL...] [--db FILE|URL]
  xql watchlists list [--format table|json] [--db FILE|URL]
  xql watchlists delete NAME [--db FILE|URL]

Symbol lists kept in the store, for queries that say watchlist = "NAME" (xql run, history
and watch on the same store). A name is 1 to 40 characters of a-z, 0-9, _ and -; a list holds
1 to ${MAX_SYMBOLS} distinct symbols; the store keeps at most ${MAX_WATCHLISTS} lists.

  set      Saves the list NAME (replacing one of that name). Symbols are separated by commas
           or spaces.
  list     Every list with its symbols.
  delete   Removes the list NAME.

${optionsHelp({ ...SET_OPTIONS, format: { type: "string", value: "table|json", description: "list output: table (default) or json" } })}

Example:
  xql watchlists set majors EURUSD,GBPUSD,USDJPY
  printf 'market = "FOREX"\\ntimeframe = h1\\nwatchlist = "majors"\\nrsi(14) < 30\\n' | xql run -
`;

function checkedName(name: string | undefined): string {
  if (name === undefined) throw new UsageError("xql watchlists needs the list's NAME");
  if (!WATCHLIST_NAME.test(name)) throw new UsageError(`A watchlist name is 1 to 40 characters of a-z, 0-9, _ and -, got '${name}'`);
  return name;
}

async function set(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("watchlists set", args, SET_OPTIONS, Infinity);
  const name = checkedName(positionals[0]);
  const symbols = positionals.slice(1).flatMap((p) => p.split(",")).map((s) => s.trim()).filter((s) => s !== "");
  if (symbols.length < 1 || symbols.length > MAX_SYMBOLS) throw new UsageError(`A watchlist holds 1 to ${MAX_SYMBOLS} symbols, got ${symbols.length}`);
  const duplicate = symbols.find((s, i) => symbols.indexOf(s) !== i);
  if (duplicate !== undefined) throw new UsageError(`Duplicate symbol '${duplicate}'`);
  const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
  try {
    const put = await store.putWatchlist(LOCAL_ACCOUNT, name, symbols, Date.now(), MAX_WATCHLISTS);
    if (put === "limit") throw new UsageError(`The store keeps at most ${MAX_WATCHLISTS} lists; delete one first`);
    io.stdout.write(`${put === "created" ? "saved" : "replaced"} ${name}: ${symbols.length} symbol${symbols.length === 1 ? "" : "s"}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine("watchlists list", args, LIST_OPTIONS);
  const format = formatOption("watchlists list", values.format ?? "table");
  if (format === "csv") throw new UsageError("xql watchlists list: --format must be table or json");
  const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
  try {
    const lists = await store.listWatchlists(LOCAL_ACCOUNT);
    if (format === "json") {
      io.stdout.write(`${JSON.stringify({ watchlists: lists.map((w) => ({ name: w.name, symbols: w.symbols, updatedAt: new Date(w.updatedAt).toISOString() })) })}\n`);
    } else if (lists.length === 0) {
      io.stdout.write("No watchlists.\n");
    } else {
      io.stdout.write(renderTable(["name", "symbols", "list"], lists.map((w) => [w.name, String(w.symbols.length), w.symbols.join(" ")]), [false, true, false]));
    }
    return 0;
  } finally {
    await store.close();
  }
}

async function remove(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("watchlists delete", args, SET_OPTIONS, 1);
  const name = checkedName(positionals[0]);
  const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
  try {
    if (!(await store.deleteWatchlist(LOCAL_ACCOUNT, name))) {
      io.stderr.write(`xql watchlists: no list named '${name}'\n`);
      return 1;
    }
    io.stdout.write(`deleted ${name}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

export const watchlistsCommand: Command = {
  name: "watchlists",
  summary: "Keep the store's symbol lists for watchlist = \"name\" (set, list, delete)",
  help,
  async run(args, io) {
    const [action, ...rest] = args;
    if (action === "set") return set(rest, io);
    if (action === "list") return list(rest, io);
    if (action === "delete") return remove(rest, io);
    throw new UsageError(`xql watchlists: use one of ${ACTIONS.join(", ")}${action === undefined ? "" : `, got '${action}'`}`);
  },
};
