/** `xql keys create|list|revoke`: API keys in the embedded store. Whole keys are shown once, at creation. */
import type { CliIo, Command } from "../command.js";
import { UsageError, formatOption, optionsHelp, parseCommandLine, pick } from "../command.js";
import { hashApiKey, issueApiKey, looksLikeApiKey } from "../../accounts/keys.js";
import { closest } from "../../suggest.js";
import { SCOPES, TIERS, TIER_LIMITS, isScope, isTier } from "../../accounts/accounts.js";
import { databasePath, openStore } from "../store.js";
import { renderTable } from "../table.js";
import { renderCsv } from "../report.js";

const ACTIONS = ["create", "list", "revoke"];
const CREATE_OPTIONS = pick("tier", "account", "scope", "label", "db");
const LIST_OPTIONS = pick("format", "db");
const REVOKE_OPTIONS = pick("db");

const help = `Usage:
  xql keys create --tier free|essential|plus [--scope run|write] [--label L] [--db FILE|URL]
  xql keys create --account ID [--scope run|write] [--label L] [--db FILE|URL]
  xql keys list [--format table|json|csv] [--db FILE|URL]
  xql keys revoke KEY [--db FILE|URL]

Manage API keys. Every key belongs to an account; the account has the tier, and the daily
run quota (free ${TIER_LIMITS.free}, essential ${TIER_LIMITS.essential}, plus ${TIER_LIMITS.plus} per UTC day) is counted per account.

  create   Makes a new account of the tier with one key, or (--account) adds a key to an
           existing account, sharing its quota. Prints the account, then the new key alone
           on the last line of standard output. The key is shown only this once: the store
           keeps only its SHA-256 hash. A key runs screens (--scope run, the default); a
           --scope write key may also push bars to POST /xql/bars (give one to a feed).
  list     Every key with its prefix (never the whole key), account, tier, scope, label,
           created and revoked times.
  revoke   Revokes a key at once; its account's usage stays as it is.

${optionsHelp({ ...CREATE_OPTIONS, format: { type: "string", value: "table|json|csv", description: "list output: table (default), json or csv" } })}
`;

async function create(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine("keys create", args, CREATE_OPTIONS);
  const tier = values.tier;
  const accountId = values.account;
  if (tier === undefined && accountId === undefined) throw new UsageError("keys create needs --tier (or --account ID)");
  if (tier !== undefined && !isTier(tier)) throw new UsageError(`Unknown tier '${tier}': use one of ${TIERS.join(", ")}`);
  const scope = values.scope ?? "run";
  if (!isScope(scope)) {
    const meant = closest(scope, SCOPES);
    throw new UsageError(`Unknown scope '${scope}'${meant ? `, did you mean '${meant}'?` : ""}: use ${SCOPES.join(" or ")}`);
  }
  const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
  try {
    const issued = await issueApiKey(store, {
      tier: tier as (typeof TIERS)[number] | undefined,
      accountId,
      label: values.label ?? null,
      scope,
      now: Date.now(),
    });
    const { record } = issued;
    io.stdout.write(
      [
        `account: ${record.accountId}${issued.newAccount ? " (new)" : ""}`,
        `tier:    ${record.tier} (${TIER_LIMITS[record.tier]} runs per UTC day)`,
        `scope:   ${record.scope}${record.scope === "write" ? " (may push bars: POST /xql/bars)" : ""}`,
        ...(record.label ? [`label:   ${record.label}`] : []),
        `db:      ${store.file}`,
        "Your API key (shown only now; keep it secret):",
        issued.key,
        "",
      ].join("\n"),
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine("keys list", args, LIST_OPTIONS);
  const format = formatOption("keys list", values.format, "table");
  const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
  try {
    const keys = await store.listKeys();
    const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
    if (format === "json") {
      const rows = keys.map((k) => ({
        prefix: `${k.prefix}…`,
        account: k.accountId,
        tier: k.tier,
        scope: k.scope,
        label: k.label,
        created: iso(k.createdAt),
        revoked: iso(k.revokedAt),
      }));
      io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (format === "csv") {
      const header = ["prefix", "account", "tier", "scope", "label", "created", "revoked"];
      io.stdout.write(renderCsv(header, keys.map((k) => [`${k.prefix}…`, k.accountId, k.tier, k.scope, k.label, iso(k.createdAt), iso(k.revokedAt)])));
      return 0;
    }
    if (keys.length === 0) {
      io.stdout.write("No keys yet. Create one with: xql keys create --tier free\n");
      return 0;
    }
    const rows = keys.map((k) => [
      `${k.prefix}…`,
      k.accountId,
      k.tier,
      k.scope,
      k.label ?? "",
      iso(k.createdAt)!.slice(0, 19).replace("T", " "),
      k.revokedAt === null ? "" : iso(k.revokedAt)!.slice(0, 19).replace("T", " "),
    ]);
    io.stdout.write(renderTable(["key", "account", "tier", "scope", "label", "created (UTC)", "revoked (UTC)"], rows));
    return 0;
  } finally {
    await store.close();
  }
}

async function revoke(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("keys revoke", args, REVOKE_OPTIONS, 1);
  const key = positionals[0];
  if (key === undefined || positionals.length > 1) throw new UsageError("keys revoke needs exactly one KEY");
  if (!looksLikeApiKey(key)) {
    io.stderr.write("xql keys revoke: that is not an API key (xql_ followed by 32 letters and digits)\n");
    return 1;
  }
  const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
  try {
    const hash = hashApiKey(key);
    const found = await store.findKeyByHash(hash);
    if (!found) {
      io.stderr.write("xql keys revoke: no such key\n");
      return 1;
    }
    if (found.revokedAt !== null) {
      io.stdout.write(`Key ${found.prefix}… was already revoked at ${new Date(found.revokedAt).toISOString()}\n`);
      return 0;
    }
    await store.revokeKey(hash, Date.now());
    io.stdout.write(`Revoked key ${found.prefix}… of account ${found.accountId}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

export const keysCommand: Command = {
  name: "keys",
  summary: "Create, list and revoke API keys in the embedded store",
  help,
  async run(args, io) {
    const [action, ...rest] = args;
    switch (action) {
      case "create":
        return create(rest, io);
      case "list":
        return list(rest, io);
      case "revoke":
        return revoke(rest, io);
      default: {
        if (action === undefined) throw new UsageError("xql keys needs an action: create, list or revoke");
        const meant = closest(action, ACTIONS);
        throw new UsageError(`xql keys: unknown action '${action}'${meant ? `, did you mean '${meant}'?` : ""} Use create, list or revoke.`);
      }
    }
  },
};
