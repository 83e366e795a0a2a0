#!/usr/bin/env bash
# make-gpu-bundle.sh: what the GPU machine needs to run jccl (its image has no JDK and no network): a Java runtime
# trimmed with jlink into bench/target/gpu-runtime, beside the runnable jar bench/target/jccl-bench.jar.
#   mvn -B -o -q -pl bench -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip
#   bench/make-gpu-bundle.sh
#   bench/target/gpu-runtime/bin/java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
#       -jar bench/target/jccl-bench.jar all_reduce_perf -b 8 -e 1M -f 4 -g 2
# Prints the sizes and fails when runtime and jar together exceed 60 MiB: what travels to the GPU machine, the
# working tree included, is limited to 64 MiB. The jar leaves out JCuda's PTX compiler, NVRTC and runtime natives
# (bench/pom.xml, shade filters); this script checks that too.
# JLINK picks another jlink (default /usr/bin/jlink, JDK 17: the project is built for release 17, so any JDK from 17
# on serves; the runtime's major version is the jlink's).
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$bench_dir/target/jccl-bench.jar"
runtime="$bench_dir/target/gpu-runtime"
jlink="${JLINK:-/usr/bin/jlink}"
# java.base, jdk.unsupported (Agrona's Unsafe), java.management and jdk.management (the bench reads
# MaxDirectMemorySize through com.sun.management's HotSpotDiagnosticMXBean), java.xml (MSCCL XML schedules),
# java.logging (JCuda's LibUtils logs through java.util.logging), jdk.incubator.vector (for the Vector API path of the
# host reductions). Left out: java.desktop (only the plot command's charts), java.sql and java.compiler (optional
# parts of picocli, JMH and Aeron's annotation processors).
modules="java.base,jdk.unsupported,java.management,jdk.management,java.xml,java.logging,jdk.incubator.vector"
limit_mib=60

if [[ ! -f "$jar" ]]; then
    echo "make-gpu-bundle: $jar is missing; build it first:" >&2
    echo "  mvn -B -o -q -pl bench -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip" >&2
    exit 1
fi

# the jar must carry JCuda's driver binding and nothing heavier from jcuda-natives
jar_tool="$(dirname "$(readlink -f "$jlink")")/jar"
listing="$("$jar_tool" tf "$jar")"
if ! grep -q '^lib/libJCudaDriver-' <<< "$listing"; then
    echo "make-gpu-bundle: $jar has no lib/libJCudaDriver-*: JCuda's driver binding is missing" >&2
    exit 1
fi
if grep -qE '^lib/lib(JNvPTXCompiler|JNvrtc|JCudaRuntime)-' <<< "$listing"; then
    echo "make-gpu-bundle: $jar still carries JCuda natives it does not need (bench/pom.xml's shade filter):" >&2
    grep -E '^lib/lib(JNvPTXCompiler|JNvrtc|JCudaRuntime)-' <<< "$listing" >&2
    exit 1
fi

# JDK 21 deprecated --compress=0|1|2 for zip-0..zip-9; JDK 17 knows only the numbers
jlink_version="$("$jlink" --version)"
if (( ${jlink_version%%.*} >= 21 )); then
    compress="zip-6"
else
    compress="2"
fi

rm -rf "$runtime"
"$jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress="$compress" \
    --output "$runtime"

runtime_bytes="$(du -sb "$runtime" | cut -f1)"
jar_bytes="$(stat -c %s "$jar")"
total_bytes=$((runtime_bytes + jar_bytes))
mib()
{
    awk -v bytes="$1" 'BEGIN { printf "%.1f", bytes / 1048576 }'
}
echo "make-gpu-bundle: jlink $jlink_version, --compress=$compress, modules $modules"
printf '%-34s %8s MiB %12s bytes\n' "bench/target/gpu-runtime" "$(mib "$runtime_bytes")" "$runtime_bytes"
printf '%-34s %8s MiB %12s bytes\n' "bench/target/jccl-bench.jar" "$(mib "$jar_bytes")" "$jar_bytes"
printf '%-34s %8s MiB %12s bytes (limit %s MiB)\n' "together" "$(mib "$total_bytes")" "$total_bytes" "$limit_mib"
if (( total_bytes > limit_mib * 1048576 )); then
    echo "make-gpu-bundle: runtime and jar together exceed $limit_mib MiB" >&2
    exit 1
fi
