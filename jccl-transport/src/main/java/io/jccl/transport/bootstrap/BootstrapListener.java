package io.jccl.transport.bootstrap;

/**
 * What the rendezvous tells tests about its progress, so that they can order events without sleeping. Called on the
 * thread that runs {@code Bootstrap.connect}.
 */
interface BootstrapListener
{
    /** Listens to nothing. */
    BootstrapListener NONE = new BootstrapListener()
    {
    };

    /**
     * Rank 0 has accepted a rank's hello.
     *
     * @param rank the rank accepted.
     */
    default void accepted(final int rank)
    {
    }

    /**
     * A rank's attempt to reach rank 0 failed and will be retried.
     *
     * @param rank   the rank that tried.
     * @param reason why it failed.
     */
    default void attemptFailed(final int rank, final String reason)
    {
    }
}
