/**
 * A throwaway PKI made with the `openssl` command: a CA, a server certificate for 127.0.0.1 and
 * client certificates whose CN is the MQTT identity (device id or `hub`). EC P-256 keys: fast to
 * make and accepted by Mosquitto and Node alike. Nothing here is fit for production use.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Pem = { readonly cert: string; readonly key: string };
export type TestPki = { readonly ca: string; readonly caPath: string; readonly serverCertPath: string; readonly serverKeyPath: string; client(cn: string): Pem };

const CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
[client]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
`;

/** Whether `openssl` can be run. */
export function hasOpenssl(): boolean {
  const r = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  return r.status === 0;
}

export function makeTestPki(dir: string): TestPki {
  const cnf = join(dir, 'openssl.cnf');
  writeFileSync(cnf, CONFIG);
  const p = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', '-config', cnf, '-extensions', 'ca', ...ec, '-keyout', p('ca.key'), '-out', p('ca.crt'), '-days', '2', '-subj', '/CN=edgetable test CA']);
  let serial = 1;
  const issue = (name: string, cn: string, profile: 'server' | 'client') => {
    run(['req', '-new', '-config', cnf, ...ec, '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', `/CN=${cn}`]);
    run(['x509', '-req', '-in', p(`${name}.csr`), '-CA', p('ca.crt'), '-CAkey', p('ca.key'), '-set_serial', String(++serial), '-days', '2', '-extfile', cnf, '-extensions', profile, '-out', p(`${name}.crt`)]);
  };
  issue('server', '127.0.0.1', 'server');
  return {
    ca: readFileSync(p('ca.crt'), 'utf8'),
    caPath: p('ca.crt'),
    serverCertPath: p('server.crt'),
    serverKeyPath: p('server.key'),
    client(cn) {
      const name = `client-${cn.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
      issue(name, cn, 'client');
      return { cert: readFileSync(p(`${name}.crt`), 'utf8'), key: readFileSync(p(`${name}.key`), 'utf8') };
    },
  };
}

function run(args: string[]): void {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}
