"""Readers of the two tables the compare scripts put side by side (bench/procs-compare.sh, bench/peers.sh):
jccl-bench's nccl-tests table and bench/peers/coll_bench.c's. The scripts import it from their python3 heredocs with
the bench directory on sys.path."""


def jccl_rows(path):
    """size in bytes -> (out-of-place time in us, every #wrong cell of the row: out-of-place, then in-place).

    nccl-tests prints the out-of-place columns first, so the first 'time' of the header is the out-of-place one. Empty
    when the file holds no table (the caller says why)."""
    rows, header = {}, None
    for line in open(path):
        if line.startswith('#') and 'busbw' in line and 'count' in line and header is None:
            header = line.lstrip('#').split()
            continue
        t = line.split()
        if header and t and t[0].isdigit():
            wrong = tuple(t[i] for i, name in enumerate(header) if name == '#wrong' and i < len(t))
            rows[int(t[0])] = (float(t[header.index('time')]), wrong)
    return rows


def peer_rows(path):
    """(operation, bytes) -> (time in us, check) from coll_bench's rows: op bytes count iters time_us tmax_us algbw
    busbw check, where op is coll_bench's name (allreduce, allgather, ...) and check is ok or WRONG."""
    rows = {}
    for line in open(path):
        t = line.split()
        if len(t) >= 9 and t[1].isdigit():
            rows[(t[0], int(t[1]))] = (float(t[4]), t[8])
    return rows


# bench/handoff-probe's ns a cache line takes between the two CPUs: below this the host had put the vCPUs on cores
# sharing a cache (40-70 ns here), above it apart (160-240 ns)
NEAR_NS = 120


def placement(before, after):
    """The vCPUs' placement during a run from the probes before and after it: 'n' near (both under NEAR_NS),
    'a' apart (both over), 'm' mixed (it moved during the run, or between)."""
    if before < NEAR_NS and after < NEAR_NS:
        return 'n'
    return 'a' if before >= NEAR_NS and after >= NEAR_NS else 'm'
