/** The bench suites by name, in the order `npm run bench` runs them (all but ON_REQUEST_SUITES). */
import type { SuiteOptions, SuiteReport } from '../suite.js';
import type { ContendersOptions } from './contenders.js';

/** Loaded on demand: a suite's dependencies (mqtt, aedes, the AWS SDK) stay out of the others. */
export const SUITES = {
  contenders: async (o: ContendersOptions) => (await import('./contenders.js')).runContendersSuite(o),
  indexes: async (o: SuiteOptions) => (await import('./indexes.js')).runIndexesSuite(o),
  capacity: async (o: SuiteOptions) => (await import('./capacity.js')).runCapacitySuite(o),
  sync: async (o: SuiteOptions) => (await import('./sync.js')).runSyncSuite(o),
  twoway: async (o: SuiteOptions) => (await import('./twoway.js')).runTwoWaySuite(o),
  bridge: async (o: SuiteOptions) => (await import('./bridge.js')).runBridgeSuite(o),
  server: async (o: SuiteOptions) => (await import('./server.js')).runServerSuite(o),
  slowsync: async (o: SuiteOptions) => (await import('./slowsync.js')).runSlowsyncSuite(o),
  startup: async (o: SuiteOptions) => (await import('./startup.js')).runStartupSuite(o),
  memory: async (o: SuiteOptions) => (await import('./memory.js')).runMemorySuite(o),
  growth: async (o: ContendersOptions) => (await import('./growth.js')).runGrowthSuite(o),
} satisfies Record<string, (o: ContendersOptions) => Promise<SuiteReport>>;

export type SuiteName = keyof typeof SUITES;
export const SUITE_NAMES = Object.keys(SUITES) as SuiteName[];
/** Suites a default run leaves out, run by name only: the growth suite loads 10 M readings per contender (~6 minutes each idle, over an hour at a load average of 10). */
export const ON_REQUEST_SUITES: readonly SuiteName[] = ['growth'];
export const DEFAULT_SUITES = SUITE_NAMES.filter((s) => !ON_REQUEST_SUITES.includes(s));
