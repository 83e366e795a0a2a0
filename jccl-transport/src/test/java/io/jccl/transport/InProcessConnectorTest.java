package io.jccl.transport;

import io.jccl.Protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The contract on the in-process FIFO (P2P in one JVM, SIMPLE). */
class InProcessConnectorTest extends ConnectorContractTest
{
    private InProcessTransport transport;

    @Override
    protected void connect()
    {
        transport = new InProcessTransport();
        sender = transport.sender(3, 5, 2);
        receiver = transport.receiver(3, 5, 2);
        assertEquals(1, transport.counters().connectorsCreated(), "one FIFO serves both ends");
        assertEquals(InProcessTransport.SIMPLE_BUFFER_LENGTH / FifoDescriptor.SLOTS, sender.slotLength());
        assertEquals(sender.slotLength(), InProcessTransport.slotLength(Protocol.SIMPLE));
    }

    @Override
    protected void disconnect()
    {
        transport.close();
    }
}
