/**
 * One conformance corpus, three ways in (decisions §4: the same query text on the same bars
 * gives the same results in the library, the CLI and the service). Each `*.json` beside this
 * file holds cases `{ name, query, universe | bars, result | error }`:
 * - `universe` is a `syntheticUniverse` seed (`market`, `symbols`, `timeframes`, `bars`,
 *   `seed`); `bars` lists instruments written out (`{ symbol, bars: { tf: { time, open, ... } } }`)
 *   with the market in `market`;
 * - `result` is the body of a run, `error` the error body of a query that is not valid.
 * Every case runs through `compile().run()`, through `xql run --db` (in-process, main(argv, io))
 * over a SQLite file holding the same bars, and through POST /xql/run on a real server over
 * that file. All three must give `result` (or `error`) exactly.
 *
 * Expected bodies were written by the library when each case was added
 * (`UPDATE_CONFORMANCE=1 npx vitest run test/conformance` rewrites them) and checked then:
 * by hand for the written-out bars, against the reference evaluator (test/eval/reference.ts)
 * by the evaluator's own tests for the rest. From then on they pin every surface.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { compile, validate } from "../../src/api.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { createServer } from "../../src/server/index.js";
import type { Bars, Instrument, Timeframe } from "../../src/types.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "../cli/in-process.js";

interface UniverseSeed {
  market: string;
  symbols: number;
  timeframes: Timeframe[];
  bars: number;
  seed?: number;
}

interface WrittenInstrument {
  symbol: string;
  bars: Partial<Record<Timeframe, Record<keyof Bars, number[]>>>;
}

interface Case {
  name: string;
  query: string;
  universe?: UniverseSeed;
  market?: string;
  bars?: WrittenInstrument[];
  result?: unknown;
  error?: unknown;
}

interface CaseFile {
  description: string;
  cases: Case[];
}

const HERE = fileURLToPath(new URL(".", import.meta.url));
const UPDATE = process.env.UPDATE_CONFORMANCE === "1";
const files = readdirSync(HERE).filter((f) => f.endsWith(".json")).sort();
const corpus = files.map((file) => ({ file, ...(JSON.parse(readFileSync(join(HERE, file), "utf8")) as CaseFile) }));

function instrumentsOf(c: Case): { market: string; instruments: Instrument[] } {
  if (c.universe) return { market: c.universe.market, instruments: syntheticUniverse(c.universe) };
  if (c.bars && c.market) return { market: c.market, instruments: c.bars.map((i) => ({ symbol: i.symbol, bars: i.bars })) };
  throw new Error(`case ${c.name}: give a universe, or bars with a market`);
}

/** The library's answer: the run body, or `{ error }` for a query that is not valid. */
function libraryAnswer(c: Case): { result?: unknown; error?: unknown } {
  const checked = validate(c.query);
  if (!checked.valid) return { error: checked.error };
  const { instruments } = instrumentsOf(c);
  return { result: JSON.parse(JSON.stringify(compile(c.query).run(instruments))) as unknown };
}

function expected(c: Case): { result?: unknown; error?: unknown } {
  return c.error !== undefined ? { error: c.error } : { result: c.result };
}

/** One SQLite file per distinct set of bars, shared by the CLI and the server. */
const stores = new Map<string, { db: string; server?: FastifyInstance; url?: string; key?: string }>();
const storeKey = (c: Case): string => JSON.stringify(c.universe ?? { market: c.market, bars: c.bars });
let dir: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("xql-conformance-"));
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
  for (const entry of stores.values()) await entry.server?.close();
  cleanup?.();
  if (UPDATE) {
    for (const { file, description, cases } of corpus) {
      const rewritten = cases.map((c) => {
        const { result, error, ...rest } = c;
        void result;
        void error;
        return { ...rest, ...libraryAnswer(c) };
      });
      writeFileSync(join(HERE, file), `${JSON.stringify({ description, cases: rewritten }, null, 2)}\n`);
    }
  }
});

it("holds at least 40 cases, every one named once", () => {
  const names = corpus.flatMap(({ cases }) => cases.map((c) => c.name));
  expect(names.length).toBeGreaterThanOrEqual(40);
  expect(new Set(names).size).toBe(names.length);
});

for (const { file, description, cases } of corpus) {
  describe(`${file}: ${description}`, () => {
    for (const c of cases) {
      describe(c.name, () => {
        it.skipIf(UPDATE)("the library", () => {
          expect(libraryAnswer(c)).toEqual(expected(c));
        });

        it.skipIf(UPDATE)("the CLI (xql run --db over the same bars)", async () => {
          const { db } = stores.get(storeKey(c))!;
          const r = await xqlIn(["run", "--db", db, "--format", "json"], { input: c.query });
          const body = JSON.parse(r.stdout) as { valid?: false; error?: unknown };
          if (c.error !== undefined) {
            expect(r.code).toBe(1);
            expect(body).toEqual({ valid: false, error: c.error });
          } else {
            expect(r.code).toBe(0);
            expect(body).toEqual(c.result);
          }
        });

        it.skipIf(UPDATE)("the service (POST /xql/run)", async () => {
          const { url, key } = stores.get(storeKey(c))!;
          const response = await fetch(`${url}/xql/run`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
            body: c.query,
          });
          const body = (await response.json()) as Record<string, unknown>;
          if (c.error !== undefined) {
            expect(response.status).toBe(400);
            expect(body).toEqual({ valid: false, error: c.error });
          } else {
            expect(response.status).toBe(200);
            // The whole body, `meta` included (decisions §2): the same in all three.
            expect(body).toEqual(c.result);
          }
        });
      });
    }
  });
}
