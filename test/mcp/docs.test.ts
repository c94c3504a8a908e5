/** docs/mcp.md says what the bridge does: its configuration block parses and its session is real. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { explain, validate } from "../../src/index.js";
import { findPhrases } from "../../src/phrases/index.js";
import { DEFAULT_BASE_URL, MCP_TOOLS } from "../../src/mcp/index.js";

const doc = readFileSync(new URL("../../docs/mcp.md", import.meta.url), "utf8");

/** The JSON argument of every `→ <tool> {...}` line of the worked session. */
function calls(tool: string): Record<string, string>[] {
  const prefix = `→ ${tool} `;
  return doc
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => JSON.parse(line.slice(prefix.length)) as Record<string, string>);
}

describe("docs/mcp.md", () => {
  it("has mcpServers blocks that parse and configure `xql mcp` with the key and the base URL", () => {
    const blocks = [...doc.matchAll(/```json\n\s*(\{\s*"mcpServers"[\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as unknown);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      expect(block).toMatchObject({
        mcpServers: { xql: { command: "xql", args: ["mcp"], env: { XQL_BASE_URL: DEFAULT_BASE_URL } } },
      });
      expect((block as { mcpServers: { xql: { env: Record<string, string> } } }).mcpServers.xql.env["XQL_API_KEY"]).toMatch(
        /^xql_/,
      );
    }
  });

  it("names every tool in its table, every service route in its diagram, and ends with the README section", () => {
    for (const { name } of MCP_TOOLS) expect(doc).toContain(`| \`${name}\` |`);
    const diagram = /```\n(assistant[\s\S]*?)```/.exec(doc)?.[1] ?? "";
    for (const { name } of MCP_TOOLS.filter((tool) => tool.name !== "xql_nl_reference")) {
      // The alert tools share the /xql/alerts routes, the watchlist tools /xql/watchlists; every other tool has its own.
      expect(diagram, name).toContain(name.startsWith("xql_alert_") ? "/xql/alerts" : name.startsWith("xql_watchlist_") ? "/xql/watchlists" : `/xql/${name.replace(/^xql_/, "")}`);
    }
    expect(doc).toMatch(/\n## README section\n[\s\S]*### AI assistants \(MCP\)/);
  });

  it("shows the reference's real answer for the session's phrase", () => {
    const [lookup] = calls("xql_nl_reference");
    const first = findPhrases(lookup!["phrase"])[0]!;
    expect(doc).toContain(`"phrase": "${first.phrase}"`);
    expect(doc).toContain(JSON.stringify(first.query));
  });

  it("shows the library's own answers for every query it validates and explains, and runs only valid queries", () => {
    const validated = calls("xql_validate");
    expect(validated.length).toBeGreaterThanOrEqual(2);
    for (const { query } of validated) {
      const result = validate(query!);
      if (result.valid) continue;
      expect(doc).toContain(`"message": "${result.error.message.replace(/"/g, '\\"')}"`);
      const { line, column, offset } = result.error.position!;
      expect(doc).toContain(`"position": { "line": ${line}, "column": ${column}, "offset": ${offset} }`);
    }
    expect(validated.some(({ query }) => validate(query!).valid)).toBe(true);
    const runs = calls("xql_run");
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const { query } of runs) expect(validate(query!), query).toEqual({ valid: true });
    for (const { query } of calls("xql_explain")) {
      const result = explain(query!);
      if (!("plan" in result)) throw new Error(`documented explain fails: ${JSON.stringify(result)}`);
      expect(doc).toContain(JSON.stringify(result.explanation));
    }
  });
});
