/**
 * One conformance corpus as data (./corpus.ts), three ways in (decisions §4: the same query text
 * on the same bars gives the same results in the library, the CLI and the service). Every case
 * runs through `compile().run()`, through `xql run --db` (in-process, main(argv, io)) over a
 * SQLite file holding the same bars, and through POST /xql/run on a real server over that
 * file: the three bodies are identical, and equal to the case's expected body — exactly in its
 * shape, symbols, order and meta, and within 1e-9 relative (1e-9 · min(1, the column's scale)
 * absolute near zero) in its numbers, since the expected numbers come from elsewhere: worked by
 * hand, or TA-Lib's and decisions §1's computed by ./oracle.ts. `npm run gen`
 * (scripts/gen/conformance.ts) writes those computed bodies, from the oracle, never from the
 * library, and test/scripts/gen.test.ts fails while a committed one differs.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { compile, validate } from "../../src/api.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import { createServer } from "../../src/server/index.js";
import type { Timeframe } from "../../src/types.js";
import { tempDir, within } from "../kit/index.js";
import { xqlIn } from "../cli/in-process.js";
import { corpus, instrumentsOf, type Case, type RunBody } from "./corpus.js";


/** The library's answer: the run body, or `{ error }` for a query that is not valid. */
function libraryAnswer(c: Case): { result?: unknown; error?: unknown } {
  const checked = validate(c.query);
  if (!checked.valid) return { error: checked.error };
  return { result: JSON.parse(JSON.stringify(compile(c.query).run(instrumentsOf(c).instruments))) as unknown };
}

/**
 * `actual` is the expected run body: the same rows in the same order with the same column keys
 * and meta, every number within 1e-9 relative, or 1e-9 · min(1, scale) absolute where `scale`
 * is the largest magnitude of that column (values that are differences hover near 0).
 */
function expectBody(actual: unknown, expected: RunBody): void {
  const body = actual as RunBody;
  expect(Object.keys(body)).toEqual(["results", "meta"]);
  expect(body.meta).toEqual(expected.meta);
  expect(body.results.map((r) => r.symbol)).toEqual(expected.results.map((r) => r.symbol));
  const scale = new Map<string, number>();
  for (const row of expected.results) for (const [k, v] of Object.entries(row.columns)) scale.set(k, Math.max(scale.get(k) ?? 0, Math.abs(v ?? 0)));
  body.results.forEach((row, i) => {
    const want = expected.results[i]!.columns;
    expect(Object.keys(row.columns), row.symbol).toEqual(Object.keys(want));
    for (const [k, v] of Object.entries(row.columns)) {
      const tolerance = { rel: 1e-9, floor: Math.min(1, scale.get(k)!) || 1e-300 };
      if (!within(v, want[k]!, tolerance)) expect.fail(`${row.symbol} '${k}' = ${v}, expected ${want[k]}`);
    }
  });
}

/** One SQLite file per distinct set of bars, shared by the CLI and the server. */
const stores = new Map<string, { db: string; server: FastifyInstance; url: string; key: string }>();
const storeKey = (c: Case): string => JSON.stringify(c.bars ?? c.data);
const answers = new Map<Case, unknown>();
const { dir, cleanup } = tempDir("xql-conformance-");

beforeAll(async () => {
  for (const { cases } of corpus) {
    for (const c of cases) {
      const key = storeKey(c);
      if (stores.has(key)) continue;
      const db = join(dir, `store-${stores.size}.db`);
      const store = new SqliteStore(db);
      const { market, instruments } = instrumentsOf(c);
      const timeframes = [...new Set(instruments.flatMap((i) => Object.keys(i.bars) as Timeframe[]))];
      await store.upsertBars(
        timeframes.map((timeframe) => ({
          market,
          timeframe,
          symbols: instruments.filter((i) => i.bars[timeframe]).map((i) => ({ symbol: i.symbol, bars: i.bars[timeframe]! })),
        })),
      );
      const { key: apiKey } = await issueApiKey(store, { tier: "plus", now: Date.now() });
      const server = createServer({ store });
      await server.listen({ port: 0, host: "127.0.0.1" });
      const address = server.server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      stores.set(key, { db, server, url: `http://127.0.0.1:${port}`, key: apiKey });
    }
  }
});

afterAll(async () => {
  for (const entry of stores.values()) await entry.server.close();
  cleanup();
});

describe("the corpus", () => {
  const all = corpus.flatMap(({ cases }) => cases);

  it("holds at least 40 cases, every one named once, each saying where its expected body comes from", () => {
    const names = all.map((c) => c.name);
    expect(names.length).toBeGreaterThanOrEqual(40);
    expect(new Set(names).size).toBe(names.length);
    for (const c of all) {
      expect(c.source.length, c.name).toBeGreaterThan(10);
      expect((c.result === undefined) !== (c.error === undefined), `${c.name}: a result or an error`).toBe(true);
    }
  });

  it("calls every built-in function", () => {
    const text = all.map((c) => c.query).join("\n");
    const missing = [...FUNCTIONS.values()].filter((fn) => !new RegExp(`\\b${fn.name}\\b`).test(text)).map((fn) => fn.name);
    expect(missing).toEqual([]);
  });
});

/**
 * A body read from the store without its `meta.unconverged` (decisions §9: only paths that read
 * the store count it, the library's meta has none), checked to be a count.
 */
function storeBody(body: unknown): unknown {
  const { meta } = body as { meta: Record<string, unknown> };
  expect(Number.isInteger(meta.unconverged)).toBe(true);
  const { unconverged: _, ...rest } = meta;
  return { ...(body as object), meta: rest };
}

for (const { file, description, cases } of corpus) {
  describe(`${file}: ${description.slice(0, 80)}`, () => {
    for (const c of cases) {
      describe(c.name, () => {
        it("the library gives the expected body", () => {
          const answer = libraryAnswer(c);
          answers.set(c, answer);
          if (c.error !== undefined) expect(answer).toEqual({ error: c.error });
          else expectBody(answer.result, c.result!);
        });

        it("the CLI (xql run --db over the same bars) gives the library's body", async () => {
          const { db } = stores.get(storeKey(c))!;
          const r = await xqlIn(["run", "--db", db, "--format", "json"], { input: c.query });
          const body = JSON.parse(r.stdout) as unknown;
          const library = answers.get(c) ?? libraryAnswer(c);
          if (c.error !== undefined) {
            expect(r.code).toBe(1);
            expect(body).toEqual({ valid: false, error: c.error });
          } else {
            expect(r.code, r.stderr).toBe(0);
            expect(storeBody(body)).toEqual((library as { result: unknown }).result);
          }
        });

        it("the service (POST /xql/run) gives the library's body", async () => {
          const { url, key } = stores.get(storeKey(c))!;
          const response = await fetch(`${url}/xql/run`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
            body: c.query,
          });
          const body = (await response.json()) as unknown;
          const library = answers.get(c) ?? libraryAnswer(c);
          if (c.error !== undefined) {
            expect(response.status).toBe(400);
            expect(body).toEqual({ valid: false, error: c.error });
          } else {
            expect(response.status).toBe(200);
            // The whole body, `meta` included (decisions §2): bit for bit the library's. The corpus's
            // stores are shorter than any anchor reaches back (decisions §9), so the bars from the
            // anchor are all the bars.
            expect(storeBody(body)).toEqual((library as { result: unknown }).result);
          }
        });
      });
    }
  });
}
