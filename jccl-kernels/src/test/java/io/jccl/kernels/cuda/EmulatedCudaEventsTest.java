package io.jccl.kernels.cuda;

import io.jccl.JcclSystemException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The double's events as the driver's: only events made with timing measure time between them. */
class EmulatedCudaEventsTest
{
    @Test
    void shouldMeasureBetweenTimingEventsAndRefuseAnEventWithoutTiming()
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        final long stream = cuda.streamCreate();
        final long start = cuda.eventCreate(true);
        final long end = cuda.eventCreate(true);
        final long done = cuda.eventCreate(false);
        cuda.eventRecord(start, stream);
        cuda.eventRecord(end, stream);
        cuda.eventRecord(done, stream);
        cuda.streamSynchronize(stream);
        assertTrue(cuda.eventQuery(done), "an event without timing still tells completion");
        assertTrue(cuda.eventElapsedMs(start, end) >= 0);
        final JcclSystemException ex = assertThrows(JcclSystemException.class, () -> cuda.eventElapsedMs(start, done));
        assertTrue(ex.getMessage().contains("CUDA_ERROR_INVALID_HANDLE"), ex.getMessage());
    }
}
