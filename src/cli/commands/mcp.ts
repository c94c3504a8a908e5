/**
 * `xql mcp`: the stdio MCP bridge an AI assistant's MCP client starts. The bridge and the MCP
 * SDK are imported when the command runs, so `--help` prints in a library install.
 */
import { XqlClient } from "../../client/index.js";
import { DEFAULT_BASE_URL, MCP_TOOLS } from "../../mcp/tools.js";
import type { Command } from "../command.js";
import { parseCommandLine } from "../command.js";
import { messageOf } from "../../errors.js";

const toolWidth = Math.max(...MCP_TOOLS.map((tool) => tool.name.length));

const help = `Usage: xql mcp

Serves the XQL tools to an AI assistant over the Model Context Protocol on standard input and
output. The assistant's MCP client starts this command; it runs until the client closes its
standard input. Standard output carries only protocol messages; diagnostics go to standard
error.

Tools:
${MCP_TOOLS.map((tool) => `  ${tool.name.padEnd(toolWidth)}  ${tool.summary}`).join("\n")}

Environment:
  XQL_API_KEY    required: the API key sent to the service (create one with
                 \`xql keys create --tier free\`)
  XQL_BASE_URL   the service's address (default ${DEFAULT_BASE_URL})

Example MCP client configuration (see docs/mcp.md):
  {
    "mcpServers": {
      "xql": {
        "command": "xql",
        "args": ["mcp"],
        "env": { "XQL_API_KEY": "xql_...", "XQL_BASE_URL": "${DEFAULT_BASE_URL}" }
      }
    }
  }
`;

export const mcpCommand: Command = {
  name: "mcp",
  summary: "Serve the XQL tools to an AI assistant over MCP (stdio)",
  help,
  async run(args, io) {
    parseCommandLine("mcp", args, {});
    // Loaded first, so a library install hears about the missing packages before anything else.
    const { serveStdio } = await import("../../mcp/index.js");
    const apiKey = io.env["XQL_API_KEY"]?.trim() ?? "";
    if (apiKey === "") {
      io.stderr.write(
        "xql mcp: XQL_API_KEY is not set. Put your XQL API key in the \"env\" of this server in your MCP client's configuration (create one with `xql keys create --tier free`).\n",
      );
      return 1;
    }
    const baseUrl = io.env["XQL_BASE_URL"]?.trim() || DEFAULT_BASE_URL;
    let client: XqlClient;
    try {
      client = new XqlClient({ baseUrl, apiKey });
    } catch (error) {
      // The client checks the URL first, then the key: name the variable the message is about.
      const reason = messageOf(error);
      const variable = /base URL/.test(reason) ? "XQL_BASE_URL" : "XQL_API_KEY";
      io.stderr.write(`xql mcp: ${reason}; check ${variable} in the "env" of this server in your MCP client's configuration\n`);
      return 1;
    }
    const { failure } = await serveStdio(client);
    if (failure === undefined) return 0;
    io.stderr.write(`xql mcp: stopped: ${failure} (a JSON-RPC message is at most 10 MiB on one line)\n`);
    return 1;
  },
};
