#!/usr/bin/env bash
# jccl against its MPI peers on this host, one table of medians: Open MPI always, MPICH where mpicc.mpich and
# mpirun.mpich are installed (this script installs Open MPI from Debian's packages when missing, with root, but never
# MPICH: without it the table says MPICH was skipped). AllReduce, AllGather, ReduceScatter, Broadcast and Reduce, float,
# sum where reducing, root 0, sizes doubling, nccl-tests' size semantics on both sides (bench/peers/coll_bench.c says
# which buffer the size is), on three launch shapes:
#   g2  2 in-process ranks driven by one thread (jccl-bench -g 2) against 2 MPI processes bound to a core each
#   t2  2 in-process ranks with a thread each (jccl-bench -t 2), the same peers (not in the default shapes)
#   p2  2 processes (jccl-bench --nprocs 2, mpirun -np 2 bound to a core each)
#   p4  4 processes on this host (jccl-bench --nprocs 4, mpirun -np 4 --oversubscribe --bind-to none where the host has
#       fewer than 4 CPUs)
# Each round runs every shape and collective once, each peer and then jccl, so the runs compared met the machine's
# same minute; the table gives the medians over rounds of the out-of-place times (us) and ratio = best peer's median /
# jccl's median (above 1: jccl is faster), with the smallest ratio of each shape and collective under its block and
# again at the end. Every #wrong of jccl and every check of a peer must be clean, or the script stops and names it.
# This machine's 2 vCPUs sit on cores that share a cache or apart, and the host moves them every few seconds; apart,
# data crossing between the cores moves 3-4x slower (2 processes' ring AllReduce at 1 MiB: 85-88 us near, 322-362
# apart) for every library. So every run is tagged by bench/handoff-probe before and after it (n near, a apart, m
# mixed), each block says the tags per round, and a second ratio, "same", takes only the rounds where jccl and the
# row's best peer met the same placement.
# Both sides time every call on the same buffers (jccl-bench --same-buffers, coll_bench's default), as MPI's benchmarks
# do, so a size below the cache reads from it; --cold times both as nccl-tests does (call i on slice i % (max / size)
# of the largest size's buffers, coll_bench -c), memory out of the cache: 2-5x slower for both from 128 KiB to 1 MiB.
# Every round's raw output, stderr and the table go to OUT_DIR (default: a new mktemp -d), which the table names.
# jccl runs with JCCL_CALIBRATION=defaults unless it is set (calibration costs seconds per launch) and -n 100 -w 20
# --row-time-ms 50 unless the extra flags say -n, -w or --row-time-ms: MPI's coll_bench times each size for about
# 0.05 s (-t 0.05), and so does jccl then (with -n 100 alone a row of 1 us calls lasts 100 us, and one millisecond's
# pause of the host read as 10 us a call).
# Usage, from the project root:
#   bench/peers.sh [--rounds N] [--shapes g2,p2,p4] [--colls all_reduce,all_gather,reduce_scatter,broadcast,reduce]
#                  [--min-bytes 1K] [--max-bytes 16M] [--cold] [--out OUT_DIR] [extra jccl-bench flags...]
# defaults as shown, 3 rounds; sizes take K, M, G suffixes. On 2 busy CPUs one round of everything took 4-5 minutes
# (a jccl launch 5-30 s, much of it JVM start and warm-up), so the default run takes about 15: pick shapes, collectives
# or sizes for a quicker look, e.g. bench/peers.sh --rounds 1 --shapes p2 --colls all_gather --max-bytes 64K
set -euo pipefail
rounds=3; shapes=g2,p2,p4; colls=all_reduce,all_gather,reduce_scatter,broadcast,reduce; minb=1K; maxb=16M; out=
cold=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --min-bytes) minb=$2; shift 2 ;;
    --max-bytes) maxb=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --cold) cold=1; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
