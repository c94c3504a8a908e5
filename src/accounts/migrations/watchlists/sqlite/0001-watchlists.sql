-- watchlists: an account's saved symbol lists
CREATE TABLE watchlists (
  account_id TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  -- The symbols as a JSON array, in the order saved.
  symbols    TEXT    NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, name)
) WITHOUT ROWID;
