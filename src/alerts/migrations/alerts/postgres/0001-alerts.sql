-- alerts: saved screens, their (alert, bar) claims and the outbox of deliveries
CREATE TABLE alerts (
  id         text   PRIMARY KEY,
  account_id text   NOT NULL,
  name       text   NOT NULL,
  query      text   NOT NULL,
  webhook    text,
  secret     text   NOT NULL,
  market     text   NOT NULL,
  timeframe  text   NOT NULL,
  created_at bigint NOT NULL,
  last_time  bigint,
  matching   text   NOT NULL
);
CREATE INDEX alerts_account ON alerts (account_id, created_at);

CREATE TABLE alert_evaluations (
  alert_id     text    NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  time         bigint  NOT NULL,
  evaluated_at bigint  NOT NULL,
  matched      integer NOT NULL,
  events       integer NOT NULL,
  PRIMARY KEY (alert_id, time)
);

-- seq is taken under a transaction-scoped advisory lock (see PostgresAlerts), so it follows
-- commit order and a reader that has seen seq n has seen every delivery below it.
CREATE TABLE alert_deliveries (
  seq             bigserial PRIMARY KEY,
  id              text    NOT NULL UNIQUE,
  alert_id        text    NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  account_id      text    NOT NULL,
  time            bigint  NOT NULL,
  events          integer NOT NULL,
  body            text    NOT NULL,
  status          text    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'stream')),
  attempts        integer NOT NULL DEFAULT 0,
  created_at      bigint  NOT NULL,
  next_attempt_at bigint  NOT NULL,
  lease_until     bigint  NOT NULL DEFAULT 0,
  delivered_at    bigint,
  last_error      text,
  UNIQUE (alert_id, time)
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (alert_id, time) WHERE status = 'pending';
CREATE INDEX alert_deliveries_account ON alert_deliveries (account_id, seq);
CREATE INDEX alert_deliveries_created ON alert_deliveries (created_at);
