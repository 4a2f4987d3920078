#!/usr/bin/env bash
# The package as its users get it: packs edgetable, installs the tarball into an empty temporary
# project, imports it with plain `node` (ESM, no TypeScript loader) and requires it (CommonJS), runs the CLI from
# node_modules/.bin, and type-checks consumer.ts against the shipped .d.ts under strict settings
# with exactOptionalPropertyTypes. Each check prints PASS/FAIL; the last line is
# `N checks passed, M failed`. The temporary folder is removed on exit.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/edgetable-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
check() { # check <name> <command...>: runs the command, counts it
  local name=$1
  shift
  printf -- '-- %s\n' "$name"
  if "$@"; then passed=$((passed + 1)); echo "PASS $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
finish() { echo "${passed} checks passed, ${failed} failed"; [ "$failed" -eq 0 ]; exit $?; }

pack() {
  (cd "$repo" && npm pack --silent --pack-destination "$tmp" >"$tmp/pack.out") || return 1
  tarball="$tmp/$(tail -1 "$tmp/pack.out")"
  [ -f "$tarball" ] || return 1
  # Ships only what runs: no tests, no TypeScript sources, no build state.
  local listing
  listing=$(tar -tzf "$tarball")
  if grep -E '^package/(test|src|bench|scripts)/|\.tsbuildinfo$|^package/dist/\.built$|^package/dist/.*\.test\.' <<<"$listing"; then
    echo "the tarball carries files that do not run (above)"
    return 1
  fi
  grep -qx 'package/dist/index.js' <<<"$listing" && grep -qx 'package/dist/index.d.ts' <<<"$listing" && grep -qx 'package/LICENSE' <<<"$listing"
}
check "npm pack (dist, types and LICENSE in; tests and sources out)" pack || finish

app="$tmp/app"
install() {
  mkdir -p "$app" && cd "$app" && printf '{ "name": "edgetable-consumer", "version": "1.0.0", "private": true, "type": "module" }\n' >package.json &&
    npm install --no-audit --no-fund --loglevel=error "$tarball"
}
check "npm install <tarball> into an empty project" install || finish

cat >"$app/use.mjs" <<'JS'
import { open, ValidationException } from 'edgetable';
const db = open({ path: process.argv[2] });
db.createTable({
  TableName: 'Readings',
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
  BillingMode: 'PAY_PER_REQUEST',
});
db.putItem({ TableName: 'Readings', Item: { id: { S: 's-1' }, t: { N: '21.5' } } });
const { Item } = db.getItem({ TableName: 'Readings', Key: { id: { S: 's-1' } } });
let refused = false;
try { db.putItem({ TableName: 'Readings', Item: {} }); } catch (e) { refused = e instanceof ValidationException; }
db.close();
if (Item?.t?.N !== '21.5' || !refused) { console.error('unexpected', Item, refused); process.exit(1); }
console.log('put/get through the installed package:', JSON.stringify(Item));
JS
check "plain node imports the package (ESM) and puts/gets an item" node "$app/use.mjs" "$tmp/store"

cat >"$app/use.cjs" <<'JS'
// CommonJS: require() loads the ES module on Node 20.19+ and 22.12+; older Node gets an error
// naming import('edgetable') (dist/index.cjs), not `No "exports" main defined`.
let loaded;
try {
  loaded = require('edgetable');
} catch (e) {
  if (process.features.require_module) { console.error('require failed although this Node can require ES modules:', e); process.exit(1); }
  if (!String(e.message).includes("import('edgetable')")) { console.error('unclear error:', e.message); process.exit(1); }
  console.log('this Node cannot require() ES modules; the error names import():', e.message);
  process.exit(0);
}
if (typeof loaded.open !== 'function') { console.error('require returned', Object.keys(loaded)); process.exit(1); }
console.log('require(\'edgetable\') gives open() and', Object.keys(loaded).length - 1, 'other exports');
JS
check "require('edgetable') from CommonJS loads it, or says to use import()" node "$app/use.cjs"

require_refused() { # what Node without require(esm) (before 20.19 and 22.12) says, by turning it off where it can be
  if ! node --no-experimental-require-module -e 0 2>/dev/null; then echo "this Node has no --no-experimental-require-module: skipped"; return 0; fi
  local out
  if out=$(cd "$app" && node --no-experimental-require-module use.cjs 2>&1); then :; else echo "$out"; return 1; fi
  grep -q "names import()" <<<"$out" || { echo "printed: $out"; return 1; }
}
check "require('edgetable') without require(esm) names import('edgetable')" require_refused

cli() {
  local bin="$app/node_modules/.bin/edgetable" version
  version=$("$bin" --version) || return 1
  [ "$version" = "$(node -p "require('$repo/package.json').version")" ] || { echo "--version printed '$version'"; return 1; }
  "$bin" tables --help >/dev/null || return 1
  local out
  out=$("$bin" tables --path "$tmp/store" 2>&1) || { echo "$out"; return 1; }
  grep -q Readings <<<"$out" || { echo "tables printed: $out"; return 1; }
}
check "node_modules/.bin/edgetable --version and a command" cli

lean() { # a store-only install does not carry the AWS SDK; a forwarding hub names what to install
  [ ! -e "$app/node_modules/@aws-sdk/client-dynamodb" ] || { echo "the AWS SDK was installed"; return 1; }
  local out
  if out=$("$app/node_modules/.bin/edgetable" hub --path "$tmp/hub" --url mqtt://127.0.0.1:9 --forward-endpoint http://127.0.0.1:9 2>&1); then
    echo "the hub started without the SDK"; return 1
  fi
  grep -q "npm install @aws-sdk/client-dynamodb@3" <<<"$out" || { echo "hub printed: $out"; return 1; }
}
check "a store-only install has no AWS SDK, and a forwarding hub says what to install" lean

typecheck() {
  mkdir -p "$app/types" &&
    sed "s#'\.\./\.\./src/index\.js'#'edgetable'#" "$repo/test/package/consumer.ts" >"$app/types/consumer.ts" &&
    grep -q "from 'edgetable'" "$app/types/consumer.ts" || return 1
  cat >"$app/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true,
    "skipLibCheck": false, "noEmit": true,
    "typeRoots": ["$repo/node_modules/@types"], "types": ["node"]
  },
  "files": ["types/consumer.ts"]
}
JSON
  (cd "$app" && node "$repo/node_modules/typescript/bin/tsc" -p .)
}
check "consumer.ts type-checks against the shipped .d.ts (strict, exactOptionalPropertyTypes)" typecheck

finish
