/**
 * Watchlist routes (decisions §13): `PUT /xql/watchlists/{name}` (JSON `{ "symbols": [...] }`),
 * `GET /xql/watchlists`, `GET` and `DELETE /xql/watchlists/{name}`. Unmetered: saving a list is
 * not a run. A list belongs to the caller's account; another account's list is a 404 like one
 * that does not exist.
 */
import type { FastifyInstance } from "fastify";
import { MAX_SYMBOLS, WATCHLIST_NAME } from "../ast/lower.js";
import { MAX_WATCHLISTS, type Watchlist, type WatchlistStore } from "../accounts/watchlists.js";
import type { Authenticator } from "./auth.js";
import type { Clock } from "../clock.js";
import { fromStore } from "./errors.js";

const NOT_FOUND = { error: "Watchlist not found" } as const;
const LIMIT = { error: `Watchlist limit reached: at most ${MAX_WATCHLISTS} lists an account` } as const;
const FORM = 'a watchlist is JSON {"symbols": ["EURUSD", "GBPUSD", ...]}';
const BAD_NAME = { error: "A watchlist name is 1 to 40 characters of a-z, 0-9, _ and -" } as const;

/** The symbols of a PUT body, or why they cannot be read. */
function symbolsOf(text: unknown): string[] | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(typeof text === "string" ? text : "");
  } catch {
    return { problem: `The body is not valid JSON; ${FORM}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: `The body is not a JSON object; ${FORM}` };
  const fields = value as Record<string, unknown>;
  const extra = Object.keys(fields).filter((k) => k !== "symbols");
  if (extra.length > 0) return { problem: `Unknown field${extra.length === 1 ? "" : "s"} ${extra.map((k) => JSON.stringify(k)).join(", ")}; ${FORM}` };
  const symbols = fields.symbols;
  if (!Array.isArray(symbols) || symbols.some((s) => typeof s !== "string")) return { problem: `"symbols" must be an array of strings; ${FORM}` };
  if (symbols.length < 1 || symbols.length > MAX_SYMBOLS) return { problem: `A watchlist holds 1 to ${MAX_SYMBOLS} symbols, got ${symbols.length}` };
  const seen = new Set<string>();
  for (const symbol of symbols as string[]) {
    if (symbol.trim() === "" || symbol !== symbol.trim()) return { problem: "A symbol may not be empty or start or end with a space" };
    if (seen.has(symbol)) return { problem: `Duplicate symbol '${symbol}'` };
    seen.add(symbol);
  }
  return symbols as string[];
}

const shown = (list: Watchlist): Record<string, unknown> => ({ name: list.name, symbols: list.symbols, updatedAt: new Date(list.updatedAt).toISOString() });

export interface WatchlistRouteOptions {
  watchlists: WatchlistStore;
  auth: Authenticator;
  clock: Clock;
  bodyLimit: number;
}

export function registerWatchlistRoutes(app: FastifyInstance, options: WatchlistRouteOptions): void {
  const { watchlists, auth, clock } = options;
  void app.register(async (scope) => {
    // The list's own body: any Content-Type is read as text, and the route reads it as JSON.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: options.bodyLimit }, (_request, body, done) => done(null, body));

    scope.put<{ Params: { name: string } }>("/xql/watchlists/:name", { onRequest: auth.authenticate }, async (request, reply) => {
      const caller = auth.callerOf(request);
      const name = request.params.name;
      if (!WATCHLIST_NAME.test(name)) return reply.code(400).send(BAD_NAME);
      const symbols = symbolsOf(request.body);
      if ("problem" in symbols) return reply.code(400).send({ error: symbols.problem });
      const now = clock.now();
      const put = await fromStore(() => watchlists.putWatchlist(caller.accountId, name, symbols, now, MAX_WATCHLISTS));
      if (put === "limit") return reply.code(403).send(LIMIT);
      return reply.code(put === "created" ? 201 : 200).send(shown({ name, symbols, updatedAt: now }));
    });

    scope.get("/xql/watchlists", { onRequest: auth.authenticate }, async (request, reply) => {
      const caller = auth.callerOf(request);
      const lists = await fromStore(() => watchlists.listWatchlists(caller.accountId));
      return reply.send({ watchlists: lists.map(shown) });
    });

    scope.get<{ Params: { name: string } }>("/xql/watchlists/:name", { onRequest: auth.authenticate }, async (request, reply) => {
      const caller = auth.callerOf(request);
      const list = WATCHLIST_NAME.test(request.params.name) ? await fromStore(() => watchlists.getWatchlist(caller.accountId, request.params.name)) : undefined;
      return list ? reply.send(shown(list)) : reply.code(404).send(NOT_FOUND);
    });

    scope.delete<{ Params: { name: string } }>("/xql/watchlists/:name", { onRequest: auth.authenticate }, async (request, reply) => {
      const caller = auth.callerOf(request);
      const removed = WATCHLIST_NAME.test(request.params.name) && (await fromStore(() => watchlists.deleteWatchlist(caller.accountId, request.params.name)));
      return removed ? reply.code(204).send() : reply.code(404).send(NOT_FOUND);
    });
  });
}
