#!/usr/bin/env python3
"""Writes the TA-Lib reference fixtures (test/reference/fixtures/*.json).

Calls TA-Lib's C library (a shared library built by build.sh from talib@2.0.5's C source)
through ctypes on deterministic bar series and records, for every XQL function with a TA-Lib
reference (docs/functions-reference.md), the XQL call text, its parameters, the TA-Lib call
it is checked against and TA-Lib's output at every bar (null before TA-Lib's first output).

Usage: python3 generate.py --lib /path/to/libta.so --out test/reference/fixtures
Standard library only (no PyPI).
"""
import argparse
import ctypes
import json
import math
import os
import random

SMA, EMA = 0, 1  # TA_MAType
INJECTED = []  # (pattern, bar) of every template injected into the candles series

# ---------------------------------------------------------------- bar series


class Bars:
    def __init__(self):
        self.open, self.high, self.low, self.close, self.volume = [], [], [], [], []

    def add(self, o, h, l, c, v):
        h = max(h, o, c)
        l = min(l, o, c)
        self.open.append(o)
        self.high.append(h)
        self.low.append(l)
        self.close.append(c)
        self.volume.append(v)

    def __len__(self):
        return len(self.close)


def walk(rng, n, p0, sigma, wick, bars=None, vol_scale=1e5):
    b = bars if bars is not None else Bars()
    p = p0
    for _ in range(n):
        o = p * (1 + rng.gauss(0, sigma / 8))
        c = o * math.exp(rng.gauss(0, sigma))
        h = max(o, c) * (1 + abs(rng.gauss(0, wick)))
        l = min(o, c) * (1 - abs(rng.gauss(0, wick)))
        b.add(o, h, l, c, float(round(vol_scale * math.exp(rng.gauss(0, 0.6)))))
        p = c
    return b


def walk_large(rng):
    """A random walk around 5e4 (crypto-like prices), 1% moves."""
    return walk(rng, 400, 5e4, 0.01, 0.004)


def walk_tiny(rng):
    """A random walk around 1e-4 (tiny prices), alternating 1% and 0.05% moves."""
    b = Bars()
    walk(rng, 130, 1e-4, 0.01, 0.004, b, vol_scale=1e6)
    walk(rng, 140, b.close[-1], 0.0005, 0.0002, b, vol_scale=1e6)
    walk(rng, 130, b.close[-1], 0.01, 0.004, b, vol_scale=1e6)
    return b


def flat_gaps(rng):
    """Around 100: flat stretches (open = high = low = close), price gaps, zero volume,
    bars with high = low, and a stretch where close does not move but the range does."""
    b = Bars()
    walk(rng, 110, 100.0, 0.01, 0.004, b)
    p = b.close[-1]
    for k in range(30):  # flat: every price equal; volume zero on the first 15
        b.add(p, p, p, p, 0.0 if k < 15 else 5e4)
    walk(rng, 50, p, 0.01, 0.004, b)
    # gap up 9%, walk, gap down 12%, walk
    walk(rng, 40, b.close[-1] * 1.09, 0.01, 0.004, b)
    walk(rng, 40, b.close[-1] * 0.88, 0.01, 0.004, b)
    # zero volume bars scattered over a walk
    start = len(b)
    walk(rng, 40, b.close[-1], 0.01, 0.004, b)
    for k in range(start, len(b)):
        if k % 3 == 0:
            b.volume[k] = 0.0
    # close unchanged, range moving
    c = b.close[-1]
    for _ in range(25):
        w = c * abs(rng.gauss(0, 0.006))
        b.add(c, c + w, c - w * 0.7, c, 3e4)
    # integer-valued prices (exact ties between bars)
    p = round(b.close[-1])
    for _ in range(50):
        o = p + rng.choice([-1, 0, 0, 1])
        c = o + rng.choice([-2, -1, 0, 1, 2])
        b.add(float(o), float(max(o, c) + rng.choice([0, 1])), float(min(o, c) - rng.choice([0, 1])), float(c),
              float(rng.choice([0, 1000, 2000])))
        p = c
    walk(rng, 420 - len(b), b.close[-1], 0.01, 0.004, b)
    return b


