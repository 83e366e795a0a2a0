#!/usr/bin/env bash
# jccl's point-to-point tools next to Open MPI's equivalents on this host, NP processes each, the same sizes, one table:
#   sendrecv_perf              vs MPI_Sendrecv (ring shift: send to rank+1, receive from rank-1)
#   alltoall_perf              vs MPI_Alltoall   (jccl's AllToAll collective)
#   alltoall_perf --p2p        vs MPI_Alltoall   (jccl's all-to-all as one group of send/recv per peer)
#   gather_perf -r 0           vs MPI_Gather  (root 0)
#   scatter_perf -r 0          vs MPI_Scatter (root 0)
# float, sizes doubling, nccl-tests' size semantics on both sides (bench/peers/coll_bench.c says which buffer the size
# is). Times are out-of-place, in us; ratio = jccl time / Open MPI time (above 1: jccl slower). The last column has
# jccl's out-of-place #wrong and Open MPI's check (ok or WRONG). The machine is shared and noisy: compare ratios within
# one run, not figures across runs.
# Needs Open MPI (installed from Debian's packages when missing, with root). Usage, from the project root:
#   bench/p2p-compare.sh [--mpi-only] [NP] [MIN_BYTES] [MAX_BYTES] [extra jccl-bench flags...]
# defaults: 4 processes, 1 KiB to 4 MiB. --mpi-only runs Open MPI's half alone (jccl's columns read '-'); a jccl tool
# that fails leaves its columns '-' too and its stderr is printed after the table.
set -euo pipefail
mpi_only=0
if [ "${1:-}" = --mpi-only ]; then mpi_only=1; shift; fi
np=${1:-4}; minb=${2:-1024}; maxb=${3:-4194304}; shift $(( $# > 3 ? 3 : $# ))
here=$(cd "$(dirname "$0")" && pwd)
src="$here/peers/coll_bench.c"; bin=/tmp/coll_bench.p2p.openmpi
if ! command -v mpicc.openmpi > /dev/null; then
  echo "installing Open MPI (openmpi-bin, libopenmpi-dev)..." >&2
  apt-get update -qq > /dev/null && apt-get install -y -qq openmpi-bin libopenmpi-dev > /dev/null
fi
if [ ! -x $bin ] || [ "$src" -nt $bin ]; then mpicc.openmpi -O3 -march=native "$src" -o $bin; fi
pin=(--bind-to core); [ "$np" -gt "$(nproc)" ] && pin=(--oversubscribe --bind-to none)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
# coll_bench's letters: s sendrecv, x alltoall, G gather, S scatter
mpirun.openmpi --allow-run-as-root "${pin[@]}" -np "$np" $bin -b "$minb" -e "$maxb" -o sxGS -r 0 > "$out/mpi"
# name (as the table prints it), then jccl-bench's tool and flags
runs=("sendrecv_perf|sendrecv_perf" "alltoall_perf|alltoall_perf" "alltoall_perf --p2p|alltoall_perf --p2p"
  "gather_perf|gather_perf -r 0" "scatter_perf|scatter_perf -r 0")
for i in "${!runs[@]}"; do
  IFS='|' read -r name tool <<< "${runs[$i]}"
  echo "$name" > "$out/name.$i"
  [ $mpi_only = 1 ] && continue
  # shellcheck disable=SC2086 # $tool is the tool and its flags, several words on purpose
  if ! "$here/jccl-bench" --nprocs "$np" $tool -b "$minb" -e "$maxb" -f 2 -d float "$@" > "$out/jccl.$i" \
      2> "$out/err.$i"; then
    echo "failed" > "$out/failed.$i"
  fi
done
python3 - "$out" "${#runs[@]}" "$np" "$here" <<'PY'
import os, sys
out, n, np_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, sys.argv[4])
from bench_tables import jccl_rows, peer_rows
# MPI-side name of each jccl tool, in coll_bench's first column
peer = {'sendrecv_perf': 'sendrecv', 'alltoall_perf': 'alltoall', 'alltoall_perf --p2p': 'alltoall',
        'gather_perf': 'gather', 'scatter_perf': 'scatter'}
mpi = peer_rows(os.path.join(out, 'mpi'))
def jccl(i):
    path = os.path.join(out, 'jccl.%d' % i)
    if not os.path.exists(path):
        return {}
    # out-of-place: the first time and #wrong columns, as nccl-tests prints them
    return {size: (us, wrong[0]) for size, (us, wrong) in jccl_rows(path).items()}
for line in open(os.path.join(out, 'mpi')):
    if line.startswith('# lib:') or line.startswith('# np='):
        print(line.rstrip())
print("# %s processes each: jccl-bench --nprocs %s vs mpirun -np %s (Open MPI, shared memory), float, out-of-place"
      % (np_, np_, np_))
print("%-20s %12s %12s %12s %8s  %s" % ("tool", "size(B)", "jccl_us", "mpi_us", "ratio", "check"))
failed = []
for i in range(n):
    name = open(os.path.join(out, 'name.%d' % i)).read().strip()
    if os.path.exists(os.path.join(out, 'failed.%d' % i)):
        failed.append((name, i))
    j = jccl(i)
    sizes = sorted({s for (op, s) in mpi if op == peer[name]} | set(j))
    for s in sizes:
        m = mpi.get((peer[name], s))
        jt = j.get(s)
        notes = []
        if jt:
            notes.append('jccl #wrong ' + jt[1])
        if m:
            notes.append('mpi ' + m[1])
        ratio = '%8.2f' % (jt[0] / m[0]) if jt and m and m[0] > 0 else '%8s' % '-'
        print("%-20s %12d %12s %12s %s  %s" % (name, s, '%.2f' % jt[0] if jt else '-', '%.2f' % m[0] if m else '-',
              ratio, ', '.join(notes)))
for name, i in failed:
    print("# jccl %s failed; its stderr ends:" % name)
    lines = open(os.path.join(out, 'err.%d' % i)).read().splitlines()
    for line in lines[-5:]:
        print("#   " + line)
PY
