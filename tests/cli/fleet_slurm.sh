#!/usr/bin/env bash
# The shipped Slurm fleet job (contrib/slurm/) on a real, private, single-node Slurm: installs what
# is missing (slurmctld, slurmd, slurm-client, munge), starts munged, slurmctld and slurmd as root
# on localhost with every file in a temporary folder (own munge key and socket, own ports), submits
# contrib/slurm/submit.sh to measure lavapipe in four tasks, one made to fail (a UUID that matches
# no device), waits (bounded), checks the merged fleet table (Markdown and JSON), submits again to
# check that finished runs are skipped and that --force measures again, and tears everything down
# on any exit, leaving no daemon. Needs root and the cuvk binary: CUVK_BIN, default build/cuvk.
#   bash tests/cli/fleet_slurm.sh            (CUVK_FLEET_TEST_TIMEOUT: seconds per job, default 180)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
cuvk=${CUVK_BIN:-build/cuvk}
case $cuvk in /*) ;; *) cuvk=$repo/$cuvk ;; esac
limit=${CUVK_FLEET_TEST_TIMEOUT:-180}
say() { echo "fleet_slurm: $*"; }
die() { echo "fleet_slurm: FAILED: $*" >&2; exit 1; }

[ -x "$cuvk" ] || die "no cuvk binary at $cuvk (build it first, or set CUVK_BIN)"
[ "$(id -u)" -eq 0 ] || die "needs root: slurmd starts jobs as any user only as root"

install_missing() {
  local need=() p guard=""
  for p in slurmctld slurmd slurm-client munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
  done
  [ ${#need[@]} -gt 0 ] || return 0
  say "installing ${need[*]}"
  # The packages start their services on install; a private Slurm is started here instead.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    guard=1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
    </dev/null >/dev/null
  [ -z "$guard" ] || rm -f /usr/sbin/policy-rc.d
}
install_missing

tmp=$(mktemp -d /tmp/cuvk-fleet-slurm.XXXXXX)
chmod 755 "$tmp"  # munged wants every folder above its socket searchable by all
export SLURM_CONF=$tmp/slurm.conf  # every Slurm client here
torn_down=""

# Our processes: the daemons carry CUVK_FLEET_TEST=$tmp in their environment; slurmstepd (which
# slurmd starts with an environment of its own) has its log or working folder in $tmp; the jobs'
# processes carry this script's SLURM_CONF and a SLURM_JOB_ID.
ours() {
  local e env
  {
    find /proc/[0-9]*/fd /proc/[0-9]*/cwd -maxdepth 1 \( -lname "$tmp" -o -lname "$tmp/*" \) \
      2>/dev/null | cut -d/ -f3
    for e in /proc/[0-9]*/environ; do
      env=$({ tr '\0' '\n' <"$e"; } 2>/dev/null) || continue
      if grep -qxF "CUVK_FLEET_TEST=$tmp" <<<"$env" ||
        { grep -qxF "SLURM_CONF=$SLURM_CONF" <<<"$env" && grep -q '^SLURM_JOB_ID=' <<<"$env"; }; then
        e=${e#/proc/}
        echo "${e%/environ}"
      fi
    done
  } | sort -u | grep -vx "$$" || true
}

