#!/usr/bin/env node
// The published entry point: runs the compiled CLI in dist/ (built by `npm run build`, which
// `prepare` runs on `npm ci`, installs from git and `npm pack`). Plain JS, no TypeScript loader.
//
// Long-running commands need V8 heap flags that only take effect when node starts
// (dist/cli/heap-flags.js says which and why): when they are missing, this file starts the same
// command again in a child with them, passes signals on and exits as the child does.
import { spawn } from 'node:child_process';
import { isatty } from 'node:tty';

// package.json's engines: the redo log uses node:zlib's crc32 (Node 20.15). Older Node fails to
// link the CLI with a SyntaxError that names no version; say what is needed instead.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 15)) {
  console.error(`edgetable needs Node 20.15 or later; this is Node ${process.versions.node}. docs/raspberry-pi.md says how to install a current Node.`);
  process.exit(1);
}

let flags;
try {
  flags = await import('../dist/cli/heap-flags.js');
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist/cli/')) {
    console.error('edgetable: dist/ is missing; run `npm run build` in the edgetable folder first');
    process.exit(1);
  }
  throw e;
}

const args = process.argv.slice(2);
const relaunch = flags.heapRelaunchFlags(args, process.env, process.execArgv);
if (relaunch === undefined) {
  if (process.env[flags.HEAP_CHILD_ENV] === '1' && process.channel) {
    // Started by the wrapper below: its channel closes when it dies (even SIGKILLed); stop cleanly then.
    process.channel.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
  const cli = await import('../dist/cli/main.js');
  process.exitCode = await cli.main(args);
} else {
  const child = spawn(process.execPath, [...relaunch, ...process.execArgv, process.argv[1], ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [flags.HEAP_CHILD_ENV]: '1' },
  });
  // A terminal's Ctrl-C reaches the child directly (same process group): passing it on as well
  // would be a second SIGINT, which ends a command mid-shutdown.
  const terminal = isatty(0);
  const forwarded = terminal ? ['SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const pass = (signal) => child.kill(signal);
  for (const signal of forwarded) process.on(signal, pass);
  if (terminal) process.on('SIGINT', () => {});
  child.once('error', (e) => {
    console.error(`edgetable: could not start node with ${relaunch.join(' ')}: ${e.message}`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    for (const s of [...forwarded, 'SIGINT']) process.removeAllListeners(s);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
