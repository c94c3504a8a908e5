/** A one-line progress bar on standard error, drawn only when it is a terminal. */
import type { CliOutput } from "./command.js";

export interface Progress {
  /** Redraws: `done` of `total`, and the rate from `rows` (default `done`) per second since the first update. */
  update: (done: number, total: number, rows?: number) => void;
  /** Ends the line (when one was drawn). */
  done(): void;
}

const WIDTH = 30;

/** A bar labelled `label`; a no-op when standard error is not a terminal (logs and pipes stay clean). */
export function progressBar(label: string, stream: CliOutput = process.stderr, clock: () => number = Date.now): Progress {
  if (!stream.isTTY) return { update: () => {}, done: () => {} };
  let drawn = false;
  let last = 0;
  let started = 0;
  const draw = (done: number, total: number, rows: number): void => {
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(fraction * WIDTH);
    const bar = "#".repeat(filled) + "-".repeat(WIDTH - filled);
    const seconds = (clock() - started) / 1000;
    const rate = seconds > 0.05 ? ` ${Math.round(rows / seconds).toLocaleString("en-US")} rows/s` : "";
    stream.write(`\r${label} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}${rate}\x1b[K`);
    drawn = true;
  };
  return {
    update(done, total, rows) {
      const now = clock();
      if (started === 0) started = now;
      // Redraw at most ten times a second, and always at the end.
      if (done < total && now - last < 100) return;
      last = now;
      draw(done, total, rows ?? done);
    },
    done() {
      if (drawn) stream.write("\n");
      drawn = false;
    },
  };
}
