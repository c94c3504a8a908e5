/** Request bodies: `{"query": ...}` as application/json, and the hints for JSON sent as text and for `curl -d`. */
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type Running } from "./helpers.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';
const JSON_TYPE = { "content-type": "application/json" };

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("application/json bodies", () => {
  it('reads {"query": ...} as the query on validate, explain and run, with the same answers as text', async () => {
    server = await startServer();
    const { key } = await server.key();
    const body = JSON.stringify({ query: QUERY });
    for (const path of ["/xql/validate", "/xql/explain", "/xql/run"]) {
      const asJson = await server.post(path, body, key, JSON_TYPE);
      const asText = await server.post(path, QUERY, key);
      expect(asJson.status, path).toBe(200);
      expect(await asJson.json()).toEqual(await asText.json());
    }
    const charset = await server.post("/xql/validate", body, key, { "content-type": "application/json; charset=utf-8" });
    expect(charset.status).toBe(200);
  });

  it("answers 400 saying what a JSON body must be for anything else, and takes no quota", async () => {
    server = await startServer();
    const { key } = await server.key();
    for (const body of ["{", "[1]", '"text"', "{}", '{"query": 1}', `{"query": ${JSON.stringify(QUERY)}, "format": "csv"}`]) {
      for (const path of ["/xql/validate", "/xql/run"]) {
        const response = await server.post(path, body, key, JSON_TYPE);
        expect(response.status, body).toBe(400);
        const result = (await response.json()) as { valid: false; error: { type: string; message: string } };
        expect(result.valid).toBe(false);
        expect(result.error.message, body).toContain('a JSON body must be {"query": "<query text>"}');
      }
    }
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(0);
  });

  it("hints at both forms when a text body starts with {", async () => {
    server = await startServer();
    const { key } = await server.key();
    const response = await server.post("/xql/validate", JSON.stringify({ query: QUERY }), key, { "content-type": "text/plain" });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; position: { offset: number } } };
    expect(error.message).toMatch(/send the query as plain text, or as JSON \{"query": "<query text>"\} with Content-Type: application\/json/);
    expect(error.position.offset).toBe(0);
  });

  it("hints at --data-binary when the condition is missing and the text lost its line breaks (curl -d)", async () => {
    server = await startServer();
    const { key } = await server.key();
    // curl -d @file drops the newlines: the comment then swallows the condition.
    const file = '// RSI oversold on the hour\nmarket = "FOREX"\ntimeframe = h1\n// the screen\nrsi(14) < 30\n';
    const stripped = file.replace(/\n/g, "");
    const response = await server.post("/xql/validate", stripped, key, { "content-type": "application/x-www-form-urlencoded" });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string } };
    expect(error.message).toMatch(/^Missing condition/);
    expect(error.message).toContain("curl -d removes them from a file, send it with --data-binary @file");
    // The same mistake with line breaks kept gets no such hint.
    const withLines = await server.post("/xql/validate", 'market = "FOREX"\ntimeframe = h1\n', key);
    expect(((await withLines.json()) as { error: { message: string } }).error.message).not.toContain("curl");
    expect((await server.post("/xql/validate", file, key)).status).toBe(200);
  });
});
