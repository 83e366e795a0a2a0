#!/usr/bin/env bash
# Two hosts on one machine, in one run: two network namespaces joined by a veth pair (MTU 9000, jumbo frames), and
# on that link: raw UDP (iperf3 with jccl's Aeron datagram size, one way and both ways at once), Open MPI's TCP
# transport (one rank per namespace) and jccl (one rank per namespace, over Aeron UDP and then over TCP), AllReduce
# float sum from 8 B to 64 MiB, then a summary of the smallest and largest sizes. Needs root, iproute2, iperf3,
# nftables and Open MPI (installed from Debian's packages when missing). Usage, from the project root:
#   bench/netns-compare.sh [--loss PCT] [--aeronmd PATH] [MIN_BYTES] [MAX_BYTES] [extra jccl-bench flags...]
# --loss PCT drops PCT% of the packets (any protocol) that arrive on each namespace's end of the link, at random.
# --aeronmd PATH adds a jccl run over Aeron's C media driver (aeronmd, built from Aeron's source: docs/network.md),
# one external driver per namespace, named to jccl by JCCL_AERON_DIR.
# A 2-rank AllReduce sends and receives its whole size on each rank, so its busbw compares with the per-direction
# UDP rate of the both-ways run: that is the link's ceiling for this traffic.
set -euo pipefail
loss=0; aeronmd=""; drivers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --loss) loss=$2; shift 2 ;;
    --aeronmd) aeronmd=$(realpath "$2"); shift 2 ;;
    *) break ;;
  esac
