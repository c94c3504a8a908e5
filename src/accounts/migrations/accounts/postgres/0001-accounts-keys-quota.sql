-- accounts, keys, quota
CREATE TABLE accounts (
  id         text   PRIMARY KEY,
  tier       text   NOT NULL CHECK (tier IN ('free', 'essential', 'plus')),
  created_at bigint NOT NULL
);

-- Only the SHA-256 of a key is kept; prefix is for people to tell keys apart.
CREATE TABLE api_keys (
  seq        bigserial UNIQUE,
  hash       text   PRIMARY KEY,
  prefix     text   NOT NULL,
  account_id text   NOT NULL REFERENCES accounts (id),
  label      text,
  created_at bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Metered calls per account and UTC day, for deployments without Redis.
CREATE TABLE quota_usage (
  account_id text    NOT NULL,
  day        text    NOT NULL,
  used       integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (account_id, day)
);
