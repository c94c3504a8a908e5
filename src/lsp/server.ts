/**
 * The XQL language server: the editor services of `src/editor/` over the Language Server
 * Protocol. Offsets are UTF-16 code units in the core and in LSP alike, and both count
 * `\r\n`, `\n` and `\r` as one line break, so a position converts with `positionAt` /
 * `offsetAt` and nothing else.
 */
import type { CompletionItem, CompletionItemKind as ItemKind, Connection, InitializeResult } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { complete, diagnose, format, hover, scan, signatureHelp, writtenMarket, type CompletionKind, type Completions, type HostData, type PieceKind, type Template } from "../editor/index.js";
import { type XqlOptions, withDefaultMarkets } from "../types.js";
import { protocol } from "./protocol.js";
import { messageOf } from "../errors.js";

const { CompletionItemKind, DiagnosticSeverity, InsertTextFormat, MarkupKind, SemanticTokensBuilder, TextDocumentSyncKind, TextDocuments, TextEdit } = protocol;

/** Semantic token types, in legend order (standard LSP names, so every theme colours them). */
export const TOKEN_TYPES = ["keyword", "number", "string", "comment", "namespace", "enumMember", "function", "variable", "parameter", "operator"] as const;

const TOKEN_OF: Readonly<Record<PieceKind, (typeof TOKEN_TYPES)[number] | undefined>> = {
  keyword: "keyword",
  setting: "keyword",
  boolean: "keyword",
  number: "number",
  string: "string",
  comment: "comment",
  timeframePrefix: "namespace",
  timeframe: "enumMember",
  function: "function",
  series: "variable",
  name: "parameter",
  operator: "operator",
  punctuation: undefined,
  invalid: undefined,
};

const KIND_OF: Readonly<Record<CompletionKind, ItemKind>> = {
  function: CompletionItemKind.Function,
  series: CompletionItemKind.Field,
  let: CompletionItemKind.Variable,
  timeframe: CompletionItemKind.EnumMember,
  timeframePrefix: CompletionItemKind.Module,
  setting: CompletionItemKind.Keyword,
  market: CompletionItemKind.Value,
  symbol: CompletionItemKind.Constant,
  watchlist: CompletionItemKind.Reference,
  keyword: CompletionItemKind.Keyword,
};

/**
 * What completion offers from outside the text, read when a completion needs it: `xql lsp`
 * reads its store (`store-data.ts`).
 */
export interface CompletionHost {
  /** The market's symbols (by its configured spelling), sorted; none when the host has no such market. */
  symbols(market: string): Promise<readonly string[]>;
  /** The names of the saved watchlists `watchlist = "..."` may name. */
  watchlists(): Promise<readonly string[]>;
  /** The markets holding bars, in their stored spelling: known besides the default ones, as `xql run` on the store knows them. */
  markets(): Promise<readonly string[]>;
}

/** Options of {@link startLanguageServer}. */
export interface LanguageServerOptions {
  /** Where the symbols and lists come from; without it only the client's `initializationOptions.symbols`. */
  readonly host?: CompletionHost;
}

/**
 * The market's symbols a client may pass as `initializationOptions.symbols`
 * (`{ "FOREX": ["EURUSD", ...] }`), offered inside `symbols = [...]` in place of the host's for
 * those markets: a client set up for a service knows that service's symbols.
 */
function symbolsFrom(init: unknown): Record<string, string[]> {
  const given = (init as { symbols?: unknown } | null | undefined)?.symbols;
  if (typeof given !== "object" || given === null) return {};
  return Object.fromEntries(
    Object.entries(given as Record<string, unknown>).filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((s) => typeof s === "string")),
  );
}

/** A template as an LSP snippet: `rsi(${1:n})`. */
function snippet(template: Template): { text: string; snippet: boolean } {
  let n = 0;
  const text = template
    .map((part) => (typeof part === "string" ? part.replace(/[$}\\]/g, "\\$&") : `\${${++n}:${part.field.replace(/[$}\\]/g, "\\$&")}}`))
    .join("");
  return { text, snippet: n > 0 };
}

