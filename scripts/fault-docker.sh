#!/usr/bin/env bash
# A private Docker daemon for fault injection (bench/faults, test/docker/faults.test.ts): its own
# data root, exec root, pid file and socket, its own network namespace and no iptables rules, so
# stopping or restarting it disturbs no other daemon on the machine. Run as root.
#   scripts/fault-docker.sh start     start it (idempotent) and load the test images into it
#   scripts/fault-docker.sh restart   stop it (SIGTERM, as a service manager does) and start it again
#   scripts/fault-docker.sh crash     kill -9 it (its containers stay with containerd) and start it again
#   scripts/fault-docker.sh stop      stop it
#   scripts/fault-docker.sh clean     stop it and remove its folders
# Prints nothing on success but the socket path (start, restart). MEDALIST_FAULT_DOCKER_NAME (default
# medalist-faults) names the instance: /run/NAME/docker.sock, /var/lib/NAME; tests use their own.
set -euo pipefail

NAME=${MEDALIST_FAULT_DOCKER_NAME:-medalist-faults}
case "$NAME" in *[!a-z0-9-]* | "") echo "fault-docker: bad MEDALIST_FAULT_DOCKER_NAME" >&2; exit 2 ;; esac
ROOT=/var/lib/$NAME
RUN=/run/$NAME
SOCK=$RUN/docker.sock
PIDFILE=$RUN/dockerd.pid
IMAGES=${MEDALIST_FAULT_IMAGES:-medalist-test-busybox:1}
export DOCKER_HOST=unix://$SOCK
# Its own network namespace: with --bridge=none dockerd deletes the interface docker0 at start, so
# it runs where no other daemon's docker0 is (a bridge of its own broke its restarts: libnetwork's
# store). Its containers use network none.
NETNS=/var/run/netns/$NAME

netns() {
  [ -e "$NETNS" ] || ip netns add "$NAME"
  ip -n "$NAME" link set lo up
}

pid() { [ -f "$PIDFILE" ] && cat "$PIDFILE" 2>/dev/null || true; }
alive() { local p; p=$(pid); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

launch() {
  netns
  [ -f "$ROOT/daemon.json" ] || echo '{}' >"$ROOT/daemon.json"
  nohup nsenter --net="$NETNS" dockerd --config-file "$ROOT/daemon.json" --data-root "$ROOT/data" --exec-root "$ROOT/exec" \
    --pidfile "$PIDFILE" -H "unix://$SOCK" --bridge=none --iptables=false --ip-masq=false \
    --ip-forward=false --storage-driver=overlay2 >>"$ROOT/dockerd.log" 2>&1 &
  echo $! >"$RUN/launched.pid"
}

start() {
  mkdir -p "$ROOT/data" "$ROOT/exec" "$RUN"
  alive || launch
  # Up to 120 s (a loaded runner after a kill -9: the old containerd is still being replaced); a
  # dockerd that exited during its start (found the killed one's containerd or pid file) is
  # launched again, at most twice.
  local relaunched=0
  for _ in $(seq 1 240); do
    docker version >/dev/null 2>&1 && break
    if [ "$relaunched" -lt 2 ] && ! kill -0 "$(cat "$RUN/launched.pid" 2>/dev/null || echo 0)" 2>/dev/null && ! alive; then
      echo "fault-docker: dockerd exited during its start; launching it again" >>"$ROOT/dockerd.log"
      relaunched=$((relaunched + 1))
      rm -f "$PIDFILE"
      launch
    fi
    sleep 0.5
  done
  docker version >/dev/null 2>&1 || {
    echo "fault-docker: the daemon did not answer; the end of $ROOT/dockerd.log:" >&2
    tail -n 20 "$ROOT/dockerd.log" >&2
    exit 1
  }
  for img in $IMAGES; do
    if ! docker image inspect "$img" >/dev/null 2>&1; then
      DOCKER_HOST=unix:///var/run/docker.sock docker save "$img" | docker load >/dev/null
    fi
  done
  echo "$SOCK"
}

stop() {
  local p
  p=$(pid)
  [ -n "$p" ] || return 0
  kill -TERM "$p" 2>/dev/null || true
  for _ in $(seq 1 120); do
    kill -0 "$p" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$p" 2>/dev/null || true
  rm -f "$PIDFILE"
}

case "${1:-start}" in
  start) start ;;
  restart) stop; start ;;
  crash)
    p=$(pid)
    if [ -n "$p" ]; then
      kill -KILL "$p" 2>/dev/null || true
      while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
    fi
    rm -f "$PIDFILE" "$SOCK"
    start
    ;;
  stop) stop ;;
  clean)
    stop
    # Its managed containerd ends with it; mounts left under the data root are unmounted first.
    { grep -o " $ROOT/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$ROOT" "$RUN"
    ip netns del "$NAME" 2>/dev/null || true
    ;;
  *) echo "usage: $0 start|restart|stop|clean" >&2; exit 2 ;;
esac
