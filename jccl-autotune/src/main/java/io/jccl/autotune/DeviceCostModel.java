package io.jccl.autotune;

import io.jccl.Plan;
import io.jccl.Protocol;

/**
 * What a GPU changes in a plan the host's tuners chose: the cost model's constants are the host's, so on a device the
 * knobs no setting pins follow the size and the device instead. Channels (thread blocks) grow with the size, up to
 * half the device's multiprocessors shared among the ranks on it; the chunk is one FIFO step of the device's layout;
 * threads per block the kernels' default; LL128, not built for CUDA yet, runs as SIMPLE unless pinned (the pin then
 * fails, naming it). Immutable; thread-safe.
 *
 * @param multiprocessors  the device's multiprocessors.
 * @param ranksSharing     the ranks of this process on the device, at least 1.
 * @param simpleChunkBytes a SIMPLE FIFO step of the device's layout, in bytes.
 * @param llChunkBytes     an LL FIFO step's payload, in bytes.
 * @param defaultThreads   threads per block of the kernels when unpinned.
 */
public record DeviceCostModel(int multiprocessors, int ranksSharing, int simpleChunkBytes, int llChunkBytes,
    int defaultThreads)
{
    /**
     * @param chosen      the host tuners' plan.
     * @param bytes       the call's size (NCCL's nBytes).
     * @param constraints what the settings pin; a pinned knob keeps the chosen value.
     * @return the plan as it runs on the device.
     */
    public Plan shape(final Plan chosen, final long bytes, final PlanConstraints constraints)
    {
        int channels = chosen.channels();
        if (constraints.minChannels() == 1 && constraints.maxChannels() == Plan.MAX_CHANNELS)
        {
            final int fit = Math.max(1, multiprocessors / (2 * ranksSharing));
            channels = Math.min(fit, bytes < (64 << 10) ? 1 : bytes < (1 << 20) ? 2 : bytes < (16 << 20) ? 4 : 16);
        }
        final Protocol protocol = chosen.protocol() == Protocol.LL128 && constraints.protoSpec() == null ?
            Protocol.SIMPLE : chosen.protocol();
        final int chunk = constraints.chunkBytes() != 0 ? chosen.chunkBytes() :
            protocol == Protocol.SIMPLE ? simpleChunkBytes : llChunkBytes;
        final int threads = constraints.threads() != 0 ? chosen.threads() : defaultThreads;
        return new Plan(chosen.algorithm(), protocol, chosen.transport(), channels, threads, chunk);
    }
}
