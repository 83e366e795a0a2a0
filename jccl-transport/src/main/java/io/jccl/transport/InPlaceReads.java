package io.jccl.transport;

/**
 * Which memory of this process the ranks of other processes read in place (with P2P and SIMPLE), so the executor
 * can decide which steps publish a reference to their data instead of copying it, and key that decision on the
 * regions a call's buffers lie in. Between processes only jccl's shared buffers ({@link SharedBuffers}) are read
 * in place; when every rank lives in this process, any memory is.
 */
@FunctionalInterface
public interface InPlaceReads
{
    /** What {@link #region} returns when any memory is read in place (every rank lives in this process). */
    long ANYWHERE = -1;

    /** Every rank lives in this process: any memory is read in place. */
    InPlaceReads ANY = new InPlaceReads()
    {
        @Override
        public long region(final long address, final long length)
        {
            return ANYWHERE;
        }

        @Override
        public boolean anywhere()
        {
            return true;
        }
    };

    /**
     * @param address the first byte of a range of this process's memory.
     * @param length  its bytes.
     * @return {@link #ANYWHERE}; or the id (above 0) of the region that holds the whole range and that ranks of
     *         other processes map and read in place; or 0 when they cannot read it in place.
     */
    long region(long address, long length);

    /** @return true when any memory of this process is read in place ({@link #ANY}). */
    default boolean anywhere()
    {
        return false;
    }

    /**
     * @param address the first byte of a range.
     * @param length  its bytes.
     * @return true when the other ranks read the range in place.
     */
    default boolean readable(final long address, final long length)
    {
        return region(address, length) != 0;
    }
}
