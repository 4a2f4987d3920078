/** MQTT connection flags shared by `sync` and `hub`: TLS files and credentials. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { readSecret } from './secret-flags.js';

export type MqttFlags = { ca?: string; cert?: string; key?: string; username?: string; password?: string; passwordFile?: string; insecure?: boolean };

export function addMqttFlags(command: Command): Command {
  return command
    .option('--ca <file>', 'PEM file of the CA that signed the broker certificate (mqtts)')
    .option('--cert <file>', 'PEM client certificate (mqtts with client certificates)')
    .option('--key <file>', 'PEM client key')
    .option('--username <name>', 'broker user name')
    .option('--password-file <file>', 'file holding the broker password (mode 600); or set EDGETABLE_MQTT_PASSWORD')
    .option('--password <secret>', 'broker password: shown by ps, prefer --password-file or EDGETABLE_MQTT_PASSWORD')
    .option('--insecure', 'do not verify the broker certificate (testing only)');
}

export const MQTT_PASSWORD_ENV = 'EDGETABLE_MQTT_PASSWORD';

/** `component`: the logger component of a warning about --password. */
export function mqttConnectionOptions(flags: MqttFlags, component: string) {
  const password = readSecret({ flag: '--password', value: flags.password, fileFlag: '--password-file', file: flags.passwordFile, env: MQTT_PASSWORD_ENV, component });
  return {
    ...(flags.ca ? { ca: readFileSync(flags.ca) } : {}),
    ...(flags.cert ? { cert: readFileSync(flags.cert) } : {}),
    ...(flags.key ? { key: readFileSync(flags.key) } : {}),
    ...(flags.insecure ? { rejectUnauthorized: false } : {}),
    ...(flags.username ? { username: flags.username } : {}),
    ...(password ? { password } : {}),
  };
}
