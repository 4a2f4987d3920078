/**
 * Resolves with what asked a long-running command (serve, sync, hub) to stop: SIGINT, SIGTERM, or
 * the io's AbortSignal (tests).
 */
export function stopRequested(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const done = (reason: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      signal?.removeEventListener('abort', onAbort);
      resolve(reason);
    };
    const onInt = (): void => done('SIGINT');
    const onTerm = (): void => done('SIGTERM');
    const onAbort = (): void => done('stopped');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    if (signal?.aborted) done('stopped');
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
