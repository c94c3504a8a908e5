/**
 * The list of built-in modules the registry is built from, in documentation order.
 * `npm run gen` keeps it in step with the module files here (docs/architecture.md, "Adding a
 * built-in"): a new module is added at the end; move its line to regroup it by hand.
 */
import type { FunctionModule } from "../module.js";
import { sma } from "./sma.js";
import { avg } from "./avg.js";
import { ema } from "./ema.js";
import { wma } from "./wma.js";
import { rsi } from "./rsi.js";
import { highest } from "./highest.js";
import { lowest } from "./lowest.js";
import { crossover } from "./crossover.js";
import { crossunder } from "./crossunder.js";
import { atr } from "./atr.js";
import { stdev } from "./stdev.js";
import { bb_upper } from "./bb_upper.js";
import { bb_lower } from "./bb_lower.js";
import { macd } from "./macd.js";
import { macd_signal } from "./macd_signal.js";
import { macd_hist } from "./macd_hist.js";
import { roc } from "./roc.js";
import { change } from "./change.js";
import { abs } from "./abs.js";
import { min } from "./min.js";
import { max } from "./max.js";
import { stoch_k } from "./stoch_k.js";
import { stoch_d } from "./stoch_d.js";
import { stochrsi_k } from "./stochrsi_k.js";
import { stochrsi_d } from "./stochrsi_d.js";
import { willr } from "./willr.js";
import { cci } from "./cci.js";
import { mfi } from "./mfi.js";
import { cmo } from "./cmo.js";
import { trix } from "./trix.js";
import { ppo } from "./ppo.js";
import { ultosc } from "./ultosc.js";
import { bop } from "./bop.js";
import { adx } from "./adx.js";
import { dx } from "./dx.js";
import { plus_di } from "./plus_di.js";
import { minus_di } from "./minus_di.js";
import { aroon_up } from "./aroon_up.js";
import { aroon_down } from "./aroon_down.js";
import { aroon_osc } from "./aroon_osc.js";
import { rising } from "./rising.js";
import { falling } from "./falling.js";
import { count } from "./count.js";
import { bars_since } from "./bars_since.js";
import { cross } from "./cross.js";
import { log } from "./log.js";
import { sqrt } from "./sqrt.js";
import { sign } from "./sign.js";
import { dema } from "./dema.js";
import { tema } from "./tema.js";
import { trima } from "./trima.js";
import { kama } from "./kama.js";
import { hma } from "./hma.js";
import { vwma } from "./vwma.js";
import { linreg } from "./linreg.js";
import { linreg_slope } from "./linreg_slope.js";
import { sar } from "./sar.js";
import { supertrend } from "./supertrend.js";
import { tenkan } from "./tenkan.js";
import { kijun } from "./kijun.js";
import { senkou_a } from "./senkou_a.js";
import { senkou_b } from "./senkou_b.js";
import { natr } from "./natr.js";
import { tr } from "./tr.js";
import { kc_upper } from "./kc_upper.js";
import { kc_lower } from "./kc_lower.js";
import { bb_width } from "./bb_width.js";
import { bb_percent } from "./bb_percent.js";
import { obv } from "./obv.js";
import { ad } from "./ad.js";
import { adosc } from "./adosc.js";
import { cmf } from "./cmf.js";
import { vwap } from "./vwap.js";
import { sum } from "./sum.js";
import { zscore } from "./zscore.js";
import { correl } from "./correl.js";
import { percent_rank } from "./percent_rank.js";
import { doji } from "./doji.js";
import { hammer } from "./hammer.js";
import { hanging_man } from "./hanging_man.js";
import { inverted_hammer } from "./inverted_hammer.js";
import { shooting_star } from "./shooting_star.js";
import { bullish_engulfing } from "./bullish_engulfing.js";
import { bearish_engulfing } from "./bearish_engulfing.js";
import { bullish_harami } from "./bullish_harami.js";
import { bearish_harami } from "./bearish_harami.js";
import { piercing } from "./piercing.js";
import { dark_cloud_cover } from "./dark_cloud_cover.js";
import { morning_star } from "./morning_star.js";
import { evening_star } from "./evening_star.js";
import { three_white_soldiers } from "./three_white_soldiers.js";
import { three_black_crows } from "./three_black_crows.js";
import { marubozu } from "./marubozu.js";

export const MODULES: readonly FunctionModule[] = [
  sma,
  avg,
  ema,
  wma,
  rsi,
  highest,
  lowest,
  crossover,
  crossunder,
  atr,
  stdev,
  bb_upper,
  bb_lower,
  macd,
  macd_signal,
  macd_hist,
  roc,
  change,
  abs,
  min,
  max,
  // Oscillators
  stoch_k,
  stoch_d,
  stochrsi_k,
  stochrsi_d,
  willr,
  cci,
  mfi,
  cmo,
  trix,
  ppo,
  ultosc,
  bop,
  // Trend strength: Wilder's directional movement and Chande's Aroon
  adx,
  dx,
  plus_di,
  minus_di,
  aroon_up,
  aroon_down,
  aroon_osc,
  // Averages, trend, channels, volume and statistics
  dema,
  tema,
  trima,
  kama,
  hma,
  vwma,
  linreg,
  linreg_slope,
  sar,
  supertrend,
  tenkan,
  kijun,
  senkou_a,
  senkou_b,
  natr,
  tr,
  kc_upper,
  kc_lower,
  bb_width,
  bb_percent,
  obv,
  ad,
  adosc,
  cmf,
  vwap,
  sum,
  zscore,
  correl,
  percent_rank,
  // Events
  rising,
  falling,
  count,
  bars_since,
  cross,
  // Math
  log,
  sqrt,
  sign,
  // Candlestick patterns
  doji,
  hammer,
  hanging_man,
  inverted_hammer,
  shooting_star,
  bullish_engulfing,
  bearish_engulfing,
  bullish_harami,
  bearish_harami,
  piercing,
  dark_cloud_cover,
  morning_star,
  evening_star,
  three_white_soldiers,
  three_black_crows,
  marubozu,
];
