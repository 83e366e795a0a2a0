package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;

/** The connector contract on the SHM transport (FIFO in a shared-memory mapping) with LL128 framing. */
class InProcessShmLl128ConnectorTest extends InProcessConnectorTest
{
    @Override
    protected Protocol protocol()
    {
        return Protocol.LL128;
    }

    @Override
    protected TransportKind transport()
    {
        return TransportKind.SHM;
    }
}
