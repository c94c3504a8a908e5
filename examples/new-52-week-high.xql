// Forex pairs closing at or above the highest high of the last 52 completed weeks.
market = "FOREX"
timeframe = d
columns = [close, w::highest(high, 52)]
sort = close desc
close >= w::highest(high, 52)
