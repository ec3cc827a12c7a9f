#!/usr/bin/env bash
# A single-node Slurm on loopback (configuration, state and logs in a temporary folder,
# AuthType=auth/none), a 4-task array of scripts/slurm/tailor-batch.sbatch over the shared
# cases, and the check: every output exists once and matches a serial `tailor batch` bit for
# bit, and the shards' journals hold the serial run's records. Kills every daemon it started.
#   tests/slurm_batch.sh TAILOR SHARED_DIR
# Needs slurm-wlm (scripts/setup.sh) and root (slurmd runs jobs as their user).
set -euo pipefail
tailor=$(realpath "$1")
cases=$(realpath "${TL_SHARED_DIR:-$2}")/cases
here=$(cd "$(dirname "$0")/.." && pwd)
for c in slurmctld slurmd sbatch sinfo squeue; do
    command -v $c >/dev/null || { echo "slurm_batch: $c missing (scripts/setup.sh installs slurm-wlm)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm_batch: needs root (slurmd)" >&2; exit 1; }

T=$(mktemp -d /tmp/tailor-slurm.XXXXXX)
chmod 755 "$T"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    rm -rf "$T"
}
trap cleanup EXIT

# two free loopback ports
read -r ctld_port d_port < <(python3 -c '
import socket
s=[socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1",0))
print(*[x.getsockname()[1] for x in s])')
cpus=$(nproc)
mkdir -p "$T/state" "$T/spool" "$T/out"
cat > "$T/slurm.conf" <<CONF
ClusterName=tailortest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName=tailornode NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus State=UNKNOWN
PartitionName=tailor Nodes=tailornode Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf

# the serial run the array must reproduce
"$tailor" batch "$cases" -o "$T/serial" -j 1 -q || [ $? = 1 ]

slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.stdout" 2>&1 &
pids+=($!)
slurmd -D -N tailornode -f "$SLURM_CONF" >"$T/slurmd.stdout" 2>&1 &
pids+=($!)

fail() {
    echo "slurm_batch: $*" >&2
    for f in slurmctld.log slurmd.log slurmctld.stdout slurmd.stdout; do
        [ -f "$T/$f" ] && { echo "--- $f" >&2; tail -n 30 "$T/$f" >&2; }
    done
    ls "$T/out" >&2 || true
    cat "$T"/out/*.out >&2 2>/dev/null || true
    exit 1
}
ready=0
for _ in $(seq 120); do
    state=$(sinfo -h -n tailornode -o %T 2>/dev/null || true)
    [ "$state" = idle ] && { ready=1; break; }
    sleep 0.5
done
[ $ready = 1 ] || fail "the node did not come up (state: ${state:-none})"

cd "$T/out"
TAILOR="$tailor" timeout 300 sbatch --wait --array=0-3 --chdir="$T/out" \
    "$here/scripts/slurm/tailor-batch.sbatch" "$cases" "$T/slurm" >"$T/sbatch.txt" 2>&1 ||
    rc=$?
rc=${rc:-0}
# exit 1 from a task means a file failed, as in the serial run; anything else is an error
serial_failed=$(grep -c '"ok":false' "$T/serial/batch.jsonl" || true)
if [ "$rc" != 0 ] && [ "$serial_failed" = 0 ]; then fail "sbatch --wait: exit $rc: $(cat "$T/sbatch.txt")"; fi

# every output once, bit for bit the serial run's
n=0
while IFS= read -r -d '' f; do
    rel=${f#"$T/serial/"}
    cmp -s "$f" "$T/slurm/$rel" || fail "$rel differs from the serial run (or is missing)"
    n=$((n + 1))
done < <(find "$T/serial" -type f ! -name '*.jsonl' -print0)
extra=$(cd "$T/slurm" && find . -type f ! -name 'batch-*-of-4.jsonl' | sed 's|^\./||' | sort)
expected=$(cd "$T/serial" && find . -type f ! -name '*.jsonl' | sed 's|^\./||' | sort)
[ "$extra" = "$expected" ] || fail "the array's files are not the serial run's: $extra"
[ "$(ls "$T/slurm"/batch-*-of-4.jsonl | wc -l)" = 4 ] || fail "not 4 shard journals"
# the shards' records, concatenated, are the serial run's (without the seconds field)
strip() { sed 's/,"seconds":[^,}]*}$/}/' | sort; }
diff <(cat "$T/slurm"/batch-*-of-4.jsonl | strip) <(strip < "$T/serial/batch.jsonl") >/dev/null ||
    fail "the shards' records differ from the serial run's"
[ "$n" -gt 0 ] || fail "no outputs"
echo "slurm_batch: 4 array tasks wrote $n outputs, identical to the serial run; $(wc -l < "$T/serial/batch.jsonl") records"
