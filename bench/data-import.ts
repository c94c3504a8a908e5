/**
 * The import child of `npm run bench:data`: imports one file into one store through the
 * importer `xql data import` runs, and prints rows, seconds and its own peak RSS as JSON.
 * Usage: node .bench/data-import.js FILE DATABASE OPTIONS_JSON
 */
import { importBars, type ImportOptions } from "../src/ingest/importer.js";
import { openStore } from "../src/store/open.js";

const [file, database, options] = process.argv.slice(2) as [string, string, string];
const store = await openStore(database);
try {
  const started = performance.now();
  const result = await importBars(store, file, JSON.parse(options) as ImportOptions);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ rows: result.rows, seconds, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
} finally {
  await store.close();
}
