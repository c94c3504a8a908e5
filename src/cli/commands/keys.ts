/** `xql keys create|list|revoke`: API keys in the embedded store. Whole keys are shown once, at creation. */
import type { Command } from "../command.js";
import { UsageError, parseFlags } from "../command.js";
import { hashApiKey, issueApiKey, looksLikeApiKey } from "../../data/keys.js";
import { TIERS, TIER_LIMITS, isTier } from "../../data/store.js";
import { databasePath, openStore } from "../store.js";
import { renderTable } from "../table.js";

const help = `Usage:
  xql keys create --tier free|essential|plus [--label L] [--db FILE|URL]
  xql keys create --account ID [--label L] [--db FILE|URL]
  xql keys list [--format table|json] [--db FILE|URL]
  xql keys revoke KEY [--db FILE|URL]

Manage API keys. Every key belongs to an account; the account has the tier, and the daily
run quota (free ${TIER_LIMITS.free}, essential ${TIER_LIMITS.essential}, plus ${TIER_LIMITS.plus} per UTC day) is counted per account.

  create   Makes a new account of the tier with one key, or (--account) adds a key to an
           existing account, sharing its quota. Prints the account, then the new key alone
           on the last line of standard output. The key is shown only this once: the store
           keeps only its SHA-256 hash.
  list     Every key with its prefix (never the whole key), account, tier, label, created
           and revoked times.
  revoke   Revokes a key at once; its account's usage stays as it is.

Options:
  --tier T       free, essential or plus (a new account)
  --account ID   add the key to this existing account
  --label L      a note to tell keys apart
  --format F     list output: table (default) or json
  --db FILE|URL  database file (default: $XQL_DB, else .xql/xql.db), or a
                 PostgreSQL URL (default: $XQL_DATABASE_URL, which wins over $XQL_DB)
`;

async function create(flags: Map<string, string>): Promise<number> {
  const tier = flags.get("tier");
  const accountId = flags.get("account");
  if (tier === undefined && accountId === undefined) throw new UsageError("keys create needs --tier (or --account ID)");
  if (tier !== undefined && !isTier(tier)) throw new UsageError(`Unknown tier '${tier}': use one of ${TIERS.join(", ")}`);
  const store = await openStore(databasePath(flags.get("db")));
  try {
    const issued = await issueApiKey(store, {
      tier: tier as (typeof TIERS)[number] | undefined,
      accountId,
      label: flags.get("label") ?? null,
      now: Date.now(),
    });
    const { record } = issued;
    process.stdout.write(
      [
        `account: ${record.accountId}${issued.newAccount ? " (new)" : ""}`,
        `tier:    ${record.tier} (${TIER_LIMITS[record.tier]} runs per UTC day)`,
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

async function list(flags: Map<string, string>): Promise<number> {
  const format = flags.get("format") ?? "table";
  if (format !== "table" && format !== "json") throw new UsageError(`Unknown format '${format}': use table or json`);
  const store = await openStore(databasePath(flags.get("db")));
  try {
    const keys = await store.listKeys();
    const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
    if (format === "json") {
      const rows = keys.map((k) => ({
        prefix: `${k.prefix}…`,
        account: k.accountId,
        tier: k.tier,
        label: k.label,
        created: iso(k.createdAt),
        revoked: iso(k.revokedAt),
      }));
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (keys.length === 0) {
      process.stdout.write("No keys yet. Create one with: xql keys create --tier free\n");
      return 0;
    }
    const rows = keys.map((k) => [
      `${k.prefix}…`,
      k.accountId,
      k.tier,
      k.label ?? "",
      iso(k.createdAt)!.slice(0, 19).replace("T", " "),
      k.revokedAt === null ? "" : iso(k.revokedAt)!.slice(0, 19).replace("T", " "),
    ]);
    process.stdout.write(renderTable(["key", "account", "tier", "label", "created (UTC)", "revoked (UTC)"], rows));
    return 0;
  } finally {
    await store.close();
  }
}

async function revoke(positionals: string[], flags: Map<string, string>): Promise<number> {
  const key = positionals[0];
  if (key === undefined || positionals.length > 1) throw new UsageError("keys revoke needs exactly one KEY");
  if (!looksLikeApiKey(key)) {
    process.stderr.write("xql keys revoke: that is not an API key (xql_ followed by 32 letters and digits)\n");
    return 1;
  }
  const store = await openStore(databasePath(flags.get("db")));
  try {
    const hash = hashApiKey(key);
    const found = await store.findKeyByHash(hash);
    if (!found) {
      process.stderr.write("xql keys revoke: no such key\n");
      return 1;
    }
    if (found.revokedAt !== null) {
      process.stdout.write(`Key ${found.prefix}… was already revoked at ${new Date(found.revokedAt).toISOString()}\n`);
      return 0;
    }
    await store.revokeKey(hash, Date.now());
    process.stdout.write(`Revoked key ${found.prefix}… of account ${found.accountId}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

export const keysCommand: Command = {
  name: "keys",
  summary: "Create, list and revoke API keys in the embedded store",
  help,
  async run(args) {
    const [action, ...rest] = args;
    const { flags, positionals } = parseFlags(rest);
    switch (action) {
      case "create":
        if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
        return create(flags);
      case "list":
        return list(flags);
      case "revoke":
        return revoke(positionals, flags);
      default:
        throw new UsageError(action === undefined ? "keys needs an action: create, list or revoke" : `Unknown action '${action}'`);
    }
  },
};
