import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore } from "../../src/open/sqlite.js";
import { hashApiKey } from "../../src/accounts/keys.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

/** `xql ...args` in this process; `env` adds to a clean environment whose HOME is `home`. */
const xql = (args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  xqlIn(args, { cwd: options.cwd, env: { HOME: join(tmpHome, "home"), ...options.env } });
let tmpHome = "";

const KEY = /^xql_[0-9A-Za-z]{32}$/;

describe("xql keys", () => {
  let dir: string;
  let cleanup: () => void;
  let db: string;
  beforeAll(() => {
    ({ dir, cleanup } = tempDir());
    db = join(dir, "keys.db");
    tmpHome = dir;
  });
  afterAll(() => cleanup());

  it("creates a key on a new account and prints it alone on the last line", async () => {
    const { code, stdout } = await xql(["keys", "create", "--tier", "essential", "--label", "laptop", "--db", db]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    const key = lines.at(-1)!;
    expect(key).toMatch(KEY);
    expect(stdout).toMatch(/account: acct_[0-9A-Za-z]{16} \(new\)/);
    expect(stdout).toContain("essential");
    const store = new SqliteStore(db);
    const record = await store.findKeyByHash(hashApiKey(key));
    await store.close();
    expect(record).toMatchObject({ tier: "essential", label: "laptop", revokedAt: null, prefix: key.slice(0, 8) });
  });

  it("adds a key to an existing account, lists keys without whole keys, and revokes", async () => {
    const first = await xql(["keys", "create", "--tier", "free", "--db", db]);
    const firstKey = first.stdout.trimEnd().split("\n").at(-1)!;
    const account = /account: (acct_\w+)/.exec(first.stdout)![1]!;
    const second = await xql(["keys", "create", "--account", account, "--label", "ci", "--db", db]);
    expect(second.code).toBe(0);
    const secondKey = second.stdout.trimEnd().split("\n").at(-1)!;
    expect(secondKey).toMatch(KEY);
    expect(second.stdout).not.toContain("(new)");

    const list = await xql(["keys", "list", "--db", db]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${firstKey.slice(0, 8)}…`);
    expect(list.stdout).not.toContain(firstKey);
    expect(list.stdout).not.toContain(secondKey);
    expect(list.stdout.match(new RegExp(account, "g"))).toHaveLength(2);

    const revoked = await xql(["keys", "revoke", firstKey, "--db", db]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ${firstKey.slice(0, 8)}…`);
    expect(revoked.stdout).not.toContain(firstKey);
    const json = await xql(["keys", "list", "--format", "json", "--db", db]);
    const rows = JSON.parse(json.stdout) as { prefix: string; revoked: string | null }[];
    expect(rows.find((r) => r.prefix === `${firstKey.slice(0, 8)}…`)!.revoked).toMatch(/^\d{4}-/);
    expect(json.stdout).not.toContain(firstKey);
  });

  it("creates write keys with --scope write; keys list shows every key's scope; another scope is a usage error", async () => {
    const write = await xql(["keys", "create", "--tier", "plus", "--scope", "write", "--label", "feed", "--db", db]);
    expect(write.code).toBe(0);
    expect(write.stdout).toContain("scope:   write (may push bars: POST /xql/bars)");
    const writeKey = write.stdout.trimEnd().split("\n").at(-1)!;
    const run = await xql(["keys", "create", "--tier", "plus", "--db", db]);
    expect(run.stdout).toContain("scope:   run\n");
    const runKey = run.stdout.trimEnd().split("\n").at(-1)!;
    const store = new SqliteStore(db);
    expect((await store.findKeyByHash(hashApiKey(writeKey)))?.scope).toBe("write");
    expect((await store.findKeyByHash(hashApiKey(runKey)))?.scope).toBe("run");
    await store.close();

    const json = JSON.parse((await xql(["keys", "list", "--format", "json", "--db", db])).stdout) as { prefix: string; scope: string }[];
    expect(json.find((r) => r.prefix === `${writeKey.slice(0, 8)}…`)?.scope).toBe("write");
    expect(json.find((r) => r.prefix === `${runKey.slice(0, 8)}…`)?.scope).toBe("run");
    const table = (await xql(["keys", "list", "--db", db])).stdout;
    expect(table.split("\n")[0]).toMatch(/key\s+account\s+tier\s+scope\s+label/);
    expect(table).toMatch(new RegExp(`${writeKey.slice(0, 8)}…\\s+acct_\\w+\\s+plus\\s+write\\s+feed`));
    const csv = (await xql(["keys", "list", "--format", "csv", "--db", db])).stdout;
    expect(csv.split("\n")[0]).toBe("prefix,account,tier,scope,label,created,revoked");

    const wrong = await xql(["keys", "create", "--tier", "free", "--scope", "writ", "--db", db]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Unknown scope 'writ', did you mean 'write'?: use run or write");
  });

  it("refuses a tier that does not match the account, an unknown account, and an unknown tier", async () => {
    const first = await xql(["keys", "create", "--tier", "free", "--db", db]);
    const account = /account: (acct_\w+)/.exec(first.stdout)![1]!;
    const mismatch = await xql(["keys", "create", "--account", account, "--tier", "plus", "--db", db]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(/is on the free tier, not plus/);
    const missing = await xql(["keys", "create", "--account", "acct_nope", "--db", db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No account 'acct_nope'/);
    const unknown = await xql(["keys", "create", "--tier", "gold", "--db", db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown tier 'gold'/);
    expect(unknown.stdout).toBe("");
  });

  it("fails to revoke a key that does not exist", async () => {
    const result = await xql(["keys", "revoke", "xql_00000000000000000000000000000000", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no such key/);
  });

  it("uses $XQL_DB, else one per-user file under $XDG_DATA_HOME or ~/.local/share, from any directory", async () => {
    const viaEnv = join(dir, "env.db");
    const env = await xql(["keys", "create", "--tier", "free"], { env: { XQL_DB: viaEnv } });
    expect(env.code).toBe(0);
    expect(existsSync(viaEnv)).toBe(true);
    expect(env.stderr).toBe(`xql: created the database ${viaEnv}\n`);

    const home = join(dir, "home", ".local", "share", "xql", "xql.db");
    const first = await xql(["keys", "create", "--tier", "free"], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`xql: created the database ${home}\n`);
    // Another directory opens the same file, and says nothing: it was not created now.
    const again = await xql(["keys", "list", "--format", "json"], { cwd: join(dir, "home") });
    expect(again.stderr).toBe("");
    expect(JSON.parse(again.stdout)).toHaveLength(1);
    expect(existsSync(join(dir, ".xql"))).toBe(false);

    const xdg = join(dir, "xdg");
    const viaXdg = await xql(["keys", "create", "--tier", "free"], { env: { XDG_DATA_HOME: xdg } });
    expect(viaXdg.stderr).toBe(`xql: created the database ${join(xdg, "xql", "xql.db")}\n`);
  });

  it("lists keys as CSV", async () => {
    const csvDb = join(dir, "csv.db");
    await xql(["keys", "create", "--tier", "plus", "--label", "a, b", "--db", csvDb]);
    const { code, stdout } = await xql(["keys", "list", "--format", "csv", "--db", csvDb]);
    expect(code).toBe(0);
    const [header, row] = stdout.trimEnd().split("\n");
    expect(header).toBe("prefix,account,tier,scope,label,created,revoked");
    expect(row).toMatch(/^xql_\w{4}…,acct_\w{16},plus,run,"a, b",\d{4}-\d\d-\d\dT[\d:.]+Z,$/);
  });

  it("rejects an unknown option or action with a did-you-mean, exit 2", async () => {
    const option = await xql(["keys", "list", "--fromat", "json", "--db", db]);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^xql keys list: unknown option '--fromat', did you mean '--format'\?/);
    const action = await xql(["keys", "revok", "--db", db]);
    expect(action.code).toBe(2);
    expect(action.stderr).toMatch(/unknown action 'revok', did you mean 'revoke'\?/);
  });

  it("prints help", async () => {
    const { code, stdout } = await xql(["keys", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("xql keys create --tier free|essential|plus");
  });
});
