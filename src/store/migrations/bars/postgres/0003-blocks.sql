-- packed bars: time-aligned blocks of float64 columns for cold reads
CREATE TABLE bar_blocks (
  market    text    NOT NULL,
  timeframe text    NOT NULL,
  symbol    text    NOT NULL,
  block     bigint  NOT NULL,
  n         integer NOT NULL,
  time      bytea   NOT NULL,
  open      bytea   NOT NULL,
  high      bytea   NOT NULL,
  low       bytea   NOT NULL,
  close     bytea   NOT NULL,
  volume    bytea   NOT NULL,
  PRIMARY KEY (market, timeframe, symbol, block)
);
ALTER TABLE bar_blocks ALTER COLUMN time SET STORAGE EXTERNAL, ALTER COLUMN open SET STORAGE EXTERNAL,
  ALTER COLUMN high SET STORAGE EXTERNAL, ALTER COLUMN low SET STORAGE EXTERNAL,
  ALTER COLUMN close SET STORAGE EXTERNAL, ALTER COLUMN volume SET STORAGE EXTERNAL;
INSERT INTO meta (key, value) VALUES ('blocks_built', 0);
