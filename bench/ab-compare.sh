#!/usr/bin/env bash
# ab-compare.sh BEFORE.jar AFTER.jar ROUNDS [bench flags...]: runs the same bench command with two builds of jccl,
# interleaved (before, after, before, after, ...), so that both see the same machine state, and prints each run's
# table under a heading; then one line per size with the median time of each side (out-of-place and in-place) and
# their ratio. For a change's before/after figures: build BEFORE.jar from the base commit
# (git worktree add /tmp/base BASE && (cd /tmp/base && mvn -B -q -DskipTests package)), copy bench/target/jccl-bench.jar
# of both trees aside, then e.g.
#   bench/ab-compare.sh /tmp/before.jar /tmp/after.jar 3 all_reduce_perf -g 2 -b 8 -e 64M -f 2
#   bench/ab-compare.sh /tmp/before.jar /tmp/after.jar 3 --nprocs 2 all_reduce_perf -b 8 -e 64M -f 2
set -euo pipefail
if [[ $# -lt 4 ]]; then
    echo "usage: $0 BEFORE.jar AFTER.jar ROUNDS <bench command and flags>" >&2
    exit 2
fi
before="$1"; after="$2"; rounds="$3"; shift 3
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for ((r = 1; r <= rounds; r++)); do
    for side in before after; do
        jar="$before"; [[ $side == after ]] && jar="$after"
        echo "== round $r, $side ($jar): $*"
        "$java" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar "$jar" "$@" 2> /dev/null \
            | tee "$work/$side.$r"
    done
done
echo "== medians over $rounds rounds: size, before out/in (us), after out/in (us), after/before out/in"
for side in before after; do
    # size, out-of-place time, in-place time of every data row
    cat "$work/$side".* | awk '$1 ~ /^[0-9]+$/ && NF >= 12 {print $1, $6, $10}' > "$work/$side.rows"
done
awk -v rounds="$rounds" '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    FNR == 1 { side++ }
    { key = $1; if (!(key in seen)) { seen[key] = 1; order[++count] = key }
      out[side, key] = out[side, key] " " $2; inp[side, key] = inp[side, key] " " $3 }
    END {
        for (k = 1; k <= count; k++) {
            key = order[k]
            bo = median(out[1, key]); bi = median(inp[1, key]); ao = median(out[2, key]); ai = median(inp[2, key])
            printf "%12s  %9.2f %9.2f   %9.2f %9.2f   %5.2f %5.2f\n", key, bo, bi, ao, ai, ao / bo, ai / bi
        }
    }' "$work/before.rows" "$work/after.rows"
