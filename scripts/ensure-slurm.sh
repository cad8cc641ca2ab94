#!/usr/bin/env bash
# A single-node Slurm cluster (node "localhost", partition "debug") for the Slurm executor's tests
# (packages/server/src/scheduler/executors/slurm.executor.test.ts): installs Debian's slurmctld,
# slurmd, slurm-client and munge when missing, writes /etc/slurm/slurm.conf for this machine's cores
# and memory, starts munged, slurmctld and slurmd when they are not running (there is no systemd),
# and waits until the node takes jobs. Safe to run again: when everything is up it only checks.
# See docs/OPERATIONS.md ("Slurm") and ../shared/reference/machine-notes.md §1.
set -euo pipefail

log() { echo "ensure-slurm: $*" >&2; }
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if [ "$(id -u)" -ne 0 ]; then
  if command -v sbatch >/dev/null && sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mix|alloc'; then exit 0; fi
  log "Slurm is not installed or not running and this is not root; run this script as root"
  exit 1
fi

# 1. Packages (about 7 s from the Debian mirror; --no-install-recommends keeps GTK's sview out).
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  log "installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  packages=(slurmctld slurmd slurm-client munge)
  apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null 2>&1 || {
    apt-get update >/dev/null 2>&1
    apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null
  }
fi

# 2. Configuration for this machine. RealMemory must not exceed what slurmd detects (or the node
# drains): 90% of it, rounded down to 512 MB, so that it stays the same from one run to the next.
# SLURM_NODE_CPUS=16 pretends the node has more cores than it has (slurmd's config_overrides), so that
# suites whose jobs ask for more cores than the machine has in all (instance types of 2 cores, several
# jobs at once) run them side by side, as the local executor's tests do with a capacity of 16 cores.
cpus=$(nproc)
overrides=""
if [ -n "${SLURM_NODE_CPUS:-}" ] && [ "$SLURM_NODE_CPUS" -gt "$cpus" ]; then
  cpus=$SLURM_NODE_CPUS
  overrides="SlurmdParameters=config_overrides"
fi
detected=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -n1)
if [ -z "$detected" ]; then detected=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024)); fi
memory=$((detected * 9 / 10 / 512 * 512))
if [ "$memory" -lt 512 ]; then memory=$detected; fi

conf=$(
  cat <<EOF
# Written by scripts/ensure-slurm.sh (Panx): a single-node cluster for tests. Rewritten when it differs.
ClusterName=localcluster
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
ReturnToService=2
MinJobAge=86400
KillWait=10
MailProg=/bin/true
$overrides
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
chown munge:munge /run/munge
changed=0
if [ ! -f /etc/slurm/slurm.conf ] || [ "$(cat /etc/slurm/slurm.conf)" != "$conf" ]; then
  printf '%s\n' "$conf" >/etc/slurm/slurm.conf.tmp && mv -f /etc/slurm/slurm.conf.tmp /etc/slurm/slurm.conf
  changed=1
  log "wrote /etc/slurm/slurm.conf (CPUs=$cpus RealMemory=$memory)"
fi

# 3. Daemons. A changed node definition needs both Slurm daemons restarted.
stop() {
  local pidfile=$1 i
  if alive "$pidfile"; then
    kill "$(cat "$pidfile")" 2>/dev/null || true
    for i in $(seq 50); do alive "$pidfile" || break; sleep 0.1; done
  fi
}
if [ "$changed" = 1 ]; then
  stop /run/slurmd.pid
  stop /run/slurmctld.pid
fi

if [ ! -s /etc/munge/munge.key ]; then
  log "creating the munge key"
  if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key; else /usr/sbin/create-munge-key -f; fi
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
fi
if ! alive /run/munge/munged.pid; then
  log "starting munged"
  rm -f /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged
fi
if ! alive /run/slurmctld.pid; then
  log "starting slurmctld"
  slurmctld
fi
if ! alive /run/slurmd.pid; then
  log "starting slurmd"
  slurmd -N localhost # -N: the NodeName of slurm.conf, whatever $(hostname) is
fi

# 4. Wait until the node takes jobs; resume it if it was drained (after a restart with running jobs, say).
resumed=0
for i in $(seq 150); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null | head -n1 || true)
  case "$state" in
  idle | mixed | allocated | completing) exit 0 ;;
  drained* | draining* | down | drain*)
    if [ "$resumed" = 0 ]; then
      log "node is $state: resuming it"
      scontrol update nodename=localhost state=resume || true
      resumed=1
    fi
    ;;
  esac
  sleep 0.2
done
log "the node did not become idle within 30 s (state: ${state:-no answer}); see /var/log/slurm/slurmctld.log and slurmd.log"
exit 1
