/**
 * Keys written in a request's URL never reach the log (issue 24.5): however the path spells
 * them — escaped (`/%78ql_…`, `/xql%5f…`, every character `%XX`), upper case (`/XQL_…`) — as
 * the router, which decodes the path, would read them. The function, then the real log of a
 * server on loopback.
 */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { loggedUrl } from "../../src/redact.js";
import { startServer, type Running } from "./helpers.js";

const SECRET = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const escapeAll = (text: string): string => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join("");

describe("loggedUrl", () => {
  it.each([
    [`/xql_${SECRET}/xql/run`],
    [`/%78ql_${SECRET}`],
    [`/%78%71%6C%5F${SECRET}`],
    [`/xql%5f${SECRET}`],
    [`/xql%5F${SECRET}`],
    [`/XQL_${SECRET}`],
    [`/Xql_${SECRET.toLowerCase()}`],
    [`/xql_${escapeAll(SECRET)}`],
    [`/${escapeAll(`xql_${SECRET}`)}`],
    [`/usage;key=xql_${SECRET.slice(0, 10)}%41${SECRET.slice(11)}`],
  ])("redacts %s", (url) => {
    const logged = loggedUrl(url);
    expect(logged).toContain("xql_[redacted]");
    for (const part of [SECRET, SECRET.toLowerCase(), SECRET.slice(0, 8), SECRET.slice(-8), escapeAll(SECRET).slice(0, 12)]) expect(logged).not.toContain(part);
  });

  it("leaves a path without a key as it is, and drops the query string", () => {
    expect(loggedUrl("/xql/run")).toBe("/xql/run");
    expect(loggedUrl("/xql/history?bars=10")).toBe("/xql/history?[redacted]");
    expect(loggedUrl("/%7Exql")).toBe("/%7Exql");
  });
});

describe("the request log", () => {
  let server: Running | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("holds no part of a key sent in an escaped or upper-case path", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString("utf8"));
        done();
      },
    });
    server = await startServer({ logger: { level: "info", stream } });
    const { key } = await server.key();
    const secret = key.slice(4);
    for (const path of [`/%78ql_${secret}`, `/xql%5f${secret}`, `/XQL_${secret}`, `/xql_${escapeAll(secret)}`]) {
      await (await fetch(`${server.url}${path}`, { method: "POST", body: "x" })).arrayBuffer();
    }
    const log = lines.join("");
    expect(log).toContain("xql_[redacted]");
    expect(log).not.toContain(secret);
    expect(log).not.toContain(secret.slice(0, 12));
    expect(log).not.toContain(escapeAll(secret).slice(0, 18));
  });
});