def stretches(rng):
    """Around 3.3, a price whose flat windows round ((3.3 + 3.3 + 3.3)/3 and 20 x 3.3/20 are not
    3.3): a flat start, a walk, 80 flat bars (TA-Lib's RSI(2) averages fall below its 1e-14
    epsilon), a walk with volume spikes of 1e12 and 3e11 among fractional volumes near 1e3 (a
    running sum keeps the rounding of a spike after it leaves the window), closes repeated for
    two and three bars."""
    b = Bars()
    for _ in range(30):  # a flat start
        b.add(3.3, 3.3, 3.3, 3.3, 1000.0)
    walk(rng, 100, 3.3, 0.003, 0.001, b, vol_scale=1e3)
    p = b.close[-1]
    b.add(p, max(p, 3.3), min(p, 3.3), 3.3, 1000.0)  # back to 3.3, then flat
    for _ in range(80):
        b.add(3.3, 3.3, 3.3, 3.3, 1000.0)
    start = len(b)
    walk(rng, 90, 3.3, 0.003, 0.001, b, vol_scale=1e3)
    for k in range(start, len(b)):  # fractional volumes (crypto's are), so sums with a spike round
        b.volume[k] += round(rng.random(), 4)
    b.volume[start + 10] = 1e12 + 0.5
    b.volume[start + 50] = 3e11 + 0.25
    # closes repeated for two and three bars, the range still moving
    for _ in range(10):
        c = b.close[-1] * (1 + rng.gauss(0, 0.003))
        for _ in range(rng.choice([2, 3])):
            w = c * abs(rng.gauss(0, 0.002))
            b.add(c, c + w, c - w * 0.8, c, float(round(1e3 * math.exp(rng.gauss(0, 0.6)))))
    walk(rng, 340 - len(b), b.close[-1], 0.003, 0.001, b, vol_scale=1e3)
    return b


def walk_micro(rng):
    """A random walk around 2e-12 (a token priced in another, tiny as it is), 1% moves: bar
    ranges fall below TA-Lib's 1e-14 epsilon, where its BOP and RSI write 0."""
    return walk(rng, 200, 2e-12, 0.01, 0.002, vol_scale=1e9)


