#!/usr/bin/env bash
# A real single-node Slurm cluster in a folder, for tests/cli/test_cli_batch_slurm:
# munged, slurmctld and slurmd on this machine, with their own key, sockets, ports, state
# and logs under DIR (nothing in /etc, /run or /var is used or changed).
#   single_node_slurm.sh start DIR   starts them; prints SLURM_CONF=DIR/slurm.conf once the
#                                    node is idle (60 s at most)
#   single_node_slurm.sh stop DIR    stops them
# Needs Debian's munge, slurmctld, slurmd and slurm-client. Runs as any user: the daemons
# and the jobs run as the calling user.
set -euo pipefail
action="${1:?usage: single_node_slurm.sh start|stop DIR}"
dir="$(cd "${2:?usage: single_node_slurm.sh start|stop DIR}" && pwd)"
conf="$dir/slurm.conf"

stop() {
  SLURM_CONF="$conf" scontrol shutdown > /dev/null 2>&1 || true
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [[ -f "$pidfile" ]] && kill "$(cat "$pidfile")" 2> /dev/null || true
  done
}

if [[ "$action" == stop ]]; then
  stop
  exit 0
fi

mkdir -p "$dir/munge" "$dir/spool" "$dir/state" "$dir/log"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"

# Ports of our own, away from a system Slurm's 6817/6818.
base=$((20000 + $$ % 20000))
user="$(id -un)"
node="$(hostname -s)"
cat > "$conf" <<CONF
ClusterName=skytrace-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"
slurmctld -f "$conf"
slurmd -f "$conf"
for _ in $(seq 120); do
  if [[ "$(sinfo -h -o %T 2> /dev/null)" == idle ]]; then
    echo "SLURM_CONF=$conf"
    exit 0
  fi
  sleep 0.5
done
echo "single_node_slurm.sh: the node did not become idle; logs in $dir/log" >&2
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
stop
exit 1
