#!/usr/bin/env bash
# Adds the MLE-bench-style contract to a Debian root filesystem at $1 (see mlebench-standin-image.sh):
# the conda shim, user nonroot, /private, /home/validate_submission.sh and a root /entrypoint.sh.
set -euo pipefail
root="$1"

mkdir -p "$root/opt/conda/bin" "$root/opt/conda/envs/agent" "$root/home/submission" "$root/home/logs"

cat >"$root/opt/conda/bin/conda" <<'EOF'
#!/bin/bash
# conda stand-in: the environments base, agent and mleb all are the system python.
known() { case "$1" in base | agent | mleb) return 0 ;; *) return 1 ;; esac; }
case "${1:-}" in
  shell.bash | shell.posix)
    [ "${2:-}" = hook ] || { echo "conda (stand-in): only 'shell.bash hook' is known" >&2; exit 2; }
    cat <<'HOOK'
conda() {
  case "${1:-}" in
    activate)
      local env="${2:-base}"
      case "$env" in base | agent | mleb) ;; *) echo "EnvironmentNameNotFound: $env" >&2; return 1 ;; esac
      export CONDA_DEFAULT_ENV="$env" CONDA_PREFIX="/opt/conda/envs/$env" ;;
    deactivate) unset CONDA_DEFAULT_ENV CONDA_PREFIX ;;
    *) command conda "$@" ;;
  esac
}
HOOK
    ;;
  run)
    shift
    while [ $# -gt 0 ]; do
      case "$1" in
        -n | --name)
          known "${2:-}" || { echo "EnvironmentNameNotFound: ${2:-}" >&2; exit 1; }
          shift 2 ;;
        --no-capture-output | --live-stream) shift ;;
        *) break ;;
      esac
    done
    exec "$@" ;;
  clean | tos | init) exit 0 ;;
  env) printf 'base  /opt/conda\nagent  /opt/conda/envs/agent\nmleb  /opt/conda/envs/mleb\n' ;;
  --version | -V) echo "conda 0.0 (Medalist stand-in)" ;;
  activate | deactivate)
    echo "conda (stand-in): run 'eval \"\$(conda shell.bash hook)\"' first" >&2
    exit 1 ;;
  *)
    echo "conda (stand-in): '$*' is not supported" >&2
    exit 2 ;;
esac
EOF
chmod 755 "$root/opt/conda/bin/conda"

cat >"$root/home/validate_submission.sh" <<'EOF'
#!/bin/bash
# Sends a submission file to the format check served at localhost:5000 and prints its answer.
# Usage: validate_submission.sh SUBMISSION_FILE
file="${1:-}"
if [ -z "$file" ]; then
  echo "usage: $0 SUBMISSION_FILE"
  exit 1
fi
if [ ! -f "$file" ]; then
  echo "no such file: $file"
  exit 1
fi
curl -sS -X POST -F "file=@${file}" http://localhost:5000/validate
EOF
chmod 755 "$root/home/validate_submission.sh"
echo "Stand-in image: the run's instructions are mounted over this file." >"$root/home/instructions.txt"

mkdir -p "$root/private"
cat >"$root/private/standin_server.py" <<'EOF'
# The stand-in image's own :5000. It holds no answers and grades nothing: it only says so.
import json
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    def answer(self, code, body):
        data = (json.dumps(body) + "\n").encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            return self.answer(200, {"status": "running"})
        self.answer(404, {"error": "not found"})

    def do_POST(self):
        self.answer(503, {"error": "stand-in mlebench-env: no grader in this image"})

HTTPServer(("0.0.0.0", 5000), Handler).serve_forever()
EOF
chmod 700 "$root/private"
chmod 600 "$root/private/standin_server.py"

cat >"$root/entrypoint.sh" <<'EOF'
#!/bin/bash
# Stand-in for mlebench-env's entrypoint (runs as root): opens /home to every user, then serves
# the stand-in :5000 from /private. Medalist bypasses it and runs start.sh as nonroot instead.
set -x
mkdir -p /home/logs
find /home -path /home/data -prune -o -exec chmod a+rw {} \; 2>/dev/null
exec python3 /private/standin_server.py
EOF
chmod 755 "$root/entrypoint.sh"

if ! grep -q '^nonroot:' "$root/etc/passwd"; then
  if [ -x "$root/usr/sbin/useradd" ]; then
    chroot "$root" /usr/sbin/useradd -m -s /bin/bash nonroot
  else
    echo 'nonroot:x:1000:1000::/home/nonroot:/bin/bash' >>"$root/etc/passwd"
    echo 'nonroot:x:1000:' >>"$root/etc/group"
    mkdir -p "$root/home/nonroot"
    chown 1000:1000 "$root/home/nonroot"
  fi
fi
