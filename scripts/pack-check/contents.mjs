// Checks the `npm pack --json` report: the tarball holds what a user needs (dist, README,
// LICENSE, CHANGELOG, docs, package.json) and nothing else, including every file the exports
// map and bin point at; prints its size and contents.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [report] = JSON.parse(readFileSync(process.argv[2], "utf8"));
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const files = report.files.map((f) => f.path);
const problems = [];

const allowed = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+|docs\/.+)$/;
const forbidden = /(^|\/)(test|tests|__tests__|bench|benches|fixtures?|examples|src|\.tmp|coverage)(\/|$)|\.(test|spec|bench)\.[cm]?[jt]s$|\.map$|\.tsbuildinfo$/;
for (const file of files) {
  if (!allowed.test(file)) problems.push(`unexpected file in the tarball: ${file}`);
  else if (forbidden.test(file)) problems.push(`test, bench, fixture or source file in the tarball: ${file}`);
}

const targets = new Set(["README.md", "LICENSE", "CHANGELOG.md", "docs/embedding.md", "docs/api/index.html"]);
const walk = (value) => {
  if (typeof value === "string") targets.add(value.replace(/^\.\//, ""));
  else if (value && typeof value === "object") Object.values(value).forEach(walk);
};
walk(pkg.exports);
walk(pkg.bin);
// The rooms' migrations (src/<folder>/migrations/<room>/<backend>/*.sql) are read at run time
// from dist/migrations/<room>/<backend>/ (src/db/migrations.ts): every one must be packed.
for (const folder of readdirSync("src", { withFileTypes: true })) {
  const dir = join("src", folder.name, "migrations");
  if (!folder.isDirectory() || !existsSync(dir)) continue;
  for (const room of readdirSync(dir)) {
    for (const backend of readdirSync(join(dir, room))) {
      for (const sql of readdirSync(join(dir, room, backend))) targets.add(`dist/migrations/${room}/${backend}/${sql}`);
    }
  }
}
for (const target of targets) if (!files.includes(target)) problems.push(`missing from the tarball: ${target}`);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const groups = new Map();
for (const f of report.files) {
  const top = f.path.startsWith("docs/api/") ? "docs/api" : f.path.includes("/") ? f.path.split("/")[0] : f.path;
  const g = groups.get(top) ?? { count: 0, size: 0 };
  g.count += 1;
  g.size += f.size;
  groups.set(top, g);
}
console.log(`tarball ${report.filename}: ${kb(report.size)} packed, ${kb(report.unpackedSize)} unpacked, ${report.entryCount} files`);
for (const [top, g] of [...groups].sort()) console.log(`  ${top.padEnd(14)} ${String(g.count).padStart(4)} files ${kb(g.size).padStart(10)}`);
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