def candles(rng):
    """Bars made to contain every candlestick pattern many times: ordinary candles with
    pattern templates injected every few bars (sized from the recent average range)."""
    b = Bars()
    walk(rng, 15, 100.0, 0.01, 0.004, b)

    def unit():
        k = min(10, len(b))
        return sum(b.high[-j] - b.low[-j] for j in range(1, k + 1)) / k

    def vol():
        return float(round(1e5 * math.exp(rng.gauss(0, 0.5))))

    def ordinary(m):
        walk(rng, m, b.close[-1], 0.008, 0.003, b)

    def trend(m, d):
        for _ in range(m):
            u = unit()
            o = b.close[-1]
            c = o + d * u * (0.5 + 0.3 * rng.random())
            b.add(o, max(o, c) + 0.15 * u * rng.random(), min(o, c) - 0.15 * u * rng.random(), c, vol())

    def doji():
        u, p = unit(), b.close[-1]
        e = 0.01 * u * rng.random()
        b.add(p, p + 0.4 * u, p - 0.4 * u, p + rng.choice([-e, e, 0.0]), vol())

    def hammer(top):
        trend(3, 1 if top else -1)
        u = unit()
        if top:
            o = b.high[-1] - 0.05 * u
        else:
            o = b.low[-1] + 0.05 * u
        c = o + rng.choice([1, -1]) * 0.12 * u
        b.add(o, max(o, c) + 0.01 * u, min(o, c) - 0.9 * u, c, vol())

    def inverted(top):
        trend(3, 1 if top else -1)
        u = unit()
        if top:  # shooting star: body gaps up from the prior body
            o = max(b.open[-1], b.close[-1]) + 0.2 * u
        else:  # inverted hammer: body gaps down
            o = min(b.open[-1], b.close[-1]) - 0.25 * u
        c = o + rng.choice([1, -1]) * 0.1 * u
        b.add(o, max(o, c) + 0.9 * u, min(o, c) - 0.01 * u, c, vol())

    def engulfing(bull):
        trend(2, -1 if bull else 1)
        u = unit()
        o1 = b.close[-1]
        c1 = o1 + (-0.3 if bull else 0.3) * u
        b.add(o1, max(o1, c1) + 0.1 * u, min(o1, c1) - 0.1 * u, c1, vol())
        o2 = c1 + (-0.1 if bull else 0.1) * u
        c2 = o1 + (0.2 if bull else -0.2) * u
        b.add(o2, max(o2, c2) + 0.1 * u, min(o2, c2) - 0.1 * u, c2, vol())

    def harami(bull):
        trend(2, -1 if bull else 1)
        u = unit()
        o1 = b.close[-1]
        c1 = o1 + (-1.5 if bull else 1.5) * u
        b.add(o1, max(o1, c1) + 0.1 * u, min(o1, c1) - 0.1 * u, c1, vol())
        mid = (o1 + c1) / 2
        o2 = mid - (0.1 if bull else -0.1) * u
        c2 = mid + (0.1 if bull else -0.1) * u
        b.add(o2, max(o2, c2) + 0.2 * u, min(o2, c2) - 0.2 * u, c2, vol())

    def piercing(bull):
        trend(2, -1 if bull else 1)
        u = unit()
        o1 = b.close[-1]
        c1 = o1 + (-1.4 if bull else 1.4) * u
        h1, l1 = max(o1, c1) + 0.1 * u, min(o1, c1) - 0.1 * u
        b.add(o1, h1, l1, c1, vol())
        if bull:
            o2 = l1 - 0.2 * u
            c2 = c1 + 1.4 * u * (0.6 + 0.3 * rng.random())
        else:
            o2 = h1 + 0.2 * u
            c2 = c1 - 1.4 * u * (0.6 + 0.3 * rng.random())
        b.add(o2, max(o2, c2) + 0.05 * u, min(o2, c2) - 0.05 * u, c2, vol())

    def star(bull):
        trend(2, -1 if bull else 1)
        u = unit()
        o1 = b.close[-1]
        c1 = o1 + (-1.5 if bull else 1.5) * u
        b.add(o1, max(o1, c1) + 0.1 * u, min(o1, c1) - 0.1 * u, c1, vol())
        o2 = c1 + (-0.3 if bull else 0.3) * u
        c2 = o2 + rng.choice([1, -1]) * 0.08 * u
        b.add(o2, max(o2, c2) + 0.1 * u, min(o2, c2) - 0.1 * u, c2, vol())
        o3 = c2 + (0.1 if bull else -0.1) * u
        c3 = c1 + (1.5 if bull else -1.5) * u * (0.5 + 0.4 * rng.random())
        b.add(o3, max(o3, c3) + 0.1 * u, min(o3, c3) - 0.1 * u, c3, vol())

    def soldiers(bull):
        trend(2, -1 if bull else 1)
        u = unit()
        d = 1 if bull else -1
        if not bull:  # crows need a white candle before them
            o = b.close[-1]
            c = o + 0.8 * u
            b.add(o, c + 0.1 * u, o - 0.1 * u, c, vol())
        for k in range(3):
            o = b.close[-1] - d * 0.3 * u if k > 0 else b.close[-1] - d * 0.05 * u
            c = o + d * u * (1.1 + 0.2 * k)
            if bull:
                b.add(o, c + 0.005 * u, o - 0.1 * u, c, vol())
            else:
                b.add(o, o + 0.1 * u, c - 0.005 * u, c, vol())

    def marubozu():
        u, o = unit(), b.close[-1]
        c = o + rng.choice([1, -1]) * 1.5 * u
        b.add(o, max(o, c) + 0.005 * u * rng.random(), min(o, c) - 0.005 * u * rng.random(), c, vol())

    makers = [doji, lambda: hammer(False), lambda: hammer(True), lambda: inverted(False), lambda: inverted(True),
              lambda: engulfing(True), lambda: engulfing(False), lambda: harami(True), lambda: harami(False),
              lambda: piercing(True), lambda: piercing(False), lambda: star(True), lambda: star(False),
              lambda: soldiers(True), lambda: soldiers(False), marubozu]
    names = ["doji", "hammer", "hanging_man", "inverted_hammer", "shooting_star", "bullish_engulfing",
             "bearish_engulfing", "bullish_harami", "bearish_harami", "piercing", "dark_cloud_cover", "morning_star",
             "evening_star", "three_white_soldiers", "three_black_crows", "marubozu"]
    while len(b) < 900:
        k = rng.randrange(len(makers))
        makers[k]()
        INJECTED.append((names[k], len(b) - 1))
        ordinary(rng.randint(1, 4))
    while len(b) > 940:
        for col in (b.open, b.high, b.low, b.close, b.volume):
            col.pop()
    return b


# ---------------------------------------------------------------- TA-Lib calls


