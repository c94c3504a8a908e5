-- bars, series catalog, meta: the row table of bars and what each series holds
-- One row per bar, clustered by (market, timeframe, symbol, time): "the latest N bars
-- of a symbol" is one backwards range scan of the primary key.
CREATE TABLE bars (
  market    TEXT    NOT NULL,
  timeframe TEXT    NOT NULL,
  symbol    TEXT    NOT NULL,
  time      INTEGER NOT NULL,
  open      REAL    NOT NULL,
  high      REAL    NOT NULL,
  low       REAL    NOT NULL,
  close     REAL    NOT NULL,
  volume    REAL    NOT NULL,
  PRIMARY KEY (market, timeframe, symbol, time)
) WITHOUT ROWID;

-- What each (market, timeframe, symbol) holds, kept in step with bars by every write,
-- so listing a market's symbols and their latest bar never scans bars.
CREATE TABLE series (
  market     TEXT    NOT NULL,
  timeframe  TEXT    NOT NULL,
  symbol     TEXT    NOT NULL,
  bars       INTEGER NOT NULL,
  first_time INTEGER NOT NULL,
  last_time  INTEGER NOT NULL,
  PRIMARY KEY (market, timeframe, symbol)
) WITHOUT ROWID;

-- Counters that change on writes; data_version keys the service's fetch cache.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('data_version', 0);
