#!/usr/bin/env bash
# Two hosts on one machine, in one run: two network namespaces joined by a veth pair (MTU 9000, jumbo frames), and
# on that link: raw UDP (iperf3, 8972-byte datagrams), Open MPI's TCP transport (one rank per namespace) and jccl
# (one rank per namespace, over Aeron UDP and then over TCP), AllReduce float sum from 8 B to 64 MiB. Needs root, iproute2, iperf3 and
# Open MPI (installed from Debian's packages when missing). Usage, from the project root:
#   bench/netns-compare.sh [MIN_BYTES] [MAX_BYTES] [extra jccl-bench flags...]
set -euo pipefail
minb=${1:-8}; maxb=${2:-67108864}; shift $(( $# > 2 ? 2 : $# ))
here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
ns=jcnc$$
need() { command -v "$1" > /dev/null || { apt-get update -qq > /dev/null; apt-get install -y -qq "$2" > /dev/null; }; }
need ip iproute2; need iperf3 iperf3; need mpirun.openmpi openmpi-bin; need mpicc.openmpi libopenmpi-dev
bin=/tmp/coll_bench.openmpi; src="$root/../shared/peers/coll_bench.c"
if [ -f "$src" ] && { [ ! -x $bin ] || [ "$src" -nt $bin ]; }; then mpicc.openmpi -O3 -march=native "$src" -o $bin; fi
cleanup() { ip netns del ${ns}a 2> /dev/null || true; ip netns del ${ns}b 2> /dev/null || true; rm -f "$agent"; }
agent=$(mktemp /tmp/jccl-nsagent.XXXXXX); trap cleanup EXIT
ip netns add ${ns}a; ip netns add ${ns}b
ip link add eth0 netns ${ns}a mtu 9000 type veth peer name eth0 netns ${ns}b mtu 9000
ip -n ${ns}a addr add 10.214.0.1/24 dev eth0; ip -n ${ns}b addr add 10.214.0.2/24 dev eth0
for n in a b; do ip -n ${ns}$n link set eth0 up; ip -n ${ns}$n link set lo up; done

echo "# raw UDP, iperf3 -u -l 8972, ${ns}a -> ${ns}b, 5 s"
ip netns exec ${ns}b iperf3 -s -1 -p 5201 > /dev/null 2>&1 &
sleep 0.5
ip netns exec ${ns}a iperf3 -c 10.214.0.2 -p 5201 -u -b 0 -l 8972 -t 5 | grep receiver | \
  awk '{ for (i = 1; i <= NF; i++) if ($i ~ /bits\/sec/) { v = $(i-1); u = $i } } END {
    f = (u ~ /^G/) ? 1 : (u ~ /^M/) ? 1e-3 : 1e-6; printf "udp_receiver_GBps %.3f (%s %s, loss %s)\n", v * f / 8, v, u, $(NF-1) }'
wait

if [ -x $bin ]; then
  # Open MPI's rsh agent: the "host" is a namespace name
  printf '#!/bin/bash\nns=$1; shift\nexec ip netns exec "$ns" bash -c "$*"\n' > "$agent"; chmod +x "$agent"
  echo "# Open MPI $(mpirun.openmpi --version 2>&1 | head -1 | awk '{print $NF}'), TCP over eth0, one rank per namespace"
  ip netns exec ${ns}a mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$agent" --host ${ns}a,${ns}b -np 2 \
    --map-by node --bind-to none --mca btl tcp,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
    $bin -b "$minb" -e "$maxb" -o a | grep -E '^#op|^allreduce'
else
  echo "# Open MPI skipped: $src (the shared peers folder) is not beside the project"
fi

# jccl twice: over Aeron UDP (JCCL_NET=aeron) and over TCP (the default wire)
for wire in aeron tcp; do
  echo "# jccl, JCCL_NET=$wire over eth0, one rank per namespace (JCCL_HOSTID tells the namespaces apart)"
  id="10.214.0.1:29400/$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  ip netns exec ${ns}b env JCCL_NET=$wire JCCL_RANK=1 JCCL_WORLD_SIZE=2 JCCL_COMM_ID="$id" JCCL_HOSTID=${ns}b \
    "$here/jccl-bench" all_reduce_perf -b "$minb" -e "$maxb" -f 2 -d float -o sum "$@" > /dev/null 2>&1 &
  ip netns exec ${ns}a env JCCL_NET=$wire JCCL_RANK=0 JCCL_WORLD_SIZE=2 JCCL_COMM_ID="$id" JCCL_HOSTID=${ns}a \
    "$here/jccl-bench" all_reduce_perf -b "$minb" -e "$maxb" -f 2 -d float -o sum "$@" 2> /dev/null | grep -v '^# *Rank'
  wait
done
