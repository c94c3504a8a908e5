/**
 * Request bodies. Any Content-Type is read as UTF-8 query text, except `application/json`,
 * whose body must be `{"query": "<text>"}` (decisions §2). The hints for the two usual
 * mistakes live here too: JSON sent as text, and a query whose line breaks `curl -d` removed.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ErrorBody, InvalidResult } from "../types.js";

/** A body that is not a query: the 400 explains the accepted forms. */
export interface BodyProblem {
  readonly problem: string;
}

/** What a route reads from a request: the query text, or why the body holds none. */
export type QueryBody = string | BodyProblem;

const JSON_FORM = 'a JSON body must be {"query": "<query text>"}';

/** Reads a JSON body as `{"query": "..."}`; anything else is a {@link BodyProblem} saying so. */
export function queryFromJson(text: string): QueryBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `The body is not valid JSON (${(error as Error).message}); ${JSON_FORM}, or send the query as text with another Content-Type` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problem: `The JSON body is not an object; ${JSON_FORM}` };
  }
  const keys = Object.keys(value);
  const query = (value as { query?: unknown }).query;
  if (typeof query !== "string") {
    return { problem: `The JSON body has no string "query"; ${JSON_FORM}` };
  }
  const extra = keys.filter((key) => key !== "query");
  if (extra.length > 0) {
    return { problem: `The JSON body has fields other than "query" (${extra.map((k) => JSON.stringify(k)).join(", ")}); ${JSON_FORM}` };
  }
  return query;
}

/** Installs the parsers: `application/json` as `{"query"}`, everything else as text; the limit answers 413. */
export function installBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, (_request, body, done) => done(null, body));
  app.addContentTypeParser(/^application\/json\s*(;.*)?$/i, { parseAs: "string", bodyLimit }, (_request, body, done) =>
    done(null, queryFromJson(body as string)),
  );
}

/** The request's query text or body problem; a request without a body reads as empty text. */
export function queryBodyOf(request: FastifyRequest): QueryBody {
  const body = request.body;
  if (typeof body === "string") return body;
  if (typeof body === "object" && body !== null && typeof (body as BodyProblem).problem === "string") return body as BodyProblem;
  return "";
}

/** The 400 body of a {@link BodyProblem}: the query-error shape, a syntax error at 1:1. */
export function bodyProblemResult(problem: BodyProblem): InvalidResult {
  return { valid: false, error: { type: "syntax", message: problem.problem, position: { line: 1, column: 1, offset: 0 } } };
}

/**
 * Adds a hint to a query error when the text shows a known transport mistake:
 * - it starts with `{`: JSON sent without `Content-Type: application/json`;
 * - the condition is missing and the text has no line break although it holds several
 *   settings: `curl -d` joins the lines of a file (use `--data-binary @file`).
 */
export function withTransportHint(text: string, error: ErrorBody): ErrorBody {
  const hint = transportHint(text, error);
  return hint === undefined ? error : { ...error, message: `${error.message}. ${hint}` };
}

function transportHint(text: string, error: ErrorBody): string | undefined {
  if (text.trimStart().startsWith("{")) {
    return 'Hint: send the query as plain text, or as JSON {"query": "<query text>"} with Content-Type: application/json';
  }
  if (error.message.startsWith("Missing condition") && !/[\r\n]/.test(text) && text.trim() !== "") {
    return "Hint: the query has no line breaks; curl -d removes them from a file, send it with --data-binary @file";
  }
  return undefined;
}
