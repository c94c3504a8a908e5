/**
 * Request bodies. Any Content-Type is read as UTF-8 query text, except `application/json`,
 * whose body must be `{"query": "<text>"}` (decisions §2). The hints for the two usual
 * mistakes live here too: JSON sent as text, and a query whose line breaks `curl -d` removed.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ErrorBody, InvalidResult } from "../types.js";
import type { QueryErrorCode } from "../errors.js";

/** A body that is not a query: the 400 explains the accepted forms. */
export interface BodyProblem {
  readonly problem: string;
}

/** A JSON body read: the query and the other fields the route takes (history's `bars`). */
export interface JsonQuery {
  readonly query: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** What a route reads from a request: the query text, or why the body holds none. */
export type QueryBody = string | BodyProblem;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Fields a JSON body may carry beside `"query"` on this route (history: `["bars"]`). */
    jsonFields?: readonly string[];
  }
}

const jsonForm = (fields: readonly string[]): string =>
  fields.length === 0
    ? 'a JSON body must be {"query": "<query text>"}'
    : `a JSON body must be {"query": "<query text>"${fields.map((f) => `, "${f}": …`).join("")}}`;

/**
 * Reads a JSON body as `{"query": "..."}` with, on routes that take them, the `fields` beside
 * it; anything else is a {@link BodyProblem} saying so.
 */
export function queryFromJson(text: string, fields: readonly string[] = []): JsonQuery | BodyProblem {
  const form = jsonForm(fields);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `The body is not valid JSON (${(error as Error).message}); ${form}, or send the query as text with another Content-Type` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problem: `The JSON body is not an object; ${form}` };
  }
  const keys = Object.keys(value);
  const query = (value as { query?: unknown }).query;
  if (typeof query !== "string") {
    return { problem: `The JSON body has no string "query"; ${form}` };
  }
  const extra = keys.filter((key) => key !== "query" && !fields.includes(key));
  if (extra.length > 0) {
    const allowed = ["query", ...fields].map((k) => JSON.stringify(k)).join(" and ");
    return { problem: `The JSON body has fields other than ${allowed} (${extra.map((k) => JSON.stringify(k)).join(", ")}); ${form}` };
  }
  const taken: Record<string, unknown> = Object.create(null);
  for (const field of fields) if (Object.hasOwn(value, field)) taken[field] = (value as Record<string, unknown>)[field];
  return { query, fields: taken };
}

/** Installs the parsers: `application/json` as `{"query"}` (and the route's `jsonFields`), everything else as text; the limit answers 413. */
export function installBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, (_request, body, done) => done(null, body));
  app.addContentTypeParser(/^application\/json\s*(;.*)?$/i, { parseAs: "string", bodyLimit }, (request, body, done) =>
    done(null, queryFromJson(body as string, request.routeOptions.config?.jsonFields ?? [])),
  );
}

/** The request's query text or body problem; a request without a body reads as empty text. */
export function queryBodyOf(request: FastifyRequest): QueryBody {
  const body = request.body;
  if (typeof body === "string") return body;
  if (isJsonQuery(body)) return body.query;
  if (typeof body === "object" && body !== null && typeof (body as BodyProblem).problem === "string") return body as BodyProblem;
  return "";
}

/** A field the route's JSON body carried beside the query (undefined for text bodies and absent fields). */
export function jsonFieldOf(request: FastifyRequest, field: string): unknown {
  const body = request.body;
  return isJsonQuery(body) ? body.fields[field] : undefined;
}

function isJsonQuery(body: unknown): body is JsonQuery {
  return typeof body === "object" && body !== null && typeof (body as JsonQuery).query === "string" && typeof (body as JsonQuery).fields === "object";
}

/** The 400 body of a {@link BodyProblem}: the query-error shape, a syntax error at 1:1. */
export function bodyProblemResult(problem: BodyProblem): InvalidResult {
  return { valid: false, error: { type: "syntax", message: problem.problem, position: { line: 1, column: 1, offset: 0 } } };
}

/**
 * Adds a hint to a query error when the text shows a known transport mistake:
 * - it starts with `{`: JSON sent without `Content-Type: application/json`;
 * - the condition is missing (`missing-condition`, told by code) and the text has no line break although it holds several
 *   settings: `curl -d` joins the lines of a file (use `--data-binary @file`).
 */
export function withTransportHint(text: string, error: ErrorBody, code: QueryErrorCode | undefined): ErrorBody {
  const hint = transportHint(text, code);
  return hint === undefined ? error : { ...error, message: `${error.message}. ${hint}` };
}

function transportHint(text: string, code: QueryErrorCode | undefined): string | undefined {
  if (text.trimStart().startsWith("{")) {
    return 'Hint: send the query as plain text, or as JSON {"query": "<query text>"} with Content-Type: application/json';
  }
  if (code === "missing-condition" && !/[\r\n]/.test(text) && text.trim() !== "") {
    return "Hint: the query has no line breaks; curl -d removes them from a file, send it with --data-binary @file";
  }
  return undefined;
}
