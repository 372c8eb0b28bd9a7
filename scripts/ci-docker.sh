#!/usr/bin/env bash
# Prepares a Docker daemon for test/docker on a Debian CI machine (run as root). Idempotent:
# installs docker.io, busybox-static and debootstrap if missing, starts dockerd if no daemon answers, waits
# for it, then builds the local test images (no registry is needed) and the offline stand-in for
# MLE-bench's base image (scripts/mlebench-standin-image.sh: debootstrap from the Debian mirror).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
[ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q "statically linked" || need+=(busybox-static)
command -v file >/dev/null 2>&1 || need+=(file)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  echo "starting dockerd"
  nohup dockerd >/tmp/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start:"; tail -20 /tmp/dockerd.log; exit 1; }
fi
echo "docker daemon $(docker version --format '{{.Server.Version}}' 2>/dev/null) ready"

WITH_NODE=1 bash scripts/docker-test-image.sh

# The offline stand-in for MLE-bench's base image (agent.mlebench tests): debootstrap once, cached.
echo "building the MLE-bench stand-in base image (debootstrap; cached after the first time)"
start=$SECONDS
bash scripts/mlebench-standin-image.sh
echo "stand-in image ready ($((SECONDS - start)) s)"
