/**
 * Runs `main(argv, io)` once per case in this one process (started with hide-optional.*
 * preloaded) and prints the results as JSON: many commands for the price of one start.
 * Cases come as JSON in XQL_LIGHT_CASES: [{ "args": [...], "input"?: "..." }].
 */
import { xqlIn } from "../in-process.js";

const cases = JSON.parse(process.env["XQL_LIGHT_CASES"] ?? "[]") as { args: string[]; input?: string }[];
const env = { ...process.env, XQL_LIGHT_CASES: "" };
const results = [];
for (const { args, input } of cases) results.push(await xqlIn(args, { input, env }));
process.stdout.write(JSON.stringify(results));
