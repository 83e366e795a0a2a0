package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;

/** The connector contract on the SHM transport (FIFO in a shared-memory mapping) with SIMPLE framing. */
class InProcessShmSimpleConnectorTest extends InProcessConnectorTest
{
    @Override
    protected Protocol protocol()
    {
        return Protocol.SIMPLE;
    }

    @Override
    protected TransportKind transport()
    {
        return TransportKind.SHM;
    }
}
