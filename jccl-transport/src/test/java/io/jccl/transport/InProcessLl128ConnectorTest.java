package io.jccl.transport;

import io.jccl.Protocol;

/** The connector contract on the in-process FIFO with LL128 framing: flagged 128-byte lines. */
class InProcessLl128ConnectorTest extends InProcessConnectorTest
{
    @Override
    protected Protocol protocol()
    {
        return Protocol.LL128;
    }
}
