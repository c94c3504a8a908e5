/**
 * The list of built-in modules the registry is built from, in documentation order.
 * Adding a built-in: one module file here plus its test file beside the others in
 * `test/functions/builtins/`, and one line in this list.
 */
import type { FunctionModule } from "../module.js";

export const MODULES: readonly FunctionModule[] = [];
