/**
 * What never reaches a message or a log: the password in a database or Redis URL, and an API
 * key written into a request's URL. One place for both, so every store, the CLI and the
 * service's log redact the same way.
 */

/** The URL with any password replaced by `***`, for messages and logs; an unparsable URL gives `scheme://…`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    return scheme ? `${scheme}://…` : "…";
  }
}

/** One character of a URL path as a server reads it: itself or its %XX escape (either case). */
function escapable(char: string): string {
  const hex = char.charCodeAt(0).toString(16);
  return `(?:${char}|%${hex})`;
}

/**
 * Any API key written anywhere in a URL path, as the router reads it: decoded and in any case.
 * `/xql_…`, `/%78ql_…`, `/xql%5f…` and `/XQL_…` all reach a route as a key would, so each
 * character may be written escaped (`%78` for `x`), and the match ignores case (`XQL_`, `%5F`).
 * The secret's characters too (`%41` is `A`): any run of them, escaped or not, is taken.
 */
const KEY_IN_URL = new RegExp(`${[..."xql_"].map(escapable).join("")}(?:[a-z0-9]|%[3-7][0-9a-f])+`, "gi");

/**
 * A request URL as logged: the path with any `xql_…` key replaced, however it is written
 * (escaped, upper case), and no query string (a client that puts `?api_key=xql_...` in the
 * URL by mistake must not see it logged).
 */
export function loggedUrl(url: string): string {
  const q = url.indexOf("?");
  const path = (q === -1 ? url : url.slice(0, q)).replace(KEY_IN_URL, "xql_[redacted]");
  return q === -1 ? path : `${path}?[redacted]`;
}
