package io.jccl.core;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.Algorithm;
import io.jccl.Protocol;
import io.jccl.Topology;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Program;
import io.jccl.schedules.msccl.MscclReader;
import io.jccl.schedules.msccl.MscclWriter;
import io.jccl.schedules.msccl.MscclSchedule;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Registered MSCCL XML schedules run through the one executor: every sound fixture of jccl-schedules' own, and every
 * valid shared one where {@code ../shared} is beside the clone, gives exact results with its {@code ngpus} in-process
 * ranks, SUM schedules serve PreMulSum and AVG, and a pinned algorithm beats them.
 */
class ScheduleExecutionTest
{
    private static final Path SHARED = Path.of("..", "..", "shared", "schedules", "msccl-xml");
    private static final Path OWN = Path.of("..", "jccl-schedules", "src", "test", "resources", "msccl");

    /**
     * @return jccl-schedules' sound fixtures (listed in its {@code msccl/sound.txt}, always in the clone), then the
     *     valid shared ones when {@code ../shared} is beside the clone.
     */
    static java.util.stream.Stream<Path> scheduleFixtures() throws IOException
    {
        final List<Path> files = new ArrayList<>();
        for (final String line : Files.readAllLines(OWN.resolve("sound.txt")))
        {
            if (!line.isBlank() && !line.startsWith("#"))
            {
                files.add(OWN.resolve(line));
            }
        }
        if (Files.isDirectory(SHARED))
        {
            try (java.util.stream.Stream<Path> shared = Files.list(SHARED))
            {
                shared.filter(p -> p.toString().endsWith(".xml")).sorted().forEach(files::add);
            }
        }
        return files.stream();
    }

    @Test
    void shouldFindTheSharedFixturesWhenSharedIsBesideTheClone()
    {
        Assumptions.assumeTrue(Files.isDirectory(SHARED), "../shared is absent (a fresh clone): the 17 shared " +
            "MSCCL XML fixtures are not run, jccl-schedules' own sound fixtures are");
        assertTrue(SHARED.toFile().list().length > 10);
    }

    @ParameterizedTest
    @MethodSource("scheduleFixtures")
    @Timeout(120)
    void shouldComputeExactSumWhenScheduleFixtureRuns(final Path file)
    {
        run(file, ReduceOp.SUM);
    }

    @ParameterizedTest
    @MethodSource("scheduleFixtures")
    @Timeout(120)
    void shouldPremultiplyInputOnceWhenSumScheduleServesPreMulSum(final Path file)
    {
        run(file, ReduceOp.preMulSum(3));
    }

