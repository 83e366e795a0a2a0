package io.jccl.core;

import io.jccl.JcclException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A rank's last calls, kept so that a timeout can say what each rank did before it (as PyTorch's flight recorder does
 * for NCCL): the calls that reached the head of the rank's queue, newest {@value #CALLS}, with their plan and how
 * they ended, and where the rank stands on the {@link Standings} board. {@link CommGroup} writes it for every rank of
 * the process when a timeout, its own or a peer's, breaks the communicator: to the log, and to
 * {@code <JCCL_FLIGHT_RECORD><rank>} where that setting names a file prefix.
 * <p>
 * Threading: {@link #add(Call)} is called by the thread that advances the rank (one store a call); {@link #write}
 * by the failing thread, which reads the ring and the calls without a lock: a call that changes meanwhile may show
 * its state a moment old.
 */
final class FlightRecord
{
    /** The calls kept per rank: a power of two. */
    static final int CALLS = 16;

    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");

    private final Call[] ring = new Call[CALLS];
    /** Calls added so far: the next one's place in the ring (a send/recv call has no collective's number). */
    private long added;

    /** @param call a call that reached the head of its rank's queue and got its number. */
    void add(final Call call)
    {
        ring[(int)(added & (CALLS - 1))] = call;
        added++;
    }

    /**
     * @param rank     the rank.
     * @param standing where it stands, or null where it cannot be read.
     * @param failure  what broke the communicator.
     * @return the record as lines of text.
     */
    String text(final int rank, final Standings.Standing standing, final JcclException failure)
    {
        final StringBuilder out = new StringBuilder();
        out.append("jccl flight record of rank ").append(rank).append(" (pid ").append(ProcessHandle.current().pid())
            .append(") after: ").append(failure.getMessage()).append('\n');
        if (standing != null)
        {
            out.append("  stands at: call #").append(standing.current()).append(" is its oldest running, #")
                .append(standing.completed()).append(" its last completed");
            if (standing.waitsOn() >= 0)
            {
                out.append("; in call #").append(standing.waitCall()).append(" it last waited on rank ")
                    .append(standing.waitsOn()).append(", ")
                    .append((System.nanoTime() - standing.waitStampNs()) / 1_000_000).append(" ms ago");
            }
            out.append('\n');
        }
        final long end = added;
        for (long i = Math.max(0, end - CALLS); i < end; i++)
        {
            final Call call = ring[(int)(i & (CALLS - 1))];
            if (call != null)
            {
                out.append("  ").append(line(call)).append('\n');
            }
        }
        return out.toString();
    }

    private static String line(final Call call)
    {
        final io.jccl.Plan plan = call.plan();
        final JcclException error = call.error();
        final String state = call.isDoneNow() ? (error == null ? "completed" : "failed: " + error.getMessage()) :
            "not completed";
        return call.describe() + (plan == null ? "" : " plan " + plan.id()) + ": " + state;
    }

    /**
     * Logs the record and, where {@code prefix} is set, writes it to {@code <prefix><rank>}.
     *
     * @param rank     the rank.
     * @param standing where it stands, or null.
     * @param failure  what broke the communicator.
     * @param prefix   {@code JCCL_FLIGHT_RECORD}, or null.
     */
    void write(final int rank, final Standings.Standing standing, final JcclException failure, final String prefix)
    {
        final String text = text(rank, standing, failure);
        LOG.warn("{}", text.stripTrailing());
        if (prefix != null)
        {
            final Path file = Path.of(prefix + rank);
            try
            {
                Files.writeString(file, text, StandardCharsets.UTF_8);
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.warn("jccl WARN cannot write the flight record of rank {} to {}: {}", rank, file, ex.toString());
            }
        }
    }
}