class TaLib:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        rc = self.lib.TA_Initialize()
        if rc != 0:
            raise RuntimeError(f"TA_Initialize returned {rc}")

    def call(self, name, inputs, opts, nout, integer=False):
        """Calls TA_<name>(0, n-1, inputs..., opts..., &beg, &nb, outs...) and returns the
        outputs aligned to the bars: lists of length n, None before TA-Lib's first output."""
        n = len(inputs[0])
        fn = getattr(self.lib, "TA_" + name)
        arr = ctypes.c_double * n
        ins = [arr(*x) for x in inputs]
        args = [ctypes.c_int(0), ctypes.c_int(n - 1)] + ins
        for kind, v in opts:
            args.append(ctypes.c_int(int(v)) if kind == "i" else ctypes.c_double(float(v)))
        beg, nb = ctypes.c_int(0), ctypes.c_int(0)
        outs = [(ctypes.c_int * n)() if integer else arr() for _ in range(nout)]
        args += [ctypes.byref(beg), ctypes.byref(nb)] + outs
        rc = fn(*args)
        if rc != 0:
            raise RuntimeError(f"TA_{name} returned {rc}")
        result = []
        for out in outs:
            col = [None] * n
            for k in range(nb.value):
                v = out[k]
                col[beg.value + k] = v if integer or math.isfinite(v) else None
            result.append(col)
        return result


def ema_from(ta, col, n):
    """TA_EMA over the defined part of col (it starts at the first non-None index)."""
    first = next(i for i, v in enumerate(col) if v is not None)
    part = ta.call("EMA", [col[first:]], [("i", n)], 1)[0]
    return [None] * first + part


