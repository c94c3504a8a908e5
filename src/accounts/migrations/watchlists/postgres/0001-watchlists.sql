-- watchlists: an account's saved symbol lists
CREATE TABLE watchlists (
  account_id text   NOT NULL,
  name       text   NOT NULL,
  symbols    jsonb  NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (account_id, name)
);
