// Imported h1 bars only: the store derives d and w from them.
market = "FOREX"
timeframe = h1
columns = [close, d::sma(5), w::close, w::close[1]]
d::close > 0 and w::close > 0