# 1K -> 1024: coll_bench takes plain bytes
bytes() {
  local n=${1%[KkMmGg]}
  case "$1" in
    *[Kk]) echo $((n << 10)) ;; *[Mm]) echo $((n << 20)) ;; *[Gg]) echo $((n << 30)) ;; *) echo $((n)) ;;
  esac
}
minb=$(bytes "$minb"); maxb=$(bytes "$maxb")
here=$(cd "$(dirname "$0")" && pwd)
export JCCL_CALIBRATION=${JCCL_CALIBRATION:-defaults}
# coll_bench's letter for each collective
declare -A letter=([all_reduce]=a [all_gather]=g [reduce_scatter]=r [broadcast]=b [reduce]=R)
declare -A nranks=([g2]=2 [t2]=2 [p2]=2 [p4]=4) launch=([g2]=-g [t2]=-t [p2]=--nprocs [p4]=--nprocs)
IFS=, read -ra shape_list <<< "$shapes"; IFS=, read -ra coll_list <<< "$colls"
for s in "${shape_list[@]}"; do [ -n "${nranks[$s]:-}" ] || { echo "unknown shape $s (g2, t2, p2, p4)" >&2; exit 2; }
done
for c in "${coll_list[@]}"; do
  [ -n "${letter[$c]:-}" ] || { echo "unknown collective $c (${!letter[*]})" >&2; exit 2; }
done
iters=(); has_n=0; has_w=0; has_t=0
for a in "$@"; do
  case "$a" in -n|-n=*|--iters*) has_n=1 ;; -w|-w=*|--warmup_iters*) has_w=1 ;; --row-time-ms*) has_t=1 ;; esac
done
[ $has_n = 1 ] || iters+=(-n 100); [ $has_w = 1 ] || iters+=(-w 20); [ $has_t = 1 ] || iters+=(--row-time-ms 50)
# the same buffers for every call on both sides unless --cold: coll_bench's and jccl-bench's flag for each
peer_buffers=(); jccl_buffers=(--same-buffers); buffers=hot
if [ $cold = 1 ]; then peer_buffers=(-c); jccl_buffers=(); buffers=cold; fi

if ! command -v mpicc.openmpi > /dev/null; then
  echo "installing Open MPI (openmpi-bin, libopenmpi-dev)..." >&2
  apt-get update -qq > /dev/null && apt-get install -y -qq openmpi-bin libopenmpi-dev > /dev/null
fi
peers=(openmpi)
if command -v mpicc.mpich > /dev/null && command -v mpirun.mpich > /dev/null; then peers+=(mpich); fi
src="$here/peers/coll_bench.c"
for p in "${peers[@]}"; do
  bin=/tmp/coll_bench.peers.$p
  if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then "mpicc.$p" -O3 -march=native "$src" -o "$bin"; fi
done
# mpirun's pinning per peer for NP processes: a core each where the host has them, else none
mpi_launch() {
  local p=$1 np=$2
  if [ "$p" = openmpi ]; then
    if [ "$np" -le "$(nproc)" ]; then echo "mpirun.openmpi --allow-run-as-root --bind-to core -np $np"
    else echo "mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -np $np"; fi
  else
    if [ "$np" -le "$(nproc)" ]; then echo "mpirun.mpich -bind-to core -np $np"; else echo "mpirun.mpich -np $np"; fi
  fi
}

# runs a command between two bench/handoff-probe readings, written to FILE as "before after" (ns)
probed() {
  local file=$1 before rc=0
  shift
  before=$("$here/handoff-probe")
  "$@" || rc=$?
  echo "$before $("$here/handoff-probe")" > "$file"
  return $rc
}

