package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.testkit.ReferenceCollectives;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream.Builder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Calls queued back to back, where a call runs ahead of the one before it (LocalCommunicator.runAhead): every
 * rank's buffer ends as if the calls had run one at a time, whatever the calls share of their buffers, and calls on
 * separate buffers do run ahead.
 */
class RunAheadTest
{
    /** Elements of each rank's one buffer where calls share it; calls work on slices of it. */
    private static final int SHARED_SPAN = 24_000;
    private static final int CALLS = 40;

    /** How consecutive calls place their slices. */
    enum Pattern
    {
        /** Each call on slices no other call touches. */
        SEPARATE,
        /** The same slice in place, call after call (each call's input is the one before's output). */
        IN_PLACE_CHAIN,
        /** Out of place between two slices, back and forth. */
        PING_PONG,
        /** Random offsets per rank and call, so calls overlap in part; a call's own input and output are one slice
         *  or disjoint. */
        RANDOM
    }

    static java.util.stream.Stream<Arguments> cases()
    {
        final Builder<Arguments> cases = java.util.stream.Stream.builder();
        for (final Pattern pattern : Pattern.values())
        {
            for (final int ranks : new int[] {2, 3})
            {
                // a few elements, a slot's worth, and enough that P2P reads the sender's buffer in place
                for (final int count : new int[] {3, 1000, 5000})
                {
                    cases.add(Arguments.of(pattern, ranks, count));
                }
            }
        }
        return cases.build();
    }

    @ParameterizedTest(name = "{0}, {1} ranks, count {2}")
    @MethodSource("cases")
    @Timeout(120)
    void shouldEndAsIfCallsRanOneAtATime(final Pattern pattern, final int ranks, final int count)
    {
        final Random random = new Random(pattern.ordinal() * 1000L + ranks * 100L + count);
        final int span = pattern == Pattern.SEPARATE ? 2 * CALLS * count : SHARED_SPAN;
        // per rank and call: input and output offsets in elements
        final int[][][] offsets = new int[ranks][CALLS][];
        for (int r = 0; r < ranks; r++)
        {
            for (int k = 0; k < CALLS; k++)
            {
                offsets[r][k] = switch (pattern)
                {
                    case SEPARATE -> new int[] {2 * k * count, (2 * k + 1) * count};
                    case IN_PLACE_CHAIN -> new int[] {0, 0};
                    case PING_PONG -> k % 2 == 0 ? new int[] {0, count} : new int[] {count, 0};
                    case RANDOM -> randomSlices(random, span, count);
                };
            }
        }
        final long[][] expected = new long[ranks][span];
        final Communicator[] comms = Jccl.initAll(new Context(), ranks);
        final HostBuffer[] memory = new HostBuffer[ranks];
        try
        {
            for (int r = 0; r < ranks; r++)
            {
                memory[r] = HostBuffer.allocate((long)span * Long.BYTES);
                for (int i = 0; i < span; i++)
                {
                    // small values, so forty sums of three ranks stay exact
                    expected[r][i] = (r * 7 + i) % 13 - 6;
                    memory[r].byteBuffer().putLong(i * Long.BYTES, expected[r][i]);
                }
            }
            final List<Work> last = new ArrayList<>();
            Jccl.groupStart();
            for (int k = 0; k < CALLS; k++)
            {
                last.clear();
                for (int r = 0; r < ranks; r++)
                {
                    final HostBuffer in = slice(memory[r], offsets[r][k][0], count);
                    final HostBuffer out = slice(memory[r], offsets[r][k][1], count);
                    last.add(comms[r].allReduce(in, out, count, DataType.INT64, ReduceOp.SUM, Stream.DEFAULT));
                }
            }
            Jccl.groupEnd();
            for (final Work w : last)
            {
                w.join();
            }
            for (int k = 0; k < CALLS; k++)
            {
                final int[] in = new int[ranks];
                final int[] out = new int[ranks];
                for (int r = 0; r < ranks; r++)
                {
                    in[r] = offsets[r][k][0];
                    out[r] = offsets[r][k][1];
                }
                ReferenceCollectives.sumInto(expected, in, out, count);
            }
            for (int r = 0; r < ranks; r++)
            {
                final long[] actual = new long[span];
                memory[r].byteBuffer().asLongBuffer().get(actual);
                assertArrayEquals(expected[r], actual, "rank " + r);
            }
            if (pattern == Pattern.SEPARATE && count == 3)
            {
                // one thread drives every rank, so a rank waits on each call for the others after it has sent all
                // it sends (a leaf of the tree sends first, then receives): the next call runs ahead. (Larger calls
                // send again after a receive, and whether a call waits with its sends done depends on timing.)
                long ahead = 0;
                for (final Communicator c : comms)
                {
                    ahead += ((LocalCommunicator)c).callsRunAhead();
                }
                assertTrue(ahead > 0, "no call ran ahead");
            }
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }

    private static int[] randomSlices(final Random random, final int span, final int count)
    {
        final int in = random.nextInt(span - count + 1);
        if (random.nextInt(3) == 0)
        {
            return new int[] {in, in};
        }
        int out;
        do
        {
            out = random.nextInt(span - count + 1);
        }
        while (out < in + count && in < out + count);
        return new int[] {in, out};
    }

    private static HostBuffer slice(final HostBuffer memory, final int offset, final int count)
    {
        return memory.slice((long)offset * Long.BYTES, (long)count * Long.BYTES);
    }
}