/** Settings a client may pass as `initializationOptions`: `{ "markets": ["FOREX", "CRYPTO"] }`. */
function optionsFrom(init: unknown): XqlOptions {
  const markets = (init as { markets?: unknown } | null | undefined)?.markets;
  return Array.isArray(markets) && markets.every((m) => typeof m === "string") ? { markets } : {};
}

/** Wires the XQL services to a connection; `connection.listen()` is the caller's. */
export function startLanguageServer(connection: Connection, serverOptions: LanguageServerOptions = {}): void {
  const { host } = serverOptions;
  const documents = new TextDocuments(TextDocument);
  let options: XqlOptions = {};
  let symbols: Record<string, string[]> = {};
  /** The host's markets, as last read (read when a query names a market not known yet, or a completion offers markets). */
  let hostMarkets: readonly string[] = [];
  /**
   * The markets a query may name: the client's (`initializationOptions.markets`) when it gives
   * them; else the default ones and every market the host's store holds — what `xql run` on
   * that store accepts, so the editor does not flag a query the CLI runs.
   */
  const knownMarkets = (): readonly string[] => options.markets ?? withDefaultMarkets(hostMarkets);

  connection.onInitialize((params): InitializeResult => {
    options = optionsFrom(params.initializationOptions);
    symbols = symbolsFrom(params.initializationOptions);
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: [":", '"', "=", " ", "(", ","] },
        hoverProvider: true,
        signatureHelpProvider: { triggerCharacters: ["(", ","], retriggerCharacters: [","] },
        documentFormattingProvider: true,
        semanticTokensProvider: { legend: { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [] }, full: true },
      },
      serverInfo: { name: "xql" },
    };
  });

  /**
   * The open document and its text; undefined when none is open under `uri`, or when the
   * client opened it without a text (`didOpen` with `text: null`): every request then answers
   * empty instead of failing on it.
   */
  const opened = (uri: string): { document: TextDocument; text: string } | undefined => {
    const document = documents.get(uri);
    const text: unknown = document?.getText();
    return document && typeof text === "string" ? { document, text } : undefined;
  };
  const warned = new Set<string>();

  const publish = (document: TextDocument): void => {
    if (!opened(document.uri)) {
      if (!warned.has(document.uri)) {
        warned.add(document.uri);
        connection.console.warn(`xql: ${document.uri} was opened without a text; it is ignored until the client sends one`);
      }
      return;
    }
    warned.delete(document.uri);
    const text = document.getText();
    const known = knownMarkets();
    const diagnostics = diagnose(text, { ...options, markets: known }).map((d) => ({
      range: { start: document.positionAt(d.start), end: document.positionAt(d.end) },
      severity: DiagnosticSeverity.Error,
      source: "xql",
      code: d.type,
      message: d.message,
    }));
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics });
    // A market the server does not know yet may be one the store holds: read them, and diagnose again if they changed.
    const written = writtenMarket(text)?.toUpperCase();
    if (written !== undefined && written !== "" && !known.some((m) => m.toUpperCase() === written)) void learnMarkets();
  };

  let learning: Promise<void> | undefined;
  /** Reads the host's markets once at a time; every open document is diagnosed again when they changed. */
  const learnMarkets = (): Promise<void> => {
    if (!host || options.markets !== undefined) return Promise.resolve();
    learning ??= (async () => {
      try {
        const read = await host.markets();
        if (read.length === hostMarkets.length && read.every((m, i) => m === hostMarkets[i])) return;
        hostMarkets = read;
        for (const document of documents.all()) publish(document);
      } catch (error) {
        warnOnce("checking", "markets", error);
      } finally {
        learning = undefined;
      }
    })();
    return learning;
  };
  // Fires on open as well as on every change.
  documents.onDidChangeContent((event) => publish(event.document));
  documents.onDidClose((event) => void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] }));

  /**
   * The host's data a completion asked for, merged with what the client gave; a host that fails
   * (a database down) leaves completion as it would be without it, and says why once.
   */
  const withHostData = async (asks: HostData): Promise<{ symbols?: Record<string, readonly string[]>; watchlists?: readonly string[]; markets?: readonly string[] } | undefined> => {
    if (!host || (asks.kind === "symbols" && symbols[asks.market] !== undefined)) return undefined;
    if (asks.kind === "markets") {
      if (options.markets !== undefined) return undefined;
      await learnMarkets();
      return { markets: knownMarkets() };
    }
    try {
      return asks.kind === "symbols" ? { symbols: { ...symbols, [asks.market]: await host.symbols(asks.market) } } : { watchlists: await host.watchlists() };
    } catch (error) {
      warnOnce("completing", asks.kind, error);
      return undefined;
    }
  };

  const failures = new Set<string>();
  /** Says once per message that the store's `what` could not be read (`doing` goes on without it). */
  function warnOnce(doing: string, what: string, error: unknown): void {
    const message = messageOf(error);
    if (failures.has(message)) return;
    failures.add(message);
    connection.console.warn(`xql: ${doing} without the store's ${what}: ${message}`);
  }

  connection.onCompletion(async (params) => {
    const open = opened(params.textDocument.uri);
    if (!open) return [];
    let { document } = open;
    const { text } = open;
    const offset = document.offsetAt(params.position);
    const given = { markets: knownMarkets(), symbols };
    let found: Completions = complete(text, offset, given);
    const extra = found.asks && (await withHostData(found.asks));
    if (extra) {
      found = complete(text, offset, { ...given, ...extra });
      // The document may have changed while the store was read: ranges are the text's that was completed.
      document = TextDocument.create(document.uri, document.languageId, document.version, text);
    }
    const { from, to, items } = found;
    const range = { start: document.positionAt(from), end: document.positionAt(to) };
    return items.map((item): CompletionItem => {
      const { text, snippet: isSnippet } = snippet(item.template);
      return {
        label: item.label,
        kind: KIND_OF[item.kind],
        detail: item.detail,
        documentation: item.documentation !== undefined ? { kind: MarkupKind.Markdown, value: item.documentation } : undefined,
        // Ranks run from -10 (settings) to a market's symbol count: wide enough for any market.
        sortText: `${String(item.rank + 100).padStart(8, "0")}${item.label}`,
        insertTextFormat: isSnippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
        textEdit: TextEdit.replace(range, text),
      };
    });
  });

  connection.onHover((params) => {
    const open = opened(params.textDocument.uri);
    if (!open) return null;
    const { document, text } = open;
    const found = hover(text, document.offsetAt(params.position));
    if (!found) return null;
    return {
      contents: { kind: MarkupKind.Markdown, value: found.markdown },
      range: { start: document.positionAt(found.start), end: document.positionAt(found.end) },
    };
  });

  connection.onSignatureHelp((params) => {
    const open = opened(params.textDocument.uri);
    if (!open) return null;
    const { document, text } = open;
    const help = signatureHelp(text, document.offsetAt(params.position));
    if (!help) return null;
    return {
      signatures: [
        {
          label: help.label,
          documentation: { kind: MarkupKind.Markdown, value: help.fn.doc },
          parameters: help.parameters.map((p) => ({ label: [p.start, p.end] as [number, number], documentation: p.doc })),
        },
      ],
      activeSignature: 0,
      activeParameter: help.active,
    };
  });

  connection.onDocumentFormatting((params) => {
    const open = opened(params.textDocument.uri);
    if (!open) return null;
    const { document, text } = open;
    const formatted = format(text);
    if (formatted === undefined || formatted === text) return [];
    return [TextEdit.replace({ start: document.positionAt(0), end: document.positionAt(text.length) }, formatted)];
  });

  connection.languages.semanticTokens.on((params) => {
    const open = opened(params.textDocument.uri);
    const builder = new SemanticTokensBuilder();
    if (!open) return builder.build();
    const { document, text } = open;
    for (const piece of scan(text)) {
      const type = TOKEN_OF[piece.kind];
      if (type === undefined) continue;
      const start = document.positionAt(piece.start);
      // A token never spans lines in XQL (comments end at the line break).
      builder.push(start.line, start.character, piece.end - piece.start, TOKEN_TYPES.indexOf(type), 0);
    }
    return builder.build();
  });

  documents.listen(connection);
}
