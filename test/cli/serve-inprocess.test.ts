/** `xql serve` and `xql run` in-process through main(argv, io): startup lines, stop, ports in use, options. */
import { createServer as createNetServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import { seedSmallUniverse } from "../server/helpers.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

describe("xql serve in-process", () => {
  let dir: string;
  let cleanup: () => void;
  let db: string;
  beforeAll(async () => {
    ({ dir, cleanup } = tempDir());
    db = join(dir, "serve.db");
    const store = new SqliteStore(db);
    await seedSmallUniverse(store);
    store.close();
  });
  afterAll(() => cleanup());

  it("listens, answers with --ceiling applied, and stops with exit 0 when asked to (as on SIGTERM)", async () => {
    const store = new SqliteStore(db);
    const { key } = await issueApiKey(store, { tier: "free", now: Date.now() });
    store.close();
    const stop = new AbortController();
    let url = "";
    let resolveListening: () => void = () => {};
    const listening = new Promise<void>((resolve) => (resolveListening = resolve));
    const finished = xqlIn(["serve", "--port", "0", "--db", db, "--quiet", "--ceiling", "500"], {
      stop: stop.signal,
      onStderr: (text) => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
        if (match && !url) {
          url = match[1]!;
          resolveListening();
        }
      },
    });
    await Promise.race([listening, finished]);
    expect(url).not.toBe("");
    // A lookback of 400 passes a ceiling of 500 (the default, 300, would refuse it).
    const body = 'market = "FOREX"\ntimeframe = h1\nclose > sma(400)';
    const validated = await fetch(`${url}/xql/validate`, { method: "POST", body, headers: { authorization: `Bearer ${key}` } });
    expect(await validated.json()).toEqual({ valid: true });
    stop.abort("SIGTERM");
    const result = await finished;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/stopped \(SIGTERM\)\n$/);
  });

  it("says in one line that a port is in use, exit 1", async () => {
    const blocker: Server = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await xqlIn(["serve", "--port", String(port), "--db", db, "--quiet"]);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
        `xql serve: port ${port} on 127.0.0.1 is in use (another xql serve?); stop that process or pick another with --port`,
      );
    } finally {
      blocker.close();
    }
  });

  it("rejects unknown options and bad values before opening anything", async () => {
    const typo = await xqlIn(["serve", "--prot", "80"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown option '--prot', did you mean '--port'\?/);
    expect((await xqlIn(["serve", "--port", "99999"])).stderr).toMatch(/--port must be an integer from 0 to 65535, got '99999'/);
    expect((await xqlIn(["serve", "--warmup", "10"])).stderr).toMatch(/unknown option '--warmup', did you mean '--warmup-ceiling'\?/);
    expect((await xqlIn(["serve", "--alert-grace", "soon"])).stderr).toMatch(/--alert-grace must be a number of seconds, got 'soon'/);
  });
});

describe("xql serve --metrics-port", () => {
  let dir: string;
  let cleanup: () => void;
  let db: string;
  beforeAll(async () => {
    ({ dir, cleanup } = tempDir());
    db = join(dir, "metrics.db");
    const store = new SqliteStore(db);
    await seedSmallUniverse(store);
    store.close();
  });
  afterAll(() => cleanup());

  it("says where /metrics is before the listening line, and serves the Prometheus text there", async () => {
    const stop = new AbortController();
    let stderr = "";
    let resolveListening: () => void = () => {};
    const listening = new Promise<void>((resolve) => (resolveListening = resolve));
    const finished = xqlIn(["serve", "--port", "0", "--db", db, "--quiet", "--metrics-port", "0"], {
      stop: stop.signal,
      onStderr: (text) => {
        stderr += text;
        if (/listening on /.test(stderr)) resolveListening();
      },
    });
    await Promise.race([listening, finished]);
    const metrics = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)\n.*listening on (http:\/\/127\.0\.0\.1:\d+)/s.exec(stderr);
    expect(metrics).not.toBeNull();
    expect((await fetch(`${metrics![2]}/health`)).status).toBe(200);
    const text = await (await fetch(metrics![1]!)).text();
    expect(text).toContain('xql_http_requests_total{route="/health",status="200"} 1');
    expect(text).toContain("process_cpu_seconds_total");
    stop.abort("SIGTERM");
    expect((await finished).code).toBe(0);
  });

  it("names --metrics-port when its port is in use, and checks the new options' values", async () => {
    const blocker: Server = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await xqlIn(["serve", "--port", "0", "--db", db, "--quiet", "--metrics-port", String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
        `xql serve: port ${port} on 127.0.0.1 is in use (another xql serve?); stop that process or pick another with --metrics-port`,
      );
    } finally {
      blocker.close();
    }
    expect((await xqlIn(["serve", "--metrics-port", "x"])).stderr).toMatch(/--metrics-port must be an integer from 0 to 65535, got 'x'/);
    expect((await xqlIn(["serve", "--metrics-host", "0.0.0.0"])).stderr).toMatch(/--metrics-host needs --metrics-port/);
    expect((await xqlIn(["serve", "--lease-seconds", "0"])).stderr).toMatch(/--lease-seconds must be an integer from 1 to 3600, got '0'/);
  });
});

