package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The contract on the in-process FIFO, one subclass per protocol and transport. */
abstract class InProcessConnectorTest extends ConnectorContractTest
{
    private InProcessTransport transport;

    /** @return the protocol under test. */
    protected abstract Protocol protocol();

    /** @return the transport under test: P2P unless overridden. */
    protected TransportKind transport()
    {
        return TransportKind.P2P;
    }

    @Override
    protected void connect()
    {
        transport = new InProcessTransport();
        sender = transport.sender(3, 5, 2, protocol(), transport());
        receiver = transport.receiver(3, 5, 2, protocol(), transport());
        assertEquals(1, transport.counters().connectorsCreated(), "one FIFO serves both ends");
        assertEquals(ProtocolDescriptor.payloadLength(protocol()), sender.slotLength());
    }

    @Override
    protected void disconnect()
    {
        transport.close();
    }
}