# Every function with a TA-Lib reference: XQL name, (call text, params, TA-Lib call text,
# output) for each parameter set. `b` is the Bars, `ta` the library.
def cases(ta, b, patterns_only=False):
    O, H, L, C, V = b.open, b.high, b.low, b.close, b.volume
    col = {"open": O, "high": H, "low": L, "close": C, "volume": V}
    out = []

    def add(fn, call, params, talib, values, kind="number", note=None):
        case = {"function": fn, "call": call, "params": params, "talib": talib, "kind": kind, "output": values}
        if note:
            case["note"] = note
        out.append(case)

    def one(name, inputs, opts):
        return ta.call(name, inputs, opts, 1)[0]

    if patterns_only:
        pattern_cases(ta, b, add)
        return out
    # v1
    for src, n, text in [("close", 20, "sma(20)"), ("volume", 10, "sma(volume, 10)"), ("open", 3, "sma(open, 3)")]:
        add("sma", text, {"src": src, "n": n}, f"SMA({src}, {n})", one("SMA", [col[src]], [("i", n)]))
    # avg is sma under the name the spec's v1 set gives it (avg(volume, 20)): TA-Lib's SMA again.
    for src, n, text in [("volume", 20, "avg(volume, 20)"), ("close", 5, "avg(close, 5)")]:
        add("avg", text, {"src": src, "n": n}, f"SMA({src}, {n})", one("SMA", [col[src]], [("i", n)]))
    for src, n, text in [("close", 9, "ema(9)"), ("close", 50, "ema(close, 50)"), ("high", 2, "ema(high, 2)")]:
        add("ema", text, {"src": src, "n": n}, f"EMA({src}, {n})", one("EMA", [col[src]], [("i", n)]))
    for src, n, text in [("close", 10, "wma(10)"), ("low", 30, "wma(low, 30)")]:
        add("wma", text, {"src": src, "n": n}, f"WMA({src}, {n})", one("WMA", [col[src]], [("i", n)]))
    for src, n, text in [("close", 14, "rsi(14)"), ("close", 2, "rsi(close, 2)"), ("open", 30, "rsi(open, 30)")]:
        add("rsi", text, {"src": src, "n": n}, f"RSI({src}, {n})", one("RSI", [col[src]], [("i", n)]))
    for src, n, text in [("high", 20, "highest(20)"), ("close", 5, "highest(close, 5)")]:
        add("highest", text, {"src": src, "n": n}, f"MAX({src}, {n})", one("MAX", [col[src]], [("i", n)]))
    for src, n, text in [("low", 20, "lowest(20)"), ("close", 5, "lowest(close, 5)")]:
        add("lowest", text, {"src": src, "n": n}, f"MIN({src}, {n})", one("MIN", [col[src]], [("i", n)]))
    for n in (14, 1, 50):
        add("atr", f"atr({n})", {"n": n}, f"ATR({n})", one("ATR", [H, L, C], [("i", n)]))
    for src, n, text in [("close", 20, "stdev(20)"), ("close", 5, "stdev(close, 5)"), ("volume", 10, "stdev(volume, 10)")]:
        add("stdev", text, {"src": src, "n": n}, f"STDDEV({src}, {n}, nbDev=1)",
            one("STDDEV", [col[src]], [("i", n), ("d", 1.0)]))
    for src, n, k, text in [("close", 20, 2.0, "({})(20, 2)"), ("close", 10, 1.5, "({})(close, 10, 1.5)"),
                            ("close", 5, -1.0, "({})(5, -1)")]:
        up, mid, lo = ta.call("BBANDS", [col[src]], [("i", n), ("d", k), ("d", k), ("i", SMA)], 3)
        t = f"BBANDS({src}, {n}, {k}, {k}, SMA)"
        add("bb_upper", text.format("bb_upper").replace("(bb_upper)", "bb_upper"), {"src": src, "n": n, "k": k},
            t + " upper", up)
        add("bb_lower", text.format("bb_lower").replace("(bb_lower)", "bb_lower"), {"src": src, "n": n, "k": k},
            t + " lower", lo)
    macd_note = ("TA_MACD/MACDEXT seed the fast EMA with the SMA of the fast-length values ending where the slow "
                 "EMA starts, not at the first bar; XQL's macd is EMA(fast) - EMA(slow) with both EMAs as ema(), so "
                 "the reference is TA_EMA(fast) - TA_EMA(slow) and TA_EMA(signal) over that line")
    for fast, slow, sig in [(12, 26, 9), (5, 35, 5), (3, 10, 16)]:
        ef = ta.call("EMA", [C], [("i", fast)], 1)[0]
        es = ta.call("EMA", [C], [("i", slow)], 1)[0]
        line = [None if a is None or s is None else a - s for a, s in zip(ef, es)]
        sigl = ema_from(ta, line, sig)
        hist = [None if m is None or s is None else m - s for m, s in zip(line, sigl)]
        p = {"src": "close", "fast": fast, "slow": slow, "signal": sig}
        add("macd", f"macd({fast}, {slow})", {"src": "close", "fast": fast, "slow": slow},
            f"EMA(close, {fast}) - EMA(close, {slow})", line, note=macd_note)
        add("macd_signal", f"macd_signal({fast}, {slow}, {sig})", p, f"EMA(EMA({fast}) - EMA({slow}), {sig})", sigl,
            note=macd_note)
        add("macd_hist", f"macd_hist({fast}, {slow}, {sig})", p, "macd - macd_signal", hist, note=macd_note)
    # roc on prices only: where volume[n] is 0 TA-Lib's ROC writes 0 and ours is undefined.
    for src, n, text in [("close", 10, "roc(10)"), ("close", 1, "roc(close, 1)")]:
        add("roc", text, {"src": src, "n": n}, f"ROC({src}, {n})", one("ROC", [col[src]], [("i", n)]))

    # v2
    for k, s in [(14, 3), (5, 1), (21, 5)]:
        slowk = ta.call("STOCH", [H, L, C], [("i", k), ("i", s), ("i", SMA), ("i", 1), ("i", SMA)], 2)[0]
        add("stoch_k", f"stoch_k({k}, {s})", {"k": k, "smooth": s}, f"STOCH({k}, {s}, SMA, 1, SMA) slowK", slowk)
    for k, s, d in [(14, 3, 3), (5, 1, 3), (9, 2, 1)]:
        slowd = ta.call("STOCH", [H, L, C], [("i", k), ("i", s), ("i", SMA), ("i", d), ("i", SMA)], 2)[1]
        add("stoch_d", f"stoch_d({k}, {s}, {d})", {"k": k, "smooth": s, "d": d}, f"STOCH({k}, {s}, SMA, {d}, SMA) slowD",
            slowd)
    for n, k in [(14, 14), (5, 3)]:
        fk = ta.call("STOCHRSI", [C], [("i", n), ("i", k), ("i", 1), ("i", SMA)], 2)[0]
        add("stochrsi_k", f"stochrsi_k({n}, {k}, 1)", {"src": "close", "n": n, "k": k, "smooth": 1},
            f"STOCHRSI(close, {n}, {k}, 1, SMA) fastK", fk)
    for n, k, d in [(14, 14, 3), (5, 3, 2)]:
        fd = ta.call("STOCHRSI", [C], [("i", n), ("i", k), ("i", d), ("i", SMA)], 2)[1]
        add("stochrsi_d", f"stochrsi_d({n}, {k}, 1, {d})", {"src": "close", "n": n, "k": k, "smooth": 1, "d": d},
            f"STOCHRSI(close, {n}, {k}, {d}, SMA) fastD", fd)
    for n in (14, 2, 30):
        add("willr", f"willr({n})", {"n": n}, f"WILLR({n})", one("WILLR", [H, L, C], [("i", n)]))
    for n in (20, 5):
        add("cci", f"cci({n})", {"n": n}, f"CCI({n})", one("CCI", [H, L, C], [("i", n)]))
    for n in (14, 3):
        add("mfi", f"mfi({n})", {"n": n}, f"MFI({n})", one("MFI", [H, L, C, V], [("i", n)]))
    for src, n, text in [("close", 15, "trix(15)"), ("close", 3, "trix(close, 3)")]:
        add("trix", text, {"src": src, "n": n}, f"TRIX({src}, {n})", one("TRIX", [col[src]], [("i", n)]))
    for fn, ta_name in [("adx", "ADX"), ("dx", "DX"), ("plus_di", "PLUS_DI"), ("minus_di", "MINUS_DI")]:
        for n in (14, 5):
            add(fn, f"{fn}({n})", {"n": n}, f"{ta_name}({n})", one(ta_name, [H, L, C], [("i", n)]))
    for n in (25, 5):
        down, up = ta.call("AROON", [H, L], [("i", n)], 2)
        add("aroon_up", f"aroon_up({n})", {"n": n}, f"AROON({n}) up", up)
        add("aroon_down", f"aroon_down({n})", {"n": n}, f"AROON({n}) down", down)
        add("aroon_osc", f"aroon_osc({n})", {"n": n}, f"AROONOSC({n})", one("AROONOSC", [H, L], [("i", n)]))
    for src, f, s, text in [("close", 12, 26, "ppo(12, 26)"), ("close", 5, 20, "ppo(close, 5, 20)")]:
        add("ppo", text, {"src": src, "fast": f, "slow": s}, f"PPO({src}, {f}, {s}, EMA)",
            one("PPO", [col[src]], [("i", f), ("i", s), ("i", EMA)]))
    for a, bb, c in [(7, 14, 28), (3, 5, 9)]:
        add("ultosc", f"ultosc({a}, {bb}, {c})", {"a": a, "b": bb, "c": c}, f"ULTOSC({a}, {bb}, {c})",
            one("ULTOSC", [H, L, C], [("i", a), ("i", bb), ("i", c)]))
    add("bop", "bop", {}, "BOP", one("BOP", [O, H, L, C], []))
    for fn, ta_name, sets in [("dema", "DEMA", [("close", 10), ("close", 30)]), ("tema", "TEMA", [("close", 10), ("high", 4)]),
                              ("trima", "TRIMA", [("close", 10), ("close", 7)]), ("kama", "KAMA", [("close", 10), ("close", 30)]),
                              ("linreg", "LINEARREG", [("close", 14), ("close", 3)]),
                              ("linreg_slope", "LINEARREG_SLOPE", [("close", 14), ("low", 5)]),
                              ("sum", "SUM", [("close", 10), ("volume", 20)])]:
        for src, n in sets:
            text = f"{fn}({n})" if src == "close" else f"{fn}({src}, {n})"
            add(fn, text, {"src": src, "n": n}, f"{ta_name}({src}, {n})", one(ta_name, [col[src]], [("i", n)]))
    for step, mx in [(0.02, 0.2), (0.05, 0.5)]:
        add("sar", f"sar({step}, {mx})", {"step": step, "max": mx}, f"SAR({step}, {mx})",
            one("SAR", [H, L], [("d", step), ("d", mx)]))
    for n in (14, 1):
        add("natr", f"natr({n})", {"n": n}, f"NATR({n})", one("NATR", [H, L, C], [("i", n)]))
    add("tr", "tr", {}, "TRANGE", one("TRANGE", [H, L, C], []))
    add("obv", "obv", {}, "OBV(close, volume)", one("OBV", [C, V], []))
    add("ad", "ad", {}, "AD", one("AD", [H, L, C, V], []))
    for f, s in [(3, 10), (5, 20)]:
        add("adosc", f"adosc({f}, {s})", {"fast": f, "slow": s}, f"ADOSC({f}, {s})",
            one("ADOSC", [H, L, C, V], [("i", f), ("i", s)]))
    for a, c2, n in [("close", "open", 20), ("high", "volume", 10), ("close", "low", 5)]:
        add("correl", f"correl({a}, {c2}, {n})", {"a": a, "b": c2, "n": n}, f"CORREL({a}, {c2}, {n})",
            one("CORREL", [col[a], col[c2]], [("i", n)]))

    pattern_cases(ta, b, add)
    return out


