/**
 * Comparing series: one `expectClose` whose tolerance is part of every call, `expectSame` for
 * bit-for-bit agreement, and `within` for a single pair of values.
 */
import { expect } from "vitest";

/**
 * How close a value must be to the expected one: `|actual − expected| ≤ rel × max(|expected|,
 * floor)`. `floor` is the scale below which the error counts as absolute (values that are
 * differences of prices hover near 0); a tiny floor makes the bound purely relative.
 */
export interface Tolerance {
  readonly rel: number;
  readonly floor: number;
}

/**
 * True when `actual` is within `tolerance` of `expected`. NaN (undefined) matches only NaN, and
 * `null` (a non-finite value in JSON) only `null`; equal values always match (infinities too).
 */
export function within(actual: number | null, expected: number | null, tolerance: Tolerance): boolean {
  if (actual === null || expected === null) return actual === expected;
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  return actual === expected || Math.abs(actual - expected) <= tolerance.rel * Math.max(Math.abs(expected), tolerance.floor);
}

/** The first index holding a number, or −1. */
export function firstDefined(xs: ArrayLike<number>): number {
  for (let i = 0; i < xs.length; i++) if (!Number.isNaN(xs[i]!)) return i;
  return -1;
}

/**
 * Where `actual` and `expected` disagree beyond `tolerance`, or where only one is defined: the
 * offending bars, how many defined bars were compared, and the largest relative error.
 */
export function disagreements(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tolerance: Tolerance,
): { bad: string[]; compared: number; maxRel: number } {
  const bad: string[] = [];
  let compared = 0;
  let maxRel = 0;
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    const a = actual[i] ?? NaN;
    const e = expected[i] ?? NaN;
    if (Number.isNaN(a) !== Number.isNaN(e)) {
      bad.push(`#${i}: ${a}, expected ${e}`);
      continue;
    }
    if (Number.isNaN(a)) continue;
    compared++;
    const err = Math.abs(a - e) / Math.max(Math.abs(e), tolerance.floor);
    maxRel = Math.max(maxRel, err);
    if (!(err <= tolerance.rel)) bad.push(`#${i}: ${a}, expected ${e}`);
  }
  return { bad, compared, maxRel };
}

/**
 * `actual` has the length of `expected`, is undefined (NaN) exactly where `expected` is, and
 * is within `tolerance` of it everywhere else, with at least one defined bar compared (an
 * all-undefined expectation is written with {@link expectSame}). Returns the bars compared.
 */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: Tolerance, what: string): number {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  const { bad, compared } = disagreements(actual, expected, tolerance);
  expect(bad.slice(0, 5), `${what}: within ${tolerance.rel} × max(|expected|, ${tolerance.floor})`).toEqual([]);
  expect(compared, `${what}: no defined bar to compare`).toBeGreaterThan(0);
  return compared;
}

/** Bit for bit the same values (`Object.is`: 0 and −0 differ), NaN where NaN. */
export function expectSame(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Number.isNaN(e)) expect(a, `${what} #${i}`).toBeNaN();
    else expect(a, `${what} #${i}`).toBe(e);
  }
}
