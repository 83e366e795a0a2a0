package io.jccl.spark;

/** The barrier contract on {@code local[3]}: three tasks as three threads of this JVM, three ranks. */
class LocalThreeThreadsTest extends BarrierCollectivesContract
{
    @Override
    String master()
    {
        return "local[3]";
    }

    @Override
    int ranks()
    {
        return 3;
    }
}
