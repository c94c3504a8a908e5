/** The part of autocannon's API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      body?: string;
      headers?: Record<string, string>;
      connections?: number;
      duration?: number;
      amount?: number;
      pipelining?: number;
      workers?: number;
    }
    interface Histogram {
      average: number;
      total: number;
      mean: number;
      p50: number;
      p99: number;
      max: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      errors: number;
      timeouts: number;
    }
  }
  function autocannon(options: autocannon.Options, done: (error: Error | null, result: autocannon.Result) => void): unknown;
  export default autocannon;
}
