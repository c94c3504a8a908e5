-- series owners: the account whose push created each series, for the series caps per tier
CREATE TABLE series_owners (
  market     TEXT   NOT NULL,
  timeframe  TEXT   NOT NULL,
  symbol     TEXT   NOT NULL,
  -- The account in the key store (which may be another database: no foreign key).
  account_id TEXT   NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (market, timeframe, symbol)
);
CREATE INDEX series_owners_account ON series_owners (account_id);
