/**
 * The embedded store's quota file (issue 24.3 and 24.10), over real HTTP and real files: a
 * full disk refuses runs instead of serving them uncounted; a quota file deleted under a
 * running server, or one that cannot be created, is named by `/health`.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type Running } from "./helpers.js";
import { tempDir, describeUnless } from "../kit/index.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 440';
const ROOT = process.getuid?.() === 0;

let server: Running | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await server?.stop().catch(() => undefined);
  server = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const used = async (s: Running, key: string): Promise<number> => ((await (await s.get("/usage", key)).json()) as { used: number }).used;

describeUnless(ROOT ? undefined : "mounting its small tmpfs needs root", "a full disk (a small tmpfs mounted by the test)", () => {
  it("answers 500 for every run and counts nothing, where the commit of the reservation failed unseen before", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const mount = join(dir, "disk");
    mkdirSync(mount);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount]);
    cleanups.push(() => execFileSync("umount", ["-l", mount]));
    server = await startServer({ file: join(mount, "xql.db"), dir: mount });
    const { key } = await server.key("free");
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    expect(await used(server, key)).toBe(1);
    // Fill what is left of the disk.
    const fd = openSync(join(mount, "filler"), "w");
    try {
      const block = Buffer.alloc(64 * 1024, 1);
      for (;;) writeSync(fd, block);
    } catch (error) {
      expect((error as { code?: string }).code).toBe("ENOSPC");
    } finally {
      closeSync(fd);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await server.post("/xql/run", QUERY, key);
      statuses.push(response.status);
      if (response.status !== 200) expect(await response.json()).toEqual({ error: "Data store unavailable" });
    }
    // Before: 40 of 40 answered 200 with nothing written.
    expect(statuses.filter((s) => s === 200)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([500]));
    expect(await used(server, key)).toBe(1);
    // Room again: runs are counted again.
    rmSync(join(mount, "filler"));
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    expect(await used(server, key)).toBe(2);
  });
});

describe("the quota file on /health", () => {
  it("answers 503 naming the quota when its file was deleted under the running server", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    expect((await server.get("/health")).status).toBe(200);
    rmSync(`${server.file}-quota`);
    const health = await server.get("/health");
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: "unavailable",
      checks: { bars: "ok", keys: "ok", quota: "the quota file was deleted or replaced" },
    });
  });

  it("answers 503 naming the quota file when it cannot be created (a read-only directory), not the bars or keys", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const file = join(dir, "xql.db");
    server = await startServer({ file, dir });
    // Root writes into a read-only directory all the same: there, something else stands where
    // the quota file would be created, which SQLite fails to open the same way.
    if (ROOT) mkdirSync(`${file}-quota`);
    else {
      chmodSync(dir, 0o555);
      cleanups.push(() => chmodSync(dir, 0o755));
    }
    const health = await server.get("/health");
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "unavailable", checks: { bars: "ok", keys: "ok", quota: "the quota file cannot be opened or created" } });
    // Runs cannot be counted: refused, never served uncounted.
    const { key } = await server.key("free");
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(500);
  });
});
