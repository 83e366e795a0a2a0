package io.jccl.spark;

/** The barrier contract on {@code local[2]}: two tasks as two threads of this JVM, two ranks. */
class LocalTwoThreadsTest extends BarrierCollectivesContract
{
    @Override
    String master()
    {
        return "local[2]";
    }

    @Override
    int ranks()
    {
        return 2;
    }
}
