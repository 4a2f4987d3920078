/** MQTT connection flags shared by `sync` and `hub`: TLS files and credentials. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

export type MqttFlags = { ca?: string; cert?: string; key?: string; username?: string; password?: string; insecure?: boolean };

export function addMqttFlags(command: Command): Command {
  return command
    .option('--ca <file>', 'PEM file of the CA that signed the broker certificate (mqtts)')
    .option('--cert <file>', 'PEM client certificate (mqtts with client certificates)')
    .option('--key <file>', 'PEM client key')
    .option('--username <name>', 'broker user name')
    .option('--password <secret>', 'broker password (prefer EDGETABLE_MQTT_PASSWORD in the environment)')
    .option('--insecure', 'do not verify the broker certificate (testing only)');
}

export function mqttConnectionOptions(flags: MqttFlags) {
  const password = flags.password ?? process.env.EDGETABLE_MQTT_PASSWORD;
  return {
    ...(flags.ca ? { ca: readFileSync(flags.ca) } : {}),
    ...(flags.cert ? { cert: readFileSync(flags.cert) } : {}),
    ...(flags.key ? { key: readFileSync(flags.key) } : {}),
    ...(flags.insecure ? { rejectUnauthorized: false } : {}),
    ...(flags.username ? { username: flags.username } : {}),
    ...(password ? { password } : {}),
  };
}