def pattern_cases(ta, b, add):
    """Candlestick patterns: true where TA-Lib's CDL function is non-zero with the stated sign."""
    O, H, L, C = b.open, b.high, b.low, b.close
    for fn, ta_name, sign, opts in PATTERNS:
        raw = ta.call(ta_name, [O, H, L, C], opts, 1, integer=True)[0]
        vals = [None if v is None else int((v > 0) if sign > 0 else (v < 0) if sign < 0 else (v != 0)) for v in raw]
        add(fn, fn, {}, f"{ta_name} {'> 0' if sign > 0 else '< 0' if sign < 0 else '!= 0'}", vals, kind="boolean")


PATTERNS = [
    ("doji", "CDLDOJI", 0, []),
    ("hammer", "CDLHAMMER", 1, []),
    ("hanging_man", "CDLHANGINGMAN", -1, []),
    ("inverted_hammer", "CDLINVERTEDHAMMER", 1, []),
    ("shooting_star", "CDLSHOOTINGSTAR", -1, []),
    ("bullish_engulfing", "CDLENGULFING", 1, []),
    ("bearish_engulfing", "CDLENGULFING", -1, []),
    ("bullish_harami", "CDLHARAMI", 1, []),
    ("bearish_harami", "CDLHARAMI", -1, []),
    ("piercing", "CDLPIERCING", 1, []),
    ("dark_cloud_cover", "CDLDARKCLOUDCOVER", -1, [("d", 0.5)]),
    ("morning_star", "CDLMORNINGSTAR", 1, [("d", 0.3)]),
    ("evening_star", "CDLEVENINGSTAR", -1, [("d", 0.3)]),
    ("three_white_soldiers", "CDL3WHITESOLDIERS", 1, []),
    ("three_black_crows", "CDL3BLACKCROWS", -1, []),
    ("marubozu", "CDLMARUBOZU", 0, []),
]

