#!/usr/bin/env bash
# Submits a cuvk fleet run to Slurm: one job per node (one task per GPU, each GPU by UUID, one
# RUNS/<node>-<uuid>.json each), then a merge job that runs after all of them however they ended
# (--dependency=afterany) and writes RUNS/fleet.md and RUNS/fleet.json with `cuvk report --fleet`.
# One job per node, not a job array with one GPU per task: array tasks are placed by the scheduler,
# so two tasks may land on the same GPU and another GPU go unmeasured; a node's srun tasks with
# --gpus-per-task=1 get distinct GPUs, and nodes need not be free at the same time.
#
#   contrib/slurm/submit.sh [--runs DIR] [--nodes A,B,...] [--partition P] [--time T] [--force]
#                           [--per-node] [--sbatch "EXTRA OPTIONS"] [--] [cuvk run options]
#
#   --runs DIR       results folder, shared by the nodes (default: runs)
#   --nodes LIST     nodes to measure (default: every node `sinfo` lists, in the partition if given)
#   --partition P    sbatch --partition
#   --time T         sbatch --time for each node job (default 1:00:00)
#   --force          measure again GPUs whose RUNS/<node>-<uuid>.json exists (default: skip them)
#   --per-node       one task per node holding all its GPUs (--gres=gpu:N), measuring them in
#                    turn; default: one task per GPU (--gpus-per-task=1), all at once
#   --sbatch OPTS    more sbatch options for every job (word-split), e.g. "--account=qa"
#   cuvk run options default to the whole suite.
# Environment: CUVK_BIN (the cuvk binary every node runs, default: cuvk on PATH), CUVK_FLEET_UUIDS
# (replaces GPU discovery, see task.sh). Prints the job ids; its last line is `merge job: ID`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=runs nodes="" partition="" time_limit=1:00:00 extra="" per_node_form=""
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --partition) partition=$2; shift 2 ;;
    --time) time_limit=$2; shift 2 ;;
    --force) export CUVK_FLEET_FORCE=1; shift ;;
    --per-node) per_node_form=1; shift ;;
    --sbatch) extra=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done

mkdir -p "$runs/logs"
runs=$(cd "$runs" && pwd)
cuvk=${CUVK_BIN:-cuvk}
case $cuvk in */*) cuvk=$(cd "$(dirname "$cuvk")" && pwd)/$(basename "$cuvk") ;; esac
common=(--parsable --output="$runs/logs/%x-%N-%j.out" --time="$time_limit")
[ -z "$partition" ] || common+=(--partition="$partition")
# shellcheck disable=SC2206
[ -z "$extra" ] || common+=($extra)
if [ -z "$nodes" ]; then
  nodes=$(sinfo -h -N -o %N ${partition:+-p "$partition"} | sort -u | tr '\n' ' ')
fi
nodes=$(tr ',' ' ' <<<"$nodes")
[ -n "${nodes// /}" ] || { echo "submit.sh: no nodes (sinfo listed none; give --nodes)" >&2; exit 2; }

# GPUs of a node from its GRES, e.g. gpu:h100:8(S:0-1) -> 8; 0 when it has none.
node_gpus() {
  sinfo -h -N -n "$1" -o %G | tr ',' '\n' | sed -n 's/^gpu:\([^(]*:\)\{0,1\}\([0-9]\+\).*/\2/p' |
    awk '{s += $1} END {print s + 0}'
}

export CUVK_BIN=$cuvk CUVK_FLEET_RUNS=$runs CUVK_FLEET_DIR=$here CUVK_FLEET_NODES=$nodes
ids=()
for node in $nodes; do
  per_node=()
  if [ -n "${CUVK_FLEET_UUIDS:-}" ]; then  # a given list: one task per entry
    tasks=$(tr -s ', ' '\n' <<<"$CUVK_FLEET_UUIDS" | sed '/^$/d' | wc -l)
  else
    tasks=$(node_gpus "$node")
    if [ "$tasks" -gt 0 ] && [ -n "$per_node_form" ]; then
      per_node=(--gres="gpu:$tasks")  # one task, every GPU of the node: CUDA_VISIBLE_DEVICES lists them
      tasks=1
    elif [ "$tasks" -gt 0 ]; then
      per_node=(--gpus-per-task=1)
    else
      tasks=1
    fi
  fi
  id=$(sbatch "${common[@]}" --nodelist="$node" --ntasks="$tasks" --exclusive "${per_node[@]}" \
    "$here/node.sbatch" "$@")
  echo "node job: $id ($node, $tasks task(s))"
  ids+=("$id")
done
deps=$(IFS=:; echo "${ids[*]}")
merge=$(sbatch "${common[@]}" --dependency="afterany:$deps" "$here/merge.sbatch")
echo "results: $runs/fleet.md and $runs/fleet.json when the merge job ends"
echo "merge job: $merge"
