-- accounts, keys, quota
CREATE TABLE accounts (
  id         TEXT    PRIMARY KEY,
  tier       TEXT    NOT NULL CHECK (tier IN ('free', 'essential', 'plus')),
  created_at INTEGER NOT NULL
);

-- Only the SHA-256 of a key is kept; prefix is for people to tell keys apart.
CREATE TABLE api_keys (
  hash       TEXT    PRIMARY KEY,
  prefix     TEXT    NOT NULL,
  account_id TEXT    NOT NULL REFERENCES accounts (id),
  label      TEXT,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Metered calls per account and UTC day (YYYY-MM-DD).
CREATE TABLE quota_usage (
  account_id TEXT    NOT NULL,
  day        TEXT    NOT NULL,
  used       INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (account_id, day)
) WITHOUT ROWID;
