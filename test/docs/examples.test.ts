/**
 * The shell examples of README.md and docs/*.md that show what they print (a command followed by
 * `# ` lines) are run, and their printed output compared with the docs line by line, so an
 * example cannot drift from what the tool prints (issue 34: the README's FOREX example showed
 * numbers from before the FOREX session change). An example that cannot run here (it needs a
 * running service, an exchange over the network, or prints a fresh random key) is named in
 * NOT_RUN with the reason; any other example that shows output is run.
 */
import { cpSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { tempDir } from "../kit/index.js";
import { ROOT } from "../cli/run-cli.js";

/** Commands whose examples are shown but not run here, by how the command starts, with why. */
const NOT_RUN: readonly { readonly start: RegExp; readonly why: string }[] = [
  { start: /^curl /, why: "needs a running service and an API key" },
  { start: /^xql data sync /, why: "reads an exchange over the network" },
  { start: /^xql keys create /, why: "prints a fresh random key" },
  { start: /^xql data status --db live\.db/, why: "shows a store synced from an exchange over months" },
  { start: /^xql serve /, why: "serves until stopped; the lines after it are prose, not its output" },
  { start: /^export OANDA_API_TOKEN=/, why: "sets the token of the reader's own OANDA account, for the sync beside it" },
  { start: /^xql (run|watch) fx-breakout\.xql --db fx\.db/, why: "reads the store the OANDA sync before it fills over the network" },
];

interface Example {
  readonly doc: string;
  /** The command as written, continuation lines joined. */
  readonly command: string;
  /** The `# ` lines after it, without the marker (empty: it shows no output). */
  readonly output: readonly string[];
}

interface Block {
  readonly doc: string;
  readonly examples: readonly Example[];
}

/** The ```sh blocks of a document, each as its commands with the output lines shown after them. */
function shellBlocks(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  for (const match of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const examples: { doc: string; command: string; output: string[] }[] = [];
    const lines = match[1]!.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === "") continue;
      if (line.startsWith("#")) {
        examples.at(-1)?.output.push(line.replace(/^# ?/, ""));
        continue;
      }
      let command = line;
      while (command.endsWith("\\") && i + 1 < lines.length) command = `${command.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
      // A here-document's lines are the command's input, not commands.
      const heredoc = /<<-?'?(\w+)'?/.exec(command)?.[1];
      if (heredoc) while (i + 1 < lines.length && lines[++i]!.trim() !== heredoc);
      examples.push({ doc, command: withoutComment(command).trim(), output: [] });
    }
    blocks.push({ doc, examples });
  }
  return blocks;
}

/** The command without a trailing `# comment` (a `#` after whitespace, outside quotes). */
function withoutComment(command: string): string {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && /\s/.test(command[i - 1] ?? " ")) return command.slice(0, i);
  }
  return command;
}

/** Shell words (plain, '…' and "…" quoting), split into commands at `&&`. */
function commandsOf(text: string): string[][] {
  const commands: string[][] = [[]];
  for (const [, single, double, plain] of text.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g)) {
    if (plain === "&&") commands.push([]);
    else commands.at(-1)!.push(single ?? double?.replace(/\\(.)/g, "$1") ?? plain!);
  }
  return commands;
}

/** `xql …` or `node dist/cli/main.js …`: the arguments after the program, else undefined. */
function xqlArgs(words: readonly string[]): string[] | undefined {
  if (words[0] === "xql") return words.slice(1);
  if (words[0] === "node" && words[1] === "dist/cli/main.js") return words.slice(2);
  return undefined;
}

/** Runs `xql args` in `cwd` as a user would there, standard output and error in the order written. */
async function runXql(args: readonly string[], cwd: string): Promise<{ code: number; printed: string }> {
  let printed = "";
  const write = (text: string) => {
    printed += text;
    return true;
  };
  const io: CliIo = {
    stdout: { write, isTTY: false },
    stderr: { write, isTTY: false },
    stdin: (async function* () {})(),
    env: { HOME: cwd, XDG_DATA_HOME: join(cwd, ".data") },
    cwd,
    onStop() {},
  };
  const code = await main(args, io);
  // Paths print absolute; the docs show them as a user in the example's directory reads them.
  return { code, printed: printed.split(`${cwd}/`).join("") };
}

const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`)];
const BLOCKS = DOCS.flatMap((doc) => shellBlocks(doc, readFileSync(join(ROOT, doc), "utf8")));
const notRun = (example: Example) => NOT_RUN.find((rule) => rule.start.test(example.command.replace(/^node dist\/cli\/main\.js /, "xql ")));
/** A block runs when it shows output and every command in it is an `xql` command that may run here. */
const RUN = BLOCKS.filter(
  (block) =>
    block.examples.some((e) => e.output.length > 0) &&
    block.examples.every((e) => !notRun(e) && commandsOf(e.command).every((words) => xqlArgs(words) !== undefined)),
);

describe("the docs' shell examples", () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => ({ dir, cleanup } = tempDir("xql-docs-")));
  afterAll(() => cleanup());

  it("run every example that shows output, or say why not", () => {
    const unaccounted = BLOCKS.flatMap((block) => (RUN.includes(block) ? [] : block.examples))
      .filter((e) => e.output.length > 0 && !notRun(e))
      .map((e) => `${e.doc}: ${e.command}`);
    expect(unaccounted).toEqual([]);
    // The README's FOREX import is one of them.
    expect(RUN.some((block) => block.examples.some((e) => e.command.includes("EURUSD-h1-metatrader.tsv")))).toBe(true);
  });

  it.each(RUN.map((block, i) => [`${block.doc} #${i + 1}: ${block.examples[0]!.command}`, block] as const))(
    "%s prints what the docs show",
    async (_, block) => {
      // Each block starts from a directory of its own holding the shipped examples.
      const cwd = join(dir, String(RUN.indexOf(block)));
      cpSync(join(ROOT, "examples"), join(cwd, "examples"), { recursive: true });
      for (const example of block.examples) {
        let printed = "";
        for (const words of commandsOf(example.command)) {
          const result = await runXql(xqlArgs(words)!, cwd);
          expect(result.code, `${example.command}\n${result.printed}`).toBe(0);
          printed += result.printed;
        }
        if (example.output.length === 0) continue;
        const lines = printed.replace(/\n$/, "").split("\n").map((line) => line.trimEnd());
        expect(lines, example.command).toEqual(example.output.map((line) => line.trimEnd()));
      }
    },
  );
});
