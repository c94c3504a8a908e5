/**
 * The floor of `npm run bench:data`'s append: what the database alone takes to rewrite the
 * catalog rows an append of one h1 bar rewrites (each series' row with its tail: the h1 row and
 * its derived h4, d and w rows), with none of the engine's work. Every row of the market is
 * written back as it is, in one transaction, commit included: on SQLite one prepared UPDATE by
 * rowid per row; on PostgreSQL one `UPDATE … FROM unnest(…)` statement for all of them, the
 * tails sent as one bytea cut by offsets (as the store sends them).
 */
import Database from "better-sqlite3";
import pg from "pg";

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median ms of `runs` rewrites of every catalog row of `market` in the SQLite file. */
export function sqliteFloor(file: string, market: string, runs = 5): { rows: number; ms: number } {
  const db = new Database(file);
  try {
    const rows = db.prepare("SELECT id, derived, bars, first_time, last_time, sealed_block, tail FROM series WHERE market = ?").raw(true).all(market) as unknown[][];
    const update = db.prepare("UPDATE series SET derived = ?, bars = ?, first_time = ?, last_time = ?, sealed_block = ?, tail = ? WHERE id = ?");
    const write = db.transaction(() => {
      for (const r of rows) update.run(r[1], r[2], r[3], r[4], r[5], r[6], r[0]);
    });
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      write.immediate();
      samples.push(performance.now() - t);
    }
    return { rows: rows.length, ms: median(samples) };
  } finally {
    db.close();
  }
}

/** Median ms of `runs` rewrites of every catalog row of `market` in the PostgreSQL database, one statement each. */
export async function postgresFloor(url: string, market: string, runs = 5): Promise<{ rows: number; ms: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query({
      text: "SELECT timeframe, symbol, derived, bars, first_time, last_time, sealed_block, tail FROM series WHERE market = $1",
      values: [market],
      rowMode: "array",
    });
    const tails = rows.map((r) => r[7] as Buffer);
    const offsets: number[] = [];
    let at = 0;
    for (const t of tails) {
      offsets.push(at);
      at += t.length;
    }
    const values = [
      market,
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => r[2]),
      rows.map((r) => r[3]),
      rows.map((r) => r[4]),
      rows.map((r) => r[5]),
      rows.map((r) => r[6]),
      Buffer.concat(tails),
      offsets,
      tails.map((t) => t.length),
    ];
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await client.query("BEGIN");
      await client.query(
        `UPDATE series s SET derived = r.derived, bars = r.bars, first_time = r.first_time, last_time = r.last_time, sealed_block = r.sealed_block,
           tail = substring($9::bytea from r.offset_ + 1 for r.length_)
         FROM unnest($2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $10::int[], $11::int[])
           AS r(timeframe, symbol, derived, bars, first_time, last_time, sealed_block, offset_, length_)
         WHERE s.market = $1 AND s.timeframe = r.timeframe AND s.symbol = r.symbol`,
        values,
      );
      await client.query("COMMIT");
      samples.push(performance.now() - t);
    }
    return { rows: rows.length, ms: median(samples) };
  } finally {
    await client.end();
  }
}
