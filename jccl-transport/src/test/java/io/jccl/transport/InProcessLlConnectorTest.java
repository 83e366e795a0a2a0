package io.jccl.transport;

import io.jccl.Protocol;

/** The connector contract on the in-process FIFO with LL framing: flagged 8-byte words. */
class InProcessLlConnectorTest extends InProcessConnectorTest
{
    @Override
    protected Protocol protocol()
    {
        return Protocol.LL;
    }
}