stop_pid() {  # pid: TERM, up to 20 s, then KILL
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

teardown() {
  [ -z "$torn_down" ] || return 0
  torn_down=1
  set +e
  if [ -s "$tmp/slurmctld.pid" ]; then
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
    for ((i = 0; i < 100; i++)); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  local f pid
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    [ -s "$tmp/$f" ] && stop_pid "$(cat "$tmp/$f")"
  done
  for pid in $(ours); do stop_pid "$pid"; done  # e.g. a slurmstepd or a job still running
  rm -rf "$tmp"
  set -e
}

on_exit() {
  local rc=$?
  if [ $rc -ne 0 ] && [ -d "$tmp" ]; then
    for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/munge/munged.log "$tmp"/runs/logs/*; do
      [ -f "$f" ] && { echo "---- $f (last lines)" >&2; tail -n 25 "$f" >&2; }
    done
  fi
  teardown
  exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# Two free TCP ports next to each other (nothing answers on them).
free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=$((20000 + RANDOM % 20000))
until free "$port" && free $((port + 1)); do port=$((20000 + RANDOM % 20000)); done

wait_for() {  # seconds what command...: until the command succeeds
  local secs=$1 what=$2 i
  shift 2
  for ((i = 0; i < secs * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "$what: not after ${secs} s"
}

start_daemons() {
  mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/runs"
  chmod 755 "$tmp/munge"
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$tmp/munge/munge.key"
  CUVK_FLEET_TEST=$tmp munged --socket="$tmp/munge/munge.socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
    --seed-file="$tmp/munge/munged.seed"
  wait_for 30 "munged" test -s "$tmp/munge/munged.pid"
  cat >"$SLURM_CONF" <<EOF
ClusterName=cuvkfleettest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
KillWait=5
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=4 Gres=gpu:4 State=UNKNOWN
PartitionName=fleet Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  # Four fake GPUs: gres device files, character devices with /dev/null's numbers (Slurm ignores
  # plain files; nothing constrains devices here), so Slurm hands out their indices in
  # CUDA_VISIBLE_DEVICES, as on a node whose devices it does not constrain; the stand-in
  # nvidia-smi below gives each index a UUID.
  mkdir -p "$tmp/dev"
  for i in 0 1 2 3; do mknod "$tmp/dev/nvidia$i" c 1 3 || die "mknod (fake gres device files)"; done
  printf 'AutoDetect=off\nNodeName=localhost Name=gpu File=%s/dev/nvidia[0-3]\n' "$tmp" >"$tmp/gres.conf"
  CUVK_FLEET_TEST=$tmp slurmctld -f "$SLURM_CONF"
  wait_for 30 "slurmctld" test -s "$tmp/slurmctld.pid"
  CUVK_FLEET_TEST=$tmp slurmd -f "$SLURM_CONF" -N localhost
  wait_for 30 "slurmd" test -s "$tmp/slurmd.pid"
  # shellcheck disable=SC2016 # expanded by the inner bash
  wait_for 60 "node localhost idle" bash -c '[ "$(sinfo -h -n localhost -o %t)" = idle ]'
}

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }

wait_job() {  # job id: until it has ended; prints its state
  local i s
  for ((i = 0; i < limit * 2; i++)); do
    s=$(job_state "$1")
    case $s in PENDING | RUNNING | CONFIGURING | COMPLETING | "") sleep 0.5 ;; *) echo "$s"; return ;; esac
  done
  die "job $1 still ${s:-unknown} after ${limit} s"
}

submit() {  # submit.sh arguments: prints the node job's and the merge job's states
  local out merge node
  out=$(contrib/slurm/submit.sh --runs "$runs" --nodes localhost --time 10:00 "$@" -- "${cuvk_opts[@]}")
  echo "$out" >&2
  node=$(sed -n 's/^node job: \([0-9]*\).*/\1/p' <<<"$out")
  merge=$(sed -n 's/^merge job: //p' <<<"$out")
  { [ -n "$node" ] && [ -n "$merge" ]; } || die "submit.sh printed no job ids"
  echo "$(wait_job "$merge") $(job_state "$node")"
}

check() {  # file text...: the file contains every text
  local f=$1
  shift
  for t in "$@"; do grep -qF -- "$t" "$f" || die "$f lacks: $t"; done
}

start_daemons
say "Slurm $(sinfo -V | awk '{print $2}') on localhost, ports $port-$((port + 1)), in $tmp"

export CUVK_BIN=$cuvk
lavapipe=$("$cuvk" devices | awk '$1 == "uuid" {sub(/,$/, "", $2); print $2; exit}')
[ -n "$lavapipe" ] || die "cuvk devices lists no Vulkan device (lavapipe missing?)"
bad=ffffffff-0000-4000-8000-00000000dead
# lavapipe has one UUID: each task gets another spelling of it (whole, first group, no dashes),
# all valid --device values, so each writes its own file; the fourth matches no device.
uuids=("$lavapipe" "${lavapipe%%-*}" "${lavapipe//-/}" "$bad")
export CUVK_FLEET_UUIDS="${uuids[*]}"
cuvk_opts=(--api vulkan --tests copy --n 64k --max-time 0.05 --settle-ms 20)
runs=$tmp/runs

# 1. Four tasks, one fails: three runs merged, the failure listed.
read -r merge_state node_state < <(submit)
[ "$merge_state" = COMPLETED ] || die "merge job ended $merge_state"
[ "$node_state" = FAILED ] || die "the node job (one task failing) ended $node_state, not FAILED"
for u in "${uuids[@]:0:3}"; do [ -s "$runs/localhost-$u.json" ] || die "no $runs/localhost-$u.json"; done
check "$runs/localhost-$bad.failed" "uuid: $bad" "exit_code: 2" "no CUDA or Vulkan device has a UUID"
check "$runs/fleet.md" "## Fleet: 3 run(s), 1 failed task(s), tolerance 3%" \
  "| localhost-$bad.failed | localhost | $bad |" "## Merged tables" "- **C**: " \
  "### Boards against their siblings"
grep -qE '^\| llvmpipe[^|]*\| - +\| llvmpipe Mesa[^|]*\| +3 \|' "$runs/fleet.md" ||
  die "fleet.md: no verdict-count row for lavapipe with 3 boards"
check "$runs/fleet.json" '"schema": "cuvk.fleet/1"' "\"task\": \"localhost-$bad.failed\"" \
  '"schema": "cuvk.report/1"'
[ "$(grep -c '"flag": ' "$runs/fleet.json")" -eq 3 ] || die "fleet.json: not 3 boards"
echo "---- fleet.md (excerpt)"
sed -n '1,/^## Merged tables/p' "$runs/fleet.md" | sed '$d'

# 2. Again: the three finished runs are skipped, the failing task fails again.
sums=$(cd "$runs" && md5sum localhost-*.json)
read -r merge_state node_state < <(submit)
[ "$merge_state" = COMPLETED ] || die "second merge job ended $merge_state"
[ "$sums" = "$(cd "$runs" && md5sum localhost-*.json)" ] || die "the rerun rewrote finished runs"
skipped=$(cat "$runs"/logs/*.out | grep -c ': skipped, ') || true
[ "$skipped" -eq 3 ] || die "the rerun skipped $skipped finished runs, not 3"
check "$runs/fleet.md" "## Fleet: 3 run(s), 1 failed task(s)"

# 3. --force measures a finished run again.
before=$(md5sum <"$runs/localhost-$lavapipe.json")
export CUVK_FLEET_UUIDS=$lavapipe
read -r merge_state node_state < <(submit --force)
[ "$node_state" = COMPLETED ] || die "the --force node job ended $node_state"
[ "$before" != "$(md5sum <"$runs/localhost-$lavapipe.json")" ] || die "--force did not measure again"

# 4. The node's own GPUs, as Slurm hands them out: no CUVK_FLEET_UUIDS; the node's gres (gpu:4)
# gives one task per GPU, each with one index in CUDA_VISIBLE_DEVICES, which task.sh maps to a
# UUID through a stand-in nvidia-smi (four spellings of lavapipe's UUID, so that each runs).
unset CUVK_FLEET_UUIDS
mkdir -p "$tmp/bin"
gpus=("$lavapipe" "${lavapipe%%-*}" "${lavapipe//-/}" "$(cut -d- -f1-2 <<<"$lavapipe")")
{
  echo '#!/bin/sh'
  echo 'case "$*" in'
  echo "  *index,uuid*) printf '0, GPU-${gpus[0]}\\n1, GPU-${gpus[1]}\\n2, GPU-${gpus[2]}\\n3, GPU-${gpus[3]}\\n' ;;"
  echo "  *uuid*) printf 'GPU-${gpus[0]}\\nGPU-${gpus[1]}\\nGPU-${gpus[2]}\\nGPU-${gpus[3]}\\n' ;;"
  echo '  *) exit 6 ;;'
  echo 'esac'
} >"$tmp/bin/nvidia-smi"
chmod +x "$tmp/bin/nvidia-smi"
export PATH=$tmp/bin:$PATH
rm -f "$runs"/logs/*.out
read -r merge_state node_state < <(submit --force)
[ "$node_state" = COMPLETED ] || die "the per-GPU node job ended $node_state"
for i in 0 1 2 3; do
  grep -qE "^cuvk fleet: localhost: task [0-3] of 4, CUDA_VISIBLE_DEVICES=$i: GPUs ${gpus[i]}\$" "$runs"/logs/*.out ||
    die "no task was given GPU $i alone as ${gpus[i]} (per GPU, gres gpu:4): $(grep -h ': task ' "$runs"/logs/*.out)"
  [ -s "$runs/localhost-${gpus[i]}.json" ] || die "no run file for GPU $i (${gpus[i]})"
done
# 5. The per-node form: one task holding the node's four GPUs measures them in turn.
rm -f "$runs"/logs/*.out
read -r merge_state node_state < <(submit --force --per-node)
[ "$node_state" = COMPLETED ] || die "the per-node job ended $node_state"
grep -qE "^cuvk fleet: localhost: task 0 of 1, CUDA_VISIBLE_DEVICES=0,1,2,3: GPUs ${gpus[*]}\$" "$runs"/logs/*.out ||
  die "the per-node task was not given the node's four GPUs: $(grep -h ': task ' "$runs"/logs/*.out)"
[ "$(cat "$runs"/logs/*.out | grep -c ' run --device ')" -eq 4 ] || die "the per-node task did not run 4 times"

teardown
left=$(ours)
[ -z "$left" ] || die "processes left behind: $left"
for d in munged slurmctld slurmd; do
  pgrep -x "$d" >/dev/null && say "note: a $d not started here is running (left alone)"
done
say "passed: private Slurm $(slurmctld -V | awk '{print $2}') (munge, slurmctld, slurmd, 4 CPUs)" \
  "ran contrib/slurm/submit.sh: 4 lavapipe tasks, 3 runs merged, 1 failed task listed (exit 2)," \
  "fleet.md and fleet.json checked; rerun skipped 3 finished runs, --force re-measured;" \
  "gres gpu:4 mapped per GPU (CUDA_VISIBLE_DEVICES=i -> UUID i) and per node (one task, 4 GPUs);" \
  "daemons stopped, none left"
