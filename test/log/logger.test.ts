import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging, createLogger, isLogLevel, levelFromEnv, log } from '../../src/log/logger.js';

function capture(): { lines: () => Record<string, unknown>[]; sink: { write(line: string): void } } {
  const written: string[] = [];
  return { lines: () => written.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>), sink: { write: (l) => void written.push(l) } };
}

describe('logger', () => {
  afterEach(() => configureLogging({ level: 'silent' }));

  it('writes one JSON line per event with level, time, component and message', () => {
    const c = capture();
    configureLogging({ level: 'info', sink: c.sink });
    log('hub').info({ device: 'd1' }, 'hub: connected');
    const [line] = c.lines();
    expect(line).toMatchObject({ level: 'info', component: 'hub', device: 'd1', msg: 'hub: connected' });
    expect(new Date(line!['time'] as string).toISOString()).toBe(line!['time']);
  });

  it('drops lines below the configured level', () => {
    const c = capture();
    configureLogging({ level: 'warn', sink: c.sink });
    log('server').info('not shown');
    log('server').debug('not shown');
    log('server').warn('shown');
    expect(c.lines().map((l) => l['msg'])).toEqual(['shown']);
  });

  it('logs an error with its type, message, stack and cause', () => {
    const c = capture();
    const logger = createLogger('info', c.sink);
    const cause = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    logger.error({ err: new Error('commit failed', { cause }) }, 'storage error');
    const err = c.lines()[0]!['err'] as Record<string, unknown>;
    expect(err['type']).toBe('Error');
    expect(err['message']).toContain('commit failed');
    expect(String(err['stack'])).toContain('commit failed');
    expect(JSON.stringify(err)).toContain('ENOSPC: no space left on device');
  });

  it('takes its default level from EDGETABLE_LOG_LEVEL and ignores a value that is no level', () => {
    expect(levelFromEnv({ EDGETABLE_LOG_LEVEL: 'debug' })).toBe('debug');
    expect(levelFromEnv({ EDGETABLE_LOG_LEVEL: 'loud' })).toBe('info');
    expect(levelFromEnv({})).toBe('info');
    expect(isLogLevel('silent')).toBe(true);
    expect(isLogLevel('verbose')).toBe(false);
  });
});
