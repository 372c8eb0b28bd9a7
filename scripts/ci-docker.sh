#!/usr/bin/env bash
# Prepares a Docker daemon for test/docker on a Debian CI machine (run as root). Idempotent:
# installs docker.io, busybox-static and debootstrap if missing, starts dockerd if no daemon answers, waits
# for it, then builds the local test images (no registry is needed) and the offline stand-in for
# MLE-bench's base image (scripts/mlebench-standin-image.sh: debootstrap from the Debian mirror).
# It also installs Debian's runsc (gVisor) and registers it with the daemon as "runsc", with
# --network=none (gVisor's own netstack cannot run in the root network namespace Docker's
# `--network none` gives it): merged into /etc/docker/daemon.json, other keys kept; a running daemon
# reloads its runtimes on SIGHUP, one started here reads the file at start.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
[ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q "statically linked" || need+=(busybox-static)
command -v file >/dev/null 2>&1 || need+=(file)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
[ -x /usr/bin/runsc ] || need+=(runsc)
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Registers runsc in daemon.json; exit 0 when the file changed, 1 when it already had it.
register_runsc() {
  node scripts/docker-runtime-json.mjs "${DAEMON_JSON:-/etc/docker/daemon.json}" runsc /usr/bin/runsc --network=none
}

if ! docker info >/dev/null 2>&1; then
  register_runsc || true
  echo "starting dockerd"
  nohup dockerd >/tmp/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start:"; tail -20 /tmp/dockerd.log; exit 1; }
fi
if register_runsc; then
  echo "registered runsc in ${DAEMON_JSON:-/etc/docker/daemon.json}; reloading the daemon (SIGHUP)"
  pid=$(cat /var/run/docker.pid 2>/dev/null || pidof -s dockerd || true)
  [ -n "$pid" ] && kill -HUP $pid
  for _ in $(seq 1 20); do
    docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"' && break
    sleep 0.5
  done
fi
docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' || {
  echo "the Docker daemon does not list runsc after registering it in daemon.json"
  exit 1
}
echo "docker daemon $(docker version --format '{{.Server.Version}}' 2>/dev/null) ready"

WITH_NODE=1 bash scripts/docker-test-image.sh

# The offline stand-in for MLE-bench's base image (agent.mlebench tests): debootstrap once, cached.
echo "building the MLE-bench stand-in base image (debootstrap; cached after the first time)"
start=$SECONDS
bash scripts/mlebench-standin-image.sh
echo "stand-in image ready ($((SECONDS - start)) s)"
