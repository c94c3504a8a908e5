-- derived timeframes: series.derived marks bars built from the finest imported timeframe
ALTER TABLE series ADD COLUMN derived INTEGER NOT NULL DEFAULT 0;