[ -n "$out" ] || out=$(mktemp -d /tmp/peers.XXXXXX)
mkdir -p "$out"
{ echo "bench/peers.sh --rounds $rounds --shapes $shapes --colls $colls --min-bytes $minb --max-bytes $maxb" \
    "$([ $cold = 1 ] && echo --cold) $*"
  echo "jccl-bench extra flags: ${iters[*]} ${jccl_buffers[*]} $*; JCCL_CALIBRATION=$JCCL_CALIBRATION"; date -u; uptime
} > "$out/command"
echo "raw output of every round: $out" >&2
for r in $(seq 1 "$rounds"); do
  for s in "${shape_list[@]}"; do
    for c in "${coll_list[@]}"; do
      base="$out/r$r.$s.$c"
      echo "round $r/$rounds: $s $c" >&2
      for p in "${peers[@]}"; do
        # shellcheck disable=SC2046 # mpi_launch prints the launcher and its flags, several words on purpose
        probed "$base.$p.probe" $(mpi_launch "$p" "${nranks[$s]}") "/tmp/coll_bench.peers.$p" -b "$minb" -e "$maxb" \
          -o "${letter[$c]}" -r 0 -t 0.05 "${peer_buffers[@]}" > "$base.$p" 2> "$base.$p.err" \
          || { echo "$p failed on $s $c; see $base.$p.err" >&2; exit 1; }
      done
      probed "$base.jccl.probe" "$here/jccl-bench" "${c}_perf" "${launch[$s]}" "${nranks[$s]}" -b "$minb" -e "$maxb" \
        -f 2 -d float -o sum -r 0 "${iters[@]}" "${jccl_buffers[@]}" "$@" > "$base.jccl" 2> "$base.jccl.err" \
        || { echo "jccl-bench failed on $s $c; see $base.jccl.err" >&2; exit 1; }
    done
  done
done

python3 - "$here" "$out" "$rounds" "$shapes" "$colls" "${peers[*]}" "$buffers" <<'PY' | tee "$out/table"
import os, statistics, sys
here, out, rounds, shapes, colls, peers, buffers = sys.argv[1:]
sys.path.insert(0, here)
from bench_tables import jccl_rows, peer_rows, placement
rounds, shapes, colls, peers = int(rounds), shapes.split(','), colls.split(','), peers.split()
# the table's name and coll_bench's first column for each collective
names = {'all_reduce': ('AllReduce', 'allreduce'), 'all_gather': ('AllGather', 'allgather'),
         'reduce_scatter': ('ReduceScatter', 'reducescatter'), 'broadcast': ('Broadcast', 'bcast'),
         'reduce': ('Reduce', 'reduce')}
shape_says = {'g2': '2 in-process ranks on one thread (-g 2) vs 2 MPI processes',
              't2': '2 in-process ranks, a thread each (-t 2) vs 2 MPI processes', 'p2': '2 processes',
              'p4': '4 processes on %d CPUs' % os.cpu_count()}
libs = []
for p in peers:
    lib = [l for l in open('%s/r1.%s.%s.%s' % (out, shapes[0], colls[0], p)) if l.startswith('# lib:')]
    # 'Open MPI v4.1.4, package: ...' or 'MPICH Version:<tab>4.0.2'
    libs.append(' '.join(lib[0][len('# lib:'):].split(',')[0].replace('Version:', '').split()) if lib else p)
bad = []
# (shape, coll) -> size -> {'jccl': [us per round], peer: [...]}; (shape, coll) -> {'jccl': [placement per round]...}
times, places = {}, {}
for s in shapes:
    for c in colls:
        cell = times[(s, c)] = {}
        tags = places[(s, c)] = {}
        for r in range(1, rounds + 1):
            base = '%s/r%d.%s.%s' % (out, r, s, c)
            for who in ['jccl'] + peers:
                before, after = (float(x) for x in open('%s.%s.probe' % (base, who)).read().split())
                tags.setdefault(who, []).append(placement(before, after))
            j = jccl_rows(base + '.jccl')
            if not j:
                sys.exit("no table in %s.jccl; it holds:\n%s" % (base, open(base + '.jccl').read()))
            for size, (us, wrong) in j.items():
                if any(w not in ('0', 'N/A') for w in wrong):
                    bad.append('%s.jccl %d B: #wrong %s' % (base, size, '/'.join(wrong)))
                cell.setdefault(size, {}).setdefault('jccl', []).append(us)
            for p in peers:
                for (op, size), (us, check) in peer_rows('%s.%s' % (base, p)).items():
                    if op != names[c][1]:
                        continue
                    if check != 'ok':
                        bad.append('%s.%s %d B: check %s' % (base, p, size, check))
                    cell.setdefault(size, {}).setdefault(p, []).append(us)
