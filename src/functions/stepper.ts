/**
 * A function carried from bar to bar: one call node (a module and its constants) fed one bar
 * at a time, each step costing one step of its kernel rather than a recomputation of its
 * window or its history. The evaluator keeps one per (call node, instrument) where it carries
 * a pass's state between bars (alerts, `watch`).
 *
 * There is no second definition of any function here: a step is the module's own kernel over
 * [t, t + 1), resumed from the state the previous step left (`Kernel`, `stateSize`). A kernel
 * without a state is called as the evaluator calls it: a window recomputed at the bar, a
 * recursion streamed from the first bar, a kernel run in primed blocks over [block start,
 * t + 1). So every step equals the batch value at that bar bit for bit.
 *
 * The stepper keeps the inputs it was given (the kernels read windows and, when not
 * resumable, all of them): it lives for one pass, from an anchor, and a new pass starts a new
 * stepper.
 */
import { freshState, type FunctionModule, type KernelContext, standaloneContext } from "./module.js";

export interface StepperOptions {
  /**
   * The evaluator's primed block length when it runs this call in primed blocks (a windowed
   * kernel that is not `rangeIndependent`), else 0: the stepper then re-primes at each block
   * start exactly as the batch does, so its running sums round the same way.
   */
  readonly blockBars: number;
  /** Where the kernel runs (timeframe, market); a standalone h1 context by default. */
  readonly ctx?: KernelContext;
}

export class Stepper {
  private inputs: Float64Array[];
  private out: Float64Array;
  private readonly state: Float64Array | undefined;
  private readonly ctx: KernelContext;
  private readonly blockBars: number;
  private bars = 0;

  constructor(
    readonly fn: FunctionModule,
    readonly consts: readonly number[],
    options: StepperOptions,
  ) {
    const width = fn.params.filter((p) => p.kind === "series" || p.kind === "condition").length + fn.implicit.length;
    this.inputs = Array.from({ length: width }, () => new Float64Array(64));
    this.out = new Float64Array(64);
    this.state = fn.stateSize ? freshState(fn.stateSize(consts)) : undefined;
    this.ctx = options.ctx ?? standaloneContext();
    this.blockBars = options.blockBars;
  }

  /** Bars stepped so far. */
  get length(): number {
    return this.bars;
  }

  /** True when the kernel's state is carried to the next bar (a step then costs one step of its loop). */
  get carrying(): boolean {
    return this.state !== undefined && this.state[0] === this.bars;
  }

  /**
   * Takes the next bar's inputs (the series/condition arguments in parameter order, then the
   * module's implicit columns) and returns the function's value at that bar.
   */
  step(values: ArrayLike<number>): number {
    const i = this.bars;
    if (i === this.out.length) this.grow();
    for (let k = 0; k < this.inputs.length; k++) this.inputs[k]![i] = values[k]!;
    this.bars = i + 1;
    const kernel = this.fn.kernel;
    const block = this.blockBars > 0 ? i % this.blockBars : 0;
    if (this.state !== undefined) {
      // A block start primes the window afresh, as the batch's call for that block does.
      if (this.blockBars > 0 && block === 0) this.state.fill(NaN);
      kernel(this.inputs, this.consts, this.out, i, i + 1, this.ctx, this.state);
    } else {
      kernel(this.inputs, this.consts, this.out, i - block, i + 1, this.ctx);
    }
    return this.out[i]!;
  }

  private grow(): void {
    const size = this.out.length * 2;
    const widen = (a: Float64Array): Float64Array => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.inputs = this.inputs.map(widen);
    this.out = widen(this.out);
  }
}
