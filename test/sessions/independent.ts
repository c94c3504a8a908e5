/**
 * FOREX sessions written independently of src/sessions for the tests: New York wall-clock
 * times come from the platform's time-zone database (Intl), and periods from the words of
 * decisions §2 "Sessions".
 */
const H = 3_600_000;
const DAY = 24 * H;

const nyFormat = new Intl.DateTimeFormat("en-US", {
  timeZone: "America/New_York",
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});

const seen = new Map<number, [number, number, number, number, number]>();

/** New York wall clock at `t` through Intl: [year, month (1-12), day, hour, minute]. */
export function ny(t: number): [number, number, number, number, number] {
  let wall = seen.get(t);
  if (!wall) {
    const p = Object.fromEntries(nyFormat.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
    wall = [Number(p.year), Number(p.month), Number(p.day), Number(p.hour), Number(p.minute)];
    if (seen.size > 200_000) seen.clear();
    seen.set(t, wall);
  }
  return wall;
}

/** True when FOREX trades at `t`: from Sunday 17:00 to Friday 17:00 New York. */
export function forexTrades(t: number): boolean {
  const [y, m, d, h] = ny(t);
  const dow = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return (dow === 0 && h >= 17) || (dow >= 1 && dow <= 4) || (dow === 5 && h < 17);
}

/** The UTC instant of a New York wall time (the first one when the autumn change repeats it). */
export function nyToUtc(y: number, m: number, d: number, h: number): number {
  for (const offset of [4, 5]) {
    const t = Date.UTC(y, m - 1, d, h) + offset * H;
    const [yy, mm, dd, hh] = ny(t);
    if (yy === y && mm === m && dd === d && hh === h) return t;
  }
  throw new Error(`no such New York time ${y}-${m}-${d} ${h}:00`);
}

export interface Row { time: number; open: number; high: number; low: number; close: number; volume: number }

/** The FOREX period key of an h1 bar, from its New York wall time (Intl): the bar time of its d, w or h4 bar. */
export function forexKey(t: number, tf: "h4" | "d" | "w"): number {
  const [y, m, d, h] = ny(t);
  if (tf === "h4") {
    // Blocks of four hours from 17:00: 17, 21, 1, 5, 9, 13.
    const back = (h - 17 + 24) % 4;
    const local = Date.UTC(y, m - 1, d, h) - back * H;
    const at = new Date(local);
    return nyToUtc(at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours());
  }
  // The trading date the bar belongs to: the date whose 17:00 closes it; Saturday and Sunday go to Monday.
  let date = Date.UTC(y, m - 1, d) + (h >= 17 ? DAY : 0);
  const dow = new Date(date).getUTCDay();
  if (dow === 6) date += 2 * DAY;
  if (dow === 0) date += DAY;
  if (tf === "w") date -= (new Date(date).getUTCDay() - 1) * DAY; // that week's Monday
  const open = new Date(date - DAY); // 17:00 the evening before (the Sunday for a week)
  return nyToUtc(open.getUTCFullYear(), open.getUTCMonth() + 1, open.getUTCDate(), 17);
}

export function aggregateByKey(rows: Row[], key: (t: number) => number): Row[] {
  const groups = new Map<number, Row[]>();
  for (const r of rows) {
    const k = key(r.time);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return [...groups.keys()].sort((a, b) => a - b).map((k) => {
    const g = groups.get(k)!;
    return {
      time: k,
      open: g[0]!.open,
      high: Math.max(...g.map((r) => r.high)),
      low: Math.min(...g.map((r) => r.low)),
      close: g[g.length - 1]!.close,
      volume: g.reduce((s, r) => s + r.volume, 0),
    };
  });
}

