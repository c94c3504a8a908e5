// Preloaded with `node --import` (ESM) and `--require` (CommonJS): every optional peer
// dependency of package.json resolves as "not installed", as in `npm install xql` alone.
import { createRequire, register } from "node:module";

const require = createRequire(import.meta.url);
const peers = Object.keys(require("../../../package.json").peerDependencies ?? {});
register("./hide-optional-hooks.mjs", import.meta.url, { data: { peers } });
