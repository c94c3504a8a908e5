-- bars, series catalog, meta: the row table of bars and what each series holds
CREATE TABLE bars (
  market    text             NOT NULL,
  timeframe text             NOT NULL,
  symbol    text             NOT NULL,
  time      bigint           NOT NULL,
  open      double precision NOT NULL,
  high      double precision NOT NULL,
  low       double precision NOT NULL,
  close     double precision NOT NULL,
  volume    double precision NOT NULL,
  PRIMARY KEY (market, timeframe, symbol, time)
);

-- What each (market, timeframe, symbol) holds, kept in step with bars by every write.
CREATE TABLE series (
  market     text   NOT NULL,
  timeframe  text   NOT NULL,
  symbol     text   NOT NULL,
  bars       bigint NOT NULL,
  first_time bigint NOT NULL,
  last_time  bigint NOT NULL,
  PRIMARY KEY (market, timeframe, symbol)
);

-- data_version changes in the same transaction as every write of bars.
CREATE TABLE meta (
  key   text   PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO meta (key, value) VALUES ('data_version', 0);
