#!/usr/bin/env bash
# jccl's processes next to Open MPI's on this host, in alternating rounds: Open MPI (shared memory, NP processes bound
# to cores), then jccl-bench --nprocs NP, then Open MPI again, and so on. This machine's small-message latency moves
# between two levels about 2x apart every few seconds, for Open MPI as much as for jccl, so one run of each compares
# whichever levels they happened to meet: each round's pair ran seconds apart, and the medians over rounds say more.
# The two levels are where the host put the two vCPUs: on cores sharing a cache (a cache line passes in about 50 ns)
# or apart (about 220 ns). bench/handoff-probe.c measures that before and after every run; each cell is tagged n
# (near: every probe around the run under 120 ns), a (apart: every probe over it) or m (mixed), and the last lines
# give the medians of the rounds whose two runs both met the same placement. With 2 ranks each round also runs
# jccl-bench floor (two processes, or two threads with --threads): what one flag exchange and the sum cost, no library.
# Needs Open MPI (installed from Debian's packages when missing, with root); builds bench/peers/coll_bench.c. With
# --threads first, jccl runs NP in-process ranks with a thread each (-t NP) against Open MPI's NP processes. Usage,
# from the project root:
#   bench/procs-compare.sh [--threads] [ROUNDS] [NP] [MIN_BYTES] [MAX_BYTES] [extra jccl-bench flags...]
# defaults: 5 rounds, 2 processes, 8 B to 1 KiB, AllReduce float sum; jccl runs -n 20000 unless the flags say -n.
set -euo pipefail
launch=--nprocs; [ "${1:-}" = --threads ] && { launch=-t; shift; }
rounds=${1:-5}; np=${2:-2}; minb=${3:-8}; maxb=${4:-1024}; shift $(( $# > 4 ? 4 : $# ))
here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
src="$root/bench/peers/coll_bench.c"; bin=/tmp/coll_bench.openmpi
if ! command -v mpicc.openmpi > /dev/null; then
  apt-get update -qq > /dev/null && apt-get install -y -qq openmpi-bin libopenmpi-dev > /dev/null
fi
if [ ! -x $bin ] || [ "$src" -nt $bin ]; then mpicc.openmpi -O3 -march=native "$src" -o $bin; fi
probe="$here/handoff-probe"
iters=(-n 20000); for a in "$@"; do [ "$a" = -n ] && iters=(); done
pin=(--bind-to core); [ "$np" -gt "$(nproc)" ] && pin=(--oversubscribe --bind-to none)
floor=(--procs); [ "$launch" = -t ] && floor=()
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
  $probe > "$out/probe.$r.0"
  mpirun.openmpi --allow-run-as-root "${pin[@]}" -np "$np" $bin -b "$minb" -e "$maxb" -o a > "$out/mpi.$r"
  $probe > "$out/probe.$r.1"
  "$here/jccl-bench" all_reduce_perf "$launch" "$np" -b "$minb" -e "$maxb" -f 2 -d float -o sum "${iters[@]}" "$@" \
    > "$out/jccl.$r"
  $probe > "$out/probe.$r.2"
  if [ "$np" = 2 ]; then
    "$here/jccl-bench" floor "${floor[@]}" -n 200000 --rounds 3 > "$out/floor.$r"
    $probe > "$out/probe.$r.3"
  fi
done
python3 - "$out" "$rounds" "$np" "$here" "$launch" <<'PY'
import statistics, sys
out, rounds, np_, launch = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[5]
sys.path.insert(0, sys.argv[4])
from bench_tables import jccl_rows, peer_rows, placement
def mpi(path):
    return {size: us for (_, size), (us, _) in peer_rows(path).items()}
def jccl(path):
    # out-of-place time, as Open MPI's
    rows = {size: us for size, (us, _) in jccl_rows(path).items()}
    if not rows:
        sys.exit("could not read jccl's table; its output was:\n" + open(path).read())
    return rows
pairs = [(mpi('%s/mpi.%d' % (out, r)), jccl('%s/jccl.%d' % (out, r))) for r in range(1, rounds + 1)]
def probe(r, i):
    return float(open('%s/probe.%d.%d' % (out, r, i)).read())
# per round: (Open MPI's placement, jccl's placement)
places = [(placement(probe(r, 0), probe(r, 1)), placement(probe(r, 1), probe(r, 2))) for r in range(1, rounds + 1)]
sizes = sorted(set.intersection(*[set(m) & set(j) for m, j in pairs]))
jccl_side = "jccl --nprocs" if launch == "--nprocs" else "jccl -t (%s in-process ranks, a thread each)" % np_
print("# all_reduce_perf, %s processes: Open MPI (shared memory) and %s, %d alternating rounds, float sum"
      % (np_, jccl_side, rounds))
print("# each cell: Open MPI us / jccl us (jccl's out-of-place time), each tagged with the vCPUs' placement during"
      " its run: n near, a apart, m mixed; ratio = jccl / Open MPI")
print("# cache-line handoff (ns) before, between and after the runs: " +
      "  ".join("r%d %s" % (r, "/".join("%.0f" % probe(r, i) for i in range(3))) for r in range(1, rounds + 1)))
print("%10s  %s  %9s %9s %9s" % ("size(B)", "  ".join("%15s" % ("round %d" % (r + 1)) for r in range(rounds)),
                                   "mpi_med", "jccl_med", "ratio_med"))
for s in sizes:
    cells = "  ".join("%6.2f%s/%6.2f%s" % (m[s], pm, j[s], pj) for (m, j), (pm, pj) in zip(pairs, places))
    ratio = statistics.median(j[s] / m[s] for m, j in pairs if m[s] > 0)
    print("%10d  %s  %9.2f %9.2f %9.2f" % (s, cells, statistics.median(m[s] for m, _ in pairs),
                                          statistics.median(j[s] for _, j in pairs), ratio))
floors = []
for r in range(1, rounds + 1):
    try:
        text = open('%s/floor.%d' % (out, r)).read()
    except FileNotFoundError:
        break
    us = float(text.split('# floor median ')[1].split()[0])
    floors.append((us, placement(probe(r, 2), probe(r, 3))))
if floors:
    print("# floor (jccl-bench floor%s: one flag exchange and the sum per call, no library), 8 B per round: %s; "
          "median %.3f us" % ('' if sys.argv[5] == '-t' else ' --procs',
                               ' '.join('%.3f%s' % f for f in floors), statistics.median(f[0] for f in floors)))
for tag, name in (('n', 'near'), ('a', 'apart')):
    same = [pair for pair, pl in zip(pairs, places) if pl == (tag, tag)]
    if not same:
        print("# %s: no round met this placement for both runs" % name)
        continue
    print("# %s (%d of %d rounds, both runs): " % (name, len(same), rounds) + "; ".join(
        "%d B Open MPI %.2f us, jccl %.2f us, ratio %.2f" % (s, statistics.median(m[s] for m, _ in same),
            statistics.median(j[s] for _, j in same), statistics.median(j[s] / m[s] for m, j in same if m[s] > 0))
        for s in sizes))
PY
