#!/bin/bash
# A one-node Slurm cluster under one directory, for the tests (run as root, with Debian's slurm-wlm and munge).
#
#   scripts/slurm-cluster.sh start DIR   munge key from /dev/urandom, munged as user munge, a generated slurm.conf
#                                        (SlurmUser=root, proctrack/linuxproc, task/none, select/cons_tres, one node
#                                        of $(nproc) CPUs, free ports), slurmctld and slurmd; waits until the node is
#                                        idle and prints the SLURM_CONF to use
#   scripts/slurm-cluster.sh stop DIR    stops the daemons started in DIR (by their pid files) and waits for them
#
# Everything (key, sockets, state, spool, logs, pid files) lives under DIR; nothing system-wide is touched.
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop_pid_file() {
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

if [ "$command" = stop ]; then
  stop_pid_file "$dir/slurmd.pid"
  stop_pid_file "$dir/slurmctld.pid"
  stop_pid_file "$dir/munge/munged.pid"
  exit 0
fi
[ "$command" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
# The daemons must hold no descriptor of the caller's beyond 0-2 (a parent waiting for a socket or pipe to close,
# as Foundation's Process does, would wait for them for ever).
for fd in $(ls /proc/$$/fd); do
  if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
[ "$(id -u)" -eq 0 ] || { echo "slurm-cluster: must run as root" >&2; exit 1; }
for tool in munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || { echo "slurm-cluster: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 0755 "$dir"
install -d -o munge -g munge -m 0711 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
chown munge:munge "$dir/munge/munge.key"
chmod 0400 "$dir/munge/munge.key"
runuser -u munge -- munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
  </dev/null >"$dir/munged.out" 2>&1 || { cat "$dir/munged.out" >&2; exit 1; }

# Two free TCP ports on 127.0.0.1.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<CONF
ClusterName=imgfetchtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
MinJobAge=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$dir/slurm.conf
# The daemons keep no descriptor of the caller's (a test reading this script's output would wait for them).
slurmctld </dev/null >"$dir/slurmctld.out" 2>&1 || { cat "$dir/slurmctld.out" >&2; exit 1; }
slurmd </dev/null >"$dir/slurmd.out" 2>&1 || { cat "$dir/slurmd.out" >&2; exit 1; }
for _ in $(seq 300); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  case "$state" in idle*|mixed*|allocated*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
  sleep 0.1
done
echo "slurm-cluster: the node did not become idle in 30 s (state: ${state:-none}); see $dir/*.log" >&2
"$0" stop "$dir"
exit 1
