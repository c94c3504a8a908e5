/**
 * The symbols of the synthetic markets and what makes each look like itself: price level,
 * tick, volatility and volume. Levels are rounded real-world levels of early 2026, so a
 * query such as `close > 100` means on USDJPY or SOLUSDT what a trader expects.
 */
import { hashString, mix32 } from "./rng.js";

/** How one synthetic instrument behaves. */
export interface SymbolSpec {
  readonly symbol: string;
  /** Price level at the anchor week; the weekly walk starts there and drifts back towards it, slowly. */
  readonly price: number;
  /** Prices are rounded to this many decimals (the tick). */
  readonly decimals: number;
  /** Typical standard deviation of one week's log return. */
  readonly weeklyVol: number;
  /** Typical volume of one minute: tick volume for FOREX, whole base-asset units for CRYPTO. */
  readonly volumePerMinute: number;
}

// ---------------------------------------------------------------------------------------------
// FOREX

/** US dollars per unit of each currency. Pair prices are ratios of these, so crosses agree. */
const USD_VALUE: Readonly<Record<string, number>> = {
  USD: 1,
  EUR: 1.17,
  GBP: 1.34,
  JPY: 1 / 156.5,
  CHF: 1 / 0.795,
  AUD: 0.665,
  CAD: 1 / 1.375,
  NZD: 0.578,
  SEK: 1 / 9.25,
  NOK: 1 / 10.1,
  DKK: 1 / 6.38,
  SGD: 1 / 1.285,
  HKD: 1 / 7.78,
  MXN: 1 / 18.1,
  ZAR: 1 / 16.9,
  TRY: 1 / 42.8,
  PLN: 1 / 3.61,
  CNH: 1 / 7.02,
  HUF: 1 / 330,
  CZK: 1 / 20.8,
};

/** The 7 majors, then the 21 crosses of the 8 major currencies, then liquid exotics. */
const FOREX_PAIRS: readonly (readonly [pair: string, kind: "major" | "cross" | "exotic"])[] = [
  ...["EURUSD", "GBPUSD", "USDJPY", "USDCHF", "AUDUSD", "USDCAD", "NZDUSD"].map((p) => [p, "major"] as const),
  ...[
    "EURGBP", "EURJPY", "GBPJPY", "EURCHF", "EURAUD", "EURCAD", "EURNZD", "GBPCHF", "GBPAUD", "GBPCAD",
    "GBPNZD", "AUDJPY", "AUDCHF", "AUDCAD", "AUDNZD", "NZDJPY", "NZDCHF", "NZDCAD", "CADJPY", "CADCHF",
    "CHFJPY",
  ].map((p) => [p, "cross"] as const),
  ...[
    "USDSEK", "USDNOK", "USDDKK", "USDSGD", "USDHKD", "USDMXN", "USDZAR", "USDTRY", "USDPLN", "USDCNH",
    "USDHUF", "USDCZK", "EURSEK", "EURNOK", "EURPLN", "EURTRY", "EURHUF", "GBPSEK",
  ].map((p) => [p, "exotic"] as const),
];

const FOREX_VOL = { major: 0.011, cross: 0.012, exotic: 0.016 } as const;
const FOREX_TICKS_PER_MINUTE = { major: 120, cross: 60, exotic: 25 } as const;

function forexSpec(pair: string, kind: "major" | "cross" | "exotic"): SymbolSpec {
  const base = USD_VALUE[pair.slice(0, 3)];
  const quote = USD_VALUE[pair.slice(3, 6)];
  if (base === undefined || quote === undefined) throw new Error(`internal: the USD values list no currency of ${pair}`);
  const price = base / quote;
  // Pip conventions: JPY and HUF quotes to 3 decimals, everything else to 5 (fractional pips).
  const quoteCcy = pair.slice(3, 6);
  const decimals = quoteCcy === "JPY" || quoteCcy === "HUF" ? 3 : 5;
  // USDTRY is managed and drifts; it is also the most volatile of the list.
  const weeklyVol = quoteCcy === "TRY" ? 0.022 : FOREX_VOL[kind];
  return { symbol: pair, price, decimals, weeklyVol, volumePerMinute: FOREX_TICKS_PER_MINUTE[kind] };
}

/** FOREX instruments, in the order `syntheticUniverse` returns them. */
export const FOREX_SPECS: readonly SymbolSpec[] = FOREX_PAIRS.map(([pair, kind]) => forexSpec(pair, kind));

/** FOREX symbol names: the 7 majors and 21 crosses first, then exotics. */
export const FOREX_SYMBOLS: readonly string[] = FOREX_SPECS.map((s) => s.symbol);

// ---------------------------------------------------------------------------------------------
// CRYPTO

