-- series feeds: the source, price side and last sync of each synced series
CREATE TABLE series_feeds (
  market    TEXT    NOT NULL,
  timeframe TEXT    NOT NULL,
  symbol    TEXT    NOT NULL,
  source    TEXT    NOT NULL,
  price     TEXT    NOT NULL,
  synced_at INTEGER NOT NULL,
  PRIMARY KEY (market, timeframe, symbol)
) WITHOUT ROWID;
