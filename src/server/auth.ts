/**
 * Authentication: a `Bearer` key checked in `onRequest`, before any byte of the body is read
 * or any query parsed. A string that cannot be a key is refused without a store lookup.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { hashApiKey, looksLikeApiKey } from "../accounts/keys.js";
import type { KeyStore, Scope, Tier } from "../accounts/accounts.js";
import { TIER_LIMITS } from "../accounts/accounts.js";
import { UNAUTHORIZED, fromStore } from "./errors.js";

/** Who is calling: the account the key belongs to, its tier and daily limit, and the key's scope. */
export interface Caller {
  accountId: string;
  tier: Tier;
  limit: number;
  scope: Scope;
}

/** The `onRequest` hook that authenticates, and the lookup of the caller it found. */
export interface Authenticator {
  authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The caller of an authenticated request; throws when the route skipped authentication. */
  callerOf(request: FastifyRequest): Caller;
  /** The caller, or undefined for a request that was refused or never authenticated. */
  maybeCallerOf(request: FastifyRequest): Caller | undefined;
}

export function createAuthenticator(keys: KeyStore): Authenticator {
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
    },
    callerOf(request) {
      const caller = callers.get(request);
      if (!caller) throw new Error("Route reached without authentication");
      return caller;
    },
    maybeCallerOf: (request) => callers.get(request),
  };
}
