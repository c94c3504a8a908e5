-- alert screen leases: replicas share a round's work (one replica per distinct screen)
-- One row per live replica, renewed with its leases: how many replicas share the screens.
CREATE TABLE alert_replicas (
  id         text        PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

-- One row per distinct screen (the hash of market, timeframe and query text): who evaluates it.
-- A NULL holder or a past expires_at is free to claim.
CREATE TABLE alert_screen_leases (
  screen     text        PRIMARY KEY,
  holder     text,
  expires_at timestamptz NOT NULL DEFAULT 'epoch'
);
CREATE INDEX alert_screen_leases_holder ON alert_screen_leases (holder);
