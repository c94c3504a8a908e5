// The service spec's shape: an hourly dip inside a daily uptrend, with the 4-hour RSI beside it.
// RSI under 45 rather than 30: a dip in an uptrend rarely reaches oversold, and the demo data
// then shows a few pairs at any hour.
market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14), h4::rsi(14)]
sort = rsi(14) asc
limit = 20
let avgv = avg(volume, 20)
rsi(14) < 45 and volume > avgv * 0.5 and close > d::sma(200)
