import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";
import { VERSION as exported } from "../../src/index.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
const changelog = readFileSync(new URL("../../CHANGELOG.md", import.meta.url), "utf8");

describe("version", () => {
  it("src/version.ts VERSION equals package.json's version", () => {
    expect(VERSION).toBe(pkg.version);
    expect(exported).toBe(VERSION);
  });

  it("is semver, 0.1.0 or later", () => {
    const match = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(VERSION);
    expect(match, VERSION).not.toBeNull();
    const [major, minor] = [Number(match![1]), Number(match![2])];
    expect(major > 0 || minor >= 1).toBe(true);
  });

  it("has a CHANGELOG.md section", () => {
    expect(changelog).toMatch(new RegExp(`^## \\[${VERSION.replace(/\./g, "\\.")}\\]`, "m"));
  });

  it("is what `xql --version` prints", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "--version"], {
      cwd: new URL("../..", import.meta.url),
      encoding: "utf8",
    });
    expect(out).toBe(`${VERSION}\n`);
  });
});
