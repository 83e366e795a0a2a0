package io.jccl.transport.net;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.driver.status.SystemCounterDescriptor;
import io.aeron.logbuffer.FragmentHandler;
import io.jccl.JcclTimeoutException;
import org.agrona.DirectBuffer;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Frames over Aeron UDP: one subscription on this process's own endpoint (an ephemeral port on the bound address)
 * and one exclusive publication per peer process, fragments of at most the MTU each. Aeron's flow control and
 * retransmission make each stream reliable and ordered under packet loss; an image that shows neither data nor
 * heartbeat for the deadline is a lost peer.
 */
final class AeronCarrier implements Carrier
{
    private final NetConfig config;
    private final Aeron aeron;
    private final Subscription subscription;
    private final String endpoint;

    AeronCarrier(final NetConfig config, final Aeron aeron, final LossListener lost)
    {
        this.config = config;
        this.aeron = aeron;
        final String channel = "aeron:udp?endpoint=" + config.bindAddress() + ":0|rcv-wnd=" +
            config.receiveWindow() + "|so-rcvbuf=" + config.socketBuffer();
        this.subscription = aeron.addSubscription(channel, NetTransport.STREAM_ID, image -> { },
            image -> onUnavailableImage(image, lost));
        this.endpoint = resolveEndpoint(subscription, config.timeoutMs());
    }

    private void onUnavailableImage(final Image image, final LossListener lost)
    {
        if (image.isEndOfStream())
        {
            return;
        }
        final String source = image.sourceIdentity();
        lost.lost(source.contains(":") ? source.substring(0, source.lastIndexOf(':')) : source, false,
            "no data or heartbeat for " + config.timeoutMs() + " ms");
    }

    @Override
    public String endpoint()
    {
        return endpoint;
    }

    @Override
    public Link link(final String peer)
    {
        final ExclusivePublication publication = aeron.addExclusivePublication("aeron:udp?endpoint=" + peer +
            "|mtu=" + config.mtu() + "|term-length=" + config.termLength() + "|so-sndbuf=" + config.socketBuffer(),
            NetTransport.STREAM_ID);
        return new Link()
        {
            @Override
            public int maxPayloadLength()
            {
                return publication.maxPayloadLength();
            }

            @Override
            public long offer(final DirectBuffer header, final int headerLength, final DirectBuffer data,
                final int offset, final int length)
            {
                return publication.offer(header, 0, headerLength, data, offset, length);
            }

            @Override
            public long offer(final DirectBuffer header, final int headerLength)
            {
                return publication.offer(header, 0, headerLength);
            }

            @Override
            public boolean pending()
            {
                return false;
            }

            @Override
            public void close()
            {
                publication.close();
            }
        };
    }

    @Override
    public int poll(final FragmentHandler handler, final int limit)
    {
        return subscription.poll(handler, limit);
    }

    @Override
    public int duty()
    {
        return 0;
    }

    /** The driver's counters that tell where a stream's time goes, in the order {@link #counters()} prints them. */
    private static final SystemCounterDescriptor[] SHOWN = {
        SystemCounterDescriptor.BYTES_SENT, SystemCounterDescriptor.BYTES_RECEIVED,
        SystemCounterDescriptor.NAK_MESSAGES_SENT, SystemCounterDescriptor.NAK_MESSAGES_RECEIVED,
        SystemCounterDescriptor.RETRANSMITS_SENT, SystemCounterDescriptor.RETRANSMITTED_BYTES,
        SystemCounterDescriptor.LOSS_GAP_FILLS, SystemCounterDescriptor.STATUS_MESSAGES_SENT,
        SystemCounterDescriptor.STATUS_MESSAGES_RECEIVED, SystemCounterDescriptor.SENDER_FLOW_CONTROL_LIMITS,
        SystemCounterDescriptor.FLOW_CONTROL_UNDER_RUNS, SystemCounterDescriptor.FLOW_CONTROL_OVER_RUNS,
        SystemCounterDescriptor.SHORT_SENDS, SystemCounterDescriptor.HEARTBEATS_SENT,
        SystemCounterDescriptor.RETRANSMIT_OVERFLOW, SystemCounterDescriptor.ERRORS};

    /** @return the media driver's counters of {@link #SHOWN} that are not zero, as {@code label=value}. */
    @Override
    public String counters()
    {
        final long[] values = new long[SHOWN.length];
        aeron.countersReader().forEach((counterId, typeId, key, label) ->
        {
            if (typeId == SystemCounterDescriptor.SYSTEM_COUNTER_TYPE_ID)
            {
                for (int i = 0; i < SHOWN.length; i++)
                {
                    if (SHOWN[i].label().equals(label))
                    {
                        values[i] = aeron.countersReader().getCounterValue(counterId);
                    }
                }
            }
        });
        final StringBuilder out = new StringBuilder("aeron driver counters (process-wide):");
        for (int i = 0; i < SHOWN.length; i++)
        {
            if (values[i] != 0)
            {
                out.append(' ').append(SHOWN[i].label().replace(' ', '_')).append('=').append(values[i]);
            }
        }
        return out.toString();
    }

    @Override
    public void close()
    {
        subscription.close();
    }

    private static String resolveEndpoint(final Subscription subscription, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true)
        {
            final List<String> addresses = subscription.localSocketAddresses();
            if (!addresses.isEmpty())
            {
                return addresses.get(0);
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new JcclTimeoutException("the Aeron subscription on " + subscription.channel() +
                    " did not bind within " + timeoutMs + " ms");
            }
            Thread.yield();
        }
    }
}
