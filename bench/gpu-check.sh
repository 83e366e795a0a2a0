#!/usr/bin/env bash
# bench/gpu-check.sh [LOG_DIR]: jccl's GPU check in one call, for a machine with a GPU and no JDK (../shared/GPU.md).
# Build here first, then carry the runtime and the jar along:
#   mvn -B -q -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip install && bench/make-gpu-bundle.sh
#   (device tool) run: bash bench/gpu-check.sh "$OUT"   carry: bench/target/gpu-runtime bench/target/jccl-bench.jar
# It prints the driver and the device, runs about 2,000 back-to-back checked AllReduces of odd counts (2 and 4 ranks,
# SIMPLE and LL), checks every collective x type x op on 1, 2 and 4 ranks sharing the GPU against the host backend
# bit for bit, times a device copy, jccl's sum kernel and PyTorch's torch.add on 1 GiB float, times an 8-byte call in
# parts (a launch round trip, jccl on 1 and 2 ranks), runs all_reduce_perf -b 8 -f 4 -c 1 --device cuda with -g 2 (up
# to 64M) and -g 4 (up to 256M, and to 1M with CUDA_DEVICE_MAX_CONNECTIONS=1) in one process, then -g 2's in 2
# processes sharing the GPU through CUDA IPC (--nprocs 2), then one-line probes (JCCL_NTHREADS=640, 64 MiB at 2, 8
# and 16 channels, 16 Mi floats and 3 more, LL and SIMPLE at 4 KiB and 64 KiB, --nprocs 2 with JCCL_CUDA_IPC=0),
# and ends with a table. Logs go to LOG_DIR ($OUT/gpu-check by default); JCuda's unpacked natives go to a folder beside
# none of them (/tmp), so that only logs come back. Each step has its own time limit (a JVM past it prints its threads
# into its log, then is killed), and JCCL_TIMEOUT_MS (20 s here) ends a hung collective sooner with the device state
# of its kernel; the limits add up to under 10 minutes, the most one device call may run. GPU_CHECK_RANKS=2,4 leaves
# out the grid's 1-rank cases.
# JCCL_GPU_CHECK_EMULATED=1 rehearses it on a machine without a GPU (the device double, 16 MiB at most).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log="${1:-${OUT:-/tmp}/gpu-check}"
tmp="${TMPDIR:-/tmp}/jccl-gpu-check-tmp"
mkdir -p "$log" "$tmp"
java="$root/bench/target/gpu-runtime/bin/java"
[[ -x "$java" ]] || java="java"
jar="$root/bench/target/jccl-bench.jar"
jopts=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Djava.io.tmpdir="$tmp" -Xmx8g
    -XX:MaxDirectMemorySize=24g)
# the driver compiles the PTX once; keep its cache with the logs' machine, large enough for the interpreter
export CUDA_CACHE_MAXSIZE=1073741824
# a hung collective ends within a step's limit, and its error says where each worker of the rank stood
export JCCL_TIMEOUT_MS="${JCCL_TIMEOUT_MS:-20000}"

# step NAME LIMIT CMD...: runs CMD with its output in $log/NAME.log; past LIMIT seconds every java process gets
# SIGQUIT first (a JVM then prints its threads into its log, the children of --nprocs too), and is killed 3 s later
step()
{
    local name="$1" limit="$2"
    shift 2
    local start=$SECONDS rc
    # the explicit stdin keeps a here-document: a background command would read /dev/null instead
    "$@" > "$log/$name.log" 2>&1 0<&0 &
    local pid=$!
    while kill -0 "$pid" 2> /dev/null && (( SECONDS - start < limit )); do
        sleep 0.5
    done
    if kill -0 "$pid" 2> /dev/null; then
        pkill -QUIT -x java
        sleep 3
        pkill -KILL -x java
        kill -KILL "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
        rc=124
    else
        wait "$pid"
        rc=$?
    fi
    echo "$name: exit $rc after $((SECONDS - start)) s (log $log/$name.log)"
    tail -n 4 "$log/$name.log" | sed 's/^/    /'
    return $rc
}

echo "== gpu-check $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/nvidia-smi: /'

emulated=()
device=cuda
max=256M
procs_max=64M
if [[ "${JCCL_GPU_CHECK_EMULATED:-0}" == 1 ]]; then
    emulated=(--emulated)
    device=emulated
    max=16M
    procs_max=4M
fi

