import type { SuiteOptions, SuiteReport } from '../suite.js';
export async function runBridgeSuite(_o: SuiteOptions): Promise<SuiteReport> { throw new Error('todo'); }
