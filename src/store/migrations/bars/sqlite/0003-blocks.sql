-- packed bars: time-aligned blocks of float64 columns for cold reads
CREATE TABLE bar_blocks (
  market    TEXT    NOT NULL,
  timeframe TEXT    NOT NULL,
  symbol    TEXT    NOT NULL,
  block     INTEGER NOT NULL,
  n         INTEGER NOT NULL,
  time      BLOB    NOT NULL,
  open      BLOB    NOT NULL,
  high      BLOB    NOT NULL,
  low       BLOB    NOT NULL,
  close     BLOB    NOT NULL,
  volume    BLOB    NOT NULL,
  PRIMARY KEY (market, timeframe, symbol, block)
) WITHOUT ROWID;
-- 0 until the blocks of bars written before this migration are built (on the next open).
INSERT INTO meta (key, value) VALUES ('blocks_built', 0);
