// Hourly volume half again above its 20-bar average, while the price closes up. (Twice the
// average is the textbook spike; on the demo data it often finds nobody in the bar in progress.)
market = "CRYPTO"
timeframe = h1
columns = [close, volume, avgv]
sort = volume desc
limit = 20
let avgv = avg(volume, 20)
volume > avgv * 1.5 and close > open
