#!/usr/bin/env bash
# tuner-show.sh TOOL [extra bench flags...]
#
# For one tool with -g 2 (or NPROCS=2: two processes of one rank each, --nprocs 2): the online tuner's plan per size against the default and against the winner of a --sweep,
# the three re-measured interleaved with --compare-plans (A=default, B=sweep winner, C=tuned; medians).
# Extra flags (e.g. --load matmul:1) pass through to every run.
#
# Settings (environment):
#   JCCL_BENCH_JAR   the built bench jar (default bench/target/jccl-bench.jar; this script never rebuilds it)
#   OUT_DIR          where the logs go (default /tmp/tuner-show)
#   MIN_BYTES, TUNE_MAX_BYTES, STEP   sizes of the --tuner auto run (default 8, 128M, 4)
#   CMP_MAX_BYTES    largest size swept and compared (default 32M; larger sizes are slow on a small host)
#   SWEEP_ALGOS      algo values of the sweep (default ring,tree,direct for all_reduce_perf, ring,direct for
#                    all_gather_perf and reduce_scatter_perf, else ring)
#   SWEEP_PROTOS     proto values (default simple,ll,ll128); SWEEP_NCHANNELS (default 1,2,4)
#   SWEEP_ITERS, SWEEP_WARMUP   -n/-w of the sweep (default 10, 2)
#   CMP_ITERS, CMP_WARMUP, CMP_ROUNDS   -n/-w/--rounds of --compare-plans (default 20, 5, 15)
#   REUSE=1          reuse the tuner and sweep logs already in OUT_DIR (re-run only the comparisons)
#   LOAD_TARGET      tuned/default target under --load (default 1.3; applied when the extra flags contain --load)
#   JCCL_CALIBRATION the cost model's constants: defaults here unless set, so every run has the same default plan
#   NPROCS           run each tool as this many processes of one rank (--nprocs) instead of -g 2 in one process
set -euo pipefail
# the cost model calibrates itself once per process, which can move the default plan from one run to the next;
# hold it still unless the caller chose otherwise
export JCCL_CALIBRATION=${JCCL_CALIBRATION:-defaults}

if [[ $# -lt 1 ]]; then
  echo "usage: $0 TOOL [extra bench flags...]" >&2
  exit 2
fi
TOOL=$1
shift
EXTRA=("$@")

JAR=${JCCL_BENCH_JAR:-bench/target/jccl-bench.jar}
J=(java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar "$JAR")
# where the ranks run: -g 2 in one process, or NPROCS processes
if [[ -n ${NPROCS:-} ]]; then RANKS=(--nprocs "$NPROCS"); G=(); else RANKS=(); G=(-g 2); fi
OUT=${OUT_DIR:-/tmp/tuner-show}
B=${MIN_BYTES:-8}
TE=${TUNE_MAX_BYTES:-128M}
F=${STEP:-4}
CE=${CMP_MAX_BYTES:-32M}
case $TOOL in
  all_reduce_perf) DEF_ALGOS=ring,tree,direct ;;
  all_gather_perf|reduce_scatter_perf) DEF_ALGOS=ring,direct ;;
  *) DEF_ALGOS=ring ;;
esac
ALGOS=${SWEEP_ALGOS:-$DEF_ALGOS}
PROTOS=${SWEEP_PROTOS:-simple,ll,ll128}
NCH=${SWEEP_NCHANNELS:-1,2,4}
SN=${SWEEP_ITERS:-10}
SW=${SWEEP_WARMUP:-2}
CN=${CMP_ITERS:-20}
CW=${CMP_WARMUP:-5}
CR=${CMP_ROUNDS:-15}
LOADED=0
for x in "${EXTRA[@]+"${EXTRA[@]}"}"; do [[ $x == --load* ]] && LOADED=1; done
LOAD_TARGET=${LOAD_TARGET:-1.3}

[[ -f $JAR ]] || { echo "no bench jar at $JAR (build it, or set JCCL_BENCH_JAR)" >&2; exit 1; }
mkdir -p "$OUT"
tag=$TOOL
[[ $LOADED == 1 ]] && tag=$TOOL-load

now() { date +%s; }
log() { echo "[$(date +%T)] $*" >&2; }

# 'ring/simple/p2p/2ch/32K' -> 'algo=ring,proto=simple,transport=p2p,nchannels=2,chunk=32K'
plan_pins() {
  local p=${1%\*}
  IFS=/ read -r a pr tr ch ck <<<"$p"
  echo "algo=$a,proto=$pr,transport=$tr,nchannels=${ch%ch},chunk=$ck"
}

