/** Points the process's logger at a buffer for a test; `restore()` puts the default back. */
import { configureLogging, type LogLevel } from '../../src/log/logger.js';

export type LogLine = { level: string; component: string; msg: string; err?: { type: string; message: string } } & Record<string, unknown>;

export function captureLog(level: LogLevel = 'info'): { lines(): LogLine[]; messages(): string[]; restore(): void } {
  let text = '';
  configureLogging({ level, sink: { write: (line) => void (text += line) } });
  const lines = () => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LogLine);
  return { lines, messages: () => lines().map((l) => l.msg), restore: () => configureLogging() };
}
