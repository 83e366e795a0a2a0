#!/usr/bin/env bash
# ab-compare.sh BEFORE.jar AFTER.jar ROUNDS [bench flags...]: runs the same bench command with two builds of jccl,
# interleaved (before, after, before, after, ...), so that both see the same machine state, and prints each run's
# table under a heading; then one line per size with the median time of each side (out-of-place and in-place) and
# their ratio. This host moves its two vCPUs between cores that share a cache and cores that do not every few seconds,
# and small-message times move 2-4x with it, so bench/handoff-probe runs before and after every run: each heading ends
# in its placement (n near: both probes under 120 ns, a apart: both over, m mixed), and a second block gives the
# medians of the near runs alone (the placement most runs meet; "-" where a side had none). For a change's
# before/after figures: build BEFORE.jar from the base commit
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
here=$(cd "$(dirname "$0")" && pwd)
# the placement from the probes before and after a run, by the rule procs-compare.sh and peers.sh use
placement() { python3 -c "import sys; sys.path.insert(0, '$here'); from bench_tables import placement; \
print(placement($1, $2))"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for ((r = 1; r <= rounds; r++)); do
    for side in before after; do
        jar="$before"; [[ $side == after ]] && jar="$after"
        p0=$("$here/handoff-probe")
        "$java" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar "$jar" "$@" 2> /dev/null > "$work/$side.$r"
        p1=$("$here/handoff-probe")
        place=$(placement "$p0" "$p1")
        echo "$place" > "$work/$side.$r.place"
        echo "== round $r, $side ($jar): $*   [placement $place: handoff $p0/$p1 ns]"
        cat "$work/$side.$r"
    done
done
# medians FILTER HEADING: the rounds whose placement matches FILTER (n, or . for every round)
medians() {
    local filter=$1 heading=$2 side=0 name r
    echo "$heading"
    for name in before after; do
        side=$((side + 1))
        # side (1 before, 2 after), size, out-of-place time, in-place time of every data row
        for ((r = 1; r <= rounds; r++)); do
            if grep -q "^$filter\$" "$work/$name.$r.place"; then cat "$work/$name.$r"; fi
        done | awk -v side=$side '$1 ~ /^[0-9]+$/ && NF >= 12 {print side, $1, $6, $10}'
    done > "$work/rows"
    sizes "$work/rows"
}
# sizes ROWS: one line per size, the medians of each side and their ratio
sizes() {
    awk '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++)
            for (j = i + 1; j <= n; j++)
                if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function med(list) { return list == "" ? "-" : sprintf("%.2f", median(list)) }
    { side = $1; key = $2; if (!(key in seen)) { seen[key] = 1; order[++count] = key }
      out[side, key] = out[side, key] " " $3; inp[side, key] = inp[side, key] " " $4 }
    END {
        for (k = 1; k <= count; k++) {
            key = order[k]
            if (out[1, key] == "" || out[2, key] == "") {
                printf "%12s  %9s %9s   %9s %9s   %5s %5s\n", key, med(out[1, key]), med(inp[1, key]),
                    med(out[2, key]), med(inp[2, key]), "-", "-"
                continue
            }
            bo = median(out[1, key]); bi = median(inp[1, key]); ao = median(out[2, key]); ai = median(inp[2, key])
            printf "%12s  %9.2f %9.2f   %9.2f %9.2f   %5.2f %5.2f\n", key, bo, bi, ao, ai, ao / bo, ai / bi
        }
    }' "$@"
}
near=$(cat "$work"/before.*.place "$work"/after.*.place | grep -c '^n$' || true)
medians . "== medians over $rounds rounds: size, before out/in (us), after out/in (us), after/before out/in"
medians n "== medians over the near runs ($near of $((2 * rounds))): size, before out/in, after out/in, after/before"
