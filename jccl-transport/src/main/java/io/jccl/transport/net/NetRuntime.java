package io.jccl.transport.net;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.jccl.JcclSystemException;
import io.jccl.transport.agent.AgentThread;
import org.agrona.IoUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The process's one network thread and, once a communicator uses the Aeron wire, its Aeron: one client and, unless
 * an external driver's directory is given, one embedded media driver, shared by every communicator of the process and
 * closed with the last one. The TCP wire needs no Aeron: its duty is the rings and the sockets.
 * <p>
 * The embedded driver runs in INVOKER threading mode and the client with its conductor invoker: the driver's
 * conductor, sender and receiver duty cycles, the client's conductor and every communicator's rings all run in one
 * duty cycle ({@link #progress()}), on the thread {@code jccl-net} or on a rank's thread that waits on a network
 * connector, one thread at a time. On a machine of 2 cores a message then crosses no thread but the caller's and this
 * one on each side (SHARED mode adds the driver's thread and, measured here, raised a loopback round trip from tens of
 * microseconds to several hundred under load). Ranks waiting on a network connector run the duty cycle themselves,
 * so {@code jccl-net} only covers what nobody waits for (a call's last slots, credits): it spins briefly when idle,
 * yields 200 times, then parks 50 us at a time, leaving the cores to the ranks (measured between two namespaces:
 * a 2-process round trip of 333 us with the thread yielding for long, 150 us with it parking soon). Client calls from
 * other threads (adding a publication) take Aeron's client lock, which the thread also holds while it runs the
 * driver. The thread is an {@link AgentThread}: an error that ends it fails every transport's communicators.
 * <p>
 * The driver's directory is {@code /dev/shm/jccl-aeron-<pid>-<random>}, deleted on close; directories of dead
 * processes are swept when a driver starts.
 */
final class NetRuntime
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    /** The prefix of embedded drivers' directories. */
    static final String DIR_PREFIX = "jccl-aeron-";
    /** What the driver's own files take in {@code /dev/shm} (command and control, counters, error log). */
    static final long DRIVER_FILES_BYTES = 12L << 20;

    private static NetRuntime current;

    private static final String THREAD_NAME = "jccl-net";
    private static final int SPINS = 16;
    private static final long PARK_NS = 50_000;
    private static final int YIELDS_BEFORE_PARK = 200;

    private final AgentThread agent;
    private volatile NetTransport[] transports = new NetTransport[0];
    private volatile boolean running = true;
    /** Held through a duty cycle: one thread at a time runs the driver, the client and the rings. */
    private final ReentrantLock duty = new ReentrantLock();
    /** Aeron's client and driver, started by the first user of the Aeron wire; null while none has come. */
    private volatile AeronParts aeronParts;
    private int users;

    /** The client, its driver (null when external) and the invokers that run them in the duty cycle. */
    private record AeronParts(MediaDriver driver, Aeron aeron, String directory, AgentInvoker driverInvoker,
        AgentInvoker conductorInvoker, Lock clientLock)
    {
    }

    private NetRuntime()
    {
        this.agent = new AgentThread(THREAD_NAME, new NetAgent(), new NetIdleStrategy(), this::agentFailed).start();
    }

    /** @param transport served by the network thread from now on. */
    synchronized void add(final NetTransport transport)
    {
        final NetTransport[] next = java.util.Arrays.copyOf(transports, transports.length + 1);
        next[next.length - 1] = transport;
        transports = next;
    }

    /** @param transport no longer served; returns once no thread can be inside its work. */
    void remove(final NetTransport transport)
    {
        synchronized (this)
        {
            transports = java.util.Arrays.stream(transports).filter(t -> t != transport)
                .toArray(NetTransport[]::new);
        }
        // a duty cycle reads the array under the lock: once we held it, none still works on the old one
        duty.lock();
        duty.unlock();
    }

    /**
     * One duty cycle, on whichever thread gets there first: the network thread, or a rank's thread waiting on a
     * network connector (so a message is sent or taken in without waking another thread, which on 2 cores costs
     * hundreds of microseconds a round trip). A thread that finds another inside returns at once.
     *
     * @return how much was done; 0 when idle or busy elsewhere.
     */
    int progress()
    {
        if (!duty.tryLock())
        {
            return 0;
        }
        try
        {
            int work = 0;
            // offers first, so the driver's sender sends them in this cycle; what its receiver takes in goes to the
            // rings after it, in this cycle too
            for (final NetTransport t : transports)
            {
                work += t.doOutbound();
            }
            final AeronParts a = aeronParts;
            if (a != null)
            {
                if (a.driverInvoker != null && a.clientLock.tryLock())
                {
                    try
                    {
                        work += a.driverInvoker.invoke();
                    }
                    finally
                    {
                        a.clientLock.unlock();
                    }
                }
                work += a.conductorInvoker.invoke();
            }
            for (final NetTransport t : transports)
            {
                work += t.doInbound();
            }
            return work;
        }
        catch (final RuntimeException ex)
        {
            if (running)
            {
                LOG.warn("jccl WARN aeron: {}", ex.toString());
            }
            return 0;
        }
        finally
        {
            duty.unlock();
        }
    }

    /** The thread ended on an error: every transport's communicators fail rather than wait for it. */
    private void agentFailed(final Throwable cause)
    {
        for (final NetTransport t : transports)
        {
            t.agentFailed(THREAD_NAME, cause);
        }
    }

    /** The network thread's duty: one {@link #progress()}; the thread ends when the runtime is released. */
    private final class NetAgent implements Agent
    {
        @Override
        public int doWork()
        {
            return progress();
        }

        @Override
        public String roleName()
        {
            return THREAD_NAME;
        }
    }

    /**
     * The network thread's wait after a cycle without work: {@value #SPINS} - 1 spins, then yields until the
     * {@value #YIELDS_BEFORE_PARK}th idle cycle, then parks of {@value #PARK_NS} ns; any work starts it over.
     */
    private static final class NetIdleStrategy implements IdleStrategy
    {
        private int idle;

        @Override
        public void idle(final int workCount)
        {
            if (workCount > 0)
            {
                idle = 0;
            }
            else
            {
                idle();
            }
        }

        @Override
        public void idle()
        {
            if (++idle < SPINS)
            {
                Thread.onSpinWait();
            }
            else if (idle < YIELDS_BEFORE_PARK)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(PARK_NS);
            }
        }

        @Override
        public void reset()
        {
            idle = 0;
        }
    }

    /**
     * @return the process's runtime, counted as used once more (its Aeron starts with the first Aeron user,
     *         {@link #aeron(NetConfig)}).
     */
    static synchronized NetRuntime acquire()
    {
        if (current == null)
        {
            current = new NetRuntime();
        }
        current.users++;
        return current;
    }

    /** Counts one user less; the last one closes the client and the embedded driver (deleting its directory). */
    void release()
    {
        synchronized (NetRuntime.class)
        {
            if (--users == 0)
            {
                current = null;
                running = false;
                agent.close(TimeUnit.SECONDS.toMillis(5));
                final AeronParts a = aeronParts;
                aeronParts = null;
                if (a != null)
                {
                    a.aeron.close();
                    if (a.driver != null)
                    {
                        a.driver.close();
                        IoUtil.delete(Path.of(a.directory).toFile(), true);
                        // a peer killed on this host during the run left its directory: gone before this process is
                        sweepDeadDrivers(Path.of(a.directory).getParent());
                    }
                }
            }
        }
    }

    /** @return the Aeron directory of the runtime in use, or null when none is or it runs no Aeron. */
    static synchronized String currentDirectory()
    {
        final AeronParts a = current == null ? null : current.aeronParts;
        return a == null ? null : a.directory;
    }

    /**
     * @param config the first Aeron user's settings start the client and the driver; later users share them.
     * @return the client.
     */
    Aeron aeron(final NetConfig config)
    {
        synchronized (NetRuntime.class)
        {
            if (aeronParts == null)
            {
                aeronParts = startAeron(config);
            }
            return aeronParts.aeron;
        }
    }

    /** @return the Aeron driver's directory, or null when no Aeron runs. */
    String directory()
    {
        final AeronParts a = aeronParts;
        return a == null ? null : a.directory;
    }

    private static AeronParts startAeron(final NetConfig config)
    {
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(config.timeoutMs());
        final String advice = config.socketBufferAdvice();
        if (advice != null)
        {
            LOG.warn("jccl WARN {}", advice);
        }
        MediaDriver driver = null;
        final String dir;
        if (config.aeronDir() != null)
        {
            dir = config.aeronDir();
        }
        else
        {
            final Path shm = Path.of("/dev/shm");
            final Path base = Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
            sweepDeadDrivers(base);
            NetTransport.checkSpace(base, DRIVER_FILES_BYTES, "the embedded media driver's files");
            dir = base.resolve(DIR_PREFIX + ProcessHandle.current().pid() + "-" +
                Long.toHexString(ThreadLocalRandom.current().nextLong())).toString();
            final MediaDriver.Context ctx = new MediaDriver.Context()
                .aeronDirectoryName(dir)
                .threadingMode(ThreadingMode.INVOKER)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .warnIfDirectoryExists(false)
                .termBufferSparseFile(false)
                .publicationTermBufferLength(config.termLength())
                .ipcTermBufferLength(config.termLength())
                .mtuLength(config.mtu())
                .initialWindowLength(config.receiveWindow())
                .socketRcvbufLength(config.socketBuffer())
                .socketSndbufLength(config.socketBuffer())
                // a pause shorter than the deadline (a GC, a SIGSTOP) never reads as a death
                .imageLivenessTimeoutNs(timeoutNs)
                .publicationConnectionTimeoutNs(timeoutNs)
                .clientLivenessTimeoutNs(timeoutNs)
                .publicationUnblockTimeoutNs(timeoutNs + TimeUnit.SECONDS.toNanos(5))
                .driverTimeoutMs(config.timeoutMs() + 5_000)
                .publicationLingerTimeoutNs(TimeUnit.SECONDS.toNanos(2))
                .errorHandler(ex -> LOG.warn("jccl WARN aeron media driver: {}", ex.toString()));
            try
            {
                driver = MediaDriver.launchEmbedded(ctx);
            }
            catch (final RuntimeException ex)
            {
                IoUtil.delete(Path.of(dir).toFile(), true);
                throw new JcclSystemException("cannot start the embedded Aeron media driver in " + dir + ": " + ex, ex);
            }
        }
        try
        {
            final Lock lock = new ReentrantLock();
            final Aeron.Context clientContext = new Aeron.Context()
                .aeronDirectoryName(dir)
                .useConductorAgentInvoker(true)
                .clientLock(lock)
                .driverTimeoutMs(config.timeoutMs() + 5_000)
                .errorHandler(ex -> LOG.warn("jccl WARN aeron client: {}", ex.toString()));
            if (driver != null)
            {
                clientContext.driverAgentInvoker(driver.sharedAgentInvoker());
            }
            final Aeron aeron = Aeron.connect(clientContext);
            return new AeronParts(driver, aeron, dir, driver == null ? null : driver.sharedAgentInvoker(),
                aeron.conductorAgentInvoker(), lock);
        }
        catch (final RuntimeException ex)
        {
            if (driver != null)
            {
                driver.close();
                IoUtil.delete(Path.of(dir).toFile(), true);
            }
            throw new JcclSystemException("cannot connect to the Aeron media driver in " + dir + ": " + ex, ex);
        }
    }

    /** Deletes embedded drivers' directories whose process is gone (killed before it could delete them). */
    static void sweepDeadDrivers(final Path base)
    {
        try (Stream<Path> entries = Files.list(base))
        {
            entries.filter(p -> p.getFileName().toString().startsWith(DIR_PREFIX)).forEach(p ->
            {
                final String rest = p.getFileName().toString().substring(DIR_PREFIX.length());
                final int dash = rest.indexOf('-');
                try
                {
                    final long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                    if (ProcessHandle.of(pid).isEmpty())
                    {
                        IoUtil.delete(p.toFile(), true);
                        LOG.warn("jccl WARN removed {}, the Aeron directory of dead process {}", p, pid);
                    }
                }
                catch (final NumberFormatException ignored)
                {
                    // not one of ours
                }
            });
        }
        catch (final IOException ex)
        {
            LOG.warn("jccl WARN cannot list {} for dead Aeron directories: {}", base, ex.toString());
        }
    }
}
