import { describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { progressBar } from "../../src/cli/progress.js";
import { formatNumber, renderTable } from "../../src/cli/table.js";
import { databasePath } from "../../src/cli/store.js";

function stream(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let text = "";
  const writable = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  (writable as { isTTY?: boolean }).isTTY = isTTY;
  return { stream: writable, text: () => text };
}

describe("progressBar", () => {
  it("draws on a terminal, ends the line, and always draws the last step", () => {
    const out = stream(true);
    // A clock that stands still: the second update falls within 100 ms of the first.
    const bar = progressBar("Writing", out.stream, () => 1_000);
    bar.update(0, 200);
    bar.update(1, 200); // within 100 ms of the previous draw: skipped
    bar.update(200, 200);
    bar.done();
    expect(out.text()).toBe(
      // Each draw clears the rest of the line (\x1b[K); rows/s appears once 50 ms have passed.
      `\rWriting [${"-".repeat(30)}]   0% 0/200\x1b[K\rWriting [${"#".repeat(30)}] 100% 200/200\x1b[K\n`,
    );
  });

  it("draws nothing when standard error is not a terminal", () => {
    const out = stream(false);
    const bar = progressBar("Writing", out.stream);
    bar.update(5, 10);
    bar.done();
    expect(out.text()).toBe("");
  });
});

describe("tables", () => {
  it("formats numbers for people", () => {
    expect(formatNumber(null)).toBe("-");
    expect(formatNumber(Number.NaN)).toBe("-");
    expect(formatNumber(42)).toBe("42");
    expect(formatNumber(1.0842317)).toBe("1.08423");
    expect(formatNumber(0.0000856276)).toBe("0.0000856276");
    expect(formatNumber(12345678.9)).toBe("12345679");
  });

  it("aligns text left and numbers right", () => {
    expect(renderTable(["symbol", "close"], [["EURUSD", "1.08"], ["BTCUSDT", "97000"]], [false, true])).toBe(
      ["symbol   close", "-------  -----", "EURUSD    1.08", "BTCUSDT  97000", ""].join("\n"),
    );
  });
});

describe("databasePath", () => {
  it("takes --db, else $XQL_DB, else one per-user file: $XDG_DATA_HOME/xql/xql.db, else ~/.local/share/xql/xql.db", () => {
    expect(databasePath("/a/b.db", { XQL_DB: "/c.db" })).toBe("/a/b.db");
    expect(databasePath("b.db", {}, "/work")).toBe("/work/b.db");
    expect(databasePath(undefined, { XQL_DB: "/c.db" })).toBe("/c.db");
    expect(databasePath(undefined, { HOME: "/home/ann" }, "/anywhere")).toBe("/home/ann/.local/share/xql/xql.db");
    expect(databasePath(undefined, { HOME: "/home/ann", XDG_DATA_HOME: "/data" })).toBe("/data/xql/xql.db");
    // A relative XDG_DATA_HOME is invalid under the XDG spec and ignored.
    expect(databasePath(undefined, { HOME: "/home/ann", XDG_DATA_HOME: "data" })).toBe("/home/ann/.local/share/xql/xql.db");
  });
});
