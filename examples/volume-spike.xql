// Hourly volume more than twice its 20-bar average, while the price closes up.
market = "CRYPTO"
timeframe = h1
columns = [close, volume, avgv]
sort = volume desc
limit = 20
let avgv = avg(volume, 20)
volume > avgv * 2 and close > open
