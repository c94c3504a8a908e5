// Oversold crypto pairs on the hourly chart, most oversold first.
market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14)]
sort = rsi(14) asc
limit = 20
rsi(14) < 30
