// Daily 50-bar average crossing above the 200-bar average, or already above it with RSI cooling.
market = "CRYPTO"
timeframe = d
columns = [close, sma(50), sma(200), rsi(14)]
sort = rsi(14) asc
limit = 20
crossover(sma(50), sma(200)) or (sma(50) > sma(200) and rsi(14) < 45)