if bad:
    sys.exit("wrong results, no table:\n" + "\n".join(bad))
med = statistics.median
print("# bench/peers.sh: jccl against %s, %d interleaved rounds; float, sum where reducing, root 0; nccl-tests sizes"
      % (' and '.join(libs), rounds))
if 'mpich' not in peers:
    print("# MPICH skipped: mpicc.mpich and mpirun.mpich are not both installed (apt-get install mpich libmpich-dev)")
print("# medians over rounds of the out-of-place time per call, us; ratio = best peer's median / jccl's median:"
      " above 1 means jccl is faster")
print("# shapes: " + "; ".join('%s %s' % (s, shape_says[s]) for s in shapes))
print("# buffers: " + ("cold on both sides, as nccl-tests (call i on slice i % (max / size))" if buffers == 'cold'
                       else "hot on both sides, every call on the same buffers, as MPI's benchmarks"
                       " (--cold: as nccl-tests)"))
print("# raw output of every round: %s" % out)
print("# same: the median over the rounds in which jccl and the row's best peer ran with the vCPUs placed alike (both"
      " near or both apart, by bench/handoff-probe around each run) of the best peer's time / jccl's; - where none")
head = "%-5s %-14s %10s %11s" % ('shape', 'collective', 'size(B)', 'jccl_us') + \
    ''.join(' %11s' % (p + '_us') for p in peers) + " %7s %6s" % ('ratio', 'same')
print(head)
summary = []
for s in shapes:
    for c in colls:
        cell, ratios, tags = times[(s, c)], [], places[(s, c)]
        print("# %s %s, placement per round (n near, a apart, m mixed), %s: %s" % (s, names[c][0],
              ' '.join(['jccl'] + peers), '  '.join('r%d %s' % (r + 1, ' '.join(tags[w][r] for w in ['jccl'] + peers))
                                                    for r in range(rounds))))
        for size in sorted(cell):
            row = cell[size]
            if len(row.get('jccl', [])) != rounds or any(len(row.get(p, [])) != rounds for p in peers):
                print("%-5s %-14s %10d  (not in every run: %s)" % (s, names[c][0], size,
                      ', '.join('%s %d' % (k, len(v)) for k, v in sorted(row.items()))))
                continue
            jm, pm = med(row['jccl']), [med(row[p]) for p in peers]
            ratio = min(pm) / jm
            best = peers[pm.index(min(pm))]
            alike = [row[best][r] / row['jccl'][r] for r in range(rounds)
                     if tags['jccl'][r] == tags[best][r] and tags['jccl'][r] != 'm']
            same = med(alike) if alike else None
            ratios.append((ratio, size, same))
            print("%-5s %-14s %10d %11.2f" % (s, names[c][0], size, jm) + ''.join(' %11.2f' % t for t in pm) +
                  " %7.2f %6s" % (ratio, '-' if same is None else '%.2f' % same))
        if ratios:
            low = min(ratios)
            sames = [(x[2], x[1]) for x in ratios if x[2] is not None]
            low_same = min(sames) if sames else None
            summary.append((s, names[c][0], low, low_same))
            print("# %s %s: min ratio %.2f at %d B; same placement %s" % (s, names[c][0], low[0], low[1],
                  '%.2f at %d B' % low_same if low_same else 'never met'))
print("# summary, min ratio over sizes per shape and collective (above 1: jccl faster at every size), and the least"
      " same-placement ratio:")
for s, c, (ratio, size, _), low_same in summary:
    print("# %-5s %-14s %5.2f at %d B   same %s" % (s, c, ratio, size,
          '%.2f at %d B' % low_same if low_same else '-'))
PY
echo "table and raw files: $out" >&2
