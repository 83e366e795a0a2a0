package io.jccl.transport;

/**
 * A connection the host executor drives: its sending and its receiving end. A process uses the end of each rank
 * it holds (both between ranks of one process).
 */
public interface HostConnection
{
    /** @return the sending end, used by the sending rank's worker. */
    SendConnector sender();

    /** @return the receiving end, used by the receiving rank's worker. */
    RecvConnector receiver();
}
