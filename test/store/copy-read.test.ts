/**
 * The pieces of PostgreSQL's binary block read (src/store/postgres-bars.ts) that need no server:
 * `copyTuples` against a `COPY … TO STDOUT (FORMAT binary)` stream written here from the format's
 * definition and cut into chunks anywhere, and `RowBlocks` (src/store/engine/reader.ts, both
 * backends' hand-off) handing every asked row on once, in order. The read itself runs against a real PostgreSQL in the store contract suite.
 */
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReadBlock } from "../../src/store/blocks.js";
import { RowBlocks } from "../../src/store/engine/reader.js";
import { copyTuples } from "../../src/store/postgres-bars.js";

/** A binary COPY stream of `tuples` (each field's bytes): signature, flags, an extension, tuples, trailer. */
function copyStream(tuples: Buffer[][], extension: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(4)];
  const ext = Buffer.alloc(4);
  ext.writeInt32BE(extension.length);
  parts.push(ext, extension);
  for (const fields of tuples) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(fields.length);
    parts.push(count);
    for (const field of fields) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field.length);
      parts.push(length, field);
    }
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1);
  parts.push(trailer);
  return Buffer.concat(parts);
}

function chunked(bytes: Buffer, cuts: number[]): Readable {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to > from) chunks.push(bytes.subarray(from, to));
    from = Math.max(from, to);
  }
  return Readable.from(chunks);
}

async function read(stream: Readable): Promise<number[][][]> {
  const out: number[][][] = [];
  for await (const fields of copyTuples(stream)) out.push(fields.map((f) => [...f]));
  return out;
}

describe("copyTuples", () => {
  it("reads every tuple whole wherever the chunks are cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 5 }), { maxLength: 20 }),
        fc.uint8Array({ maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (tuples, extension, cuts) => {
          const fields = tuples.map((t) => t.map((f) => Buffer.from(f)));
          const bytes = copyStream(fields, Buffer.from(extension));
          expect(await read(chunked(bytes, cuts))).toEqual(tuples.map((t) => t.map((f) => [...f])));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses what is not the binary format, a NULL, and a stream cut before its trailer", async () => {
    await expect(read(Readable.from([Buffer.from("1\t2\n3\t4\n\\.\n".padEnd(40, " "))]))).rejects.toThrow(/binary format/);
    const whole = copyStream([[Buffer.from([1, 2, 3])]], Buffer.alloc(0));
    await expect(read(Readable.from([whole.subarray(0, whole.length - 2)]))).rejects.toThrow(/before its trailer/);
    const withNull = Buffer.from(whole);
    withNull.writeInt32BE(-1, 21);
    await expect(read(Readable.from([withNull]))).rejects.toThrow(/NULL/);
  });
});

describe("RowBlocks", () => {
  it("hands on every asked row once, in order, with none for a row that had none", () => {
    const calls: [number, number[]][] = [];
    const rows = new RowBlocks([1, 3, 4, 7, 9], (r, blocks) => calls.push([r, blocks.map((b) => b.block)]));
    const block = (n: number): ReadBlock => ({ block: n, n: 1, bytes: Buffer.alloc(48) });
    rows.add(3, block(30));
    rows.add(3, block(29));
    rows.add(7, block(70));
    rows.end();
    expect(calls).toEqual([
      [1, []],
      [3, [30, 29]],
      [4, []],
      [7, [70]],
      [9, []],
    ]);
  });

  it("turns each row's blocks round when they come oldest first, and refuses rows or blocks out of order", () => {
    const block = (n: number): ReadBlock => ({ block: n, n: 1, bytes: Buffer.alloc(48) });
    const calls: [number, number[]][] = [];
    const oldest = new RowBlocks([0, 2], (r, blocks) => calls.push([r, blocks.map((b) => b.block)]), true);
    oldest.add(0, block(4));
    oldest.add(0, block(5));
    oldest.add(2, block(9));
    oldest.end();
    expect(calls).toEqual([
      [0, [5, 4]],
      [2, [9]],
    ]);
    const rows = new RowBlocks([0, 1], () => undefined);
    rows.add(1, block(3));
    expect(() => rows.add(0, block(2))).toThrow(/series' order/);
    const blocks = new RowBlocks([0], () => undefined);
    blocks.add(0, block(3));
    expect(() => blocks.add(0, block(4))).toThrow(/blocks' order/);
  });
});
