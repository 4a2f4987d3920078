// Types of build-freshness.mjs, for the test setup and the tests (TypeScript does not read .mjs here).
export declare const BUILD_INPUTS: readonly string[];
export declare const STAMP: string;
export declare function staleReason(root: string, inputs?: readonly string[]): string | undefined;
