// ESM resolve hook: an optional peer (or a subpath of one) fails as a missing package does.
let peers = [];

export function initialize(data) {
  peers = data.peers;
}

const hidden = (specifier) => peers.some((p) => specifier === p || specifier.startsWith(`${p}/`));

export async function resolve(specifier, context, next) {
  if (hidden(specifier)) {
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