# ---- a. --tuner auto
t0=$(now)
TLOG=$OUT/$tag-tuner.log
log "tuner: ${J[*]} ${RANKS[*]+${RANKS[*]}} $TOOL ${G[*]+${G[*]}} -b $B -e $TE -f $F --tuner auto --no-progress ${EXTRA[*]+${EXTRA[*]}}"
if [[ ${REUSE:-0} == 1 && -s $TLOG ]]; then log "reusing $TLOG"; else
"${J[@]}" "${RANKS[@]+"${RANKS[@]}"}" "$TOOL" "${G[@]+"${G[@]}"}" -b "$B" -e "$TE" -f "$F" --tuner auto --no-progress "${EXTRA[@]+"${EXTRA[@]}"}" \
  >"$TLOG" 2>"$OUT/$tag-tuner.err"
fi
t_tuner=$(($(now) - t0))
# size default dbus tuned tbus ratio trials search
awk '/^# Online tuning summary/{s=1;next} s&&/^# Tuning:/{s=0} s&&!/^#/&&NF>=12{print $1,$6,$7,$8,$9,$10,$11,$12}' \
  "$TLOG" >"$OUT/$tag-tuner.tsv"
[[ -s $OUT/$tag-tuner.tsv ]] || { echo "no tuning summary in $TLOG" >&2; exit 1; }

# ---- b. --sweep
t0=$(now)
SLOG=$OUT/$tag-sweep.log
log "sweep: ${J[*]} ${RANKS[*]+${RANKS[*]}} $TOOL ${G[*]+${G[*]}} -b $B -e $CE -f $F -n $SN -w $SW --sweep algo=$ALGOS --sweep proto=$PROTOS --sweep nchannels=$NCH --no-progress ${EXTRA[*]+${EXTRA[*]}}"
if [[ ${REUSE:-0} == 1 && -s $SLOG ]]; then log "reusing $SLOG"; else
"${J[@]}" "${RANKS[@]+"${RANKS[@]}"}" "$TOOL" "${G[@]+"${G[@]}"}" -b "$B" -e "$CE" -f "$F" -n "$SN" -w "$SW" --sweep "algo=$ALGOS" --sweep "proto=$PROTOS" \
  --sweep "nchannels=$NCH" --no-progress "${EXTRA[@]+"${EXTRA[@]}"}" >"$SLOG" 2>"$OUT/$tag-sweep.err"
fi
t_sweep=$(($(now) - t0))
# The summary's 'best' is the best pinned combination; the default pass counts too, so the winner is the larger.
# size winner-pins winner-busbw default-busbw default-plan
awk '/^# Sweep summary/{s=1;next} s&&/^#$/{s=0} s&&!/^#/&&NF>=10{
       if ($7+0 >= $9+0) print $1,$6,$7,$9,$8; else print $1,"default",$9,$9,$8 }' "$SLOG" >"$OUT/$tag-sweep.tsv"
[[ -s $OUT/$tag-sweep.tsv ]] || { echo "no sweep summary in $SLOG" >&2; exit 1; }

# ---- c. --compare-plans per size
t0=$(now)
: >"$OUT/$tag-compare.tsv"
while read -r size winner wbus dbus dplan; do
  tuned=$(awk -v s="$size" '$1==s{print $4}' "$OUT/$tag-tuner.tsv")
  # --compare-plans refuses a plan given twice: a winning default pass becomes the default plan pinned, and a
  # tuned plan equal to the winner is measured once (C = B)
  wpins=$winner
  [[ $winner == default ]] && wpins=$(plan_pins "$dplan")
  # a size the tuner does not decide (count 0): nothing to compare
  if [[ -z $tuned || $tuned == - ]]; then log "compare $size: skipped, the tuner does not decide it"; continue; fi
  tpins=$(plan_pins "$tuned")
  # the default's own plan pinned, as a control: A against it shows how far two measurements of one plan differ
  # here (left out when the winner or the tuned plan already is that plan)
  dpins=$(plan_pins "$dplan")
  if [[ $tpins == "$wpins" ]]; then plans="default;$wpins"; hasc=0; else plans="default;$wpins;$tpins"; hasc=1; fi
  # where the control's ratio comes from: the tuned plan (C), the winner (B), or a last plan of its own (D)
  if [[ $dpins == "$tpins" ]]; then control=C; elif [[ $dpins == "$wpins" ]]; then control=B; else plans="$plans;$dpins"; control=D; fi
  CLOG=$OUT/$tag-compare-$size.log
  log "compare $size: ${J[*]} ${RANKS[*]+${RANKS[*]}} $TOOL ${G[*]+${G[*]}} -b $size -e $size -n $CN -w $CW --rounds $CR --compare-plans \"$plans\" ${EXTRA[*]+${EXTRA[*]}}"
  "${J[@]}" "${RANKS[@]+"${RANKS[@]}"}" "$TOOL" "${G[@]+"${G[@]}"}" -b "$size" -e "$size" -n "$CN" -w "$CW" --rounds "$CR" --compare-plans "$plans" \
    --no-progress "${EXTRA[@]+"${EXTRA[@]}"}" >"$CLOG" 2>"$OUT/$tag-compare-$size.err" || {
      echo "compare-plans failed at $size (see $CLOG)" >&2; continue; }
  # size A:bus B:bus C:bus B/A C/A planA planB planC D/A (k plans: 4 fields, k x (time, bus), k ratios, k plans;
  # C is B when the tuned plan is the winner; D/A is C/A or B/A when that plan is the default's)
  awk -v hasc="$hasc" -v control="$control" '!/^#/&&NF>=12&&(NF-4)%4==0{
       k = (NF - 4) / 4; c = hasc ? 2 : 1
       printf "%s %s %s %s %s %s %s %s %s %s\n", $1, $6, $8, $(6 + 2 * c), $(6 + 2 * k), $(5 + 2 * k + c),
         $(5 + 3 * k), $(6 + 3 * k), $(5 + 3 * k + c),
         control == "D" ? $(4 + 3 * k) : control == "C" ? $(5 + 2 * k + c) : $(6 + 2 * k) }' "$CLOG" >>"$OUT/$tag-compare.tsv"
