/**
 * Authentication: a `Bearer` key checked in `onRequest`, before any byte of the body is read
 * or any query parsed. A string that cannot be a key is refused without a store lookup. A
 * known key's request is then admitted for its account (`admission.ts`): every route that
 * authenticates through this hook gets the per-account admission with nothing else to do.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { hashApiKey, looksLikeApiKey } from "../accounts/keys.js";
import type { KeyStore, Scope, Tier } from "../accounts/accounts.js";
import { TIER_LIMITS } from "../accounts/accounts.js";
import { UNAUTHORIZED, fromStore } from "./errors.js";
import { type Admission, admitRequest } from "./admission.js";

/** Who is calling: the account the key belongs to, its tier and daily limit, and the key's scope. */
export interface Caller {
  accountId: string;
  tier: Tier;
  limit: number;
  scope: Scope;
}

/** The `onRequest` hook that authenticates, and the lookup of the caller it found. */
export interface Authenticator {
  /** The `onRequest` hook: 401 for a missing or unknown key, else the account's admission (429 beyond its queue). */
  authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The caller of an authenticated request; throws when the route skipped authentication. */
  callerOf(request: FastifyRequest): Caller;
  /** The caller, or undefined for a request that was refused or never authenticated. */
  maybeCallerOf(request: FastifyRequest): Caller | undefined;
}

/** What follows a known key: its account's admission, and what a refused request's answer carries. */
export interface AuthenticatorOptions {
  /** The per-account admission; without it requests are authenticated only. */
  admission?: Admission;
  /** Runs before a 429 of the admission is sent (the metered routes add their rate-limit headers). */
  beforeRefusal?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export function createAuthenticator(keys: KeyStore, options: AuthenticatorOptions = {}): Authenticator {
  const callers = new WeakMap<FastifyRequest, Caller>();
  return {
    async authenticate(request, reply) {
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? "");
      const key = match?.[1];
      const record = key !== undefined && looksLikeApiKey(key) ? await fromStore(() => keys.findKeyByHash(hashApiKey(key))) : undefined;
      if (!record || record.revokedAt !== null) {
        await reply.code(401).header("WWW-Authenticate", "Bearer").send(UNAUTHORIZED);
        return;
      }
      callers.set(request, { accountId: record.accountId, tier: record.tier, limit: TIER_LIMITS[record.tier], scope: record.scope });
      if (options.admission) await admitRequest(options.admission, record.accountId, request, reply, options.beforeRefusal);
    },
    callerOf(request) {
      const caller = callers.get(request);
      if (!caller) throw new Error("internal: a route that needs a caller was reached without authentication");
      return caller;
    },
    maybeCallerOf: (request) => callers.get(request),
  };
}
