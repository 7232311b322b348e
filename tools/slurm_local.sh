#!/usr/bin/env bash
# A throw-away single-node Slurm on this machine, for the sweep's Slurm test
# (docs/sweep.md "How the Slurm backend is tested"). Everything lives in DIR:
# a munge key and socket, slurm.conf, state, spool, logs and pid files; the
# daemons listen on 127.0.0.1 on ports that a system Slurm does not use.
#
#   tools/slurm_local.sh start DIR   # munged, slurmctld, slurmd; waits until the node is idle
#   tools/slurm_local.sh stop DIR    # stops what start started (by its pid files)
#
# Clients find this cluster through SLURM_CONF=DIR/slurm.conf. When Slurm
# cannot run here (packages missing, not root, a daemon that will not come
# up), `start` writes the reason to DIR/unavailable and still exits 0: the
# test that needs the cluster reads it, prints it and reports itself skipped.
set -uo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
ctld_port=${NPUVP_SLURMCTLD_PORT:-16817}
slurmd_port=${NPUVP_SLURMD_PORT:-16818}

stop_pidfile() {
  local file=$1
  [ -f "$file" ] || return 0
  local pid
  pid=$(cat "$file" 2>/dev/null)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$file"
}

stop_all() {
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munged.pid"
}

unavailable() {
  echo "$*" > "$dir/unavailable"
  echo "slurm_local: Slurm unavailable: $*" >&2
  stop_all
  exit 0
}

case "$cmd" in
stop)
  [ -d "$dir" ] && stop_all
  exit 0
  ;;
start) ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stop_all  # a previous run's daemons, if any
rm -rf "$dir/state" "$dir/spool" "$dir/unavailable" "$dir"/*.log
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || unavailable "'$tool' is not installed (Debian packages slurm-wlm and munge: tools/bootstrap.sh)"
done
[ "$(id -u)" -eq 0 ] || unavailable "slurmd must run as root to start jobs (this is uid $(id -u))"

# munge: a private key and socket (munged refuses keys and sockets that
# others could write, so DIR/munge is 0700).
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 0700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
       --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
  || unavailable "munged did not start: $(tail -n 3 "$dir/munged.log" 2>/dev/null)"

host=$(hostname -s)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
# Written by tools/slurm_local.sh: one node, this machine, for tests.
ClusterName=npuvptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=30
MaxArraySize=10001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -f "$SLURM_CONF" || unavailable "slurmctld did not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || unavailable "slurmd did not start: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)"

# Wait (at most 30 s) for the node to take jobs; a daemon that died (say,
# its port is taken) ends the wait at once.
alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
for _ in $(seq 150); do
  sleep 0.2
  for daemon in slurmctld slurmd; do
    alive "$daemon" || unavailable "$daemon exited: $(grep -i error "$dir/$daemon.log" 2>/dev/null | tail -n 2)"
  done
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
  case "$state" in
    idle*|mixed*|allocated*) echo "slurm_local: node $host $state (SLURM_CONF=$SLURM_CONF)"; exit 0 ;;
  esac
done
unavailable "the node did not become idle in 30 s (state '${state:-none}'): $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)"
