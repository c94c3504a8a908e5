/**
 * The list of built-in modules the registry is built from, in documentation order.
 * Adding a built-in: one module file here plus its test file beside the others in
 * `test/functions/builtins/`, and one line in this list.
 */
import type { FunctionModule } from "../module.js";
import { adx } from "./adx.js";
import { aroon_down } from "./aroon_down.js";
import { aroon_osc } from "./aroon_osc.js";
import { aroon_up } from "./aroon_up.js";
import { bars_since } from "./bars_since.js";
import { bop } from "./bop.js";
import { cci } from "./cci.js";
import { cmo } from "./cmo.js";
import { count } from "./count.js";
import { cross } from "./cross.js";
import { dx } from "./dx.js";
import { falling } from "./falling.js";
import { log } from "./log.js";
import { mfi } from "./mfi.js";
import { minus_di } from "./minus_di.js";
import { plus_di } from "./plus_di.js";
import { ppo } from "./ppo.js";
import { rising } from "./rising.js";
import { sign } from "./sign.js";
import { sqrt } from "./sqrt.js";
import { stoch_d } from "./stoch_d.js";
import { stoch_k } from "./stoch_k.js";
import { stochrsi_d } from "./stochrsi_d.js";
import { stochrsi_k } from "./stochrsi_k.js";
import { trix } from "./trix.js";
import { ultosc } from "./ultosc.js";
import { willr } from "./willr.js";

export const MODULES: readonly FunctionModule[] = [
  // Oscillators
  stoch_k,
  stoch_d,
  stochrsi_k,
  stochrsi_d,
  willr,
  cci,
  mfi,
  cmo,
  trix,
  ppo,
  ultosc,
  bop,
  // Trend strength: Wilder's directional movement and Chande's Aroon
  adx,
  dx,
  plus_di,
  minus_di,
  aroon_up,
  aroon_down,
  aroon_osc,
  // Events
  rising,
  falling,
  count,
  bars_since,
  cross,
  // Math
  log,
  sqrt,
  sign,
];
