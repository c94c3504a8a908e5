/**
 * Reading what a module's docs promise, for the tests that hold the module to it.
 *
 * `evaluateLookbackDoc` reads a module's `lookbackDoc` ("L(src) + n − 1", "max(conv, base) + disp − 1",
 * "L(src) + n + ⌊√n⌋ − 2", "2n") as arithmetic, so a test can check it against the
 * `extraLookback` it documents. Grammar: sums and differences (`+`, `-` or `−`) of terms; a
 * term is factors written side by side (`3n` is 3 × n); a factor is a number, a parameter
 * name, `L(param)`, `max(a, b, …)`, `⌊√x⌋` or a parenthesised expression.
 */

/** The parameter values and the lookbacks of the series arguments to read a doc with. */
export interface DocValues {
  readonly consts: Readonly<Record<string, number>>;
  readonly lookbacks: Readonly<Record<string, number>>;
}

export function evaluateLookbackDoc(doc: string, values: DocValues): number {
  const tokens = doc.match(/\d+|[A-Za-z_]\w*|[()+\-−,]|⌊√|⌋|\S/g) ?? [];
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const take = (expected?: string): string => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) {
      throw new Error(`lookbackDoc "${doc}": expected ${expected ?? "more"} at token ${at}, found ${token ?? "the end"}`);
    }
    return token;
  };
  const startsFactor = (token: string | undefined): boolean => token !== undefined && (/^\d|^[A-Za-z_]/.test(token) || token === "(" || token === "⌊√");

  const factor = (): number => {
    const token = take();
    if (/^\d+$/.test(token)) return Number(token);
    if (token === "(") {
      const v = sum();
      take(")");
      return v;
    }
    if (token === "⌊√") {
      const v = Math.floor(Math.sqrt(factor()));
      take("⌋");
      return v;
    }
    if (token === "L") {
      take("(");
      const name = take();
      take(")");
      const v = values.lookbacks[name];
      if (v === undefined) throw new Error(`lookbackDoc "${doc}": L(${name}) names no series argument`);
      return v;
    }
    if (token === "max") {
      take("(");
      const args = [sum()];
      while (peek() === ",") {
        take(",");
        args.push(sum());
      }
      take(")");
      return Math.max(...args);
    }
    const v = values.consts[token];
    if (v === undefined) throw new Error(`lookbackDoc "${doc}": '${token}' is no parameter`);
    return v;
  };
  const term = (): number => {
    let v = factor();
    while (startsFactor(peek())) v *= factor();
    return v;
  };
  const sum = (): number => {
    let v = term();
    while (peek() === "+" || peek() === "-" || peek() === "−") v = take() === "+" ? v + term() : v - term();
    return v;
  };
  const v = sum();
  if (at !== tokens.length) throw new Error(`lookbackDoc "${doc}": unexpected ${tokens[at]}`);
  return v;
}

/**
 * The TA-Lib function a reference declares ("TA-Lib RSI", "Wilder (1978); TA-Lib ATR; …"), or
 * undefined: a clause that names TA-Lib to say it differs ("Not TA-Lib CMO, which …") declares
 * nothing, nor does one that only names TA-Lib's behaviour ("undefined where TA-Lib writes 0").
 */
export function declaredTaLib(reference: string | undefined): string | undefined {
  for (const clause of (reference ?? "").split(/;\s+|\.\s+/)) {
    const m = /^(?:[^;]*?\s)?TA-Lib ([A-Z][A-Z0-9_]+)/.exec(clause);
    if (m && !/^Not\b/.test(clause.trim())) return m[1];
  }
  return undefined;
}

