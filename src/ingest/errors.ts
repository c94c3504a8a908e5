import { type DataErrorCode, XqlDataError } from "../errors.js";

/** A bad row or file of an import; `line` is 1-based (0 when the problem is the file as a whole). */
export class CsvImportError extends XqlDataError<"import-line" | "import-empty"> {
  override readonly name: string = "CsvImportError";
  constructor(
    readonly line: number,
    readonly reason: string,
    code: "import-line" | "import-empty" = "import-line",
  ) {
    super(code, { line, reason });
  }
}

/**
 * A line a decoder cannot read. The decoder does not know the line's number: the parser
 * that called it raises the {@link CsvImportError} at that line.
 */
export class LineError extends CsvImportError {
  override readonly name: string = "LineError";
  constructor(reason: string) {
    super(0, reason);
  }
}

/** The error of a bar given twice: on the later line, naming the earlier one. */
export function duplicate(symbol: string, time: number, line: number, firstLine: number): CsvImportError {
  return new CsvImportError(Math.max(line, firstLine), `duplicate bar for ${symbol} at ${new Date(time).toISOString()} (first on line ${Math.min(line, firstLine)})`);
}

/**
 * The kinds of error that say an import's options are wrong (the command line's flags, a push's
 * query string), not its file: `xql data import` shows them as a usage mistake.
 */
export const IMPORT_OPTION_CODES: ReadonlySet<DataErrorCode> = new Set<DataErrorCode>([
  "import-market",
  "import-timeframe",
  "import-needs-timeframe",
  "import-symbol",
  "import-needs-symbol",
  "import-format",
  "import-needs-columns",
  "import-columns",
  "import-time-zone",
]);
