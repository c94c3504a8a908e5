-- series feeds: the source, price side and last sync of each synced series
CREATE TABLE series_feeds (
  market    text   NOT NULL,
  timeframe text   NOT NULL,
  symbol    text   NOT NULL,
  source    text   NOT NULL,
  price     text   NOT NULL,
  synced_at bigint NOT NULL,
  PRIMARY KEY (market, timeframe, symbol)
);
