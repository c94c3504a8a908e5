// CommonJS half of hide-optional.mjs: `require` and `require.resolve` of an optional peer fail
// as they do when it is not installed (main.ts names the missing packages through them).
const Module = require("node:module");
const peers = Object.keys(require("../../../package.json").peerDependencies || {});
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (peers.some((p) => request === p || request.startsWith(`${p}/`))) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return original.call(this, request, ...rest);
};
