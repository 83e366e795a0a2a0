package io.jccl.core;

import io.jccl.JcclRemoteException;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.DeviceLayout;
import org.agrona.UnsafeApi;

/**
 * One launch per call for the local ranks of a communicator that share a CUDA device. Their kernels wait on each
 * other through the FIFOs, so launched one per rank they only make progress while the device runs them all at once,
 * which nothing promises: with more streams than {@code CUDA_DEVICE_MAX_CONNECTIONS}, two ranks on one caller's
 * stream, {@code CUDA_LAUNCH_BLOCKING=1} or a profiler, one rank's kernel queues behind another's and both hang.
 * Here each rank binds its call as before ({@link CudaExecution}: its records copied on its own stream, then an event
 * recorded there), and the last of them to arrive launches one cooperative grid with every rank's blocks, on the
 * lowest rank's stream after every rank's event; each rank's stream then waits for the grid before its own later
 * work. The grid either starts whole or the driver refuses it.
 * <p>
 * The ranks' launch records share one abort word, so a timeout, an abort or a rank's kernel that stops on a
 * mismatch stops the whole grid. Thread-safe: ranks arrive from their own threads; nothing here runs per chunk.
 */
final class DeviceLaunch
{
    private final CudaApi api;
    private final int device;
    /** The ranks sharing the device. */
    private final int[] ranks;
    /** Per rank of {@link #ranks}: arrived for the pending call (withdrawn ones too, which did make it). */
    private final boolean[] came;
    private final CudaExecution[] members;
    /** The members of the latest grid, in rank order. */
    private final CudaExecution[] lastGrid;
    /** Pinned host word the members' launch records name as their abort flag (uint32). */
    private final long abortWord;
    /** Recorded after the grid, on its stream; every member's stream waits for it. */
    private final long gridDone;
    private final long[] launches;
    private final int[] blocks;
    private final long[] set;
    private int arrived;
    private long seq;

    /**
     * @param api     the driver.
     * @param device  the device.
     * @param ranks   the ranks of the communicator's process that share it, at most
     *                {@link DeviceLayout#LAUNCH_SET_RANKS}.
     */
    DeviceLaunch(final CudaApi api, final int device, final int[] ranks)
    {
        final int members = ranks.length;
        if (members > DeviceLayout.LAUNCH_SET_RANKS)
        {
            throw new io.jccl.JcclInvalidUsageException(members + " ranks of this process share CUDA device " +
                device + ": at most " + DeviceLayout.LAUNCH_SET_RANKS + " run in one launch; spread them over more " +
                "devices (Context.cudaDevices) or processes");
        }
        this.api = api;
        this.device = device;
        this.ranks = ranks.clone();
        this.came = new boolean[members];
        this.members = new CudaExecution[members];
        this.lastGrid = new CudaExecution[members];
        this.launches = new long[members];
        this.blocks = new int[members];
        this.set = DeviceLayout.launchSet(new long[members], new int[members]);
        api.setDevice(device);
        this.abortWord = api.mallocHost(64);
        UnsafeApi.setMemory(abortWord, 64, (byte)0);
        this.gridDone = api.eventCreate(false);
    }

    /** @return the abort word the members' launch records name. */
    long abortWord()
    {
        return abortWord;
    }

    /**
     * A member's call is bound and its records are on their way to the device (an event on its stream says when):
     * the last member to arrive for a call launches the grid.
     *
     * @param member the member's executor of the call.
     * @param call   the call's sequence number, the same on every rank.
     * @throws JcclRemoteException if the members bound the call to different kernels or calls.
     */
    synchronized void arrive(final CudaExecution member, final long call)
    {
        if (arrived > 0)
        {
            final CudaExecution first = members[0];
            if (call != seq || member.function() != first.function())
            {
                throw new JcclRemoteException("rank " + member.rank() + " bound call #" + call + " to the CUDA " +
                    "kernel " + member.kernel() + ", and rank " + first.rank() + ", which shares CUDA device " +
                    device + " and starts its kernels in one launch with it, bound call #" + seq + " to " +
                    first.kernel() + ": the ranks do not run the same sequence of calls");
            }
        }
        seq = call;
        members[arrived++] = member;
        for (int i = 0; i < ranks.length; i++)
        {
            came[i] |= ranks[i] == member.rank();
        }
        if (arrived < members.length)
        {
            return;
        }
        arrived = 0;
        java.util.Arrays.fill(came, false);
        launch();
    }

    private void launch()
    {
        // rank order, so that blocks follow the ranks (insertion sort: a handful of members)
        for (int i = 1; i < members.length; i++)
        {
            final CudaExecution m = members[i];
            int j = i - 1;
            while (j >= 0 && members[j].rank() > m.rank())
            {
                members[j + 1] = members[j];
                j--;
            }
            members[j + 1] = m;
        }
        int threads = 0;
        int total = 0;
        for (int i = 0; i < members.length; i++)
        {
            launches[i] = members[i].launchRecord();
            blocks[i] = members[i].blocks();
            total += blocks[i];
            threads = Math.max(threads, members[i].blockThreads());
        }
        DeviceLayout.fillLaunchSet(set, launches, blocks, members.length);
        final long gridStream = members[0].stream();
        api.setDevice(device);
        for (int i = 1; i < members.length; i++)
        {
            api.streamWaitEvent(gridStream, members[i].ready());
        }
        // every member's previous call is complete (a rank binds its next call after that): nothing reads the word
        UnsafeApi.putIntVolatile(null, abortWord, 0);
        api.launchInterpreter(members[0].function(), total, threads, gridStream, set);
        api.eventRecord(gridDone, gridStream);
        for (final CudaExecution m : members)
        {
            m.followLaunch(gridDone, gridStream);
        }
        System.arraycopy(members, 0, lastGrid, 0, members.length);
        java.util.Arrays.fill(members, null);
    }

    /**
     * Takes back a member's arrival that no launch followed (its call timed out or was abandoned).
     *
     * @param member the member's executor.
     * @return the ranks it was waiting for, or null when it had not arrived (or its grid was launched).
     */
    synchronized String withdraw(final CudaExecution member)
    {
        int at = -1;
        for (int i = 0; i < arrived; i++)
        {
            at = members[i] == member ? i : at;
        }
        if (at < 0)
        {
            return null;
        }
        final StringBuilder missing = new StringBuilder();
        for (int i = 0; i < ranks.length; i++)
        {
            missing.append(came[i] ? "" : (missing.length() == 0 ? "" : ", ") + ranks[i]);
        }
        System.arraycopy(members, at + 1, members, at, arrived - at - 1);
        members[--arrived] = null;
        return missing.toString();
    }

    /**
     * @param member a member whose kernel stopped without an error of its own.
     * @return why the grid stopped: the error another member's kernel wrote, else null.
     */
    synchronized String stoppedBy(final CudaExecution member)
    {
        for (final CudaExecution m : lastGrid)
        {
            final String error = m == null || m == member ? null : m.kernelError();
            if (error != null)
            {
                return "rank " + m.rank() + ", launched with it: " + error;
            }
        }
        return null;
    }

    /** Frees the abort word and the event; every member's stream has finished. */
    void close()
    {
        api.setDevice(device);
        api.freeHost(abortWord);
        api.eventDestroy(gridDone);
    }
}