/** Real base assets, roughly by market value, with their USD price. */
const CRYPTO_ASSETS = `
BTC 94000 ETH 3300 BNB 880 SOL 190 XRP 2.2 DOGE 0.16 ADA 0.6 TRX 0.29 AVAX 20 LINK 14
TON 2.1 SHIB 0.000009 DOT 3 BCH 520 LTC 90 NEAR 2.4 UNI 7 APT 5 ICP 5 ETC 15
XLM 0.3 SUI 2.5 HBAR 0.2 FIL 2.2 ATOM 4.2 ARB 0.33 OP 0.5 VET 0.022 INJ 10 TAO 300
AAVE 250 RENDER 2.3 FET 0.35 GRT 0.07 ALGO 0.15 SEI 0.2 TIA 1.2 RUNE 1 STX 0.45 IMX 0.35
PEPE 0.000006 FLOKI 0.00006 BONK 0.000012 WIF 0.45 WLD 0.65 JUP 0.35 PYTH 0.08 ONDO 0.55 ENA 0.32 PENDLE 2.6
LDO 0.8 CRV 0.5 SNX 0.8 COMP 35 YFI 4600 SUSHI 0.5 1INCH 0.2 BAL 1 ZRX 0.2 ENS 12
DYDX 0.3 GMX 10 SAND 0.2 MANA 0.25 AXS 1.5 GALA 0.008 APE 0.32 ENJ 0.045 CHZ 0.04 FLOW 0.4
THETA 0.5 XTZ 0.6 EOS 0.5 EGLD 10 KAVA 0.3 ZEC 420 DASH 50 NEO 5 IOTA 0.12 QNT 90
MINA 0.1 AR 4.5 KSM 10 ZIL 0.008 ONE 0.005 ROSE 0.015 CELO 0.15 ANKR 0.01 CFX 0.08 ICX 0.07
IOST 0.002 HOT 0.0007 SC 0.002 RVN 0.008 DGB 0.006 ZEN 10 QTUM 1.6 ONT 0.07 BAND 0.4 MASK 0.6
SSV 4.2 CAKE 2.2 TWT 0.8 SFP 0.3 C98 0.03 ALICE 0.25 DENT 0.0003 WIN 0.00004 BTT 0.0000006 JASMY 0.01
LUNC 0.00005 LUNA 0.11 USTC 0.008 XVG 0.006 CKB 0.003 GLM 0.2 MOVR 5 GLMR 0.03 ILV 10 YGG 0.1
SUPER 0.4 LPT 4 AUDIO 0.05 TLM 0.004 SLP 0.001 CHR 0.08 PHA 0.1 RAY 1.5 ORCA 1.5 JST 0.04
SUN 0.02 NEXO 1.1 STRK 0.12 JTO 0.5 ORDI 5 ARKM 0.3 CYBER 1 ID 0.1 EDU 0.15 LQTY 0.6
MAGIC 0.12 HOOK 0.1 HIGH 0.3 ACH 0.015 RDNT 0.02 JOE 0.15 SXP 0.15 STORJ 0.2 SKL 0.02 CELR 0.005
CTSI 0.05 OGN 0.05 NKN 0.02 RLC 0.8 API3 0.7 UMA 1 BICO 0.1 COTI 0.04 POLYX 0.1 ACE 0.3
XAI 0.03 MANTA 0.15 ALT 0.02 DYM 0.15 PIXEL 0.015 PORTAL 0.03 AEVO 0.06 ETHFI 0.8 W 0.06 SAGA 0.1
OMNI 2 REZ 0.01 BB 0.08 IO 0.4 ZK 0.05 ZRO 1.6 LISTA 0.2 BANANA 10 DOGS 0.00005 CATI 0.08
HMSTR 0.0003 EIGEN 0.5 SCR 0.1 COW 0.25 CETUS 0.04 PNUT 0.1 ACT 0.03 NEIRO 0.0002 ME 0.4 MOVE 0.06
PENGU 0.012 USUAL 0.03 TRUMP 6 LAYER 0.2 BERA 1.5 KAITO 1 IP 4 PAXG 4100 WBTC 94000 POL 0.15
S 0.12 VIRTUAL 1 TURBO 0.002 BOME 0.001 NOT 0.002 PEOPLE 0.015 MEME 0.002 SYRUP 0.4 FORM 0.5 BIO 0.05
`;

/** Bases that also trade against USDC (the most liquid ones). */
const USDC_BASES = `BTC ETH BNB SOL XRP DOGE ADA TRX AVAX LINK TON SHIB DOT BCH LTC NEAR UNI APT ICP ETC
XLM SUI HBAR FIL ATOM ARB OP INJ AAVE PEPE`;

