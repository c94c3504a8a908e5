// Forex pairs closing at, or within 3% of, the highest high of the last 52 completed weeks:
// pairs at or near a new 52-week high (a strict new high is rare: on the demo data, usually none).
market = "FOREX"
timeframe = d
columns = [close, w::highest(high, 52)]
sort = close desc
close >= w::highest(high, 52) * 0.97
