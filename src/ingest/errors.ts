/** A bad row or file of an import; `line` is 1-based (0 when the problem is the file as a whole). */
export class CsvImportError extends Error {
  override readonly name = "CsvImportError";
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `line ${line}: ${reason}` : reason);
  }
}

/** The error of a bar given twice: on the later line, naming the earlier one. */
export function duplicate(symbol: string, time: number, line: number, firstLine: number): CsvImportError {
  return new CsvImportError(Math.max(line, firstLine), `duplicate bar for ${symbol} at ${new Date(time).toISOString()} (first on line ${Math.min(line, firstLine)})`);
}
