-- blocks and tails: bars live in packed blocks and the catalog's tail (the row table goes); FOREX derived on its session; the change log
CREATE TABLE series_v4 (
  id           INTEGER PRIMARY KEY,
  market       TEXT    NOT NULL,
  timeframe    TEXT    NOT NULL,
  symbol       TEXT    NOT NULL,
  derived      INTEGER NOT NULL,
  bars         INTEGER NOT NULL,
  first_time   INTEGER NOT NULL,
  last_time    INTEGER NOT NULL,
  -- The newest block row's number (an upper bound), NULL when every bar is in the tail.
  sealed_block INTEGER,
  -- The newest bars (at least the latest), later than every block bar: appends rewrite this row only.
  tail         BLOB    NOT NULL
);
-- What each write touched, for readers in other processes (the newest writes only).
CREATE TABLE changes (
  version INTEGER PRIMARY KEY,
  touched TEXT    NOT NULL
);
-- Blocks in a rowid table: a block row (about 12 KB) then lies on one page of a new store's
-- 16 KiB pages, where the index-ordered table's much smaller local payload sent every block
-- through a chain of overflow pages (four times the work to read or write it).
-- Its bars one value, column after column (a reader copies from it what it needs).
CREATE TABLE bar_blocks_v4 (
  id        INTEGER PRIMARY KEY,
  market    TEXT    NOT NULL,
  timeframe TEXT    NOT NULL,
  symbol    TEXT    NOT NULL,
  block     INTEGER NOT NULL,
  n         INTEGER NOT NULL,
  bars      BLOB    NOT NULL
);
