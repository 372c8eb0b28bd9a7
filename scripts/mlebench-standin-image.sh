#!/usr/bin/env bash
# Builds medalist-test-mlebench-env:1, an offline stand-in for MLE-bench's `mlebench-env` base
# image, for the Docker tests of `agent.mlebench` (run as root on Debian, with a reachable Debian
# mirror the first time). It follows the contract agent Dockerfiles rely on, not the upstream image:
#   a minimal bookworm root filesystem (debootstrap) with bash, coreutils, python3 (+ `python`), curl;
#   /opt/conda/bin/conda, a shim: `eval "$(conda shell.bash hook)"`, `conda activate <env>`,
#     `conda run -n <env> CMD…` and `conda clean …` work, with the system python in every env;
#   user `nonroot` (home /home/nonroot), /home/submission, /private at 0700 root;
#   /home/validate_submission.sh posting a file to http://localhost:5000/validate (field `file`);
#   a root /entrypoint.sh that opens /home and serves a stand-in :5000 that grades nothing.
# Cached: nothing is done when the image exists (FORCE=1 rebuilds); the debootstrap output is kept
# at ${MEDALIST_CACHE:-~/.cache/medalist}/mlebench-standin/ so a rebuild needs no mirror.
set -euo pipefail
cd "$(dirname "$0")/.."

TAG="${MEDALIST_MLEBENCH_ENV_IMAGE:-medalist-test-mlebench-env:1}"
CACHE="${MEDALIST_CACHE:-$HOME/.cache/medalist}/mlebench-standin"
ROOTFS_TAR="$CACHE/bookworm-minbase-v1.tar"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PACKAGES="python3,python-is-python3,curl,ca-certificates"

if docker image inspect "$TAG" >/dev/null 2>&1 && [ "${FORCE:-0}" != 1 ]; then
  echo "$TAG present"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$CACHE"

if [ ! -s "$ROOTFS_TAR" ]; then
  command -v debootstrap >/dev/null 2>&1 || {
    echo "installing debootstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  # On Ubuntu runners Debian's keyring is a separate package.
  [ -s /usr/share/keyrings/debian-archive-keyring.gpg ] || {
    echo "installing debian-archive-keyring"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debian-archive-keyring >/dev/null
  }
  echo "debootstrap bookworm (minbase + $PACKAGES) from $MIRROR: a few minutes the first time"
  start=$SECONDS
  debootstrap --variant=minbase --include="$PACKAGES" bookworm "$work/base" "$MIRROR" \
    >"$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log"; exit 1; }
  rm -rf "$work/base"/var/cache/apt/archives/*.deb "$work/base"/var/lib/apt/lists/*
  tar -C "$work/base" -cf "$ROOTFS_TAR.tmp" .
  mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
  rm -rf "$work/base"
  echo "root filesystem cached at $ROOTFS_TAR ($((SECONDS - start)) s)"
else
  echo "using cached root filesystem $ROOTFS_TAR"
fi

root="$work/root"
mkdir -p "$root"
tar -C "$root" -xf "$ROOTFS_TAR"
bash scripts/mlebench-standin-layer.sh "$root"

echo "importing $TAG"
tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/opt/conda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'ENV LANG=C.UTF-8' \
  -c 'WORKDIR /home' \
  -c 'ENTRYPOINT ["/entrypoint.sh"]' \
  - "$TAG" >/dev/null
echo "built $TAG"
