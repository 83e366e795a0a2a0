package io.jccl;

/** Which path the bytes take between two ranks.
 * Ids and names are stable: they reach files and the wire. */
public enum TransportKind
{
    /** FIFO in the receiver's memory written by the sender; direct access to a peer's buffer where it can be mapped. */
    P2P(0, "p2p"),
    /** FIFO in host shared memory, staged. */
    SHM(1, "shm"),
    /** The network transport between hosts: TCP, or Aeron UDP ({@code JCCL_NET}). */
    NET(2, "net");

    private final int id;
    private final String lowerName;

    TransportKind(final int id, final String lowerName)
    {
        this.id = id;
        this.lowerName = lowerName;
    }

    /** @return the stable id. */
    public int id()
    {
        return id;
    }

    /** @return the stable lower-case name. */
    public String lowerName()
    {
        return lowerName;
    }

    /**
     * @param name a lower-case name or a constant's name, in any case.
     * @return the constant of that name.
     * @throws JcclInvalidArgumentException if none has that name.
     */
    public static TransportKind fromName(final String name)
    {
        return EnumNames.lookup(values(), TransportKind::lowerName, name, "transportKind");
    }
}
