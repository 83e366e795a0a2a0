package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.TransportKind;
import io.jccl.Work;
import io.jccl.autotune.Calibration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every plan override changes the plan a call runs, observed through the plan the call reports (never through
 * timing): {@code JCCL_*} settings (as system properties, which the Context reads like the environment), Context
 * setters and the tuner table, with DESIGN.md's precedence. A bad value fails communicator creation, naming it.
 */
@Timeout(60)
class PlanOverrideTest
{
    private static final int RANKS = 3;
    private static final long COUNT = 4096;
    private final SystemSettings settings = new SystemSettings();

    @AfterEach
    void clearProperties()
    {
        settings.clear();
    }

    private void set(final String variable, final String value)
    {
        settings.set(variable, value);
    }

    @Test
    void shouldRunEachPinnedKnobWhenSetInTheEnvironment()
    {
        final Map<String, String> settings = Map.of(
            "JCCL_ALGO", "tree",
            "JCCL_PROTO", "ll128",
            "JCCL_TRANSPORT", "shm",
            "JCCL_MIN_NCHANNELS", "3",
            "JCCL_MAX_NCHANNELS", "3",
            "JCCL_NTHREADS", "512",
            "JCCL_CHUNK_SIZE", "48K");
        settings.forEach(this::set);
        final Plan plan = run(new Context(), Collective.ALL_REDUCE);
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL128, TransportKind.SHM, 3, 512, 48 * 1024), plan);
    }

    @Test
    void shouldChangeOnlyThatKnobWhenOneIsSet()
    {
        final Plan free = run(new Context(), Collective.ALL_REDUCE);
        final Protocol other = free.protocol() == Protocol.LL ? Protocol.SIMPLE : Protocol.LL;
        set("JCCL_PROTO", other.lowerName());
        assertEquals(other, run(new Context(), Collective.ALL_REDUCE).protocol());
        clearProperties();
        final TransportKind otherTransport = free.transport() == TransportKind.SHM ? TransportKind.P2P :
            TransportKind.SHM;
        set("JCCL_TRANSPORT", otherTransport.lowerName());
        assertEquals(otherTransport, run(new Context(), Collective.ALL_REDUCE).transport());
        clearProperties();
        set("JCCL_CHUNK_SIZE", "1000");
        assertEquals(1000, run(new Context(), Collective.ALL_REDUCE).chunkBytes());
    }

    @Test
    void shouldExcludeAProtocolWhenCaretIsUsed()
    {
        final Protocol chosen = run(new Context(), Collective.ALL_REDUCE).protocol();
        set("JCCL_PROTO", "^" + chosen.lowerName());
        assertNotEquals(chosen, run(new Context(), Collective.ALL_REDUCE).protocol());
    }

    @Test
    void shouldApplyPerCollectiveAlgorithmsWhenNcclSyntaxIsUsed()
    {
        set("JCCL_ALGO", "allreduce:tree;broadcast:ring");
        assertEquals(Algorithm.TREE, run(new Context(), Collective.ALL_REDUCE).algorithm());
        assertEquals(Algorithm.RING, run(new Context(), Collective.BROADCAST).algorithm());
        clearProperties();
        assertEquals(Algorithm.RING, run(new Context().algo("allreduce:ring;broadcast:tree"),
            Collective.ALL_REDUCE).algorithm());
        assertEquals(Algorithm.TREE, run(new Context().algo("allreduce:ring;broadcast:tree"),
            Collective.BROADCAST).algorithm());
    }

    @Test
    void shouldNameTheVariableAndListValidValuesWhenAValueIsUnknown()
    {
        set("JCCL_PROTO", "fast");
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> Jccl.initAll(new Context(), 2));
        assertTrue(ex.getMessage().contains("JCCL_PROTO") && ex.getMessage().contains("ll128"), ex.getMessage());
        clearProperties();
        set("JCCL_MAX_NCHANNELS", "33");
        assertTrue(assertThrows(JcclInvalidArgumentException.class, () -> Jccl.initAll(new Context(), 2))
            .getMessage().contains("JCCL_MAX_NCHANNELS"));
    }

    @Test
    void shouldRunOverTheNetworkWhenNetIsPinnedInOneProcess()
    {
        assertEquals(TransportKind.NET, run(new Context().transport(TransportKind.NET), Collective.ALL_REDUCE)
            .transport(), "NET pinned on one host goes through Aeron on loopback");
    }

    @Test
    void shouldRunTheTablesPlanWhenALineMatchesAndPinsStillWin(@TempDir final Path dir) throws IOException
    {
        final long bytes = COUNT * DataType.FLOAT32.byteSize();
        final Path table = dir.resolve("tuner.csv");
        Files.writeString(table, String.join("\n",
            "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff",
            "allreduce,0," + (bytes - 1) + ",ring,simple,1,-1,-1,-1,-1",
            "allreduce," + bytes + "," + bytes + ",tree,ll,2,1," + RANKS + ",-1,-1 # jccl: transport=shm chunk=8K",
            "broadcast,0,1073741824,nvls,simple,-1,-1,-1",
            ""));
        set("JCCL_TUNER_CONFIG_FILE", table.toString());
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL, TransportKind.SHM, 2, 256, 8192),
            run(new Context(), Collective.ALL_REDUCE));
        set("JCCL_PROTO", "simple");
        assertEquals(Protocol.SIMPLE, run(new Context(), Collective.ALL_REDUCE).protocol(),
            "a pin ranks above the table");
    }

    @Test
    void shouldFailTheCallNotTheDrivingThreadWhenATablePlanCannotRunHere(@TempDir final Path dir) throws IOException
    {
        final Path table = dir.resolve("net.csv");
        Files.writeString(table, "allreduce,0,1073741824,ring,simple,1,-1,-1 # jccl: transport=net\n");
        final Communicator[] comms = Jccl.initAll(new Context().tunerConfigFile(table), 2);
        try
        {
            final HostBuffer[] send = {HostBuffer.allocate(64), HostBuffer.allocate(64)};
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                works[r] = comms[r].allReduce(send[r], send[r], 16, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : works)
            {
                // the rank that bound first fails with the cause; a rank that finds the group broken says so
                final io.jccl.JcclException ex = assertThrows(io.jccl.JcclException.class, w::join);
                assertTrue(ex.getMessage().contains("transport NET"), ex.getMessage());
            }
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.abort();
            }
        }
    }

    @Test
    @SuppressWarnings("deprecation") // Context.calibration(Calibration): deprecated for programs, kept for this
    void shouldChooseTheSamePlanWithDefaultCalibrationEveryTime()
    {
        final Plan first = run(new Context().calibration(Calibration.defaults(2)), Collective.ALL_REDUCE);
        assertEquals(first, run(new Context().calibration(Calibration.defaults(2)), Collective.ALL_REDUCE));
    }

    /** Runs one call of {@link #COUNT} floats on every rank, checks its result, returns the plan it reports. */
    private static Plan run(final Context context, final Collective collective)
    {
        final Communicator[] comms = Jccl.initAll(context, RANKS);
        try
        {
            final HostBuffer[] send = new HostBuffer[RANKS];
            final HostBuffer[] recv = new HostBuffer[RANKS];
            final Work[] works = new Work[RANKS];
            Jccl.groupStart();
            for (int r = 0; r < RANKS; r++)
            {
                send[r] = HostBuffer.allocate(COUNT * 4);
                recv[r] = HostBuffer.allocate(COUNT * 4);
                for (int i = 0; i < COUNT; i++)
                {
                    send[r].byteBuffer().putFloat(i * 4, r + 1);
                }
                works[r] = collective == Collective.ALL_REDUCE ?
                    comms[r].allReduce(send[r], recv[r], COUNT, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT) :
                    comms[r].broadcast(send[r], recv[r], COUNT, DataType.FLOAT32, 0, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            final float expected = collective == Collective.ALL_REDUCE ? RANKS * (RANKS + 1) / 2f : 1f;
            for (int r = 0; r < RANKS; r++)
            {
                works[r].join();
                assertEquals(expected, recv[r].byteBuffer().getFloat((int)(COUNT * 4 - 4)), "rank " + r);
                assertEquals(works[0].plan(), works[r].plan(), "every rank runs the same plan");
            }
            return works[0].plan();
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }
}
