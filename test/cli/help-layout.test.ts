/**
 * `--help` fits the terminal (80 columns when not one, as in these runs) for every command, sync
 * and hub included, whose longest option left commander too narrow a column to wrap into.
 */
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { configureHelpLayout } from '../../src/cli/help-layout.js';
import { run } from './run-cli.js';

const COMMANDS = ['serve', 'tables', 'describe', 'create-table', 'update-table', 'delete-table', 'ttl', 'put', 'get', 'query', 'scan', 'delete', 'export', 'import', 'demo', 'verify', 'backup', 'restore', 'salvage', 'stats', 'doctor', 'bridge', 'bridge-status', 'bridge-forget', 'sync', 'sync-status', 'hub'];

function widest(text: string): number {
  return Math.max(...text.split('\n').map((line) => line.length));
}

describe('help layout', () => {
  it.each(COMMANDS)('%s --help fits 80 columns', async (command) => {
    const r = await run([command, '--help']);
    expect(r.code).toBe(0);
    expect(widest(r.out)).toBeLessThanOrEqual(80);
  });

  it('puts an option wider than the column on its own line, its description below in the column', async () => {
    const lines = (await run(['sync', '--help'])).out.split('\n');
    const at = lines.findIndex((l) => l.trimStart().startsWith('--version-attribute <table=attribute>'));
    expect(lines[at]!.trim()).toBe('--version-attribute <table=attribute>');
    const column = lines.find((l) => l.startsWith('  --url <url>'))!.indexOf('broker');
    expect(lines[at + 1]!.indexOf('optimistic concurrency')).toBe(column);
  });

  it('keeps the column as wide as the widest option when that leaves 40 columns to describe', () => {
    const program = configureHelpLayout(new Command('x')).configureOutput({ getOutHelpWidth: () => 100 });
    const sub = program.command('y').option('--a-rather-long-option-name <value>', 'what it does, at some length so that it wraps at least once here');
    let help = '';
    sub.configureOutput({ writeOut: (t) => void (help += t), getOutHelpWidth: () => 100 }).outputHelp();
    const line = help.split('\n').find((l) => l.includes('--a-rather-long-option-name'))!;
    expect(line).toMatch(/^ {2}--a-rather-long-option-name <value> {2}what it does/);
    expect(widest(help)).toBeLessThanOrEqual(100);
  });
});
