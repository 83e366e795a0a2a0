package io.jccl;

/** How a connector frames its FIFO slots (DESIGN.md, the knobs).
 * Ids and names are stable: they reach files and the wire. */
public enum Protocol
{
    /** One release-store of a step counter per slot; highest bandwidth. */
    SIMPLE(0, "simple"),
    /** Low latency: 8-byte words of 4 data bytes and a 4-byte flag. */
    LL(1, "ll"),
    /** 128-byte lines of 120 data bytes and an 8-byte flag stored last. */
    LL128(2, "ll128");

    private final int id;
    private final String lowerName;

    Protocol(final int id, final String lowerName)
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
    public static Protocol fromName(final String name)
    {
        return EnumNames.lookup(values(), Protocol::lowerName, name, "protocol");
    }
}
