/** Debian's Chromium for the browser tests and bench (scripts/browser.sh installs it when missing). */
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CHROMIUM = process.env.XQL_CHROMIUM ?? "/usr/bin/chromium";

/** Builds the page into dist/playground (the build's own checks run too). */
export function buildPlayground(): string {
  execFileSync(process.execPath, ["scripts/build-playground.mjs"], { cwd: ROOT, stdio: "pipe" });
  return `${ROOT}dist/playground`;
}

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash scripts/browser.sh (installs Debian's chromium)`);
  // Root in a container has no user namespace for Chromium's sandbox.
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}
