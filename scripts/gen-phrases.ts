/** Writes docs/phrases.md from the phrase reference in src/phrases/ (a test fails when it is stale). */
import { mkdirSync, writeFileSync } from "node:fs";
import { renderPhrasesMarkdown } from "../src/phrases/markdown.js";

mkdirSync("docs", { recursive: true });
writeFileSync("docs/phrases.md", renderPhrasesMarkdown());
console.log("wrote docs/phrases.md");
