#!/usr/bin/env bash
# Starts a real single-node Slurm cluster on a Debian CI machine for test/slurm (run as root).
# Idempotent: installs munge, slurm-wlm, slurmdbd and mariadb-server if missing, writes
# slurm.conf, gres.conf (one GPU backed by a fake device file) and slurmdbd.conf, starts munged,
# mariadb, slurmdbd, slurmctld and slurmd when they are not running, and waits until `sinfo`
# shows the node idle. Memory is enforced by jobacct_gather (OverMemoryKill), not cgroups.
# Never overwrites a slurm.conf it did not write.
set -euo pipefail

DIR=${MEDALIST_SLURM_DIR:-/tmp/medalist-slurm}
CONF=/etc/slurm
MARK="# written by medalist scripts/ci-slurm.sh"
HOST=$(hostname -s)

ctld_up() { scontrol ping 2>/dev/null | grep -q "is UP"; }
# Zombies do not count as running daemons.
running() { pgrep -x -r R,S,D,I "$1" >/dev/null; }

need=()
for p in munge:munged slurmctld:slurmctld slurmd:slurmd slurm-client:sbatch slurmdbd:slurmdbd mariadb-server:mariadbd; do
  command -v "${p#*:}" >/dev/null 2>&1 || [ -x "/usr/sbin/${p#*:}" ] || need+=("${p%%:*}")
done
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ -f "$CONF/slurm.conf" ] && ! grep -qF "$MARK" "$CONF/slurm.conf"; then
  echo "ci-slurm: $CONF/slurm.conf exists and was not written by this script; leaving the cluster alone"
  sinfo -h -o '%T' | grep -q idle && exit 0
  exit 1
fi

mkdir -p "$DIR/dev" "$DIR/spool/ctld" "$DIR/spool/d" "$DIR/log" "$CONF"
# The GPU is a fake device node (the numbers of /dev/null): Slurm hands its index out as
# CUDA_VISIBLE_DEVICES; no driver is involved.
if [ ! -c "$DIR/dev/nvidia0" ]; then
  rm -f "$DIR/dev/nvidia0"
  mknod "$DIR/dev/nvidia0" c 1 3
fi

cpus=$(nproc)
mem_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))
[ "$mem_mb" -gt 8192 ] && mem_mb=8192

cat >"$DIR/slurm.conf.new" <<EOF
$MARK
ClusterName=medalist
SlurmctldHost=$HOST(127.0.0.1)
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
# Without it a job that names no --mem takes the whole node.
DefMemPerCPU=512
GresTypes=gpu
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=OverMemoryKill
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu
JobRequeue=0
ReturnToService=2
KillWait=5
MinJobAge=300
SchedulerParameters=defer_batch=0
SchedulerTimeSlice=5
MessageTimeout=10
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$DIR/gres.conf.new" <<EOF
$MARK
NodeName=$HOST Name=gpu File=$DIR/dev/nvidia0
EOF
cat >"$CONF/slurmdbd.conf" <<EOF
$MARK
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
PidFile=$DIR/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
EOF
chmod 600 "$CONF/slurmdbd.conf"
# A changed slurm.conf or gres.conf reaches running daemons by `scontrol reconfigure` below.
changed=0
for f in slurm.conf gres.conf; do
  if ! cmp -s "$DIR/$f.new" "$CONF/$f"; then
    mv "$DIR/$f.new" "$CONF/$f"
    changed=1
  else
    rm -f "$DIR/$f.new"
  fi
done

# munge
if ! pgrep -u munge -x -r R,S,D,I munged >/dev/null; then
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; }
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge:munge /run/munge /var/log/munge /var/lib/munge
  runuser -u munge -- /usr/sbin/munged
fi

# mariadb for slurmdbd (sacct needs accounting)
if ! mysqladmin ping >/dev/null 2>&1; then
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  nohup mysqld_safe >"$DIR/log/mysqld.log" 2>&1 &
  for _ in $(seq 1 60); do mysqladmin ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
mysql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db"

running slurmdbd || /usr/sbin/slurmdbd
for _ in $(seq 1 60); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.5; done
sacctmgr -n list cluster format=cluster | grep -qw medalist || sacctmgr -i add cluster medalist >/dev/null

if ctld_up && [ "$changed" = 1 ]; then
  echo "slurm.conf changed: reconfiguring"
  scontrol reconfigure || true
fi
ctld_up || running slurmctld || /usr/sbin/slurmctld
running slurmd || /usr/sbin/slurmd

for _ in $(seq 1 120); do
  state=$(sinfo -h -n "$HOST" -o '%T' 2>/dev/null || true)
  case "$state" in
    idle*) break ;;
    down* | drain*) scontrol update nodename="$HOST" state=resume 2>/dev/null || true ;;
  esac
  sleep 0.5
done
state=$(sinfo -h -n "$HOST" -o '%T' 2>/dev/null || true)
case "$state" in
  idle* | mixed* | allocated*) echo "slurm cluster ready: node $HOST $state, $(sinfo -h -o '%G' | head -1)" ;;
  *)
    echo "ci-slurm: node $HOST is '$state', not idle"
    tail -20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" 2>/dev/null || true
    exit 1
    ;;
esac
