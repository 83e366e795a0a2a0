package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The flags of the tools: nccl-tests' own letters, long names and defaults ({@code src/common.cu}), then jccl's,
 * under their own headings in {@code -h}: the plan knobs ({@code --algo}, {@code --proto}, {@code --transport},
 * {@code --nchannels}, {@code --min-nchannels}, {@code --max-nchannels}, {@code --block-threads}, {@code --chunk},
 * {@code --tuner}, {@code --tuner-config}, {@code --trace}), each setting one {@code JCCL_*} variable of the
 * {@link Context} (a flag not given leaves the variable in force), and {@code --sweep}, {@code --timeout-ms},
 * {@code --schedule}, {@code --csv}, {@code --[no-]progress}, {@code --jit-warmup-ms}, {@code --row-time-ms},
 * {@code --tune-iters}, {@code --load}, {@code --compare-plans}, {@code --rounds}, {@code --plain-memory},
 * {@code --same-buffers}, {@code --p2p}. nccl-tests' {@code -J/--output_file} (alias {@code --json}) writes the JSON
 * result file. Sizes take K, M and G suffixes; integers take C notation ({@code 0x10}).
 * <p>
 * {@link #validate()} rejects a bad value before any rank starts, naming its flag (or sweep key): each knob value is
 * set on a {@link Context} of its own and checked by {@link Context#constraints()}, then the context of every pass
 * (flags over the environment) is built and checked the same way.
 * <p>
 * nccl-tests flags that have no meaning on jccl's host backend are accepted so that scripts run unchanged:
 * {@code -p} (jccl creates all ranks at once), {@code -G} (no CUDA graphs); the runner says so on stderr.
 * {@code -R} keeps nccl-tests' meaning: the buffers, from jccl's shared allocator as nccl-tests' are from
 * {@code ncclMemAlloc} (unless {@code --plain-memory}), are registered with the communicators.
 * <p>
 * Over 600 lines on purpose: one job, the tool's command line, but nccl-tests' flags and jccl's each need their
 * picocli declaration, help text and check, and they are read together.
 */
@Command(
    name = "jccl-bench",
    sortOptions = false,
    usageHelpWidth = 120,
    description = "nccl-tests compatible benchmark of jccl collectives. All ranks (nthreads x ngpus) run in this " +
        "process, or one rank per process under --nprocs or a launcher (see below); sizes take K, M, G suffixes.",
    footer = {
        "%nMulti-process runs (one rank per process, -t 1 -g 1; the ranks meet over shared memory on one host):",
        "  jccl-bench --nprocs N <tool> [flags]     N JVMs on this host, as torchrun --nproc-per-node N; the flag may",
        "                                           also come after the tool name",
        "  --bind-to core|none                      with --nprocs: a CPU per JVM (taskset -c), as mpirun; default core",
        "                                           when there are no more JVMs than CPUs and taskset exists",
        "  mpirun -np N -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=29500 -x JCCL_SECRET=<s> jccl-bench <tool> [flags]",
        "  srun -n N ... and torchrun --nproc-per-node N --no-python jccl-bench ... alike; or export",
        "  JCCL_COMM_ID=127.0.0.1:<port>/<32 hex digits> to every rank.",
        "  A process is one rank of several when JCCL_RANK/JCCL_WORLD_SIZE, RANK/WORLD_SIZE, OMPI_COMM_WORLD_RANK,",
        "  PMI_RANK or SLURM_PROCID names a world of more than one; the ranks meet at JCCL_COMM_ID,",
        "  MASTER_ADDR/MASTER_PORT or JCCL_MASTER_ADDR/JCCL_PORT. Rank 0 prints the table; the other ranks print",
        "  nothing on stdout, and every rank's stderr is prefixed [rank k].",
        "  The buffers come from jccl's shared memory, which the other processes read in place (P2P, no staging",
        "  copy), as nccl-tests' come from ncclMemAlloc; --plain-memory gives private memory, staged between them."
    })
public final class BenchOptions
{
    /** The system property that overrides the default of {@code --jit-warmup-ms} (the bench's own tests set it). */
    public static final String JIT_WARMUP_MS_PROP_NAME = "jccl.bench.jitWarmupMs";
    /** The default of {@code --jit-warmup-ms}, in milliseconds. */
    public static final long JIT_WARMUP_MS_DEFAULT = 500;
    /** The default of {@code --tune-iters} is the online tuner's budget and its confirmation's calls, plus this many. */
    public static final int TUNE_ITERS_MARGIN = 50;
    /** nccl-tests' type order for {@code -d all} (ncclDataType_t order). */
    private static final List<DataType> ALL_TYPES = List.of(DataType.values());
    /** nccl-tests' operator names for {@code -o all}, in its order. */
    private static final List<String> ALL_OPS = List.of("sum", "prod", "max", "min", "avg", "mulsum");

    @Option(names = {"-t", "--nthreads"}, converter = IntConverter.class, paramLabel = "<num threads>",
        description = "threads, each driving ngpus ranks (default: ${DEFAULT-VALUE})", defaultValue = "1")
    private int nThreads;

    @Option(names = {"-g", "--ngpus"}, converter = IntConverter.class, paramLabel = "<gpus per thread>",
        description = "ranks per thread, driven through group calls (default: ${DEFAULT-VALUE})", defaultValue = "1")
    private int nGpus;

    @Option(names = {"-b", "--minbytes"}, converter = SizeConverter.class, paramLabel = "<min size in bytes>",
        description = "smallest message (default: 32M)", defaultValue = "32M")
    private long minBytes;

    @Option(names = {"-e", "--maxbytes"}, converter = SizeConverter.class, paramLabel = "<max size in bytes>",
        description = "largest message (default: 32M)", defaultValue = "32M")
    private long maxBytes;

    @Option(names = {"-i", "--stepbytes"}, converter = SizeConverter.class, paramLabel = "<increment size>",
        description = "size increment when stepfactor is 1 (default: 1M)", defaultValue = "1M")
    private long stepBytes;

    @Option(names = {"-f", "--stepfactor"}, converter = LongConverter.class, paramLabel = "<increment factor>",
        description = "size multiplier, used when above 1 (default: ${DEFAULT-VALUE})", defaultValue = "1")
    private long stepFactor;

    @Option(names = {"-n", "--iters"}, converter = IntConverter.class, paramLabel = "<iteration count>",
        description = "timed iterations per size (default: ${DEFAULT-VALUE})", defaultValue = "20")
    private int iters;

    @Option(names = {"-m", "--agg_iters"}, converter = IntConverter.class,
        paramLabel = "<aggregated iteration count>",
        description = "calls aggregated in one group per iteration (default: ${DEFAULT-VALUE})", defaultValue = "1")
    private int aggIters;

    @Option(names = {"-w", "--warmup_iters"}, converter = IntConverter.class, paramLabel = "<warmup iteration count>",
        description = "untimed iterations at the largest and smallest size (default: ${DEFAULT-VALUE})",
        defaultValue = "5")
    private int warmupIters;

    @Option(names = {"-N", "--run_cycles"}, converter = IntConverter.class, paramLabel = "<cycle count>",
        description = "run and print each cycle (default: ${DEFAULT-VALUE}; 0=infinite)", defaultValue = "1")
    private int runCycles;

    @Option(names = {"-p", "--parallel_init"}, converter = IntConverter.class, paramLabel = "<0/1>",
        description = "accepted for compatibility; jccl creates all ranks at once", defaultValue = "0")
    private int parallelInit;

    @Option(names = {"-c", "--check"}, converter = IntConverter.class, paramLabel = "<check iteration count>",
        description = "checked runs per size, 0 to skip checking (default: ${DEFAULT-VALUE})", defaultValue = "1")
    private int check;

    @Option(names = {"-o", "--op"}, paramLabel = "<sum/prod/min/max/avg/mulsum/all>",
        description = "reduction operator (default: ${DEFAULT-VALUE})", defaultValue = "sum")
    private String op;

    @Option(names = {"-d", "--datatype"}, paramLabel = "<nccltype/all>",
        description = "element type: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 " +
            "f8e5m2, or all (default: ${DEFAULT-VALUE})", defaultValue = "float")
    private String datatype;

    @Option(names = {"-r", "--root"}, converter = IntConverter.class, paramLabel = "<root>",
        description = "root of broadcast and reduce, -1 for every rank in turn (default: ${DEFAULT-VALUE})",
        defaultValue = "0")
    private int root;

    @Option(names = {"-z", "--blocking"}, converter = IntConverter.class, paramLabel = "<0/1>",
        description = "wait for each call and meet at a barrier after it (default: ${DEFAULT-VALUE})",
        defaultValue = "0")
    private int blocking;

    @Option(names = {"-y", "--stream_null"}, converter = IntConverter.class, paramLabel = "<0/1>",
        description = "use the default stream instead of one stream per rank (default: ${DEFAULT-VALUE})",
        defaultValue = "0")
    private int streamNull;

    @Option(names = {"-T", "--timeout"}, converter = IntConverter.class, paramLabel = "<time in seconds>",
        description = "deadline of every wait, in seconds, when --timeout-ms is not given (default: ${DEFAULT-VALUE}" +
            " = jccl's default)", defaultValue = "0")
    private int timeoutSeconds;

    @Option(names = {"-G", "--cudagraph"}, converter = IntConverter.class, paramLabel = "<num graph launches>",
        description = "accepted for compatibility; jccl-bench does not use CUDA graphs", defaultValue = "0")
    private int cudaGraph;

    @Option(names = {"-C", "--report_cputime"}, converter = IntConverter.class, paramLabel = "<0/1>",
        description = "report the time to submit the calls instead of the time to complete them " +
            "(default: ${DEFAULT-VALUE})", defaultValue = "0")
    private int reportCputime;

    @Option(names = {"-a", "--average"}, converter = IntConverter.class, paramLabel = "<0/1/2/3>",
        description = "report average iteration time <0=RANK0/1=AVG/2=MIN/3=MAX> over threads " +
            "(default: ${DEFAULT-VALUE})", defaultValue = "1")
    private int average;

    @Option(names = {"-R", "--local_register"}, converter = IntConverter.class, paramLabel = "<1/0>",
        description = "register the buffers with the communicators (ncclCommRegister; jccl's shared buffers need " +
            "no registration to be read in place, so it changes no transfer; stderr says what peers read in place) " +
            "(default: ${DEFAULT-VALUE})", defaultValue = "0")
    private int localRegister;

    @Option(names = {"-J", "--output_file", "--json"}, paramLabel = "<file>",
        description = "also write the results as JSON: a header (machine, JVM, jccl version, command line) and one " +
            "record per size and placement; the directory has to exist, the file is overwritten")
    private Path jsonFile;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    private boolean help;

    @ArgGroup(validate = false, order = 1, heading = "%njccl's knobs (each sets the JCCL_* variable named; a flag " +
        "not given leaves that variable in force):%n")
    private KnobFlags knobs = new KnobFlags();

    @ArgGroup(validate = false, order = 2, heading = "%njccl's sweep and other flags:%n")
    private JcclFlags jccl = new JcclFlags();

    private Sweep parsedSweep;
    private List<SweepCombination> parsedPlans;
    private ComputeLoad.Spec parsedLoad;
    /** {@code --device emulated}: the CUDA path on {@link io.jccl.kernels.cuda.EmulatedCuda}. */
    static final String EMULATED_DEVICE = "emulated";

    private boolean cudaResolved;
    private io.jccl.kernels.cuda.CudaApi cuda;

    /** This process's rank among {@link #processCount} processes of one rank each (a launcher's), else 0. */
    private int processRank;
    /** The processes of a multi-process run, 1 when every rank runs in this one. */
    private int processCount = 1;

    /** jccl's flags that are not plan knobs. */
    static final class JcclFlags
    {
        @Option(names = "--sweep", arity = "1..*", paramLabel = "<key=v1,v2,...>", order = 1,
            description = "run every combination of these knob values (keys: algo, proto, transport, nchannels, " +
                "chunk, block-threads), each as its own table, then the default (no sweep pins), then a summary: " +
                "the best combination per row against the default; may be given several times")
        private List<String> sweep;

        @Option(names = "--timeout-ms", converter = LongConverter.class, paramLabel = "<ms>", order = 2,
            description = "JCCL_TIMEOUT_MS: deadline of every wait in milliseconds")
        private Long timeoutMs;

        @Option(names = "--schedule", paramLabel = "<file.xml>", order = 3,
            description = "JCCL_SCHEDULE_FILES (replaces it): run this MSCCL XML schedule wherever it applies; " +
                "rows it does not apply to run the built-in and are named on stderr and after the table")
        private Path schedule;

        @Option(names = "--csv", paramLabel = "<file.csv>", order = 4,
            description = "also write the results as CSV: '# key=value' header lines (machine, JVM, jccl version, " +
                "command line), then one record per size and placement; with --sweep every pass, in a " +
                "'combination' column; 'jccl-bench plot' draws it")
        private Path csvFile;

        @Option(names = "--progress", negatable = true, order = 5,
            description = "progress on stderr every few seconds: sweep combination k/n, size k/n, elapsed, " +
                "estimated time left (default: on when the JVM has a console, i.e. run from a terminal)")
        private Boolean progress;

        @Option(names = "--jit-warmup-ms", converter = LongConverter.class, paramLabel = "<ms>", order = 6,
            defaultValue = "${sys:" + JIT_WARMUP_MS_PROP_NAME + ":-" + JIT_WARMUP_MS_DEFAULT + "}",
            description = "JVM-specific (nccl-tests has none): before the first timed size of each pass, run the " +
                "collective on the smallest and the largest size for about this long, untimed and unchecked, so " +
                "that the JIT has compiled the call path (cold, the first sizes time 10-50x slower); 0 disables " +
                "(default: " + JIT_WARMUP_MS_DEFAULT + ")")
        private long jitWarmupMs;

        @Option(names = "--row-time-ms", converter = LongConverter.class, paramLabel = "<ms>", order = 6,
            description = "JVM-specific (nccl-tests has none): time each row for about this long, as MPI's " +
                "benchmarks do (coll_bench -t, IMB -time): when -n calls took less on the slowest rank, the row " +
                "times as many calls as fill it instead, at most " + BenchWorker.MAX_ROW_CALLS + "; a row of 100 " +
                "calls of 1 us is 100 us long, and one pause of a millisecond (a JIT compile, the host taking the " +
                "CPU) reads as 10 us a call; 0 times -n calls (default: 0)")
        private long rowTimeMs;

        @Option(names = "--tune-iters", converter = LongConverter.class, paramLabel = "<calls>", order = 7,
            description = "with --tuner auto: before timing each size, run it untimed until the online tuner's task " +
                "for it has converged, at most this many calls, and sum up default against tuned plans at the end; " +
                "0 skips the tuning (default: JCCL_TUNER_BUDGET + the confirmation's calls + " + TUNE_ITERS_MARGIN + ")")
        private Long tuneIters;

        @Option(names = ComputeLoad.FLAG, paramLabel = "<matmul:THREADS>", order = 8,
            description = "run a steady compute load in this process beside the collectives: THREADS daemon " +
                "threads each multiplying " + ComputeLoad.MATRIX_DIM + "x" + ComputeLoad.MATRIX_DIM + " float " +
                "matrices in a loop, from before the first size to the end of the run")
        private String load;

        @Option(names = ComparePlans.FLAG, paramLabel = "<A;B;...>", order = 9,
            description = "compare plans fairly on a noisy machine: each plan ('default', or key=value,... with " +
                "the --sweep keys) gets its own ranks, and per size the plans run in turn, A B A B..., for " +
                ComparePlans.ROUNDS_FLAG + " rounds of -n calls out of place; one table of medians and busbw " +
                "ratios to the first plan")
        private String comparePlans;

        @Option(names = ComparePlans.ROUNDS_FLAG, paramLabel = "<rounds>", order = 10,
            description = "with " + ComparePlans.FLAG + ": rounds per size (default: " + ComparePlans.ROUNDS_DEFAULT +
                ")")
        private Integer rounds;

        @Option(names = "--plain-memory", order = 11,
            description = "allocate the buffers in memory private to each process (HostBuffer.allocate) instead of " +
                "jccl's shared memory (Jccl.allocate, as nccl-tests allocates with ncclMemAlloc); ranks in other " +
                "processes then get every byte staged through shared FIFOs instead of reading it in place")
        private boolean plainMemory;

        @Option(names = "--same-buffers", order = 12,
            description = "every timed call on the same buffers (offset 0), as MPI's benchmarks (OSU, IMB) time: " +
                "a size smaller than the cache then reads from the cache; by default, as nccl-tests, call i works " +
                "on slice i %% (-e / size) of the largest size's buffers, so smaller sizes read memory that has left " +
                "the cache (2-5x slower on these CPUs from 128 KiB to 1 MiB with -e 16M)")
        private boolean sameBuffers;

        @Option(names = "--device", paramLabel = "<auto|host|cuda|emulated>", order = 13,
            description = "where the ranks' buffers live and the collectives run: cuda (jccl's kernels on the " +
                "visible GPUs, ranks round-robin over them, so -g may exceed them), host, or auto (cuda when a CUDA " +
                "driver and device are present, else host; the default); emulated runs the CUDA path on the device " +
                "double (host memory, the interpreter kernel's records run in Java: checks, not speed)")
        private String device = "auto";

        @Option(names = BenchTool.P2P_FLAG, order = 14,
            description = "alltoall_perf only: make the all-to-all one group of a send and a receive per peer " +
                "(nccl-tests' alltoall.cu) instead of the AllToAll collective; checked the same way, except in place " +
                "(N/A, as nccl-tests: the sends read what the receives write)")
        private boolean p2p;
    }


    /**
     * Checks ranges and names, naming the flag of a bad value: nccl-tests' flags, then each knob flag and sweep value
     * on a {@link Context} of its own, then flags that cannot be given together, then the context of every pass
     * (flags over the {@code JCCL_*} environment). Nothing here starts a rank.
     *
     * @throws IllegalArgumentException on a bad value, naming its flag, sweep key or variable.
     */
    public void validate()
    {
        positive(nThreads, "-t/--nthreads");
        positive(nGpus, "-g/--ngpus");
        positive(iters, "-n/--iters");
        positive(aggIters, "-m/--agg_iters");
        nonNegative(warmupIters, "-w/--warmup_iters");
        nonNegative(runCycles, "-N/--run_cycles");
        nonNegative(check, "-c/--check");
        nonNegative(timeoutSeconds, "-T/--timeout");
        if (minBytes > maxBytes)
        {
            throw new IllegalArgumentException("invalid sizes for 'minbytes' and 'maxbytes': " + minBytes + " > " +
                maxBytes);
        }
        Sizes.sequence(minBytes, maxBytes, stepBytes, stepFactor);
        if (average < 0 || average > 3)
        {
            throw new IllegalArgumentException("-a/--average " + average + " is not one of 0 (rank 0), 1 (avg), " +
                "2 (min), 3 (max)");
        }
        if (root < -1 || root >= nRanks())
        {
            throw new IllegalArgumentException("-r/--root " + root + " is outside -1.." + (nRanks() - 1));
        }
        types();
        opNames();
        try
        {
            if (!EMULATED_DEVICE.equalsIgnoreCase(jccl.device))
            {
                io.jccl.kernels.cuda.DeviceMode.parse(jccl.device);
            }
        }
        catch (final io.jccl.JcclInvalidArgumentException ex)
        {
            throw new IllegalArgumentException("--device: " + ex.getMessage(), ex);
        }
        knobs.validate();
        nonNegative(jccl.jitWarmupMs, "--jit-warmup-ms");
        nonNegative(jccl.rowTimeMs, "--row-time-ms");
        if (jsonFile != null && jccl.csvFile != null &&
            jsonFile.toAbsolutePath().normalize().equals(jccl.csvFile.toAbsolutePath().normalize()))
        {
            throw new IllegalArgumentException("--csv and -J/--output_file name the same file " + jsonFile +
                "; give two files");
        }
        if (jccl.timeoutMs != null && jccl.timeoutMs < 1)
        {
            throw new IllegalArgumentException("--timeout-ms " + jccl.timeoutMs + " must be at least 1");
        }
        if (jccl.schedule != null && knobs.algo() != null)
        {
            throw new IllegalArgumentException("--schedule and --algo " + knobs.algo() + " together: a pinned " +
                "algorithm beats a schedule, so " + jccl.schedule + " would never run; give one of them");
        }
        validateProcesses();
        validateSweep();
        validateComparePlans();
        validateContexts();
        validateTuning();
        parsedLoad = jccl.load == null ? null : ComputeLoad.Spec.parse(jccl.load);
    }

    /**
     * Makes this process one of several, each running one rank (a launcher's: {@code --nprocs}, mpirun, srun,
     * torchrun); {@link #nRanks()} then counts the ranks of every process. Called before {@link #validate()}.
     *
     * @param rank  this process's rank, 0..count-1.
     * @param count the processes, at least 1; 1 for a run in this process alone.
     * @return this.
     */
    public BenchOptions processes(final int rank, final int count)
    {
        if (count < 1 || rank < 0 || rank >= count)
        {
            throw new IllegalArgumentException("process rank " + rank + " is outside 0.." + (count - 1));
        }
        this.processRank = rank;
        this.processCount = count;
        return this;
    }

    /** A process of several runs one rank. */
    private void validateProcesses()
    {
        if (processCount == 1)
        {
            return;
        }
        if (nThreads != 1 || nGpus != 1)
        {
            throw new IllegalArgumentException("-t/--nthreads " + nThreads + " -g/--ngpus " + nGpus + " with " +
                processCount + " processes: each process of a multi-process run drives one rank; give -t 1 -g 1 " +
                "(or run every rank in one process, without --nprocs or a launcher)");
        }
    }

    /** The plans of {@code --compare-plans}, its rounds, and the flags it cannot be given with. */
    private void validateComparePlans()
    {
        if (jccl.comparePlans == null)
        {
            if (jccl.rounds != null)
            {
                throw new IllegalArgumentException(ComparePlans.ROUNDS_FLAG + " " + jccl.rounds + " needs " +
                    ComparePlans.FLAG + ": it counts the rounds in which the plans take turns");
            }
            return;
        }
        if (jccl.rounds != null)
        {
            positive(jccl.rounds, ComparePlans.ROUNDS_FLAG);
        }
        parsedPlans = ComparePlans.parse(jccl.comparePlans);
        final String together = ComparePlans.FLAG + " and %s together: %s";
        if (jccl.sweep != null)
        {
            throw new IllegalArgumentException(String.format(together, Sweep.FLAG, "the plans to compare are " +
                "already listed; give each combination as a plan, or sweep without " + ComparePlans.FLAG));
        }
        if (jccl.csvFile != null || jsonFile != null)
        {
            throw new IllegalArgumentException(String.format(together, "--csv/-J/--output_file", "the comparison " +
                "prints its table of medians only"));
        }
    }

    /** The sweep's keys and values, and the flags it cannot be given with. */
    private void validateSweep()
    {
        parsedSweep = jccl.sweep == null ? null : Sweep.parse(jccl.sweep);
        if (parsedSweep == null)
        {
            return;
        }
        final Map<SweepKey, String> flags = knobFlags();
        for (final SweepKey key : parsedSweep.values().keySet())
        {
            final boolean rangeGiven = key == SweepKey.NCHANNELS &&
                (knobs.minChannels() != null || knobs.maxChannels() != null);
            if (flags.containsKey(key) || rangeGiven)
            {
                final String flag = rangeGiven ? "--min-nchannels/--max-nchannels" : key.flag();
                throw new IllegalArgumentException(Sweep.FLAG + " " + key.key() + " and " + flag + " together: " +
                    "the sweep sets " + key.key() + " in each combination and leaves it to the tuner in the " +
                    "default pass; give one of them");
            }
        }
        if (jccl.schedule != null && parsedSweep.sets(SweepKey.ALGO))
        {
            throw new IllegalArgumentException(Sweep.FLAG + " algo and --schedule together: a pinned algorithm " +
                "beats a schedule, so " + jccl.schedule + " would run in the default pass only; give one of them");
        }
        if (runCycles == 0)
        {
            throw new IllegalArgumentException(Sweep.FLAG + " with -N/--run_cycles 0 would never finish its first " +
                "combination; give a cycle count");
        }
    }

    /** The context of every pass, flags over the JCCL_* environment, as the ranks will be created with it. */
    private void validateContexts()
    {
        final List<SweepCombination> passes = new ArrayList<>();
        if (parsedSweep != null)
        {
            passes.addAll(parsedSweep.combinations());
        }
        if (parsedPlans != null)
        {
            passes.addAll(parsedPlans);
        }
        passes.add(SweepCombination.DEFAULT);
        for (final SweepCombination pass : passes)
        {
            try
            {
                JcclCommunicatorFactory.context(this, pass).checkPlanSettings();
            }
            catch (final JcclException | IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("jccl settings " + (pass.isDefault() ? "" : "of sweep " +
                    "combination " + pass.label() + " ") + "(flags over the JCCL_* environment): " + ex.getMessage(),
                    ex);
            }
        }
    }

    /**
     * The online tuner's flags: {@code --trace} and {@code --tune-iters} need it, a multi-process run cannot have it
     * (jccl-core refuses it across processes: refused here before any process connects), a sweep's passes would
     * replace one another's trace, and its {@code JCCL_TUNER_*} settings must be valid.
     */
    private void validateTuning()
    {
        final boolean online;
        try
        {
            online = onlineTuning();
        }
        catch (final JcclException ex)
        {
            throw new IllegalArgumentException("jccl settings (flags over the JCCL_* environment): " +
                ex.getMessage(), ex);
        }
        final Path trace = knobs.trace();
        if (online && jccl.comparePlans != null)
        {
            throw new IllegalArgumentException(ComparePlans.FLAG + " and --tuner auto (or JCCL_TUNER=auto) " +
                "together: the online tuner would change the plans while they are timed; give --tuner model or table");
        }
        if (trace != null && !online)
        {
            throw new IllegalArgumentException("--trace " + trace + " needs --tuner auto (or JCCL_TUNER=auto): the " +
                "trace holds the online tuner's trials");
        }
        if (jccl.tuneIters != null && !online)
        {
            throw new IllegalArgumentException("--tune-iters " + jccl.tuneIters + " needs --tuner auto (or " +
                "JCCL_TUNER=auto): it runs each size until the online tuner has converged");
        }
        if (jccl.tuneIters != null)
        {
            nonNegative(jccl.tuneIters, "--tune-iters");
        }
        if (trace != null && jccl.sweep != null)
        {
            throw new IllegalArgumentException("--trace and " + Sweep.FLAG + " together: every combination's ranks " +
                "would replace " + trace + " with their own trials; trace one run without " + Sweep.FLAG);
        }
        if (trace != null)
        {
            final Path directory = trace.toAbsolutePath().getParent();
            if (directory == null || !Files.isDirectory(directory))
            {
                throw new IllegalArgumentException("--trace " + trace + ": the directory " + directory +
                    " does not exist");
            }
        }
        if (online)
        {
            try
            {
                new Context().checkOnlineTuner();
            }
            catch (final JcclException ex)
            {
                throw new IllegalArgumentException("online tuner settings: " + ex.getMessage(), ex);
            }
        }
    }

    /** @return total ranks: nthreads x ngpus x the processes of a multi-process run (each 1 x 1 there). */
    public int nRanks()
    {
        return Math.multiplyExact(localRanks(), processCount);
    }

    /** @return the ranks this process runs, nthreads x ngpus. */
    public int localRanks()
    {
        return Math.multiplyExact(nThreads, nGpus);
    }

    /** @return this process's rank in a multi-process run ({@link #processes}), else 0. */
    public int processRank()
    {
        return processRank;
    }

    /** @return the processes of a multi-process run, 1 when every rank runs in this process. */
    public int processCount()
    {
        return processCount;
    }

    /** @return the types to run, in nccl-tests' order for {@code all}. */
    public List<DataType> types()
    {
        if ("all".equals(datatype))
        {
            return ALL_TYPES;
        }
        try
        {
            return List.of(DataType.fromName(datatype));
        }
        catch (final JcclInvalidArgumentException ex)
        {
            throw new IllegalArgumentException("-d/--datatype '" + datatype + "' is not one of " +
                ALL_TYPES.stream().map(DataType::ncclTestsName).toList() + " or all");
        }
    }

    /** @return the operator names to run ({@code sum prod max min avg mulsum}), in nccl-tests' order for all. */
    public List<String> opNames()
    {
        final String name = op.toLowerCase(Locale.ROOT);
        if ("all".equals(name))
        {
            return ALL_OPS;
        }
        if (!ALL_OPS.contains(name))
        {
            throw new IllegalArgumentException("-o/--op '" + op + "' is not one of " + ALL_OPS + " or all");
        }
        return List.of(name);
    }

    /**
     * @param name   an operator name from {@link #opNames()}.
     * @param nRanks rank count.
     * @return the operator; {@code mulsum} is PreMulSum with the scalar 1/nRanks.
     */
    public static ReduceOp op(final String name, final int nRanks)
    {
        return "mulsum".equals(name) ? ReduceOp.preMulSum(1.0 / nRanks) : ReduceOp.fromName(name);
    }

    /**
     * @param tool the tool.
     * @return the roots to run: -1 for a collective without root; the {@code -r} root, or every rank for -1.
     */
    public List<Integer> roots(final BenchTool tool)
    {
        if (!tool.hasRoot())
        {
            return List.of(BenchTool.NO_ROOT);
        }
        if (root != -1)
        {
            return List.of(root);
        }
        final List<Integer> roots = new ArrayList<>();
        for (int r = 0; r < nRanks(); r++)
        {
            roots.add(r);
        }
        return roots;
    }

    /** @return the sizes to sweep. */
    public List<Long> sizes()
    {
        return Sizes.sequence(minBytes, maxBytes, stepBytes, stepFactor);
    }

    /** @return {@code -t}. */
    public int nThreads()
    {
        return nThreads;
    }

    /** @return {@code -g}. */
    public int nGpus()
    {
        return nGpus;
    }

    /** @return {@code -b} in bytes. */
    public long minBytes()
    {
        return minBytes;
    }

    /** @return {@code -e} in bytes. */
    public long maxBytes()
    {
        return maxBytes;
    }

    /** @return {@code -i} in bytes. */
    public long stepBytes()
    {
        return stepBytes;
    }

    /** @return {@code -f}. */
    public long stepFactor()
    {
        return stepFactor;
    }

    /** @return {@code -n}. */
    public int iters()
    {
        return iters;
    }

    /** @return {@code -m}. */
    public int aggIters()
    {
        return aggIters;
    }

    /** @return {@code -w}. */
    public int warmupIters()
    {
        return warmupIters;
    }

    /** @return {@code -N} (0 = forever). */
    public int runCycles()
    {
        return runCycles;
    }

    /** @return {@code -p}. */
    public int parallelInit()
    {
        return parallelInit;
    }

    /** @return {@code -c}: checked runs per size, 0 for none. */
    public int check()
    {
        return check;
    }

    /** @return {@code -r}: a root, or -1 for all. */
    public int root()
    {
        return root;
    }

    /** @return true for {@code -z 1}. */
    public boolean blocking()
    {
        return blocking != 0;
    }

    /** @return true for {@code -y 1}. */
    public boolean streamNull()
    {
        return streamNull != 0;
    }

    /** @return {@code -G}. */
    public int cudaGraph()
    {
        return cudaGraph;
    }

    /** @return {@code -R}: nonzero registers the buffers with the communicators. */
    public int localRegister()
    {
        return localRegister;
    }

    /**
     * Resolves {@code --device} once: CUDA when asked for (failing without a driver or device) or, under
     * {@code auto}, when present. Ranks in several processes each run their kernels on their host's GPUs, their
     * slots to other processes carried by proxies through the host transports.
     *
     * @return the CUDA driver the ranks run on, or null for the host backend.
     * @throws IllegalArgumentException for {@code --device cuda} where CUDA is absent.
     */
    public io.jccl.kernels.cuda.CudaApi cudaApi()
    {
        if (!cudaResolved)
        {
            if (EMULATED_DEVICE.equalsIgnoreCase(jccl.device))
            {
                // between processes the double's device memory must be mappable by the peers, as CUDA IPC's is
                cuda = processCount > 1 ? io.jccl.kernels.cuda.EmulatedCuda.shareable(Jccl.sharedMemoryDirectory())
                    : new io.jccl.kernels.cuda.EmulatedCuda();
                cudaResolved = true;
                return cuda;
            }
            final io.jccl.kernels.cuda.DeviceMode mode = io.jccl.kernels.cuda.DeviceMode.parse(jccl.device);
            try
            {
                cuda = io.jccl.kernels.cuda.CudaProbe.resolve(mode) ? io.jccl.kernels.cuda.CudaProbe.api() : null;
            }
            catch (final io.jccl.JcclException ex)
            {
                throw new IllegalArgumentException(ex.getMessage(), ex);
            }
            cudaResolved = true;
        }
        return cuda;
    }

    /** @return true for {@code --p2p}: {@code alltoall_perf}'s all-to-all as sends and receives. */
    public boolean p2p()
    {
        return jccl.p2p;
    }

    /** @return true for {@code --plain-memory}: buffers in private memory, not jccl's shared memory. */
    public boolean plainMemory()
    {
        return jccl.plainMemory;
    }

    /** @return true for {@code --same-buffers}: every call on offset 0 of the buffers, not nccl-tests' slices. */
    public boolean sameBuffers()
    {
        return jccl.sameBuffers;
    }

    /** @return true for {@code -C 1}. */
    public boolean reportCputime()
    {
        return reportCputime != 0;
    }

    /** @return {@code -a}: {@link ThreadSync#RANK0}, {@link ThreadSync#AVG}, {@link ThreadSync#MIN}, MAX. */
    public int average()
    {
        return average;
    }

    /** @return true when {@code -h} was given. */
    public boolean helpRequested()
    {
        return help;
    }

    /** @return the wait deadline in ms from {@code --timeout-ms}, else {@code -T} seconds, or null for jccl's. */
    public Long timeoutMs()
    {
        if (jccl.timeoutMs != null)
        {
            return jccl.timeoutMs;
        }
        return timeoutSeconds > 0 ? timeoutSeconds * 1000L : null;
    }

    /** @return {@code --algo} as given (NCCL's syntax), or null to leave {@code JCCL_ALGO} in force. */
    public String algo()
    {
        return knobs.algo();
    }

    /**
     * @return the knob flags given, each as typed: {@code --algo}, {@code --proto}, {@code --transport},
     *         {@code --nchannels} (or {@code --channels}), {@code --chunk} (or {@code --chunk-bytes}),
     *         {@code --block-threads}; a knob not given is absent and its {@code JCCL_*} variable stays in force.
     */
    public Map<SweepKey, String> knobFlags()
    {
        return knobs.given();
    }

    /** @return {@code --min-nchannels}, or null to leave {@code JCCL_MIN_NCHANNELS} in force. */
    public Integer minChannels()
    {
        return knobs.minChannels();
    }

    /** @return {@code --max-nchannels}, or null to leave {@code JCCL_MAX_NCHANNELS} in force. */
    public Integer maxChannels()
    {
        return knobs.maxChannels();
    }

    /** @return where the tuner table comes from: {@code --tuner} and {@code --tuner-config}. */
    public TunerMode tunerMode()
    {
        return knobs.tunerMode();
    }

    /** @return {@code --tuner-config}, or null. */
    public Path tunerConfig()
    {
        return knobs.tunerConfig();
    }

    /**
     * @return the {@code --sweep}, or null for a single run.
     * @throws IllegalArgumentException naming the key of a bad sweep argument.
     */
    public Sweep sweep()
    {
        if (parsedSweep == null && jccl.sweep != null)
        {
            parsedSweep = Sweep.parse(jccl.sweep);
        }
        return parsedSweep;
    }

    /** @return the plans of {@code --compare-plans} in the order given, or null when it is not given. */
    public List<SweepCombination> comparePlans()
    {
        if (parsedPlans == null && jccl.comparePlans != null)
        {
            parsedPlans = ComparePlans.parse(jccl.comparePlans);
        }
        return parsedPlans;
    }

    /** @return {@code --rounds}: the rounds per size of {@code --compare-plans}. */
    public int rounds()
    {
        return jccl.rounds == null ? ComparePlans.ROUNDS_DEFAULT : jccl.rounds;
    }

    /** @return {@code --schedule}, or null to run the built-in algorithms (and any JCCL_SCHEDULE_FILES). */
    public Path schedule()
    {
        return jccl.schedule;
    }

    /** @return {@code --csv}, or null. */
    public Path csvFile()
    {
        return jccl.csvFile;
    }

    /** @return {@code -J/--output_file/--json}, or null. */
    public Path jsonFile()
    {
        return jsonFile;
    }

    /** @return true for {@code --progress}, false for {@code --no-progress}, null when neither was given. */
    public Boolean progress()
    {
        return jccl.progress;
    }

    /** @return {@code --jit-warmup-ms}: milliseconds of untimed calls before each pass, 0 for none. */
    public long jitWarmupMs()
    {
        return jccl.jitWarmupMs;
    }

    /** @return {@code --row-time-ms}: how long each row is timed at least, in milliseconds; 0 for -n calls. */
    public long rowTimeMs()
    {
        return jccl.rowTimeMs;
    }

    /**
     * @return true when the online tuner decides the plans: {@code --tuner auto}, or {@code JCCL_TUNER=auto} in the
     *         environment without a {@code --tuner} flag.
     * @throws io.jccl.JcclInvalidArgumentException naming {@code JCCL_TUNER} when its value is not a tuner.
     */
    public boolean onlineTuning()
    {
        return JcclCommunicatorFactory.context(this).tunerMode() == Context.TunerMode.AUTO;
    }

    /** @return {@code --trace}: the file of the online tuner's trials, or null. */
    public Path traceFile()
    {
        return knobs.trace();
    }

    /**
     * @return {@code --tune-iters}: the most untimed calls per size before it is timed, when the online tuner decides
     *         the plans; by default its budget ({@code JCCL_TUNER_BUDGET}), the most calls its confirmation
     *         takes, and {@value #TUNE_ITERS_MARGIN}.
     */
    public long tuneIters()
    {
        if (jccl.tuneIters != null)
        {
            return jccl.tuneIters;
        }
        return new Context().tunerCallsToConverge() + TUNE_ITERS_MARGIN;
    }

    /** @return {@code --load}, or null for none (parsed by {@link #validate()}). */
    public ComputeLoad.Spec load()
    {
        if (parsedLoad == null && jccl.load != null)
        {
            parsedLoad = ComputeLoad.Spec.parse(jccl.load);
        }
        return parsedLoad;
    }

    private static void positive(final long value, final String flag)
    {
        if (value < 1)
        {
            throw new IllegalArgumentException(flag + " " + value + " must be at least 1");
        }
    }

    private static void nonNegative(final long value, final String flag)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException(flag + " " + value + " must not be negative");
        }
    }

    /** Picocli converter for sizes with K/M/G suffixes. */
    static final class SizeConverter implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            return Sizes.parseSize(value);
        }
    }

    /** Picocli converter for C-notation longs. */
    static final class LongConverter implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            return Sizes.parseInteger(value);
        }
    }

    /** Picocli converter for C-notation ints. */
    static final class IntConverter implements ITypeConverter<Integer>
    {
        @Override
        public Integer convert(final String value)
        {
            final long parsed = Sizes.parseInteger(value);
            if (parsed < Integer.MIN_VALUE || parsed > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException("'" + value + "' is out of range");
            }
            return (int)parsed;
        }
    }
}
