package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.transport.net.NetConfig;
import io.jccl.transport.net.NetTransport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Every transport's connector pair from rank 3 to rank 5, made as a communicator makes them, through
 * {@link Connections}: memory (one process, P2P and SHM), shared files (the two ends from two {@link Connections}
 * that each hold one rank and map one file, as two processes do) and the network (TCP and Aeron over loopback),
 * each with every protocol.
 */
final class ConnectorPairs
{
    /** Network tests wait this long at most for a slot or a credit. */
    static final long NET_TIMEOUT_MS = 20_000;

    private ConnectorPairs()
    {
    }

    /**
     * The two ends of one connection and what frees them.
     *
     * @param sender   the sending end (rank 3).
     * @param receiver the receiving end (rank 5).
     * @param close    frees what the pair made.
     */
    record Ends(SendConnector sender, RecvConnector receiver, AutoCloseable close)
    {
    }

    /**
     * One transport and protocol under the contract.
     *
     * @param name  what the test reports.
     * @param exact true when a slot published is readable at once and a released slot is free at once (a FIFO in
     *              memory both ends map); false across the network, where both take a trip.
     * @param scale the share of the contract's long runs this pair does (the network's slots cost system calls).
     * @param open  makes the pair.
     */
    record Pair(String name, boolean exact, double scale, Supplier<Ends> open)
    {
        @Override
        public String toString()
        {
            return name;
        }
    }

    /** @return every pair: transports times protocols. */
    static Stream<Pair> all()
    {
        final List<Pair> pairs = new ArrayList<>();
        for (final Protocol protocol : Protocol.values())
        {
            for (final TransportKind kind : new TransportKind[] {TransportKind.P2P, TransportKind.SHM})
            {
                pairs.add(new Pair(kind.lowerName() + " " + protocol.lowerName() + ", one process", true, 1,
                    () -> oneProcess(protocol, kind)));
                pairs.add(new Pair(kind.lowerName() + " " + protocol.lowerName() + ", two processes' file", true, 1,
                    () -> sharedFile(protocol, kind)));
            }
            for (final NetConfig.Wire wire : NetConfig.Wire.values())
            {
                pairs.add(new Pair("net " + wire.name().toLowerCase() + " " + protocol.lowerName(), false, 0.02,
                    () -> network(protocol, wire)));
            }
        }
        return pairs.stream();
    }

    private static Ends oneProcess(final Protocol protocol, final TransportKind kind)
    {
        final Connections connections = new Connections();
        expect(connections, new Link(3, 5, 2, protocol, kind), "p2p/shm");
        final SendConnector sender = connections.sender(3, 5, 2, protocol, kind);
        final RecvConnector receiver = connections.receiver(3, 5, 2, protocol, kind);
        if (connections.counters().connectorsCreated() != 1)
        {
            throw new AssertionError("one FIFO serves both ends, made " + connections.counters().connectorsCreated());
        }
        return new Ends(sender, receiver, connections);
    }

    private static Ends sharedFile(final Protocol protocol, final TransportKind kind)
    {
        final Path dir = tempDirectory();
        final Connections senderProcess = new Connections(r -> r == 3, dir, "contract", 5_000,
            new SharedBuffers(dir));
        final Connections receiverProcess = new Connections(r -> r == 5, dir, "contract", 5_000,
            new SharedBuffers(dir));
        expect(senderProcess, new Link(3, 5, 2, protocol, kind), "shm-file");
        expect(receiverProcess, new Link(3, 5, 2, protocol, kind), "shm-file");
        final SendConnector sender = senderProcess.sender(3, 5, 2, protocol, kind);
        final RecvConnector receiver = receiverProcess.receiver(3, 5, 2, protocol, kind);
        return new Ends(sender, receiver, () ->
        {
            senderProcess.close();
            receiverProcess.close();
            deleteTree(dir);
        });
    }

    private static Ends network(final Protocol protocol, final NetConfig.Wire wire)
    {
        final NetTransport net = NetTransport.start(new NetConfig("127.0.0.1", 1408, 1 << 20, 1 << 20,
            NET_TIMEOUT_MS, null).withWire(wire));
        final String[] endpoints = new String[6];
        java.util.Arrays.fill(endpoints, net.endpoint());
        net.connect(endpoints);
        final Connections connections = new Connections(net);
        expect(connections, new Link(3, 5, 2, protocol, TransportKind.NET), "net");
        return new Ends(connections.sender(3, 5, 2, protocol, TransportKind.NET),
            connections.receiver(3, 5, 2, protocol, TransportKind.NET), connections);
    }

    /** Fails unless the link is carried by the named transport: each pair tests the transport it names. */
    private static void expect(final Connections connections, final Link link, final String transport)
    {
        final String carrier = connections.transportFor(link).name();
        if (!transport.equals(carrier))
        {
            throw new AssertionError(link + " is carried by " + carrier + ", not " + transport);
        }
    }

    private static Path tempDirectory()
    {
        try
        {
            return Files.createTempDirectory("jccl-contract");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
