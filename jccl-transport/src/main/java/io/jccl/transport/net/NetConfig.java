package io.jccl.transport.net;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import io.jccl.Settings;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;

/**
 * Settings of the network transport, from the environment ({@link #fromEnvironment(Map, String, long)}) or given.
 * <ul>
 *     <li>{@code JCCL_SOCKET_ADDR}: the IPv4 address to bind; else {@code JCCL_SOCKET_IFNAME}: the interface whose
 *     first IPv4 address is bound (a name, or a prefix ending in {@code *}, as NCCL's {@code NCCL_SOCKET_IFNAME});
 *     else the address this host's routing picks to reach the rendezvous host.</li>
 *     <li>{@code JCCL_NET_MTU}: Aeron's MTU (UDP payload per datagram), a multiple of 32 in 1024..32768; by default
 *     the bound interface's MTU less the IPv4 and UDP headers, rounded down to 32 (8960 on a 9000-byte jumbo link,
 *     1440 on 1500, 32768 on loopback).</li>
 *     <li>{@code JCCL_NET_TERM_LENGTH}: Aeron's term length per publication (a power of two, 64K..1G, K/M suffixes;
 *     default 4M): each peer process costs 3 terms for the publication and 3 for the image in {@code /dev/shm}; the
 *     receive window is half a term, capped by the socket receive buffer the kernel allows.</li>
 *     <li>{@code JCCL_AERON_DIR} or the system property {@code aeron.dir}: use the media driver already running
 *     there instead of an embedded one.</li>
 *     <li>{@code JCCL_NET}: what carries the frames, {@code tcp} (a TCP connection to each peer process, as NCCL's
 *     socket transport; the default) or {@code aeron} (Aeron UDP through a media driver; the default when
 *     {@code JCCL_AERON_DIR} or {@code aeron.dir} names one). The MTU, term and driver settings apply to Aeron
 *     only.</li>
 * </ul>
 *
 * @param bindAddress  the IPv4 address this process receives on.
 * @param mtu          Aeron's MTU.
 * @param termLength   Aeron's term length.
 * @param socketBuffer the socket send and receive buffer to ask for (the kernel caps it at its maximum).
 * @param timeoutMs    the deadline; Aeron's liveness and connection timeouts follow from it, so a pause shorter
 *                     than the deadline never reads as a death.
 * @param aeronDir     an external media driver's directory, or null for an embedded driver.
 * @param wire         what carries the frames between processes.
 */
