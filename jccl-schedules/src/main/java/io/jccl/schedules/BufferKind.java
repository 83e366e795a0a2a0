package io.jccl.schedules;

/** The buffers a step addresses, with MSCCL's one-letter names. */
public enum BufferKind
{
    /** The caller's send buffer. */
    INPUT("i"),
    /** The caller's receive buffer. */
    OUTPUT("o"),
    /** Memory the executor provides for the call. */
    SCRATCH("s");

    private static final BufferKind[] VALUES = values();

    private final String mscclName;

    BufferKind(final String mscclName)
    {
        this.mscclName = mscclName;
    }

    /** @return {@code i}, {@code o} or {@code s}. */
    public String mscclName()
    {
        return mscclName;
    }

    /**
     * @param ordinal an ordinal as stored in step records.
     * @return the kind of an ordinal, as stored in step records.
     */
    public static BufferKind of(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
