#!/usr/bin/env bash
# One task of a cuvk fleet run (started by node.sbatch through srun; runnable alone too): one
# `cuvk run` per GPU this task is given, each GPU chosen by UUID, written to
# RUNS/<node>-<uuid>.json. A GPU whose run fails gets RUNS/<node>-<uuid>.failed instead (exit
# code, last error line), which `cuvk report --fleet RUNS` lists as a failed task.
#
# Arguments: `cuvk run` options (default: the whole suite), e.g. --tests copy --n 1M.
# Environment:
#   CUVK_BIN          the cuvk binary (default: cuvk on PATH)
#   CUVK_FLEET_RUNS   the results folder (default: runs)
#   CUVK_FLEET_FORCE  1: measure again even where RUNS/<node>-<uuid>.json exists (default: skip)
#   CUVK_FLEET_NODE   the <node> of the file names (default: SLURMD_NODENAME, else hostname -s;
#                     contrib/kubernetes/ sets it to the pod's node)
#   CUVK_FLEET_UUIDS  replaces GPU discovery: UUIDs or UUID prefixes, comma- or space-separated
#                     (what the scheduler would have handed out; tests/cli/fleet_slurm.sh uses it)
#
# Which GPUs, by UUID, never by index (inside a cgroup-restricted job, index 0 is the job's first
# GPU, not the node's GPU 0):
#   1. CUVK_FLEET_UUIDS, when set;
#   2. CUDA_VISIBLE_DEVICES, when its entries are GPU-<uuid>;
#   3. nvidia-smi --query-gpu=uuid: inside a job whose devices are constrained it lists only the
#      job's GPUs;
#   4. where it lists more GPUs than CUDA_VISIBLE_DEVICES has entries (devices not constrained,
#      as with gres File= lines and no ConstrainDevices) and those entries are indices, each
#      index through `nvidia-smi --query-gpu=index,uuid` (Slurm numbers a node's GPUs as its
#      gres.conf lists the device files, nvidia0, nvidia1, ...: the driver's minor numbers, which
#      nvidia-smi's index follows);
#   5. `cuvk devices`: the CUDA devices (CUDA_VISIBLE_DEVICES applied), else the Vulkan devices
#      (e.g. lavapipe on a machine without a GPU).
# When a task sees several GPUs and its job step has several tasks (srun without
# --gpus-per-task), the node's tasks share them out: task SLURM_LOCALID takes entries
# SLURM_LOCALID, SLURM_LOCALID + SLURM_NTASKS, ... Jobs from submit.sh are one node each.
set -uo pipefail

cuvk=${CUVK_BIN:-cuvk}
runs=${CUVK_FLEET_RUNS:-runs}
node=${CUVK_FLEET_NODE:-${SLURMD_NODENAME:-$(hostname -s)}}
mkdir -p "$runs"

# UUIDs from `cuvk devices` (section "CUDA" or "Vulkan"), one a line.
cuvk_uuids() {
  "$cuvk" devices 2>/dev/null |
    awk -v s="$1 devices:" '$0 == s {on = 1; next} /^[^ ]/ {on = 0} on && $1 == "uuid" {sub(/,$/, "", $2); print $2}'
}

