#!/usr/bin/env bash
# Start a single-node SLURM cluster on this machine (root; Debian's slurm-wlm and munge):
# slurmctld + slurmd on localhost, proctrack/linuxproc, task/none, no cgroup.conf, no accounting
# (job status comes from squeue; MinJobAge keeps finished jobs visible). Up to four jobs share a core
# (OverSubscribe=FORCE:4): the small jobs of a test run at once, as on a cluster with more cores than the jobs, instead
# of two at a time (the executor plugin checks job status every ~12 s, so each wave of jobs costs that much). Idempotent:
# daemons started with another configuration (an earlier version of this script) are restarted.
# Usage: tests/slurm/start_cluster.sh [--install]
set -euo pipefail
if [ "${1:-}" = "--install" ] && ! command -v slurmctld > /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge > /dev/null
fi
command -v slurmctld > /dev/null || { echo "slurm-wlm is not installed (use --install)" >&2; exit 1; }
# The daemons started below outlive this script: they must not inherit the caller's open files beyond stdio (a
# `flock` lock would stay held by munged for as long as it runs; a pipe would never see its end). 255 is bash's own
# descriptor for this script.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then eval "exec $fd>&-" 2> /dev/null || true; fi
done

node=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
conf=/etc/slurm/slurm.conf
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
old_conf=$(cat "$conf" 2> /dev/null || true)
cat > "$conf" <<CONF
ClusterName=lsadyn
SlurmctldHost=$node(127.0.0.1)
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=86400
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
rm -f /etc/slurm/cgroup.conf

if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2> /dev/null
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2> /dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged > /dev/null || su -s /bin/sh munge -c "munged" || munged --force
running() {  # the daemon of pid file $1 is running (zombies of exited daemons do not count)
    local pid
    pid=$(cat "$1" 2> /dev/null) || return 1
    [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] && [ "$(cut -d' ' -f3 "/proc/$pid/stat")" != Z ]
}
if [ "$old_conf" != "$(cat "$conf")" ]; then  # daemons started with another configuration: restart them
    for pidfile in /run/slurmctld.pid /run/slurmd.pid; do
        if running "$pidfile"; then
            kill "$(cat "$pidfile")"
            for _ in $(seq 1 100); do running "$pidfile" || break; sleep 0.1; done
            ! running "$pidfile" || kill -9 "$(cat "$pidfile")"
        fi
    done
fi
running /run/slurmctld.pid || slurmctld
running /run/slurmd.pid || slurmd
for _ in $(seq 1 30); do
    if sinfo -h -o "%t" 2> /dev/null | grep -qE "idle|mix|alloc"; then
        sinfo
        exit 0
    fi
    scontrol update nodename="$node" state=resume > /dev/null 2>&1 || true
    sleep 1
done
echo "SLURM did not come up; see /var/log/slurm" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