# GPU_CHECK_RANKS=2,4 leaves the grid's 1-rank cases out (gpu-check --ranks=)
step check 140 "$java" "${jopts[@]}" -jar "$jar" gpu-check "${emulated[@]}" --ranks="${GPU_CHECK_RANKS:-1,2,4}"
check_rc=$?
grep -E '^(WRONG|grid:|RESULT soak)' "$log/check.log" | head -30

step torch 45 python3 - <<'PY'
import torch
n = (1 << 30) // 4
a = torch.full((n,), 0.747, device="cuda", dtype=torch.float32)
b = torch.full((n,), 3.0, device="cuda", dtype=torch.float32)
c = torch.empty_like(a)
def median(fn, runs=20):
    for _ in range(2):
        fn()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ms = []
    for _ in range(runs):
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ms.append(s.elapsed_time(e))
    ms.sort()
    return ms[runs // 2]
add = median(lambda: torch.add(a, b, out=c))
copy = median(lambda: c.copy_(a))
print("RESULT torch_add_GBps %.1f" % (3 * (1 << 30) / add / 1e6))
print("RESULT torch_copy_GBps %.1f" % (2 * (1 << 30) / copy / 1e6))
PY

step all_reduce_perf_g2 60 "$java" "${jopts[@]}" -jar "$jar" all_reduce_perf -g 2 -b 8 -e "$procs_max" -f 4 -c 1 \
    --device "$device"
perf2_rc=$?
grep -vE '^#' "$log/all_reduce_perf_g2.log" | grep -E '^ +[0-9]' | sed 's/^/    /'

step all_reduce_perf 90 "$java" "${jopts[@]}" -jar "$jar" all_reduce_perf -g 4 -b 8 -e "$max" -f 4 -c 1 \
    --device "$device"
perf_rc=$?
grep -vE '^#' "$log/all_reduce_perf.log" | grep -E '^ +[0-9]' | sed 's/^/    /'
# the four ranks' kernels wait for each other: with one hardware queue for all streams, kernels launched one per rank
# would queue behind each other and hang; the ranks of one device start as one cooperative grid, so this runs
CUDA_DEVICE_MAX_CONNECTIONS=1 step all_reduce_perf_conn1 30 "$java" "${jopts[@]}" -jar "$jar" all_reduce_perf \
    -g 4 -b 8 -e 1M -f 4 -c 1 --device "$device"
conn1_rc=$?
grep -vE '^#' "$log/all_reduce_perf_conn1.log" | grep -E '^ +[0-9]' | sed 's/^/    /'

# children take the launcher's JVM options from JCCL_BENCH_JAVA_OPTS (ChildCommand), the tmpdir among them
JCCL_BENCH_JAVA_OPTS="-Djava.io.tmpdir=$tmp -Xmx4g -XX:MaxDirectMemorySize=8g" \
    step procs 60 "$java" "${jopts[@]}" -jar "$jar" --nprocs 2 all_reduce_perf -b 8 -e "$procs_max" -f 4 -c 1 \
    --device "$device"
procs_rc=$?
grep -vE '^#' "$log/procs.log" | grep -E '^ +[0-9]' | sed 's/^/    /'

# one-line probes, each a short all_reduce_perf -c 1 that names one suspect: its last row's time, busbw and #wrong
# (out of place) go into the table; a probe that fails or hangs says so there and the next one runs
probes=()
probe()
{
    local name="$1"
    shift
    step "probe_$name" 18 env "$@" --device "$device"
    local rc=$?
    local row
    row=$(grep -E '^ +[0-9]+ ' "$log/probe_$name.log" 2>/dev/null | tail -1 |
        awk '{print $6 " us, " $8 " GB/s, " $9 " wrong"}')
    probes+=("$(printf '%-34s %s (exit %s)' "probe $name" "${row:-no row}" "$rc")")
}
big=64M
big_odd=67108876
if [[ $device == emulated ]]; then
    big=4M
    big_odd=4194316
fi
perf=("$java" "${jopts[@]}" -jar "$jar")
# the launcher clamps 640 threads to the kernel's bound of 512
probe nthreads640 JCCL_NTHREADS=640 "${perf[@]}" all_reduce_perf -g 2 -b "$big" -e "$big" -c 1
for ch in 2 8 16; do
    probe "channels$ch" "${perf[@]}" all_reduce_perf -g 2 -b "$big" -e "$big" -c 1 --max-nchannels "$ch"
done
# 16 Mi floats and 3 more: pieces no longer a multiple of 16 bytes
probe odd_count "${perf[@]}" all_reduce_perf -g 2 -b "$big_odd" -e "$big_odd" -c 1
for proto in LL SIMPLE; do
    probe "${proto,,}_4K" "${perf[@]}" all_reduce_perf -g 2 -b 4K -e 4K -c 1 --proto "$proto"
    probe "${proto,,}_64K" "${perf[@]}" all_reduce_perf -g 2 -b 64K -e 64K -c 1 --proto "$proto"
done
probe ipc_off JCCL_CUDA_IPC=0 JCCL_BENCH_JAVA_OPTS="-Djava.io.tmpdir=$tmp -Xmx4g -XX:MaxDirectMemorySize=8g" \
    "${perf[@]}" --nprocs 2 all_reduce_perf -b 8 -e 1M -f 8 -c 1

value() { grep -h "^RESULT $1 " "$log"/*.log 2>/dev/null | tail -1 | cut -d' ' -f3-; }
wrong_rows()
{
    grep -E '^ +[0-9]+ ' "$log/$1.log" 2>/dev/null | awk '$9 != 0 || $13 != 0' | wc -l
}
busbw()
{
    grep -E '^ +[0-9]+ ' "$log/$1.log" 2>/dev/null | tail -1 | awk '{print $8 " out-of-place, " $12 " in-place"}'
}
small_time()
{
    grep -E '^ +8 ' "$log/$1.log" 2>/dev/null | head -1 | awk '{print $6 " out-of-place, " $10 " in-place"}'
}
echo
echo "== gpu-check table"
printf '%-34s %s\n' "driver" "$(value driver)"
printf '%-34s %s\n' "device" "$(value device0)"
printf '%-34s %s\n' "module load (ms, first JIT)" "$(value module_load_ms)"
printf '%-34s %s\n' "cuMemcpy D2D (GB/s, rd+wr)" "$(value memcpy_d2d_GBps)"
printf '%-34s %s\n' "torch copy_ (GB/s, rd+wr)" "$(value torch_copy_GBps)"
printf '%-34s %s\n' "jccl copy kernel (GB/s)" "$(value copy_kernel_GBps)"
printf '%-34s %s\n' "jccl sum kernel 1 GiB (GB/s)" "$(value sum_kernel_GBps)"
printf '%-34s %s\n' "torch.add 1 GiB (GB/s)" "$(value torch_add_GBps)"
printf '%-34s %s\n' "launch+copy+event round trip (us)" "$(value launch_roundtrip_us)"
printf '%-34s %s\n' "allreduce 8 B, 1 / 2 ranks (us)" "$(value allreduce_8B_1rank_us) / $(value allreduce_8B_2rank_us)"
printf '%-34s %s\n' "grid vs host (cases / wrong)" "$(value grid_cases) / $(value grid_wrong_cases) (exit $check_rc)"
grep -h '^RESULT soak_[0-9]' "$log/check.log" 2>/dev/null | while read -r _ name rest; do
    printf '%-34s %s\n' "back to back, $name" "$rest"
done
printf '%-34s %s\n' "all_reduce_perf -g 2 wrong rows" "$(wrong_rows all_reduce_perf_g2) (exit $perf2_rc)"
printf '%-34s %s\n' "-g 2 8 B time (us)" "$(small_time all_reduce_perf_g2)"
printf '%-34s %s\n' "-g 2 $procs_max busbw (GB/s)" "$(busbw all_reduce_perf_g2)"
printf '%-34s %s\n' "all_reduce_perf -g 4 wrong rows" "$(wrong_rows all_reduce_perf) (exit $perf_rc)"
printf '%-34s %s\n' "-g 4 8 B time (us)" "$(small_time all_reduce_perf)"
printf '%-34s %s\n' "-g 4 $max busbw (GB/s)" "$(busbw all_reduce_perf)"
printf '%-34s %s\n' "-g 4, 1 hw queue, wrong rows" "$(wrong_rows all_reduce_perf_conn1) (exit $conn1_rc)"
printf '%-34s %s\n' "--nprocs 2 (IPC) wrong rows" "$(wrong_rows procs) (exit $procs_rc)"
printf '%-34s %s\n' "--nprocs 2 8 B time (us)" "$(small_time procs)"
printf '%-34s %s\n' "--nprocs 2 $procs_max busbw (GB/s)" "$(busbw procs)"
printf '%s\n' "${probes[@]}"
exit $(( check_rc != 0 || perf2_rc != 0 || perf_rc != 0 || conn1_rc != 0 || procs_rc != 0 ))
