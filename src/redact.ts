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

/** Any API key written anywhere in a URL (path or query), for the log serializer. */
const KEY_IN_URL = /xql_[A-Za-z0-9]+/g;

/**
 * A request URL as logged: the path with any `xql_…` key replaced, and no query string (a
 * client that puts `?api_key=xql_...` in the URL by mistake must not see it logged).
 */
export function loggedUrl(url: string): string {
  const q = url.indexOf("?");
  const path = (q === -1 ? url : url.slice(0, q)).replace(KEY_IN_URL, "xql_[redacted]");
  return q === -1 ? path : `${path}?[redacted]`;
}