    @Test
    @Timeout(120)
    void shouldComputeExactlyWhenExportedBuiltInRunsAsSchedule(@TempDir final Path dir) throws IOException
    {
        for (final int n : new int[] {2, 3, 5, 8})
        {
            for (final Collective coll : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER,
                Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL})
            {
                for (final boolean inPlace : new boolean[] {false, true})
                {
                    final Program program = Generators.generate(Algorithm.RING, coll, Topology.singleProcess(n), 2,
                        -1);
                    final Path file = dir.resolve(coll.xmlName() + n + inPlace + ".xml");
                    Files.writeString(file, MscclWriter.write(program, Protocol.SIMPLE, inPlace, !inPlace));
                    final MscclSchedule schedule = new MscclReader().read(file);
                    final Communicator[] comms = Jccl.initAll(new Context().scheduleFiles(List.of(file)), n);
                    final long count = schedule.nchunksperloop() * 5L / (coll == Collective.ALL_REDUCE ? 1 : n);
                    runOnce(comms, schedule, count, ReduceOp.SUM, inPlace);
                    runOnce(comms, schedule, count, ReduceOp.preMulSum(3), inPlace);
                    close(comms);
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldRunBuiltInWhenAlgorithmIsPinned() throws IOException
    {
        final Path file = OWN.resolve("allreduce-2.xml");
        final MscclSchedule schedule = new MscclReader().read(file);
        final Communicator[] comms = Jccl.initAll(new Context().scheduleFiles(List.of(file))
            .algorithm(io.jccl.Algorithm.RING), schedule.ngpus());
        final long count = schedule.nchunksperloop() * 4L;
        runOnce(comms, schedule, count, ReduceOp.SUM, schedule.inPlace() && !schedule.outOfPlace());
        assertEquals("ring", ((LocalCommunicator)comms[0]).lastProgramName());
        close(comms);
    }

    @Test
    @Timeout(60)
    void shouldRejectCreationWhenRegisteredFileIsInvalid()
    {
        final Path file = OWN.resolve("cyclic-waits.xml");
        assertThrows(JcclInvalidArgumentException.class,
            () -> Jccl.initAll(new Context().scheduleFiles(List.of(file)), 2));
    }

    private static void run(final Path file, final ReduceOp op)
    {
        final MscclSchedule schedule = new MscclReader().read(file);
        if (!schedule.collective().isReducing() && op != ReduceOp.SUM)
        {
            return;
        }
        final Communicator[] comms = Jccl.initAll(new Context().scheduleFiles(List.of(file)), schedule.ngpus());
        final int n = schedule.ngpus();
        // N (the whole per-rank buffer) must divide into nchunksperloop: AllGather, ReduceScatter and AllToAll
        // multiply the call's count by n
        // multiply up into the file's byte range [minBytes, maxBytes]
        final long unit = schedule.nchunksperloop() / (schedule.collective() == Collective.ALL_REDUCE ? 1 : n);
        final long unitBytes = schedule.collective().totalCount(unit, n) * 4;
        final long count = unit * Math.max(3, (schedule.minBytes() + unitBytes - 1) / unitBytes);
        for (final boolean inPlace : new boolean[] {false, true})
        {
            if (inPlace ? schedule.inPlace() : schedule.outOfPlace())
            {
                final Work[] works = runOnce(comms, schedule, count, op, inPlace);
                assertEquals(schedule.program().name(), ((LocalCommunicator)comms[0]).lastProgramName(),
                    "the schedule did not run");
                for (final Work work : works)
                {
                    assertEquals(schedule.name(), work.plan().schedule(), "the plan names the schedule");
                    assertTrue(work.plan().id().startsWith("schedule:" + schedule.name() + "/"), work.plan()::id);
                }
            }
        }
        close(comms);
    }

    /** Runs one call on every rank with INT32 inputs unique per rank and element, and checks every output. */
    private static Work[] runOnce(final Communicator[] comms, final MscclSchedule schedule, final long count,
        final ReduceOp op, final boolean inPlace)
    {
        final int n = comms.length;
        final Collective coll = schedule.collective();
        final long in = coll.inputCount(count, n);
        final long out = coll.outputCount(count, n);
        final HostBuffer[] send = new HostBuffer[n];
        final HostBuffer[] recv = new HostBuffer[n];
        for (int r = 0; r < n; r++)
        {
            recv[r] = HostBuffer.allocate(out * 4);
            send[r] = inPlace ? inPlaceSend(coll, recv[r], r, count, in) : HostBuffer.allocate(in * 4);
            for (long i = 0; i < in; i++)
            {
                send[r].byteBuffer().putInt((int)(send[r].offset() + i * 4), value(r, i));
            }
            if (inPlace && coll == Collective.REDUCE_SCATTER)
            {
                recv[r] = send[r].slice(r * count * 4, count * 4);
            }
        }
        final Work[] works = new Work[n];
        Jccl.groupStart();
        for (int r = 0; r < n; r++)
        {
            works[r] = switch (coll)
            {
                case ALL_REDUCE -> comms[r].allReduce(send[r], recv[r], count, DataType.INT32, op, Stream.DEFAULT);
                case ALL_GATHER -> comms[r].allGather(send[r], recv[r], count, DataType.INT32, Stream.DEFAULT);
                case REDUCE_SCATTER -> comms[r].reduceScatter(send[r], recv[r], count, DataType.INT32, op,
                    Stream.DEFAULT);
                case ALL_TO_ALL -> comms[r].allToAll(send[r], recv[r], count, DataType.INT32, Stream.DEFAULT);
                default -> throw new IllegalStateException(coll.toString());
            };
        }
        Jccl.groupEnd();
        for (final Work w : works)
        {
            w.join();
        }
        final int scale = op.kind() == ReduceOp.Kind.PREMULSUM && coll.isReducing() ? (int)op.scalar() : 1;
        for (int r = 0; r < n; r++)
        {
            for (long i = 0; i < out; i++)
            {
                final int expected = switch (coll)
                {
                    case ALL_REDUCE -> sum(n, i) * scale;
                    case ALL_GATHER -> value((int)(i / count), i % count);
                    case REDUCE_SCATTER -> sum(n, r * count + i) * scale;
                    case ALL_TO_ALL -> value((int)(i / count), r * count + i % count);
                    default -> 0;
                };
                final int actual = recv[r].byteBuffer().getInt((int)(recv[r].offset() + i * 4));
                if (expected != actual)
                {
                    assertEquals(expected, actual, schedule.name() + " " + coll.xmlName() + (inPlace ? " in place" :
                        " out of place") + " " + op + ": rank " + r + " element " + i + " of " + out);
                }
            }
        }
        return works;
    }

    private static HostBuffer inPlaceSend(final Collective coll, final HostBuffer recv, final int rank,
        final long count, final long in)
    {
        return switch (coll)
        {
            case ALL_GATHER -> recv.slice(rank * count * 4, count * 4);
            case REDUCE_SCATTER -> HostBuffer.allocate(in * 4);
            default -> recv;
        };
    }

    private static int value(final int rank, final long i)
    {
        return (int)(rank * 1_000_003L + i * 7 + 1);
    }

    private static int sum(final int n, final long i)
    {
        int s = 0;
        for (int r = 0; r < n; r++)
        {
            s += value(r, i);
        }
        return s;
    }

    private static void close(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.close();
        }
    }
}
