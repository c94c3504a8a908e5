-- blocks and tails: bars live in packed blocks and the catalog's tail (the row table goes); FOREX derived on its session; the change log
CREATE TABLE series_v4 (
  market       text    NOT NULL,
  timeframe    text    NOT NULL,
  symbol       text    NOT NULL,
  derived      integer NOT NULL,
  bars         bigint  NOT NULL,
  first_time   bigint  NOT NULL,
  last_time    bigint  NOT NULL,
  -- The newest block row's number (an upper bound), NULL when every bar is in the tail.
  sealed_block bigint,
  -- The newest bars (at least the latest), later than every block bar: appends rewrite this row only.
  tail         bytea   NOT NULL,
  PRIMARY KEY (market, timeframe, symbol)
) WITH (fillfactor = 50);
-- What each write touched, for readers in other replicas (the newest writes only).
CREATE TABLE changes (
  version bigint PRIMARY KEY,
  touched text   NOT NULL
);
-- A block's bars as one value, column after column: one TOAST value to fetch per block, not six.
CREATE TABLE bar_blocks_v4 (
  market    text    NOT NULL,
  timeframe text    NOT NULL,
  symbol    text    NOT NULL,
  block     bigint  NOT NULL,
  n         integer NOT NULL,
  bars      bytea   NOT NULL,
  PRIMARY KEY (market, timeframe, symbol, block)
);
ALTER TABLE bar_blocks_v4 ALTER COLUMN bars SET STORAGE EXTERNAL;
