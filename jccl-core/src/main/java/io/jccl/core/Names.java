package io.jccl.core;

import io.jccl.Collective;

/** The names of collectives as the API spells them, for messages. */
final class Names
{
    private Names()
    {
    }

    static String of(final Collective collective)
    {
        return switch (collective)
        {
            case ALL_REDUCE -> "allReduce";
            case ALL_GATHER -> "allGather";
            case REDUCE_SCATTER -> "reduceScatter";
            case BROADCAST -> "broadcast";
            case REDUCE -> "reduce";
            case ALL_TO_ALL -> "allToAll";
        };
    }
}