/** Bases that also trade against BTC. */
const BTC_BASES = `ETH BNB SOL XRP DOGE ADA TRX AVAX LINK DOT BCH LTC NEAR UNI ATOM XLM ETC FIL AAVE APT
ARB OP SUI INJ`;

function parseAssets(table: string): [string, number][] {
  const words = table.trim().split(/\s+/);
  const assets: [string, number][] = [];
  for (let i = 0; i < words.length; i += 2) assets.push([words[i]!, Number(words[i + 1])]);
  return assets;
}

/**
 * Ticks like an exchange's: about 5 significant digits (SOL 190.12, XRP 2.2345), 6 from
 * 1000 up (ETH 3300.12, BTC 94000.1). Coarse enough that prices touch the same level twice.
 */
function cryptoDecimals(price: number): number {
  const magnitude = Math.floor(Math.log10(price));
  return Math.max(0, (magnitude >= 3 ? 5 : 4) - magnitude);
}

/** Larger assets move less: BTC ~5% a week, large caps ~8%, the long tail ~12%. */
function cryptoWeeklyVol(rank: number, base: string): number {
  if (base === "PAXG") return 0.02; // gold token
  if (base === "BTC" || base === "WBTC") return 0.05;
  if (base === "ETH") return 0.065;
  return rank < 20 ? 0.085 : rank < 80 ? 0.105 : 0.125;
}

/** US dollars traded a minute, falling off with rank (Zipf), floored for the long tail. */
function cryptoNotionalPerMinute(rank: number, quote: string): number {
  const share = quote === "USDT" ? 1 : quote === "USDC" ? 0.25 : 0.05;
  return Math.max(3_000, (1_000_000 * share) / (rank + 1));
}

function buildCryptoSpecs(): SymbolSpec[] {
  const assets = parseAssets(CRYPTO_ASSETS);
  const usd = new Map(assets);
  const rank = new Map(assets.map(([base], i) => [base, i]));
  const btc = usd.get("BTC")!;
  const spec = (base: string, quote: "USDT" | "USDC" | "BTC"): SymbolSpec => {
    const usdPrice = usd.get(base);
    if (usdPrice === undefined) throw new Error(`internal: CRYPTO_ASSETS lists no USD price for ${base}`);
    const r = rank.get(base)!;
    const price = quote === "BTC" ? usdPrice / btc : usdPrice;
    // Volume in whole base units, at least 5 a minute so minute bars are not mostly empty.
    const volumePerMinute = Math.max(5, Math.round(cryptoNotionalPerMinute(r, quote) / usdPrice));
    return {
      symbol: base + quote,
      price,
      decimals: cryptoDecimals(price),
      weeklyVol: quote === "BTC" ? cryptoWeeklyVol(r, base) * 0.8 : cryptoWeeklyVol(r, base),
      volumePerMinute,
    };
  };
  return [
    ...assets.map(([base]) => spec(base, "USDT")),
    ...USDC_BASES.trim().split(/\s+/).map((base) => spec(base, "USDC")),
    ...BTC_BASES.trim().split(/\s+/).map((base) => spec(base, "BTC")),
  ];
}

/** CRYPTO instruments, in the order `syntheticUniverse` returns them. */
export const CRYPTO_SPECS: readonly SymbolSpec[] = buildCryptoSpecs();

/** CRYPTO symbol names: USDT pairs by market value, then USDC pairs, then BTC pairs. */
export const CRYPTO_SYMBOLS: readonly string[] = CRYPTO_SPECS.map((s) => s.symbol);

// ---------------------------------------------------------------------------------------------
// Beyond the lists

/**
 * The first `count` specs of a market's list, extended past its end with made-up but
 * unique names (`SYN1USD`, `SYN2USDT`, ...), each with a price level drawn from its name.
 */
export function extendSpecs(list: readonly SymbolSpec[], count: number, kind: "FOREX" | "CRYPTO"): SymbolSpec[] {
  const specs = list.slice(0, count);
  const taken = new Set(list.map((s) => s.symbol));
  for (let n = 1; specs.length < count; n++) {
    const symbol = kind === "FOREX" ? `SYN${n}USD` : `SYN${n}USDT`;
    if (taken.has(symbol)) continue;
    const u = mix32(hashString(symbol)) / 4294967296;
    if (kind === "FOREX") {
      specs.push({ symbol, price: 10 ** (u * 0.8 - 0.4), decimals: 5, weeklyVol: 0.016, volumePerMinute: 30 });
    } else {
      // Long-tail coins, between 0.0001 and 100 dollars.
      const price = Number((10 ** (u * 6 - 4)).toPrecision(3));
      const volumePerMinute = Math.max(5, Math.round(3_000 / price));
      specs.push({ symbol, price, decimals: cryptoDecimals(price), weeklyVol: 0.125, volumePerMinute });
    }
  }
  return specs;
}
