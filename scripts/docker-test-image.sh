#!/usr/bin/env bash
# Builds small local test images without a registry: a root filesystem assembled in a folder,
# piped to `docker import`.
#   medalist-test-busybox:1  busybox (from Debian's busybox-static) for shell agents
#   medalist-test-node:1     the same plus the node binary and the libraries ldd lists (WITH_NODE=1)
set -euo pipefail

TAG="${MEDALIST_TEST_IMAGE:-medalist-test-busybox:1}"
NODE_TAG="${MEDALIST_TEST_NODE_IMAGE:-medalist-test-node:1}"

BUSYBOX="$(command -v busybox || true)"
if [ -z "$BUSYBOX" ] || ! file -L "$BUSYBOX" 2>/dev/null | grep -q "statically linked"; then
  BUSYBOX=/bin/busybox
fi
[ -x "$BUSYBOX" ] || { echo "busybox not found: apt-get install -y busybox-static" >&2; exit 1; }

make_rootfs() {
  local root="$1"
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,proc,sys,dev,home,root}
  chmod 1777 "$root/tmp"
  cp "$BUSYBOX" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
}

import_rootfs() {
  local root="$1" tag="$2"
  tar -C "$root" -c . | docker import \
    -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' \
    -c 'CMD ["/bin/sh"]' - "$tag" >/dev/null
  echo "built $tag"
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! docker image inspect "$TAG" >/dev/null 2>&1 || [ "${FORCE:-0}" = 1 ]; then
  make_rootfs "$work/busybox"
  import_rootfs "$work/busybox" "$TAG"
else
  echo "$TAG present"
fi

if [ "${WITH_NODE:-0}" = 1 ]; then
  if ! docker image inspect "$NODE_TAG" >/dev/null 2>&1 || [ "${FORCE:-0}" = 1 ]; then
    node_bin="$(readlink -f "$(command -v node)")"
    make_rootfs "$work/node"
    mkdir -p "$work/node/usr/local/bin"
    cp "$node_bin" "$work/node/usr/local/bin/node"
    # Copy every library ldd lists, at its own path (the loader included).
    ldd "$node_bin" | grep -oE '/[^ ]+' | sort -u | while read -r lib; do
      mkdir -p "$work/node$(dirname "$lib")"
      cp -L "$lib" "$work/node$lib"
    done
    import_rootfs "$work/node" "$NODE_TAG"
  else
    echo "$NODE_TAG present"
  fi
fi