done
minb=$(numfmt --from=iec "${1:-8}"); maxb=$(numfmt --from=iec "${2:-64M}"); shift $(( $# > 2 ? 2 : $# ))
here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
ns=jcnc$$
need() { command -v "$1" > /dev/null || { apt-get update -qq > /dev/null; apt-get install -y -qq "$2" > /dev/null; }; }
need ip iproute2; need iperf3 iperf3; need nft nftables
need mpirun.openmpi openmpi-bin; need mpicc.openmpi libopenmpi-dev
bin=/tmp/coll_bench.openmpi; src="$root/../shared/peers/coll_bench.c"
if [ -f "$src" ] && { [ ! -x $bin ] || [ "$src" -nt $bin ]; }; then mpicc.openmpi -O3 -march=native "$src" -o $bin; fi
cleanup()
{
  for d in "${drivers[@]}"; do kill -TERM "$d" 2> /dev/null || true; done
  wait; rm -rf /dev/shm/jccl-aeronmd-$ns*
  ip netns del ${ns}a 2> /dev/null || true; ip netns del ${ns}b 2> /dev/null || true; rm -f "$agent"
  if [ -n "${KEEP_LOGS:-}" ]; then echo "# logs kept in $logs"; else rm -rf "$logs"; fi
}
agent=$(mktemp /tmp/jccl-nsagent.XXXXXX); logs=$(mktemp -d /tmp/jccl-netns.XXXXXX); trap cleanup EXIT
ip netns add ${ns}a; ip netns add ${ns}b
ip link add eth0 netns ${ns}a mtu 9000 type veth peer name eth0 netns ${ns}b mtu 9000
ip -n ${ns}a addr add 10.214.0.1/24 dev eth0; ip -n ${ns}b addr add 10.214.0.2/24 dev eth0
for n in a b; do ip -n ${ns}$n link set eth0 up; ip -n ${ns}$n link set lo up; done

if [ "$loss" != 0 ]; then
  for n in a b; do
    ip netns exec ${ns}$n nft -f - <<NFT
table inet jcclloss {
  chain in {
    type filter hook input priority 0
    iifname "eth0" numgen random mod 100 < $loss drop
  }
}
NFT
  done
  echo "# dropping $loss% of the packets arriving on each end of the link"
fi

# iperf3's receiver report as GB/s of datagrams delivered, with the loss it saw
udp_rate()
{
  grep -v '^warning' | grep receiver | awk -v tag="$1" '{ for (i = 1; i <= NF; i++) if ($i ~ /bits\/sec/) { v = $(i-1); u = $i } } END {
    f = (u ~ /^G/) ? 1 : (u ~ /^M/) ? 1e-3 : 1e-6; printf "%s %.3f GB/s (%s %s, loss %s)\n", tag, v * f / 8, v, u, $(NF-1) }'
}
dgram=8960  # jccl's Aeron MTU on a 9000-byte link: one Aeron frame per datagram
echo "# raw UDP, iperf3 -u -l $dgram, ${ns}a -> ${ns}b, 5 s"
ip netns exec ${ns}b iperf3 -s -1 -p 5201 > /dev/null 2>&1 &
sleep 0.5
ip netns exec ${ns}a iperf3 -c 10.214.0.2 -p 5201 -u -b 0 -l $dgram -t 5 2>&1 | udp_rate udp_one_way | tee "$logs/udp1"
wait
echo "# raw UDP both ways at once (as an AllReduce between two hosts moves it), 5 s"
ip netns exec ${ns}b iperf3 -s -1 -p 5201 > /dev/null 2>&1 &
ip netns exec ${ns}a iperf3 -s -1 -p 5202 > /dev/null 2>&1 &
sleep 0.5
ip netns exec ${ns}a iperf3 -c 10.214.0.2 -p 5201 -u -b 0 -l $dgram -t 5 > "$logs/ab" 2>&1 &
ip netns exec ${ns}b iperf3 -c 10.214.0.1 -p 5202 -u -b 0 -l $dgram -t 5 > "$logs/ba" 2>&1 &
wait
udp_rate "udp_both_ways a->b" < "$logs/ab" | tee "$logs/udp2"
udp_rate "udp_both_ways b->a" < "$logs/ba" | tee -a "$logs/udp2"

if [ -x $bin ]; then
  # Open MPI's rsh agent: the "host" is a namespace name
  printf '#!/bin/bash\nns=$1; shift\nexec ip netns exec "$ns" bash -c "$*"\n' > "$agent"; chmod +x "$agent"
  echo "# Open MPI $(mpirun.openmpi --version 2>&1 | head -1 | awk '{print $NF}'), TCP over eth0, one rank per" \
    "namespace"
  # its daemon start has crashed in hwloc now and then on these machines: one more try, and never the end of the run
  for try in 1 2; do
    if ip netns exec ${ns}a mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$agent" --host ${ns}a,${ns}b \
      -np 2 --map-by node --bind-to none --mca btl tcp,self --mca btl_tcp_if_include eth0 \
      --mca oob_tcp_if_include eth0 $bin -b "$minb" -e "$maxb" -o a > "$logs/ompi" 2>&1; then
      grep -E '^#op|^allreduce' "$logs/ompi"; break
    fi
    echo "# Open MPI failed (try $try): $(grep -m1 -E 'Signal:|ERROR|error' "$logs/ompi" || tail -1 "$logs/ompi")"
  done
else
  echo "# Open MPI skipped: $src (the shared peers folder) is not beside the project"
fi

# jccl over Aeron UDP with its embedded Java media driver (JCCL_NET=aeron), over an external C media driver in each
# namespace (with --aeronmd), and over TCP (the default wire); rank 0's Aeron counters at the end of each Aeron run
jccl() { # LABEL ENV...: one rank per namespace (JCCL_HOSTID tells the namespaces apart); NS is replaced by a or b
  local label=$1; shift
  local id="10.214.0.1:29400/$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  echo "# jccl, $label over eth0, one rank per namespace"
  ip netns exec ${ns}b env "${@//NS/b}" JCCL_RANK=1 JCCL_WORLD_SIZE=2 JCCL_COMM_ID="$id" JCCL_HOSTID=${ns}b \
    "$here/jccl-bench" all_reduce_perf -b "$minb" -e "$maxb" -f 2 -d float -o sum "${bench[@]}" > /dev/null 2>&1 &
  local peer=$!
  ip netns exec ${ns}a env "${@//NS/a}" JCCL_RANK=0 JCCL_WORLD_SIZE=2 JCCL_COMM_ID="$id" JCCL_HOSTID=${ns}a \
    JCCL_DEBUG=INFO "$here/jccl-bench" all_reduce_perf -b "$minb" -e "$maxb" -f 2 -d float -o sum "${bench[@]}" \
    2> "$logs/$label.err" | grep -v '^# *Rank' | tee "$logs/$label"
  wait $peer || true
  grep -o 'net [0-9.:]* aeron mtu.*' "$logs/$label.err" | tail -1 | sed 's/^/# rank 0 at close: /' || true
}
bench=("$@")
wires=(aeron)
jccl aeron JCCL_NET=aeron
if [ -n "$aeronmd" ]; then
  # one thread (SHARED) that yields when idle, and up to 16 datagrams per sendmmsg/recvmmsg: the best of the C
  # driver's settings measured on these 2-core machines
  for n in a b; do
    ip netns exec ${ns}$n env AERON_DIR=/dev/shm/jccl-aeronmd-${ns}$n AERON_DIR_DELETE_ON_START=1 \
      AERON_DIR_DELETE_ON_SHUTDOWN=1 AERON_THREADING_MODE=SHARED AERON_SHARED_IDLE_STRATEGY=yield \
      AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND=16 AERON_RECEIVER_IO_VECTOR_CAPACITY=16 \
      "$aeronmd" > "$logs/aeronmd-$n.log" 2>&1 &
    drivers+=($!)
  done
  sleep 1
  jccl aeronmd JCCL_AERON_DIR=/dev/shm/jccl-aeronmd-${ns}NS
  # a yielding driver spins a core even when idle: stop both before the next run
  kill -TERM "${drivers[@]}" 2> /dev/null || true; wait "${drivers[@]}" || true; drivers=()
  wires+=(aeronmd)
fi
jccl tcp JCCL_NET=tcp

# the smallest and the largest size side by side: time and busbw (out-of-place/in-place), and each Aeron run's ratio
# to TCP's (time: lower is better; busbw: higher is better)
row() { awk -v b="$2" '$1 == b && $3 == "float" { print $6, $8, $10, $12; exit }' "$logs/$1"; }
big=$(awk -v m="$maxb" '$1 ~ /^[0-9]+$/ && $1 <= m { b = $1 } END { print b }' "$logs/tcp")
small=$(awk '$1 ~ /^[0-9]+$/ { print $1; exit }' "$logs/tcp")
echo "# summary, loss $loss%: size, wire, time us, busbw GB/s (out-of-place/in-place), ratio to tcp"
for b in $small $big; do
  for w in "${wires[@]}" tcp; do
    paste -d ' ' <(row "$w" "$b") <(row tcp "$b") | awk -v b="$b" -v w="$w" '{
      printf "%10s B  %-8s %9s/%-9s us %5s/%-5s GB/s", b, w, $1, $3, $2, $4
      if (w != "tcp") printf "   time %.2fx %.2fx  busbw %.2fx %.2fx", ($5 > 0 ? $1 / $5 : 0), ($7 > 0 ? $3 / $7 : 0),
        ($6 > 0 ? $2 / $6 : 0), ($8 > 0 ? $4 / $8 : 0)
      printf "\n" }'
  done
done
awk '{ for (i = 1; i <= NF; i++) if ($i == "GB/s") { s += $(i-1); n++ } } END {
  if (n) printf "udp both ways, per direction: %.3f GB/s\n", s / n }' "$logs/udp2"
