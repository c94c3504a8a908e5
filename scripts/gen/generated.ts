/** One file a generator writes: its path from the repository root, and its whole content. */
export interface Generated {
  readonly path: string;
  readonly content: string;
}

/** The header line generated files carry, naming the one command that rewrites them. */
export const BY_GEN = "npm run gen";
