/**
 * The contract between the evaluator and an indicator kernel: see `Kernel` in `./module.js`.
 * Kept as a re-export so code written against `functions/kernel.js` still compiles.
 */
export type { Kernel, KernelContext } from "./module.js";
