package io.jccl.transport;

import io.jccl.Protocol;

/** The connector contract on the in-process FIFO with SIMPLE framing. */
class InProcessSimpleConnectorTest extends InProcessConnectorTest
{
    @Override
    protected Protocol protocol()
    {
        return Protocol.SIMPLE;
    }
}
