import fc from 'fast-check';

/**
 * The settings of every property test: 1,000 runs each, and a failure that says how to replay it.
 * fast-check's failure message carries the seed and the shrink path; set FC_SEED (and FC_PATH)
 * to replay that exact run. A counterexample once found goes into the property's `regressions`
 * list, which runs first on every run from then on.
 */
export function runs<T>(regressions: ReadonlyArray<T> = []): fc.Parameters<T> {
  const seed = process.env['FC_SEED'];
  const path = process.env['FC_PATH'];
  return {
    numRuns: 1_000,
    examples: [...regressions],
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
  };
}

/** Text drawn from `pieces`, so that generated input is dense in the constructs under test. */
export function textOf(pieces: readonly string[], maxLength = 40): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(''));
}

export { fc };
