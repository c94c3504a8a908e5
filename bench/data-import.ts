/**
 * The import child of `npm run bench:data`: imports one file into one store through the
 * importer `xql data import` runs, and prints rows, seconds and its own peak RSS as JSON.
 * Usage: node .bench/data-import.js FILE DATABASE OPTIONS_JSON
 */
import { readFileSync } from "node:fs";
import { importBars, type ImportOptions } from "../src/ingest/importer.js";
import { openStore } from "../src/open/open.js";

const [file, database, options] = process.argv.slice(2) as [string, string, string];
const store = await openStore(database);
try {
  const started = performance.now();
  const result = await importBars(store, file, JSON.parse(options) as ImportOptions);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ rows: result.rows, seconds, maxRssMb: peakRssMb() })}\n`);
} finally {
  await store.close();
}

/**
 * This process's peak RSS in MB. On Linux from `VmHWM`, which belongs to the process's own
 * memory map: `resourceUsage().maxRSS` survives exec, so a child forked from the bench's
 * 1 GB parent reported the parent's size, not its own.
 */
function peakRssMb(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Math.round(Number(kb) / 1024);
  } catch {
    // Not Linux: the portable figure.
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
