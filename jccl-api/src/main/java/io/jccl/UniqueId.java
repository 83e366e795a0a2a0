package io.jccl;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What ranks in several processes share to find each other (NCCL's {@code ncclUniqueId}): the rendezvous address
 * and port of rank 0, and a random 128-bit secret that peers must present. Printable and parseable as
 * {@code host:port/secret-hex}.
 */
public final class UniqueId
{
    /** Secret length in bytes. */
    public static final int SECRET_LENGTH = 16;

    private final String host;
    private final int port;
    private final byte[] secret;

    private UniqueId(final String host, final int port, final byte[] secret)
    {
        this.host = host;
        this.port = port;
        this.secret = secret;
    }

    /**
     * @param host rendezvous host (name or literal address).
     * @param port rendezvous port, 1..65535.
     * @return an id with a fresh random secret.
     */
    public static UniqueId create(final String host, final int port)
    {
        final byte[] secret = new byte[SECRET_LENGTH];
        new SecureRandom().nextBytes(secret);
        return of(host, port, secret);
    }

    /**
     * @param host   rendezvous host.
     * @param port   rendezvous port, 1..65535.
     * @param secret {@link #SECRET_LENGTH} bytes.
     * @return the id.
     * @throws JcclInvalidArgumentException naming the bad argument.
     */
    public static UniqueId of(final String host, final int port, final byte[] secret)
    {
        if (host == null || host.isEmpty())
        {
            throw new JcclInvalidArgumentException("host is null or empty");
        }
        if (port < 1 || port > 65535)
        {
            throw new JcclInvalidArgumentException("port=" + port + " is outside 1..65535");
        }
        if (secret == null || secret.length != SECRET_LENGTH)
        {
            throw new JcclInvalidArgumentException("secret must be " + SECRET_LENGTH + " bytes");
        }
        return new UniqueId(host, port, secret.clone());
    }

    /**
     * @param text {@code host:port/secret-hex} as {@link #toString()} writes it.
     * @return the id.
     * @throws JcclInvalidArgumentException if the text is malformed.
     */
    public static UniqueId parse(final String text)
    {
        if (text == null)
        {
            throw new JcclInvalidArgumentException("uniqueId text is null");
        }
        final int slash = text.lastIndexOf('/');
        final int colon = slash < 0 ? -1 : text.lastIndexOf(':', slash);
        if (slash < 0 || colon < 0)
        {
            throw new JcclInvalidArgumentException("uniqueId '" + text + "' is not host:port/secret-hex");
        }
        try
        {
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]"))
            {
                host = host.substring(1, host.length() - 1);
            }
            return of(host, Integer.parseInt(text.substring(colon + 1, slash)),
                HexFormat.of().parseHex(text.substring(slash + 1)));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new JcclInvalidArgumentException("uniqueId '" + text + "' is not host:port/secret-hex: " +
                ex.getMessage());
        }
    }

    /** @return the rendezvous host. */
    public String host()
    {
        return host;
    }

    /** @return the rendezvous port. */
    public int port()
    {
        return port;
    }

    /** @return a copy of the secret. */
    public byte[] secret()
    {
        return secret.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof UniqueId u && u.host.equals(host) && u.port == port && Arrays.equals(u.secret, secret);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * host.hashCode() + port) + Arrays.hashCode(secret);
    }

    @Override
    public String toString()
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ':' + port + '/' + HexFormat.of().formatHex(secret);
    }
}
