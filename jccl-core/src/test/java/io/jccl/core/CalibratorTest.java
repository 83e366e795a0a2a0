package io.jccl.core;

import io.jccl.autotune.Calibration;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cost model's constants measured on this machine: a process that may run on one CPU (bound by mpirun, srun or
 * jccl-bench --nprocs) takes the default handoff, since two of its threads only take turns there.
 */
class CalibratorTest
{
    @Test
    void shouldTakeTheDefaultHandoffWhenTheProcessHasOneCpu()
    {
        // bound to one of the host's 2 CPUs, as each of jccl-bench --nprocs 2's processes is
        final Calibration measured = Calibrator.measure(1, 2);
        final Calibration defaults = Calibration.defaults(2);
        // the ping-pong would measure the scheduler there (7.6 us on this machine): the default handoff stands in
        assertEquals(defaults.simple(), measured.simple());
        assertEquals(defaults.simple().stepNs(), measured.ll().stepNs());
        assertEquals(2.2 * defaults.simple().slotNs(), measured.ll().slotNs(), 1e-9);
        assertEquals(2, measured.cores(), "the model counts the CPUs the host's ranks share, not this process's");
        assertTrue(measured.p2p().threadGBps() > 0, "the copy bandwidth is still measured");
    }

    @Test
    void shouldTimeTheHandoffWhenTheProcessHasTwoCpus()
    {
        final Calibration measured = Calibrator.measure(2, 2);
        // measured: every protocol hands a slot over in the same time, and LL's slot work is 2.2x SIMPLE's
        assertEquals(measured.simple().stepNs(), measured.ll().stepNs());
        assertEquals(2.2 * measured.simple().slotNs(), measured.ll().slotNs(), 1e-9);
        assertTrue(measured.simple().stepNs() >= 10);
    }
}
