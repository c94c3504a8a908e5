/**
 * The playground's page at `/` with its icon and assets: static files built into
 * `dist/playground/` by `npm run build`, read once. The bars its chart draws come from
 * `GET /xql/bars` (`bars-read.ts`).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { extname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { FAVICON } from "./favicon.js";
import type { ServicePart } from "./service.js";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** The page's files, read once: the page is built before the server starts and never changes under it. */
function readPage(dir: string | undefined): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  if (dir === undefined || !existsSync(join(dir, "index.html"))) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type !== undefined) files.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return files;
}

/** Registers `/`, `/favicon.ico` and `/playground/:file`, from the built page in `dir` (absent: `/` says how to build it). */
function registerPlayground(app: FastifyInstance, dir: string | undefined): void {
  const files = readPage(dir);
  // The page's HTML names its assets under /playground/ with a content hash, so they can be cached for good.
  // The page holds an API key field: no other site may frame it (clickjacking), in the CSP
  // for browsers that read it and in X-Frame-Options for those that do not.
  const security = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };

  app.get("/", async (_request, reply) => {
    const page = files.get("index.html");
    if (!page) return reply.code(404).send({ error: "The playground is not built; run `npm run build`" });
    return reply.headers({ ...security, "Cache-Control": "no-cache" }).type(page.type).send(page.body);
  });

  // Every browser asks for it; the page's console shows a 404 otherwise.
  app.get("/favicon.ico", async (_request, reply) =>
    reply.headers({ "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=86400" }).type("image/x-icon").send(FAVICON),
  );

  app.get("/playground/:file", async (request, reply) => {
    const { file } = request.params as { file: string };
    const asset = file !== "index.html" ? files.get(file) : undefined;
    if (!asset) return reply.code(404).send({ error: "Not found" });
    return reply.headers({ ...security, "Cache-Control": "public, max-age=31536000, immutable" }).type(asset.type).send(asset.body);
  });
}

/** The playground's paths for `/openapi.json`. */
export const PLAYGROUND_OPENAPI_PATHS = {
  "/": {
    get: {
      operationId: "playground",
      summary: "The playground: an editor with live checks, explanation, a run against this service and charts (HTML)",
      security: [],
      responses: {
        "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } },
        "404": { description: "The page was not built (`npm run build`)" },
      },
    },
  },
  "/favicon.ico": {
    get: {
      operationId: "favicon",
      summary: "The playground's icon",
      security: [],
      responses: { "200": { description: "A 16×16 icon", content: { "image/x-icon": { schema: { type: "string", format: "binary" } } } } },
    },
  },
} as const;

/** The playground page at `/`, its icon and its assets (static files, no key). */
export const playgroundPart: ServicePart = (app, { options }) => registerPlayground(app, options.playgroundDir);
