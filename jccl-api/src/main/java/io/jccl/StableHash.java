package io.jccl;

/**
 * FNV-1a, 64 bits, over the UTF-16 code units of a canonical text: the same value in every JVM and on every host
 * (unlike {@link String#hashCode()} folded with identity hashes, or {@code Objects.hash} of enums), so ranks can
 * compare what they were configured with at communicator creation and tell plans apart in slot headers. The one
 * hash jccl uses wherever a value must agree across processes.
 */
public final class StableHash
{
    /** FNV-1a's 64-bit offset basis: the hash of nothing. */
    public static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private StableHash()
    {
    }

    /**
     * @param text canonical text.
     * @return its FNV-1a hash.
     */
    public static long of(final String text)
    {
        return mix(OFFSET_BASIS, text);
    }

    /**
     * @param hash a hash so far.
     * @param text more canonical text.
     * @return the hash continued over the text.
     */
    public static long mix(final long hash, final String text)
    {
        long h = hash;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            h = (h ^ (c & 0xff)) * PRIME;
            h = (h ^ (c >>> 8)) * PRIME;
        }
        return h;
    }

    /**
     * @param hash  a hash so far.
     * @param value a number, hashed as its hexadecimal text.
     * @return the hash continued over it.
     */
    public static long mix(final long hash, final long value)
    {
        return mix(hash, Long.toHexString(value));
    }
}
