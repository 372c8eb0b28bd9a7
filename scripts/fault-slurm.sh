#!/usr/bin/env bash
# A private single-node Slurm cluster for fault injection (bench/faults, test/slurm/faults.test.ts):
# its own slurm.conf (cluster "medalistfaults", node "medalistfaultsnode"), ports, state, spool and pid files,
# so restarting its slurmctld or slurmd, or draining its node, disturbs no other cluster. It shares
# munge and the machine's slurmdbd (scripts/ci-slurm.sh), where it registers its own cluster name.
# A second partition, <cluster>urgent, has a higher priority tier: a job there preempts (cancels) the
# suite's jobs ("preempt"). Run as root; point the Slurm commands at it with SLURM_CONF=$(scripts/fault-slurm.sh conf).
#   start | conf | restart-ctld | restart-d | stop-ctld | start-ctld | preempt SECS | stop | clean
set -euo pipefail

DIR=${MEDALIST_FAULT_SLURM_DIR:-/tmp/medalist-fault-slurm}
CONF=$DIR/etc/slurm.conf
# MEDALIST_FAULT_SLURM_NAME and _PORT keep two private clusters apart (the bench's, a test's).
CLUSTER=${MEDALIST_FAULT_SLURM_NAME:-medalistfaults}
NODE=${CLUSTER}node
PORT=${MEDALIST_FAULT_SLURM_PORT:-6917}
case "$CLUSTER$PORT" in *[!a-z0-9]*) echo "fault-slurm: bad name or port" >&2; exit 2 ;; esac
export SLURM_CONF=$CONF

pidof_file() { [ -f "$1" ] && cat "$1" 2>/dev/null || true; }
alive() { local p; p=$(pidof_file "$1"); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }
ctld_up() { scontrol ping 2>/dev/null | grep -q "is UP"; }

write_conf() {
  mkdir -p "$DIR/etc" "$DIR/spool/ctld" "$DIR/spool/d" "$DIR/log"
  local mem_mb
  mem_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 4))
  [ "$mem_mb" -gt 4096 ] && mem_mb=4096
  cat >"$CONF" <<CONF
ClusterName=$CLUSTER
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/spool/ctld
SlurmdSpoolDir=$DIR/spool/d
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=256
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobRequeue=1
ReturnToService=2
KillWait=5
MinJobAge=300
SchedulerParameters=defer_batch=0
MessageTimeout=10
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$NODE NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
PartitionName=faults Nodes=$NODE Default=YES MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=${CLUSTER}urgent Nodes=$NODE Default=NO MaxTime=INFINITE State=UP PriorityTier=10
CONF
}

start_ctld() { alive "$DIR/slurmctld.pid" || /usr/sbin/slurmctld -f "$CONF"; }
start_d() { alive "$DIR/slurmd.pid" || /usr/sbin/slurmd -f "$CONF" -N "$NODE"; }
stop_pid() {
  local p
  p=$(pidof_file "$1")
  [ -n "$p" ] || return 0
  kill -TERM "$p" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null || true
  rm -f "$1"
}

wait_idle() {
  for _ in $(seq 1 120); do
    ctld_up && case "$(sinfo -h -n "$NODE" -o '%T' 2>/dev/null)" in
      idle* | mixed* | allocated*) return 0 ;;
      down* | drain*) scontrol update nodename="$NODE" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
  done
  echo "fault-slurm: node $NODE is not up; see $DIR/log" >&2
  return 1
}

case "${1:-start}" in
  start)
    command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || { echo "fault-slurm: no slurmctld (scripts/ci-slurm.sh)" >&2; exit 1; }
    [ -f "$CONF" ] || write_conf
    sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER" || sacctmgr -i add cluster "$CLUSTER" >/dev/null
    start_ctld
    start_d
    wait_idle
    echo "$CONF"
    ;;
  conf) echo "$CONF" ;;
  restart-ctld) stop_pid "$DIR/slurmctld.pid"; start_ctld; wait_idle ;;
  restart-d) stop_pid "$DIR/slurmd.pid"; start_d; wait_idle ;;
  stop-ctld) stop_pid "$DIR/slurmctld.pid" ;;
  # A job of the whole node in the urgent partition for SECS seconds: every running job is preempted.
  preempt)
    secs=${2:-5}
    case "$secs" in '' | *[!0-9]*) echo "fault-slurm: preempt SECS" >&2; exit 2 ;; esac
    sbatch --parsable -p "${CLUSTER}urgent" --exclusive --mem=0 -o /dev/null -J medalist-fault-preempt --wrap "sleep $secs"
    ;;
  start-ctld) start_ctld; wait_idle ;;
  stop)
    scancel --cluster="$CLUSTER" -u root 2>/dev/null || true
    stop_pid "$DIR/slurmd.pid"
    stop_pid "$DIR/slurmctld.pid"
    ;;
  clean)
    "$0" stop
    sacctmgr -i delete cluster "$CLUSTER" >/dev/null 2>&1 || true
    rm -rf "$DIR"
    ;;
  *) echo "usage: $0 start|conf|restart-ctld|restart-d|stop-ctld|start-ctld|preempt SECS|stop|clean" >&2; exit 2 ;;
esac