done <"$OUT/$tag-sweep.tsv"
t_cmp=$(($(now) - t0))

# ---- d. the table
{
  echo "# $TOOL ${RANKS[*]+${RANKS[*]}} ${G[*]+${G[*]}} ${EXTRA[*]+${EXTRA[*]}}: tuner -b $B -e $TE -f $F; sweep (algo=$ALGOS proto=$PROTOS nchannels=$NCH, -n $SN) and compare-plans (-n $CN, $CR rounds, A=default B=winner C=tuned) up to $CE"
  echo "# ratios from --compare-plans medians (out-of-place busbw); tuned/winner = (C/A)/(B/A); winner = best sweep pass incl. the default pass"
  echo "# def/def: the default's plan pinned against the default (a control, or B or C when that is the plan): one plan measured twice, how far a ratio moves by chance here"
  echo "# targets: T1 tuned/winner>=0.95; T2 tuned/default>=1.2 where winner/default>=1.2; T3 search calls<=200 and converged$([[ $LOADED == 1 ]] && echo "; TL tuned/default>=$LOAD_TARGET under the load")"
  printf '%10s | %-26s | %-32s | %-26s | %8s | %8s | %8s | %8s | %-9s | %s\n' size "default plan" "sweep winner" \
    "tuned plan" win/def tun/def tun/win def/def trials/calls verdicts
  while read -r size def dbus tuned tbus ratio trials search; do
    line=$(awk -v s="$size" '$1==s' "$OUT/$tag-compare.tsv")
    winner=$(awk -v s="$size" '$1==s{print $2}' "$OUT/$tag-sweep.tsv")
    conv=ok
    if [[ $search == - ]]; then conv=n/a; elif [[ $search -gt 200 || $tuned == *\* ]]; then conv=MISS; fi
    if [[ -n $line ]]; then
      read -r _ abus bbus cbus ba ca pa pb pc da <<<"$line"
      tw=$(awk -v b="$ba" -v c="$ca" 'BEGIN{ if (b>0) printf "%.2f", c/b; else print "nan" }')
      v=$(awk -v b="$ba" -v c="$ca" -v tw="$tw" -v l="$LOADED" -v lt="$LOAD_TARGET" 'BEGIN{
            t1 = (tw+0 >= 0.95) ? "T1 ok" : "T1 MISS";
            if (b+0 >= 1.2) t2 = (c+0 >= 1.2) ? "T2 ok" : "T2 MISS"; else t2 = "T2 n/a";
            s = t1 " " t2;
            if (l == 1) s = s " " ((c+0 >= lt) ? "TL ok" : "TL MISS");
            print s }')
      printf '%10s | %-26s | %-32s | %-26s | %8s | %8s | %8s | %8s | %-9s | %s T3 %s\n' "$size" "$pa" \
        "$pb$([[ $winner == default ]] && echo ' (dflt)')" "$pc" "$ba" "$ca" "$tw" "$da" "$trials/$search" "$v" "$conv"
    else
      printf '%10s | %-26s | %-32s | %-26s | %8s | %8s | %8s | %8s | %-9s | %s\n' "$size" "$def" "(not swept)" \
        "$tuned" - "$ratio*" - - "$trials/$search" "T3 $conv (tun/def* from the tuner's own scores)"
    fi
  done <"$OUT/$tag-tuner.tsv"
  echo "# time: tuner ${t_tuner}s, sweep ${t_sweep}s, compare-plans ${t_cmp}s"
} | tee "$OUT/$tag-table.txt"
