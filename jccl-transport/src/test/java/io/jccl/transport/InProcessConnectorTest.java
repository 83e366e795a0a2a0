package io.jccl.transport;

import io.jccl.Protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The contract on the in-process FIFO (P2P in one JVM), one subclass per protocol. */
abstract class InProcessConnectorTest extends ConnectorContractTest
{
    private InProcessTransport transport;

    /** @return the protocol under test. */
    protected abstract Protocol protocol();

    @Override
    protected void connect()
    {
        transport = new InProcessTransport();
        sender = transport.sender(3, 5, 2, protocol());
        receiver = transport.receiver(3, 5, 2, protocol());
        assertEquals(1, transport.counters().connectorsCreated(), "one FIFO serves both ends");
        assertEquals(ProtocolDescriptor.payloadLength(protocol()), sender.slotLength());
    }

    @Override
    protected void disconnect()
    {
        transport.close();
    }
}
