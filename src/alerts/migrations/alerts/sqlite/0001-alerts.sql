-- alerts: saved screens, their (alert, bar) claims and the outbox of deliveries
CREATE TABLE alerts (
  id         TEXT    PRIMARY KEY,
  -- The account owning it, in the key store (which may be another database: no foreign key).
  account_id TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  query      TEXT    NOT NULL,
  webhook    TEXT,
  secret     TEXT    NOT NULL,
  market     TEXT    NOT NULL,
  timeframe  TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  -- The last base bar evaluated and the rows matching there (JSON): what the next bar is compared with.
  last_time  INTEGER,
  matching   TEXT    NOT NULL
);
CREATE INDEX alerts_account ON alerts (account_id, created_at);

-- One row per (alert, base bar) evaluated, inserted with the outcome: the claim that makes
-- each bar evaluated once, whichever process or replica gets there first.
CREATE TABLE alert_evaluations (
  alert_id     TEXT    NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  time         INTEGER NOT NULL,
  evaluated_at INTEGER NOT NULL,
  matched      INTEGER NOT NULL,
  events       INTEGER NOT NULL,
  PRIMARY KEY (alert_id, time)
) WITHOUT ROWID;

-- The outbox: one row per (alert, bar) with events. seq follows commit order (AUTOINCREMENT
-- never reuses a number), which the stream resumes from.
CREATE TABLE alert_deliveries (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT    NOT NULL UNIQUE,
  alert_id        TEXT    NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  account_id      TEXT    NOT NULL,
  time            INTEGER NOT NULL,
  events          INTEGER NOT NULL,
  body            TEXT    NOT NULL,
  status          TEXT    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'stream')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  lease_until     INTEGER NOT NULL DEFAULT 0,
  delivered_at    INTEGER,
  last_error      TEXT,
  UNIQUE (alert_id, time)
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (alert_id, time) WHERE status = 'pending';
CREATE INDEX alert_deliveries_account ON alert_deliveries (account_id, seq);
CREATE INDEX alert_deliveries_created ON alert_deliveries (created_at);
