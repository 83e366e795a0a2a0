#!/usr/bin/env bash
# jccl-djl's gradient sync next to the bare AllReduce of the same bytes, on 2 processes of this host. Per training
# step of an MLP (1000 inputs, 3 hidden layers of width H, one output, 16 rows a batch, plain SGD):
# GradientSyncBenchmark's medians of forward+backward, the sync and step(), and of the same AllReduce on a buffer of
# its own issued between the same steps, first with the gradients as bucket views (the default) and then copied into
# the buckets and back; then jccl-bench all_reduce_perf --nprocs 2 of the same bytes (float avg, one buffer, as
# nccl-tests times one size). ROUNDS rounds, one after another. Usage, from the project root:
#   bench/djl-sync.sh [ROUNDS] [STEPS] [H...]
# defaults: 2 rounds, 20 steps, H 2000 (10.0M parameters, 40 MB) and 4750 (49.9M, 200 MB).
set -euo pipefail
rounds=${1:-2}; steps=${2:-20}; shift $(( $# > 2 ? 2 : $# ))
widths=("$@"); [ ${#widths[@]} -gt 0 ] || widths=(2000 4750)
here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here"); cd "$root"
cp=jccl-djl/target/test-classpath.txt
if [ ! -f "$cp" ] || [ -n "$(find jccl-djl/src jccl-core/src jccl-api/src -newer "$cp" -print -quit)" ]; then
  mvn -B -q -pl jccl-djl -am -DskipTests install org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
    -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test > /dev/null
fi
sync() { # H bucket-mode
  bin/jccl-run --nprocs 2 -- java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Dai.djl.offline=true \
    -DDJL_CACHE_DIR=jccl-djl/target/djl-cache -DENGINE_CACHE_DIR=jccl-djl/target/djl-cache \
    -cp "jccl-djl/target/classes:jccl-djl/target/test-classes:$(cat $cp)" \
    io.jccl.djl.example.GradientSyncBenchmark "$1" 3 $((25 << 20)) "$steps" "$2" 2>&1 |
    grep '^\[rank 0\] \(2 ranks\|median\|bare\|sync parts\)' | sed 's/^\[rank 0\] /  /'
}
for r in $(seq 1 "$rounds"); do
  for h in "${widths[@]}"; do
    bytes=$(( 4 * (1000 * h + h + 2 * (h * h + h) + h + 1) ))
    echo "round $r, hidden $h:"
    sync "$h" view
    sync "$h" copy
    bench/jccl-bench all_reduce_perf --nprocs 2 -b "$bytes" -e "$bytes" -d float -o avg -n "$steps" -w 2 2>&1 |
      awk -v b="$bytes" '$1 == b { printf "  all_reduce_perf --nprocs 2, %d bytes: %.1f ms out of place, %.1f ms in place\n", b, $6 / 1000, $10 / 1000 }'
  done
done
