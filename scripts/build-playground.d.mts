/** Types of scripts/build-playground.mjs for the tests that call it. */
export declare function bundleCore(entry?: string, budget?: number): Promise<{ minified: number; gzipped: number; inputs: string[] }>;
