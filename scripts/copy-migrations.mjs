// The rooms' migrations (src/<folder>/migrations/<room>/<backend>/NNNN-*.sql) into
// dist/migrations/<room>/<backend>/, where src/db/migrations.ts finds them in the package.
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const rooms = new Map();
for (const folder of readdirSync("src", { withFileTypes: true })) {
  const dir = join("src", folder.name, "migrations");
  if (!folder.isDirectory() || !existsSync(dir)) continue;
  for (const room of readdirSync(dir)) {
    if (rooms.has(room)) throw new Error(`Room ${room} is in both ${rooms.get(room)} and ${dir}`);
    rooms.set(room, dir);
    cpSync(join(dir, room), join("dist", "migrations", room), { recursive: true });
  }
}
console.log(`migrations of ${rooms.size} rooms copied to dist/migrations`);