discover() {
  if [ -n "${CUVK_FLEET_UUIDS:-}" ]; then
    tr -s ', ' '\n' <<<"$CUVK_FLEET_UUIDS" | sed '/^$/d'
    return
  fi
  local cvd=${CUDA_VISIBLE_DEVICES:-} entries=()
  IFS=, read -r -a entries <<<"$cvd"
  if [ ${#entries[@]} -gt 0 ] && ! printf '%s\n' "${entries[@]}" | grep -qv '^GPU-'; then
    printf '%s\n' "${entries[@]}"
    return
  fi
  if command -v nvidia-smi >/dev/null; then
    local smi
    smi=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | sed '/^$/d')
    if [ -n "$smi" ] && { [ -z "$cvd" ] || [ "$(wc -l <<<"$smi")" -eq ${#entries[@]} ]; }; then
      printf '%s\n' "$smi"
      return
    fi
    if [ ${#entries[@]} -gt 0 ] && ! printf '%s\n' "${entries[@]}" | grep -qv '^[0-9]\+$'; then
      local by_index e u
      by_index=$(nvidia-smi --query-gpu=index,uuid --format=csv,noheader 2>/dev/null | tr -d ' ')
      for e in "${entries[@]}"; do
        u=$(awk -F, -v i="$e" '$1 == i {print $2}' <<<"$by_index")
        [ -n "$u" ] || { by_index=""; break; }
        printf '%s\n' "$u"
      done
      [ -z "$by_index" ] || return
    fi
  fi
  local found
  found=$(cuvk_uuids CUDA)
  [ -n "$found" ] || found=$(cuvk_uuids Vulkan)
  [ -z "$found" ] || printf '%s\n' "$found"
}

# A marker that `cuvk report --fleet` lists as a failed task.
write_failed() {  # file uuid exit_code error
  printf 'host: %s\nuuid: %s\nexit_code: %s\nerror: %s\njob: %s\ndate_utc: %s\n' \
    "$node" "$2" "$3" "$4" "${SLURM_JOB_ID:-none}.${SLURM_STEP_ID:-none} task ${SLURM_PROCID:-0}" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$1.tmp" && mv -f "$1.tmp" "$1"
}

# Measures one GPU; returns cuvk's exit code (0 also when skipped).
measure() {  # uuid cuvk-run-options...
  local uuid=$1 stem err rc
  shift
  stem="$runs/$node-$uuid"
  if [ -s "$stem.json" ] && [ "${CUVK_FLEET_FORCE:-0}" != 1 ]; then
    echo "cuvk fleet: $node $uuid: skipped, $stem.json exists (CUVK_FLEET_FORCE=1 measures again)"
    return 0
  fi
  rm -f "$stem.json"
  # Written first, so a task killed on the way (time limit, scancel, node lost) is still listed.
  write_failed "$stem.failed" "$uuid" none "started, did not finish (killed, time limit or node lost)"
  trap 'write_failed "$stem.failed" "$uuid" 143 "killed by SIGTERM (time limit or scancel)"; exit 143' TERM
  err=$(mktemp)
  echo "cuvk fleet: $node $uuid: $cuvk run --device $uuid --format json --output $stem.json $*"
  "$cuvk" run --device "$uuid" --format json --output "$stem.json" "$@" 2>"$err"
  rc=$?
  cat "$err" >&2
  trap - TERM
  # Exit 1 with a file is a result: rows that failed verification, which the report counts.
  if [ -s "$stem.json" ] && { [ $rc -eq 0 ] || [ $rc -eq 1 ]; }; then
    rm -f "$stem.failed"
  else
    local last
    last=$(sed -n 's/^error: //p' "$err" | tail -n 1)
    [ -n "$last" ] || last=$(sed '/^\s*$/d' "$err" | tail -n 1)
    write_failed "$stem.failed" "$uuid" "$rc" "${last:-exit code $rc, nothing on stderr}"
    echo "cuvk fleet: $node $uuid: FAILED (exit $rc), wrote $stem.failed" >&2
    [ $rc -ne 0 ] || rc=1
  fi
  rm -f "$err"
  return $rc
}

mapfile -t all < <(discover | tr '[:upper:]' '[:lower:]' | sed 's/^gpu-//')
if [ ${#all[@]} -eq 0 ]; then
  write_failed "$runs/$node-unknown.failed" unknown 3 "no GPU found (nvidia-smi, cuvk devices)"
  echo "cuvk fleet: $node: no GPU found" >&2
  exit 3
fi
rm -f "$runs/$node-unknown.failed"  # a stale node-level marker of an earlier fleet run
mine=("${all[@]}")
ntasks=${SLURM_NTASKS:-1} me=${SLURM_LOCALID:-0}
if [ ${#all[@]} -gt 1 ] && [ "$ntasks" -gt 1 ]; then
  mine=()
  for ((i = me; i < ${#all[@]}; i += ntasks)); do mine+=("${all[i]}"); done
fi
echo "cuvk fleet: $node: task ${SLURM_PROCID:-0} of $ntasks, CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}: GPUs ${mine[*]}"
status=0
for uuid in "${mine[@]}"; do
  measure "$uuid" "$@" || status=$?
done
exit $status
