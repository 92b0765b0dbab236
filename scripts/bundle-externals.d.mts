// The types of bundle-externals.mjs, for the tests that import it.
export declare const EXTERNAL: readonly string[];