# name, maker, seed, what to check: None (every function), "patterns", or a list of functions.
SERIES = [
    ("walk_large", walk_large, 1, None),
    ("walk_tiny", walk_tiny, 2, None),
    ("flat_gaps", flat_gaps, 3, None),
    ("candles", candles, 4, "patterns"),
    ("stretches", stretches, 5, None),
    ("walk_micro", walk_micro, 6, ["bop", "rsi"]),
]

START = 1767225600000  # 2026-01-01T00:00:00Z
HOUR = 3600000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    ta = TaLib(args.lib)
    os.makedirs(args.out, exist_ok=True)
    for name, make, seed, only in SERIES:
        rng = random.Random(seed)
        b = make(rng)
        n = len(b)
        doc = {
            "series": name,
            "description": (make.__doc__ or "").strip().replace("\n", " "),
            "generator": "scripts/reference/generate.py (TA-Lib C library from npm talib@2.0.5)",
            "timeframe": "h1",
            "bars": {
                "time": [START + k * HOUR for k in range(n)],
                "open": b.open, "high": b.high, "low": b.low, "close": b.close, "volume": b.volume,
            },
            "cases": [c for c in cases(ta, b, only == "patterns") if not isinstance(only, list) or c["function"] in only],
        }
        path = os.path.join(args.out, name + ".json")
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        counts = {c["function"]: 0 for c in doc["cases"] if c["kind"] == "boolean"}
        for c in doc["cases"]:
            if c["kind"] == "boolean":
                counts[c["function"]] += sum(1 for v in c["output"] if v)
        print(f"{path}: {n} bars, {len(doc['cases'])} cases, {os.path.getsize(path)} bytes; pattern bars: {counts}")


if __name__ == "__main__":
    main()
