/**
 * The Neovim setups of docs/editors.md, run as written in the Neovim installed here (only the
 * command that starts `xql lsp` is pointed at this checkout): each setup whose version range
 * fits the installed Neovim opens a query, gets `xql lsp`'s diagnostic, hovers, formats, and
 * completes the symbols inside `symbols = [` from the store at the per-user default location
 * (a real SQLite file, found as `xql run` finds it).
 * A setup whose range does not fit, or a machine without `nvim`, skips with the reason in the
 * test's name (Debian 12's `apt-get install neovim` gives 0.7.2).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { seedSmallUniverse } from "../server/helpers.js";
import { itUnless } from "../kit/index.js";

const doc = readFileSync(new URL("../../docs/editors.md", import.meta.url), "utf8");
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));
const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const DOC_COMMAND = 'cmd = { "xql", "lsp", "--stdio" }';

type Version = [number, number, number];

/** The installed Neovim's version, or why there is none. */
function installedNeovim(): Version | string {
  const result = spawnSync("nvim", ["--version"], { encoding: "utf8" });
  if (result.error) return "nvim is not installed";
  const match = /NVIM v(\d+)\.(\d+)\.(\d+)/.exec(result.stdout);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : `nvim --version said ${JSON.stringify(result.stdout.slice(0, 40))}`;
}

interface Setup {
  heading: string;
  from: [number, number];
  through?: [number, number];
  lua: string;
}

const SETUPS: Setup[] = [...doc.matchAll(/^### (Neovim (\d+)\.(\d+) (?:or later|to (\d+)\.(\d+))[^\n]*)\n[\s\S]*?```lua\n([\s\S]*?)```/gm)].map((m) => ({
  heading: m[1]!,
  from: [Number(m[2]), Number(m[3])],
  ...(m[4] === undefined ? {} : { through: [Number(m[4]), Number(m[5])] as [number, number] }),
  lua: m[6]!,
}));

const neovim = installedNeovim();
const before = (a: readonly number[], b: readonly number[]): boolean => a[0]! < b[0]! || (a[0] === b[0] && a[1]! < b[1]!);

/** Why `setup` cannot run here, or undefined when it can. */
function skipReason(setup: Setup): string | undefined {
  if (typeof neovim === "string") return neovim;
  const shown = neovim.join(".");
  if (before(neovim, setup.from)) return `nvim ${shown} is older than ${setup.from.join(".")}`;
  if (setup.through && before(setup.through, neovim)) return `nvim ${shown} is newer than ${setup.through.join(".")}`;
  return undefined;
}

const work = mkdtempSync(join(tmpdir(), "xql-nvim-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the probe reports from inside Neovim. */
interface Probe {
  filetype: string;
  diagnostics: { lnum: number; col: number; message: string }[];
  hover: string;
  formatted: string[];
  symbols: string[];
}

// Runs inside Neovim after the query opened: waits for the diagnostic, fixes the query, hovers
// `avg`, formats (format() from 0.8, formatting_sync() before), then writes `symbols = [ ` on a
// new line and asks for completion after the `[`, writes what it saw, quits.
const PROBE = `
local out = { filetype = vim.bo.filetype, diagnostics = {}, hover = "", formatted = {} }
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message })
end
vim.api.nvim_buf_set_lines(0, 2, 3, false, { "rsi(14)<30 and // oversold", "volume>avg(volume,20)" })
vim.api.nvim_win_set_cursor(0, { 4, 8 })
local answers = vim.lsp.buf_request_sync(0, "textDocument/hover", vim.lsp.util.make_position_params(), 20000) or {}
for _, answer in pairs(answers) do
  if answer.result and answer.result.contents then out.hover = answer.result.contents.value or "" end
end
if vim.lsp.buf.format then vim.lsp.buf.format({ timeout_ms = 20000 }) else vim.lsp.buf.formatting_sync(nil, 20000) end
out.formatted = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local n = vim.api.nvim_buf_line_count(0)
vim.api.nvim_buf_set_lines(0, n, n, false, { "symbols = [ " })
vim.api.nvim_win_set_cursor(0, { n + 1, 11 })
out.symbols = {}
local completed = vim.lsp.buf_request_sync(0, "textDocument/completion", vim.lsp.util.make_position_params(), 20000) or {}
for _, answer in pairs(completed) do
  local items = answer.result and (answer.result.items or answer.result) or {}
  for _, item in ipairs(items) do table.insert(out.symbols, item.label) end
end
vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.XQL_PROBE_OUT)
vim.cmd("qa!")
`;

async function runNeovim(setup: Setup, dir: string): Promise<{ code: number | null; stderr: string }> {
  // The store `xql run` would open with this environment: $XDG_DATA_HOME/xql/xql.db.
  const store = new SqliteStore(join(dir, "data", "xql", "xql.db"));
  await seedSmallUniverse(store);
  await store.close();
  const command = `cmd = { ${[process.execPath, "--import", TSX, MAIN, "lsp", "--stdio"].map((part) => JSON.stringify(part)).join(", ")} }`;
  writeFileSync(join(dir, "init.lua"), setup.lua.replace(DOC_COMMAND, command));
  writeFileSync(join(dir, "probe.lua"), PROBE);
  writeFileSync(join(dir, "q.xql"), 'market="FOREX"\ntimeframe=h1\nrsii(14)<30\n');
  const child = spawn("nvim", ["--headless", "-i", "NONE", "-u", "init.lua", "q.xql", "-c", "luafile probe.lua"], {
    cwd: dir,
    env: {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_DATA_HOME: join(dir, "data"),
      XDG_STATE_HOME: join(dir, "state"),
      XDG_CACHE_HOME: join(dir, "cache"),
      XQL_PROBE_OUT: join(dir, "probe.json"),
      XQL_DB: "",
      XQL_DATABASE_URL: "",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 100_000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("docs/editors.md's Neovim setups", () => {
  it("are there for 0.10 and later and for 0.7 to 0.9, each starting xql lsp as the docs say", () => {
    expect(SETUPS.map((s) => [s.from, s.through])).toEqual([
      [[0, 10], undefined],
      [[0, 7], [0, 9]],
    ]);
    for (const setup of SETUPS) expect(setup.lua, setup.heading).toContain(DOC_COMMAND);
  });

  for (const setup of SETUPS) {
    const reason = skipReason(setup);
    itUnless(
      reason,
      `${setup.heading}: diagnostics, hover, formatting and the store's symbols in a real Neovim`,
      async () => {
        const dir = mkdtempSync(join(work, "setup-"));
        const { code, stderr } = await runNeovim(setup, dir);
        expect(code, stderr).toBe(0);
        const probe = JSON.parse(readFileSync(join(dir, "probe.json"), "utf8")) as Probe;
        expect(probe.filetype).toBe("xql");
        expect(probe.diagnostics).toEqual([{ lnum: 2, col: 0, message: "Unknown identifier 'rsii', did you mean 'rsi'?" }]);
        expect(probe.hover).toContain(FUNCTIONS.get("avg")!.doc);
        expect(probe.formatted).toEqual(['market = "FOREX"', "timeframe = h1", "rsi(14) < 30 and // oversold", "  volume > avg(volume, 20)"]);
        expect(probe.symbols).toEqual(["EURUSD", "GBPUSD", "USDJPY"]);
      },
      120_000,
    );
  }
});
