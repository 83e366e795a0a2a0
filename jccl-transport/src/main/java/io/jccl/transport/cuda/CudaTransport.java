package io.jccl.transport.cuda;

import io.jccl.JcclRemoteException;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.DeviceLayout;
import io.jccl.transport.Connections;
import io.jccl.transport.Link;
import io.jccl.transport.RankPlacement;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;
import io.jccl.transport.Transport;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * CUDA P2P and IPC: the FIFOs of ranks whose kernels run on this process's GPUs. Between ranks of this process a
 * FIFO lies in the receiver's device memory (the devices reach each other by P2P). To a rank of another process of
 * this host, with CUDA IPC on, it lies in the sender's device memory and its IPC handle goes to the receiver's
 * process as the first slot of the host connection between them (sequence {@link #HANDSHAKE}), so the kernels pass
 * data device to device with no proxy. Otherwise (IPC off, or another host) it lies in pinned host memory the device
 * maps, and a {@link CudaProxy} moves its slots through the host {@link Connections} (shared memory on this host,
 * the network to others), as SIMPLE payload whatever the kernel's protocol, staged.
 * <p>
 * Thread-safe; nothing here runs per chunk.
 */
public final class CudaTransport implements Transport<DeviceConnection>
{
    /** The sequence number of a handshake slot, which no call has. */
    public static final long HANDSHAKE = -1;
    private static final int HANDLE_BYTES = 64;

    private final CudaApi api;
    private final int[] deviceOfRank;
    private final boolean ipc;
    private final Connections host;
    /**
     * Per device, a stream of this transport's own (non-blocking) that zeroes the FIFOs it makes, 0 for devices
     * without a rank of this process. Not the legacy default stream: a rank that zeroed a new FIFO there, while
     * another rank's kernel waited for this rank's, hung an H200 ({@code all_reduce_perf -g 4}; with 2 ranks every
     * FIFO is made before the first launch, and it ran).
     */
    private final long[] setupStreams;
    private final List<Long> deviceFifos = new ArrayList<>();
    private final List<Long> exportedFifos = new ArrayList<>();
    private final List<Long> importedFifos = new ArrayList<>();
    private final List<Long> pinnedFifos = new ArrayList<>();

    /**
     * @param api          the driver.
     * @param deviceOfRank the device of each rank of this process (other ranks' entries are not read).
     * @param ipc          whether FIFOs to ranks of other processes of this host use CUDA IPC.
     * @param host         the host connections, which carry IPC handles and proxied slots.
     */
    public CudaTransport(final CudaApi api, final int[] deviceOfRank, final boolean ipc, final Connections host)
    {
        this.api = api;
        this.deviceOfRank = deviceOfRank.clone();
        this.ipc = ipc;
        this.host = host;
        this.setupStreams = new long[api.deviceCount()];
        for (int r = 0; r < deviceOfRank.length; r++)
        {
            final int d = deviceOfRank[r];
            if (host.placement().inProcess(r) && setupStreams[d] == 0)
            {
                api.setDevice(d);
                setupStreams[d] = api.streamCreate();
            }
        }
    }

    @Override
    public String name()
    {
        return ipc ? "cuda p2p/ipc" : "cuda p2p";
    }

    /** Every link with a rank of this process: device memory, IPC, or pinned memory with a proxy. */
    @Override
    public boolean canConnect(final Link link, final RankPlacement placement)
    {
        return placement.inProcess(link.from()) || placement.inProcess(link.to());
    }

    @Override
    public DeviceConnection connect(final Link link, final RankPlacement placement)
    {
        final int from = link.from();
        final int to = link.to();
        final boolean sameHost = placement.sameHost(from, to);
        if (!placement.inProcess(from) && ipc && sameHost)
        {
            return new Imported(link);
        }
        synchronized (this)
        {
            if (!placement.inProcess(to) && ipc && sameHost)
            {
                return fixed(exported(link), null);
            }
            if (!placement.bothInProcess(from, to))
            {
                return proxied(link, placement.inProcess(from));
            }
            return fixed(zeroedDeviceFifo(deviceOfRank[to], link.protocol(), deviceFifos), null);
        }
    }

    private static DeviceConnection fixed(final long fifo, final CudaProxy proxy)
    {
        return new DeviceConnection()
        {
            @Override
            public long fifo()
            {
                return fifo;
            }

            @Override
            public CudaProxy proxy()
            {
                return proxy;
            }
        };
    }

    /** @return a zeroed FIFO in a device's memory, kept in {@code made} to be freed. */
    private long zeroedDeviceFifo(final int device, final Protocol protocol, final List<Long> made)
    {
        api.setDevice(device);
        final long bytes = DeviceLayout.fifoBytes(protocol.ordinal());
        final long fifo = api.malloc(bytes);
        api.memsetAsync(fifo, 0, bytes, setupStreams[device]);
        api.streamSynchronize(setupStreams[device]);
        made.add(fifo);
        return fifo;
    }

    /** CUDA IPC, the sending end: the FIFO in the sender's device memory, its handle sent to the receiver. */
    private long exported(final Link link)
    {
        final long fifo = zeroedDeviceFifo(deviceOfRank[link.from()], link.protocol(), exportedFifos);
        final SendConnector handshake = host.sender(link.from(), link.to(), link.channel(), Protocol.SIMPLE,
            TransportKind.SHM);
        final byte[] handle = api.ipcHandle(fifo);
        if (!handshake.hasSpace())
        {
            throw new IllegalStateException("the first slot to rank " + link.to() + " is taken before the IPC handle");
        }
        new UnsafeBuffer(handshake.slotAddress(), handle.length).putBytes(0, handle);
        handshake.publish(handle.length, HANDSHAKE, link.protocol().ordinal(), link.channel());
        return fifo;
    }

    private DeviceConnection proxied(final Link link, final boolean localSender)
    {
        final int protocol = link.protocol().ordinal();
        api.setDevice(deviceOfRank[localSender ? link.from() : link.to()]);
        final long bytes = DeviceLayout.fifoBytes(protocol);
        final long fifo = api.mallocHost(bytes);
        UnsafeApi.setMemory(fifo, bytes, (byte)0);
        pinnedFifos.add(fifo);
        final CudaProxy proxy = localSender ?
            CudaProxy.outbox(fifo, protocol, host.sender(link.from(), link.to(), link.channel(), Protocol.SIMPLE,
                TransportKind.SHM)) :
            CudaProxy.inbox(fifo, protocol, host.receiver(link.from(), link.to(), link.channel(), Protocol.SIMPLE,
                TransportKind.SHM));
        return fixed(fifo, proxy);
    }

    /**
     * Lets go of the FIFOs other processes exported to this one ({@code cuIpcCloseMemHandle}): the first half of
     * closing, before the processes meet at a barrier, after which each frees what it exported
     * ({@link #close(boolean)}). Freeing exported memory while an importer still has it open is undefined on a GPU.
     */
    public synchronized void releaseImported()
    {
        importedFifos.forEach(api::ipcClose);
        importedFifos.clear();
    }

    /** {@link #close(boolean)} where every importer has let go. */
    @Override
    public void close()
    {
        close(true);
    }

    /**
     * Frees the FIFOs and the setup streams; the kernels that used them have finished.
     *
     * @param importersReleased whether every process that imported this one's FIFOs let go of them
     *                          ({@link #releaseImported} before a barrier); if not (a failed group, whose peers may be
     *                          gone or stuck), the exported FIFOs are left to the process's end.
     */
    public synchronized void close(final boolean importersReleased)
    {
        deviceFifos.forEach(api::free);
        deviceFifos.clear();
        releaseImported();
        if (importersReleased)
        {
            exportedFifos.forEach(api::free);
        }
        exportedFifos.clear();
        pinnedFifos.forEach(api::freeHost);
        pinnedFifos.clear();
        for (int d = 0; d < setupStreams.length; d++)
        {
            if (setupStreams[d] != 0)
            {
                api.setDevice(d);
                api.streamDestroy(setupStreams[d]);
                setupStreams[d] = 0;
            }
        }
    }

    /**
     * CUDA IPC, the receiving end: maps the sender's FIFO here once its handle has arrived. Its host connection is
     * first asked for when the FIFO is, outside {@link #connect}: between processes that may wait for the peer's file.
     */
    private final class Imported implements DeviceConnection
    {
        private final Link link;
        private RecvConnector handshake;
        private long mapped;

        Imported(final Link link)
        {
            this.link = link;
        }

        @Override
        public synchronized long fifo()
        {
            if (mapped != 0)
            {
                return mapped;
            }
            if (handshake == null)
            {
                handshake = host.receiver(link.from(), link.to(), link.channel(), Protocol.SIMPLE, TransportKind.SHM);
            }
            if (!handshake.hasData())
            {
                return 0;
            }
            final int protocol = link.protocol().ordinal();
            if (handshake.seq() != HANDSHAKE || handshake.shape() != protocol ||
                handshake.plan() != link.channel() || handshake.dataLength() != HANDLE_BYTES)
            {
                throw new JcclRemoteException("rank " + link.to() + " expected rank " + link.from() + "'s IPC " +
                    "handle for channel " + link.channel() + " and protocol " + protocol + " and received a slot " +
                    "of call #" + handshake.seq() + ": the ranks do not create the same connections");
            }
            final byte[] handle = new byte[HANDLE_BYTES];
            new UnsafeBuffer(handshake.slotAddress(), handle.length).getBytes(0, handle);
            handshake.release();
            api.setDevice(deviceOfRank[link.to()]);
            mapped = api.ipcOpen(handle);
            synchronized (CudaTransport.this)
            {
                importedFifos.add(mapped);
            }
            return mapped;
        }
    }
}
