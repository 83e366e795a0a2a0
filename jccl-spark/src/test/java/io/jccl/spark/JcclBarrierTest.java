package io.jccl.spark;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.UniqueId;
import io.jccl.core.Context;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parts of {@link JcclBarrier} that need no Spark: reading the host of a task address and making a rendezvous
 * on it, and refusing null arguments. Threads: JUnit's.
 */
class JcclBarrierTest
{
    @Test
    void shouldReadTheHostWhenTheTaskAddressIsHostPortIpv6OrBare()
    {
        assertEquals("10.1.2.3", JcclBarrier.hostOf("10.1.2.3:40123"));
        assertEquals("worker-7.example", JcclBarrier.hostOf("worker-7.example:7078"));
        assertEquals("fe80::1", JcclBarrier.hostOf("[fe80::1]:7078"));
        assertEquals("fe80::1", JcclBarrier.hostOf("fe80::1"));
        assertEquals("localhost", JcclBarrier.hostOf("localhost"));
    }

    @Test
    void shouldMakeAFreshRendezvousOnTheTaskHostWhenAskedTwice()
    {
        final UniqueId first = JcclBarrier.rendezvousOn("127.0.0.1:7078");
        final UniqueId second = JcclBarrier.rendezvousOn("127.0.0.1:7078");
        assertEquals("127.0.0.1", first.host());
        assertTrue(first.port() > 0 && first.port() != 7078, "a free port, not the executor's: " + first.port());
        assertNotEquals(first, second, "a fresh secret each time");
    }

    @Test
    void shouldRefuseNullArgumentsNamingThem()
    {
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> JcclBarrier.communicator(null, new Context())).getMessage().startsWith("task"));
    }
}
