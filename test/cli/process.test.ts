/**
 * The command line as a real process: `npx tsx src/cli/main.ts` from a checkout, exit codes and
 * streams of the process itself. Everything else about the commands runs in-process
 * (main(argv, io)) in the other CLI tests.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { validate } from "../../src/api.js";
import { ROOT, xql } from "./run-cli.js";

const INVALID = 'market = "FOREX"\ntimeframe = h1\nrsii(14) < 30';

describe("xql as a process", () => {
  it("validates through npx tsx, as a user would from a checkout", () => {
    const result = spawnSync("npx", ["tsx", "src/cli/main.ts", "validate", "-"], { cwd: ROOT, input: INVALID, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(`${JSON.stringify(validate(INVALID))}\n`);
  });

  it("exits 2 on an unknown option and 0 on --version", async () => {
    const bad = await xql(["run", "--formt", "table"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--formt', did you mean '--format'\?/);
    const version = await xql(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });
});
