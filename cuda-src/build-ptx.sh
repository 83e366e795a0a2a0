#!/usr/bin/env bash
# build-ptx.sh [--force] [--check-wire]: generates the wire contract's files from cuda-src/jccl_wire.def
# (tools/WireGen.java; with --check-wire, as jccl-kernels' pom runs it, only says which differ: the build must not
# overwrite a committed file, so a stale or hand-edited one fails WireContractTest instead), then compiles every
# cuda-src/*.cu to PTX that CUDA 12 drivers load, into jccl-kernels'
# resources, where it is committed so that machines without nvcc build too. jccl-kernels' pom runs it at
# generate-resources; run it by hand after changing anything under cuda-src/ (PtxSourceHashTest fails until then).
#
# Without nvcc on the PATH it does nothing. Otherwise, unless --force, it does nothing when the shipped PTX is up to
# date: every PTX carries the source hash below on its first line, jccl_types.def's copy equals the original, and
# the index lists exactly the .cu files. Else, for each cuda-src/<base>.cu:
#   nvcc -ptx -arch=compute_75 -fmad=false -O3 -std=c++17  (nvcc 13's oldest target; no FMA contraction, so that
#       the device rounds as the host arithmetic does)
#   the ".version 9.0" line (which only CUDA 13 drivers load) rewritten to 7.8, or to 8.0 if ptxas refuses 7.8
#       (CUDA 12.0 drivers and JCuda's PTX compiler take up to 8.0)
#   the header line "// jccl-cuda-src-sha256: <hash>" put first
#   assembled by ptxas for sm_75, sm_80 and sm_90 (any failure stops the script)
#   written to jccl-kernels/src/main/resources/io/jccl/kernels/ptx/<base>.ptx
# and then jccl_types.def is copied to jccl-kernels/src/main/resources/io/jccl/kernels/jccl_types.def and the bases
# are listed, sorted, one a line, in .../ptx/index.txt (jar resources cannot be listed).
#
# The source hash (io.jccl.kernels.cuda.PtxSourceHashTest computes the same):
#   take every regular file under cuda-src/, recursively, not following symbolic links, except the files under
#   cuda-src/host-test/ (host-only test code, never compiled to PTX) and the files with a path component that
#   starts with "." (editor and tool leftovers); name each by its path relative to cuda-src/ with "/" separators;
#   sort the names by their bytes (C locale); SHA-256 over, for each file in that order, its name, a 0 byte, its
#   content, a 0 byte; written as 64 lower-case hex digits.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/cuda-src"
resources="$root/jccl-kernels/src/main/resources/io/jccl/kernels"
out="$resources/ptx"

force=false
wire_mode=write
for arg in "$@"
do
    case "$arg" in
        --force) force=true ;;
        --check-wire) wire_mode=check ;;
        *) echo "usage: $0 [--force] [--check-wire]" >&2; exit 2 ;;
    esac
done

# the wire contract first (cuda-src/jccl_wire.def): it regenerates jccl_wire.h here and the Java side's StepWire and
# DeviceWire where they differ, with or without nvcc; the PTX below then follows the new header. The build only
# checks, and goes on: WireContractTest then fails naming the stale files
if command -v java > /dev/null 2>&1
then
    if [[ $wire_mode == check ]]
    then
        java "$root/tools/WireGen.java" "$root" --check ||
            echo "build-ptx.sh: the wire contract's generated files differ from cuda-src/jccl_wire.def; run" \
                "java tools/WireGen.java . (or cuda-src/build-ptx.sh) and commit them" >&2
    else
        java "$root/tools/WireGen.java" "$root"
    fi
else
    echo "java not found: the wire contract's generated files are left as they are"
fi

if ! command -v nvcc > /dev/null 2>&1
then
    echo "nvcc not found: using the committed PTX"
    exit 0
fi

source_hash()
{
    (
        cd "$src"
        find . -path ./host-test -prune -o -name '.?*' -prune -o -type f -print0 \
            | sed -z 's|^\./||' \
            | LC_ALL=C sort -z \
            | while IFS= read -r -d '' file
              do
                  printf '%s\0' "$file"
                  cat -- "$file"
                  printf '\0'
              done
    ) | sha256sum | cut -d' ' -f1
}

hash="$(source_hash)"
header="// jccl-cuda-src-sha256: $hash"
bases=()
for cu in "$src"/*.cu
do
    [ -e "$cu" ] || continue
    bases+=("$(basename "$cu" .cu)")
done
index="$(printf '%s\n' "${bases[@]}" | LC_ALL=C sort)"

up_to_date()
{
    cmp -s "$src/jccl_types.def" "$resources/jccl_types.def" || return 1
    [ -f "$out/index.txt" ] && [ "$(cat "$out/index.txt")" = "$index" ] || return 1
    local base
    for base in "${bases[@]}"
    do
        [ -f "$out/$base.ptx" ] && [ "$(head -n 1 "$out/$base.ptx")" = "$header" ] || return 1
    done
}

if ! $force && up_to_date
then
    echo "PTX up to date"
    exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for base in "${bases[@]}"
do
    echo "build-ptx: $base.cu"
    nvcc -ptx -arch=compute_75 -fmad=false -O3 -std=c++17 -o "$work/$base.nvcc.ptx" "$src/$base.cu"
    if ! grep -q '^\.version 9\.0$' "$work/$base.nvcc.ptx"
    then
        echo "build-ptx: $base: nvcc wrote $(grep -m 1 '^\.version' "$work/$base.nvcc.ptx"), not .version 9.0:" \
            "check the rewrite still holds" >&2
        exit 1
    fi
    version=7.8
    sed "s/^\.version 9\.0$/.version $version/" "$work/$base.nvcc.ptx" > "$work/$base.ptx"
    if ! ptxas -arch=sm_75 -o /dev/null "$work/$base.ptx" 2> "$work/$base.ptxas.log"
    then
        echo "build-ptx: $base: ptxas refuses .version 7.8, trying 8.0:"
        cat "$work/$base.ptxas.log"
        version=8.0
        sed "s/^\.version 9\.0$/.version $version/" "$work/$base.nvcc.ptx" > "$work/$base.ptx"
    fi
    { echo "$header"; cat "$work/$base.ptx"; } > "$work/$base.final.ptx"
    for arch in sm_75 sm_80 sm_90
    do
        if ! ptxas -arch="$arch" -o /dev/null "$work/$base.final.ptx"
        then
            echo "build-ptx: $base: ptxas -arch=$arch fails on .version $version (above)" >&2
            exit 1
        fi
    done
    mv "$work/$base.final.ptx" "$out/$base.ptx"
    echo "build-ptx: $base.ptx: .version $version, $(grep -c '^\.visible \.entry' "$out/$base.ptx") kernels," \
        "$(wc -c < "$out/$base.ptx") bytes, assembles for sm_75 sm_80 sm_90"
done
# PTX left from a .cu that is gone
for ptx in "$out"/*.ptx
do
    [ -e "$ptx" ] || continue
    case " ${bases[*]} " in
        *" $(basename "$ptx" .ptx) "*) ;;
        *) echo "build-ptx: removing $(basename "$ptx"), whose .cu is gone"; rm -f "$ptx" ;;
    esac
done
cp "$src/jccl_types.def" "$resources/jccl_types.def"
printf '%s\n' "$index" > "$out/index.txt"
echo "build-ptx: source hash $hash"
