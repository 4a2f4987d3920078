/**
 * Per-request figures, counted where requests are answered (server/start-server.ts calls
 * `record` once per DynamoDB request): requests by operation and outcome (`success` or the
 * DynamoDB error name, e.g. `ConditionalCheckFailedException`), and latency by operation from the
 * request's body being read to its response being ready (a grouped write includes its commit).
 * Requests refused for their authentication (server/sigv4.ts) run no operation: `refuse` counts
 * them apart, by the DynamoDB error they got, so a key being guessed shows on its own.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds: 0.1 ms to 2.5 s, enough to tell a cached read from an fsync on an SD card. */
export const LATENCY_BUCKETS_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export type RequestMetrics = {
  record(operation: string, outcome: string, seconds: number): void;
  refuse(reason: string): void;
};

export function registerRequestMetrics(registry: Registry): RequestMetrics {
  const requests = new Counter({
    name: 'edgetable_requests_total',
    help: 'DynamoDB API requests answered, by operation and outcome (success or the error name)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'edgetable_request_duration_seconds',
    help: 'Time to answer a DynamoDB API request, by operation',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'edgetable_auth_refusals_total',
    help: 'DynamoDB API requests refused for their authentication, by error (InvalidSignatureException, UnrecognizedClientException, ...)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  return {
    record(operation, outcome, seconds) {
      requests.inc({ operation, outcome });
      latency.observe({ operation }, seconds);
    },
    refuse(reason) {
      refusals.inc({ reason });
    },
  };
}
