/**
 * The playground's icon at `/favicon.ico`, which every browser asks for (without it the page's
 * console shows a 404). Drawn here as a 16×16 icon — a rising line over a baseline, the
 * page's accent blue on transparent — so the service ships no binary file and needs no build
 * step for it. An ICO holding one 32-bit BMP: header, directory entry, bitmap header, pixels
 * bottom-up (BGRA), and the AND mask (all zero: transparency comes from the alpha channel).
 */

const SIZE = 16;
/** The accent blue (#2563eb), as B, G, R. */
const BLUE = [0xeb, 0x63, 0x25] as const;
const GREY = [0x94, 0xa3, 0xb8] as const;

/** The glyph, top row first: `#` the line, `-` the baseline, `.` transparent. */
const GLYPH = [
  "................",
  "................",
  "............##..",
  "...........##...",
  "..........##....",
  ".........##.....",
  "........##......",
  "...##..##.......",
  "..####.#........",
  ".##..###........",
  "##....#.........",
  "#...............",
  "................",
  "----------------",
  "................",
  "................",
];

function icon(): Buffer {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * 4; // 1 bit per pixel, rows padded to 4 bytes
  const image = 40 + pixels + mask;
  const out = Buffer.alloc(6 + 16 + image);
  // ICONDIR: reserved, type 1 (icon), one image.
  out.writeUInt16LE(0, 0);
  out.writeUInt16LE(1, 2);
  out.writeUInt16LE(1, 4);
  // ICONDIRENTRY: 16×16, no palette, 1 plane, 32 bits, size, offset.
  out.writeUInt8(SIZE, 6);
  out.writeUInt8(SIZE, 7);
  out.writeUInt16LE(1, 10);
  out.writeUInt16LE(32, 12);
  out.writeUInt32LE(image, 14);
  out.writeUInt32LE(22, 18);
  // BITMAPINFOHEADER: the height counts the image and its mask.
  out.writeUInt32LE(40, 22);
  out.writeInt32LE(SIZE, 26);
  out.writeInt32LE(SIZE * 2, 30);
  out.writeUInt16LE(1, 34);
  out.writeUInt16LE(32, 36);
  out.writeUInt32LE(pixels + mask, 42);
  let at = 62;
  for (let row = SIZE - 1; row >= 0; row--) {
    for (const char of GLYPH[row]!) {
      const colour = char === "#" ? BLUE : char === "-" ? GREY : undefined;
      if (colour) out.set([...colour, 0xff], at);
      at += 4;
    }
  }
  return out;
}

/** The icon's bytes, made once. */
export const FAVICON = icon();
