/**
 * Real responses checked against the service's own `/openapi.json`: a small JSON-schema
 * validator (the subset the document uses: $ref, type, oneOf, const, enum, required, properties,
 * additionalProperties, items, minimum) and the lookup of the schema by path, method and
 * status. The test helpers run every response of the HTTP suites through it.
 */
import { openApiDocument } from "../../src/server/openapi.js";

type Schema = Record<string, unknown>;
const doc = openApiDocument() as Schema;

function resolve(schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === "string") {
    const path = current.$ref.replace(/^#\//, "").split("/");
    let target: unknown = doc;
    for (const part of path) target = (target as Schema)[part];
    if (target === undefined) throw new Error(`openapi: unresolved ${current.$ref}`);
    current = target as Schema;
  }
  return current;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The problems of `value` against `schema`, each with its JSON path; empty when it conforms. */
export function validateSchema(value: unknown, schema: Schema, at = "$"): string[] {
  const s = resolve(schema);
  const problems: string[] = [];
  if (s.type !== undefined) {
    const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
    const actual = typeOf(value);
    const ok = types.some((t) => t === actual || (t === "number" && actual === "integer"));
    if (!ok) return [`${at}: expected ${types.join("|")}, found ${actual}`];
  }
  if (Array.isArray(s.oneOf)) {
    const matching = (s.oneOf as Schema[]).filter((branch) => validateSchema(value, branch, at).length === 0).length;
    if (matching !== 1) problems.push(`${at}: matches ${matching} of the oneOf branches, not exactly 1`);
  }
  if ("const" in s && value !== s.const) problems.push(`${at}: expected ${JSON.stringify(s.const)}, found ${JSON.stringify(value)}`);
  if (Array.isArray(s.enum) && !s.enum.includes(value)) problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  if (typeof s.minimum === "number" && typeof value === "number" && value < s.minimum) problems.push(`${at}: ${value} < ${s.minimum}`);
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    for (const name of (s.required as string[] | undefined) ?? []) if (!(name in object)) problems.push(`${at}: missing ${name}`);
    const properties = (s.properties as Record<string, Schema> | undefined) ?? {};
    for (const [name, item] of Object.entries(object)) {
      if (name in properties) problems.push(...validateSchema(item, properties[name]!, `${at}.${name}`));
      else if (s.additionalProperties === false) problems.push(`${at}: unexpected property ${name}`);
      else if (typeof s.additionalProperties === "object") problems.push(...validateSchema(item, s.additionalProperties as Schema, `${at}.${name}`));
    }
  }
  if (Array.isArray(value) && s.items !== undefined) value.forEach((item, i) => problems.push(...validateSchema(item, s.items as Schema, `${at}[${i}]`)));
  return problems;
}

/**
 * Checks one real response against the document: the status must be documented for the
 * operation, and a JSON body must match its schema. Paths the document does not name (404,
 * 405 answers) are not checked. Throws with every problem found.
 */
export function checkAgainstOpenApi(method: string, url: string, status: number, body: string): void {
  const path = new URL(url, "http://x").pathname;
  const operation = ((doc.paths as Schema)[path] as Schema | undefined)?.[method.toLowerCase()] as Schema | undefined;
  if (!operation) return;
  const responses = operation.responses as Record<string, Schema>;
  const documented = responses[String(status)];
  if (!documented) throw new Error(`openapi: ${method} ${path} answered ${status}, which the document does not list`);
  const response = resolve(documented);
  const schema = ((response.content as Schema | undefined)?.["application/json"] as Schema | undefined)?.schema as Schema | undefined;
  if (!schema || method === "HEAD") return;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new Error(`openapi: ${method} ${path} ${status} body is not JSON: ${body.slice(0, 200)}`);
  }
  const problems = validateSchema(value, schema);
  if (problems.length > 0) throw new Error(`openapi: ${method} ${path} ${status} does not match the document:\n${problems.join("\n")}`);
}

/** Fetches and checks the response against the document; resolves to the response (its body still readable). */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  checkAgainstOpenApi(init.method ?? "GET", url, response.status, await response.clone().text());
  return response;
}
