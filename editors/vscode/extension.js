// The XQL extension: starts `xql lsp` (stdio) for .xql files. Highlighting comes from the
// generated TextMate grammar in syntaxes/, refined by the server's semantic tokens.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("xql");
  const [command, ...args] = config.get("server.command", ["xql", "lsp"]);
  const server = { command, args: [...args, "--stdio"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "xql",
    "XQL",
    { run: server, debug: server },
    {
      documentSelector: [{ language: "xql" }],
      initializationOptions: { markets: config.get("markets", ["FOREX", "CRYPTO"]) },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