public record NetConfig(String bindAddress, int mtu, int termLength, int socketBuffer, long timeoutMs,
    String aeronDir, Wire wire)
{
    /** What carries the network transport's frames between processes. */
    public enum Wire
    {
        /** Aeron UDP: one publication per peer process and one subscription, through a media driver. */
        AERON,
        /** One TCP connection to each peer process it sends to, with no media driver. */
        TCP
    }

    /** Variable choosing the wire: {@code aeron} or {@code tcp}. */
    public static final String WIRE_ENV = Settings.NET;
    /** Variable naming the address to bind. */
    public static final String SOCKET_ADDR_ENV = Settings.SOCKET_ADDR;
    /** Variable naming the interface to bind. */
    public static final String SOCKET_IFNAME_ENV = Settings.SOCKET_IFNAME;
    /** Variable overriding the MTU. */
    public static final String MTU_ENV = Settings.NET_MTU;
    /** Variable overriding the term length. */
    public static final String TERM_LENGTH_ENV = Settings.NET_TERM_LENGTH;
    /** Variable naming an external media driver's directory. */
    public static final String AERON_DIR_ENV = Settings.AERON_DIR;
    /** The default term length. */
    public static final int DEFAULT_TERM_LENGTH = 4 << 20;
    /** The IPv4 and UDP headers a datagram carries besides Aeron's MTU. */
    static final int IP_UDP_HEADERS = 28;
    /**
     * The largest MTU jccl uses: Aeron allows 65504, but with datagrams that large on loopback a stream stalled
     * here after its first few messages (retransmission never caught up), while 32768 carried the most.
     */
    static final int MAX_MTU = 32768;
    /** The largest socket buffer jccl asks for, whatever {@code net.core.rmem_max} allows. */
    static final int MAX_SOCKET_BUFFER = 16 << 20;
    /**
     * Linux's {@code net.core} sysctls: the kernel's interface, the same path on every host (not a file of the
     * project or of any machine), read for the socket buffer limits.
     */
    private static final Path NET_CORE_SYSCTLS = Path.of("/proc/sys/net/core");

    /**
     * Validates every setting.
     *
     * @param bindAddress  the IPv4 address this process receives on.
     * @param mtu          Aeron's MTU, a multiple of 32 in 1024..32768.
     * @param termLength   Aeron's term length, a power of two in 64K..1G.
     * @param socketBuffer the socket buffers to ask for, at least 64K.
     * @param timeoutMs    the deadline, positive.
     * @param aeronDir     an external media driver's directory, or null.
     * @param wire         what carries the frames.
     * @throws JcclInvalidArgumentException naming the bad setting.
     */
    public NetConfig
    {
        if (wire == null)
        {
            throw new JcclInvalidArgumentException("wire is null");
        }
        if (bindAddress == null || bindAddress.isEmpty())
        {
            throw new JcclInvalidArgumentException("bindAddress is empty");
        }
        if (mtu < 1024 || mtu > MAX_MTU || (mtu & 31) != 0)
        {
            throw new JcclInvalidArgumentException(MTU_ENV + "=" + mtu + " must be a multiple of 32 in 1024.." +
                MAX_MTU);
        }
        if (termLength < 64 << 10 || termLength > 1 << 30 || Integer.bitCount(termLength) != 1)
        {
            throw new JcclInvalidArgumentException(TERM_LENGTH_ENV + "=" + termLength +
                " must be a power of two in 64K..1G");
        }
        if (socketBuffer < 64 << 10)
        {
            throw new JcclInvalidArgumentException("socketBuffer=" + socketBuffer + " must be at least 64K");
        }
        if (timeoutMs <= 0)
        {
            throw new JcclInvalidArgumentException("timeoutMs=" + timeoutMs + " must be positive");
        }
    }

    /**
     * Aeron UDP settings.
     *
     * @param bindAddress  the IPv4 address this process receives on.
     * @param mtu          Aeron's MTU, a multiple of 32 in 1024..32768.
     * @param termLength   Aeron's term length, a power of two in 64K..1G.
     * @param socketBuffer the socket buffers to ask for, at least 64K.
     * @param timeoutMs    the deadline, positive.
     * @param aeronDir     an external media driver's directory, or null.
     */
    public NetConfig(final String bindAddress, final int mtu, final int termLength, final int socketBuffer,
        final long timeoutMs, final String aeronDir)
    {
        this(bindAddress, mtu, termLength, socketBuffer, timeoutMs, aeronDir, Wire.AERON);
    }

    /**
     * @param wire what carries the frames.
     * @return the same settings carried by {@code wire}.
     */
    public NetConfig withWire(final Wire wire)
    {
        return new NetConfig(bindAddress, mtu, termLength, socketBuffer, timeoutMs, aeronDir, wire);
    }

    /** @return the wire and what shapes it, for logs: {@code tcp}, or {@code aeron mtu M term T window W}. */
    public String wireSummary()
    {
        return wire == Wire.TCP ? "tcp" : "aeron mtu " + mtu + " term " + termLength + " window " + receiveWindow();
    }

    /**
     * @param env            the environment ({@code System.getenv()}).
     * @param rendezvousHost where rank 0 listens: the default bind address is the one that reaches it.
     * @param timeoutMs      the communicator's deadline.
     * @return the settings.
     * @throws JcclInvalidArgumentException naming a bad variable.
     * @throws JcclSystemException          if no address can be found.
     */
    public static NetConfig fromEnvironment(final Map<String, String> env, final String rendezvousHost,
        final long timeoutMs)
    {
        final InetAddress bind = bindAddress(env, rendezvousHost);
        final String mtuText = env.get(MTU_ENV);
        final int mtu = mtuText != null ? parseInt(MTU_ENV, mtuText) : defaultMtu(bind);
        final String termText = env.get(TERM_LENGTH_ENV);
        final int term = termText != null ? parseSize(TERM_LENGTH_ENV, termText) : DEFAULT_TERM_LENGTH;
        final String dir = env.getOrDefault(AERON_DIR_ENV, System.getProperty("aeron.dir"));
        // TCP by default (it carries 2-4x what Aeron UDP does here); Aeron where asked, or where its driver is named
        final String wireText = env.getOrDefault(WIRE_ENV, dir != null ? "aeron" : "tcp").trim()
            .toLowerCase(java.util.Locale.ROOT);
        final Wire wire = switch (wireText)
        {
            case "aeron", "udp" -> Wire.AERON;
            case "tcp", "socket" -> Wire.TCP;
            default -> throw new JcclInvalidArgumentException(WIRE_ENV + "=" + env.get(WIRE_ENV) +
                " is neither aeron nor tcp");
        };
        return new NetConfig(bind.getHostAddress(), mtu, term, socketBufferLimit(), timeoutMs, dir, wire);
    }

    /** @return the receive window: half a term, capped by the socket buffer. */
    public int receiveWindow()
    {
        return Math.min(termLength / 2, socketBuffer);
    }

    private static InetAddress bindAddress(final Map<String, String> env, final String rendezvousHost)
    {
        final String addr = env.get(SOCKET_ADDR_ENV);
        try
        {
            if (addr != null)
            {
                final InetAddress a = InetAddress.getByName(addr);
                if (!(a instanceof Inet4Address))
                {
                    throw new JcclInvalidArgumentException(SOCKET_ADDR_ENV + "=" + addr + " is not an IPv4 address");
                }
                return a;
            }
            final String ifname = env.get(SOCKET_IFNAME_ENV);
            if (ifname != null)
            {
                return interfaceAddress(ifname);
            }
            return localAddressToward(rendezvousHost);
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("cannot find the address to bind the network transport to (set " +
                SOCKET_ADDR_ENV + " or " + SOCKET_IFNAME_ENV + "): " + ex, ex);
        }
    }

    /**
     * @param host a host name or address.
     * @return the address this host's routing uses to reach it (loopback when it is this host's only address).
     * @throws JcclSystemException if the name does not resolve or no route leads there.
     */
    public static InetAddress localAddressToward(final String host)
    {
        try (DatagramSocket probe = new DatagramSocket())
        {
            // connecting a datagram socket sends nothing: it asks the routing table for the source address
            probe.connect(new InetSocketAddress(InetAddress.getByName(host), 9));
            final InetAddress local = probe.getLocalAddress();
            return local.isAnyLocalAddress() ? InetAddress.getByName("127.0.0.1") : local;
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("cannot find the local address that reaches " + host + ": " + ex, ex);
        }
    }

    private static InetAddress interfaceAddress(final String ifname) throws SocketException
    {
        final boolean prefix = ifname.endsWith("*");
        final String name = prefix ? ifname.substring(0, ifname.length() - 1) : ifname;
        final StringBuilder seen = new StringBuilder();
        for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces()))
        {
            seen.append(seen.length() == 0 ? "" : ", ").append(nif.getName());
            if (prefix ? nif.getName().startsWith(name) : nif.getName().equals(name))
            {
                for (final InetAddress a : Collections.list(nif.getInetAddresses()))
                {
                    if (a instanceof Inet4Address)
                    {
                        return a;
                    }
                }
            }
        }
        throw new JcclInvalidArgumentException(SOCKET_IFNAME_ENV + "=" + ifname + " matches no interface with an " +
            "IPv4 address; interfaces here: " + seen);
    }

    /**
     * @param bind the bound address.
     * @return its interface's MTU less IPv4 and UDP headers, rounded down to 32, within 1024..32768.
     */
    static int defaultMtu(final InetAddress bind)
    {
        int linkMtu = 1500;
        try
        {
            final NetworkInterface nif = NetworkInterface.getByInetAddress(bind);
            if (nif != null && nif.getMTU() > 0)
            {
                linkMtu = nif.getMTU();
            }
        }
        catch (final SocketException ignored)
        {
            // keep Ethernet's 1500
        }
        return Math.max(1024, Math.min(MAX_MTU, (linkMtu - IP_UDP_HEADERS) & -32));
    }

    /** @return the kernel's largest socket receive buffer ({@code net.core.rmem_max}), at least 64K, at most 16M. */
    static int socketBufferLimit()
    {
        final long max = sysctlOr("rmem_max", 208 << 10);
        return (int)Math.max(64 << 10, Math.min(MAX_SOCKET_BUFFER, max));
    }

    /**
     * @return what to set when the kernel's socket buffer limits ({@code net.core.rmem_max}, {@code wmem_max}) are
     *         below the window Aeron would keep in flight (half a term, at most the 16M socket buffer jccl asks
     *         for); null when they are not. Each unread limit counts as large enough.
     */
    public String socketBufferAdvice()
    {
        return socketBufferAdvice(Math.min(termLength / 2, MAX_SOCKET_BUFFER), sysctlOr("rmem_max", Long.MAX_VALUE),
            sysctlOr("wmem_max", Long.MAX_VALUE));
    }

    /**
     * @param wanted  the window in bytes.
     * @param rmemMax {@code net.core.rmem_max}.
     * @param wmemMax {@code net.core.wmem_max}.
     * @return the advice, or null when both limits reach the window.
     */
    static String socketBufferAdvice(final int wanted, final long rmemMax, final long wmemMax)
    {
        if (rmemMax >= wanted && wmemMax >= wanted)
        {
            return null;
        }
        return "the kernel caps socket buffers at net.core.rmem_max=" + rmemMax + " and net.core.wmem_max=" +
            wmemMax + ", below the " + wanted + " bytes Aeron would keep in flight to each peer (half a term), so " +
            "it sends and receives less at a time; to keep the link full run as root: sysctl -w " +
            "net.core.rmem_max=" + wanted + " net.core.wmem_max=" + wanted;
    }

    private static long sysctlOr(final String name, final long otherwise)
    {
        try
        {
            return Long.parseLong(readSysctl(NET_CORE_SYSCTLS.resolve(name)));
        }
        catch (final IOException | RuntimeException ex)
        {
            return otherwise;
        }
    }

    /**
     * @param file a file under {@code /proc/sys}.
     * @return its first line, trimmed. Read through a buffer: a numeric sysctl answers only a read at offset 0, and
     *         {@code Files.readString} reads a file of size 0 one byte first, so it saw "4" of "4194304" (and the
     *         receive window fell to its 64K floor).
     * @throws IOException if it cannot be read.
     */
    static String readSysctl(final Path file) throws IOException
    {
        final java.util.List<String> lines = Files.readAllLines(file);
        return lines.isEmpty() ? "" : lines.get(0).trim();
    }

    private static int parseInt(final String name, final String text)
    {
        try
        {
            return Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException(name + "=" + text + " is not a number");
        }
    }

    private static int parseSize(final String name, final String text)
    {
        final long value = Settings.parseBytes(name, text);
        if (value > Integer.MAX_VALUE)
        {
            throw new JcclInvalidArgumentException(name + "=" + text + " is larger than 1G");
        }
        return (int)value;
    }
}
