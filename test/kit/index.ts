/**
 * The one test kit: bars (price walks with the shapes that break indicators, hand-made columns,
 * bars on timeframes and their aggregation), running a module as the evaluator does and the
 * contract every module keeps, indicator definitions written out plainly for expected values,
 * one `expectClose` with its tolerance in every call, seeded randomness, temporary folders, a
 * clock the test moves, one way to wait (on an event or a condition, never for a time) and
 * tests that need PostgreSQL and Redis (skipped with the reason in their titles where absent).
 * Each part lives in its own file here, by job; tests import them from this file.
 */
export { BARS, PLAIN, arbitraryBars, columns, columnsWithNaN, flatBars, floorOf, priceWalk, randomBars, withNaN } from "./bars.js";
export type { Columns, PriceWalkOptions, Walk } from "./bars.js";
export {
  ageOfExtreme,
  atrOf,
  emaOf,
  leastSquaresExact,
  rsiOf,
  series,
  smaOf,
  stdevOf,
  sumOf,
  supertrendOf,
  trOf,
  wilder,
  windowMax,
  windowMean,
  windowMin,
  windowSigma,
  windowSum,
  wmaOf,
} from "./definitions.js";
export { disagreements, expectClose, expectSame, firstDefined, within } from "./expect.js";
export type { Tolerance } from "./expect.js";
export { TestClock, TimedClock } from "./clock.js";
export type { MovableClock } from "./clock.js";
export { tempDir } from "./files.js";
export { DATABASE_URL, REDIS_URL, WITHOUT_POSTGRES, WITHOUT_SERVICES, describeUnless, itUnless, needsPostgres, needsServices, skippedTitle } from "./needs.js";
export {
  LENGTHS,
  MODULE,
  alignEnd,
  arbitraryConsts,
  batchValues,
  blockBarsOf,
  checkContract,
  evaluate,
  firstDifference,
  inputsOf,
  kernelInputs,
  latestThroughRun,
  lookbackOf,
  steppedValues,
} from "./modules.js";
export { gaussian, prng, randomBooleans } from "./random.js";
export { DAY, HOUR, MINUTE, MONDAY, WEEK } from "./time.js";
export {
  FIELDS,
  aggregate,
  asPlainArrays,
  barOpen,
  barsBefore,
  cutInstrument,
  emptyBars,
  head,
  multiTimeframe,
  rampBars,
  symbolName,
  tickWalk,
} from "./timeframes.js";
export type { ArrayBars, TickWalkOptions } from "./timeframes.js";
export { Gate, Signal, UNTIL_GUARD_MS, until } from "./wait.js";
export type { UntilOptions } from "./wait.js";