describe("xql run in-process", () => {
  it("prints CSV with quoted column keys, and a table with a caret on errors", async () => {
    const query = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close, sma(close, 5)]\nlimit = 3\nclose > 0';
    const csv = await xqlIn(["run", "--synthetic", "--format", "csv"], { input: query });
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe('symbol,close,"sma(close, 5)"');
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(1)) expect(line).toMatch(/^[A-Z]{6},[\d.]+,[\d.]+$/);
    const bad = await xqlIn(["run", "--synthetic", "--format", "table"], { input: 'market = "FOREX"\ntimeframe = 1h\nclose > 0' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toBe(
      "syntax error at <stdin>:2:13: Unknown timeframe '1h', did you mean 'h1'? Timeframes are m1 m5 m15 m30 h1 h4 d w\n 2 | timeframe = 1h\n   |             ^\n",
    );
  });

  it("--warmup-ceiling bounds the bars fetched, --ceiling the lookback", async () => {
    const query = 'market = "FOREX"\ntimeframe = h1\ncolumns = [ema(50)]\nlimit = 1\nclose > 0';
    const short = JSON.parse((await xqlIn(["run", "--synthetic", "--warmup-ceiling", "60"], { input: query })).stdout);
    const long = JSON.parse((await xqlIn(["run", "--synthetic", "--warmup-ceiling", "2000"], { input: query })).stdout);
    // The same symbol, a different EMA: more history moves the seed further back.
    expect(short.results[0].symbol).toBe(long.results[0].symbol);
    expect(short.results[0].columns["ema(50)"]).not.toBe(long.results[0].columns["ema(50)"]);
    const ceiling = await xqlIn(["run", "--synthetic", "--ceiling", "40"], { input: query });
    expect(ceiling.code).toBe(1);
    expect(JSON.parse(ceiling.stdout).error.message).toBe("Lookback of 50 bars on timeframe h1 exceeds the ceiling of 40 bars");
  });

  it("history takes the same --ceiling and --warmup-ceiling, and shows a caret with --format table", async () => {
    const query = 'market = "FOREX"\ntimeframe = h1\nrsi(14) < 50';
    const ceiling = await xqlIn(["history", "--synthetic", "--bars", "5", "--ceiling", "10"], { input: query });
    expect(ceiling.code).toBe(1);
    expect(JSON.parse(ceiling.stdout).error.message).toBe("Lookback of 15 bars on timeframe h1 exceeds the ceiling of 10 bars");
    const ok = await xqlIn(["history", "--synthetic", "--bars", "5", "--warmup-ceiling", "40"], { input: query });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).stats.bars).toBe(5);
    const typo = await xqlIn(["history", "--warmup", "40"], { input: query });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown option '--warmup', did you mean '--warmup-ceiling'\?/);
    const bad = await xqlIn(["history", "--synthetic", "--format", "table"], { input: 'market = "FOREX"\ntimeframe = daily\ntrue' });
    expect(bad.stderr).toContain("Unknown timeframe 'daily', did you mean 'd'?");
    expect(bad.stderr).toContain(" 2 | timeframe = daily\n   |             ^\n");
  });
});
