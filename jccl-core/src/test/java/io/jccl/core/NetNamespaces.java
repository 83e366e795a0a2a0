package io.jccl.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test hosts on this machine: network namespaces, each with an {@code eth0} on one switch (a bridge in a namespace
 * of its own), addresses {@code 10.213.0.1, .2, ...}, a chosen MTU (9000: jumbo frames). Nothing touches the
 * machine's own namespace. Needs root and iproute2: {@link #unavailable()} says why they cannot be made, and
 * namespaces left by a killed earlier run (their creator's pid is in the name) are deleted first.
 */
final class NetNamespaces implements AutoCloseable
{
    private static final String PREFIX = "jccl";
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final String name;
    private final List<String> hosts = new ArrayList<>();

    private NetNamespaces(final String name)
    {
        this.name = name;
    }

    /**
     * @return why namespaces cannot be made here (not root, no {@code ip}), or null when they can: then a test
     *         that needs them must run, and fail if making them fails.
     */
    static String unavailable()
    {
        if (!"root".equals(System.getProperty("user.name")))
        {
            return "network namespaces need root; running as " + System.getProperty("user.name");
        }
        try
        {
            if (new ProcessBuilder("ip", "-V").redirectErrorStream(true).start().waitFor() != 0)
            {
                return "'ip -V' failed: iproute2 is broken";
            }
        }
        catch (final IOException | InterruptedException ex)
        {
            return "no 'ip' command (install iproute2): " + ex.getMessage();
        }
        return null;
    }

    /**
     * @return why packets cannot be dropped here (no {@code nft} command: nftables is not installed; {@code .ci/run}
     *         installs it), or null when {@link #drop} can run.
     */
    static String dropUnavailable()
    {
        try
        {
            if (new ProcessBuilder("nft", "--version").redirectErrorStream(true).start().waitFor() != 0)
            {
                return "'nft --version' failed: nftables is broken";
            }
        }
        catch (final IOException | InterruptedException ex)
        {
            return "no 'nft' command (install nftables to drop packets): " + ex.getMessage();
        }
        return null;
    }

    /**
     * @param count hosts, 1..200.
     * @param mtu   the links' MTU.
     * @return the hosts, each reachable from every other.
     * @throws IOException if a command fails.
     */
    static NetNamespaces create(final int count, final int mtu) throws IOException
    {
        sweepDead();
        final NetNamespaces ns = new NetNamespaces(PREFIX + ProcessHandle.current().pid() + "x" +
            NEXT.incrementAndGet());
        try
        {
            final String sw = ns.name + "sw";
            run("ip", "netns", "add", sw);
            run("ip", "-n", sw, "link", "add", "br0", "mtu", Integer.toString(mtu), "type", "bridge");
            run("ip", "-n", sw, "link", "set", "br0", "up");
            for (int h = 0; h < count; h++)
            {
                final String host = ns.name + "h" + h;
                run("ip", "netns", "add", host);
                ns.hosts.add(host);
                run("ip", "link", "add", "eth0", "netns", host, "mtu", Integer.toString(mtu), "type", "veth",
                    "peer", "name", "p" + h, "netns", sw, "mtu", Integer.toString(mtu));
                run("ip", "-n", sw, "link", "set", "p" + h, "master", "br0");
                run("ip", "-n", sw, "link", "set", "p" + h, "up");
                run("ip", "-n", host, "addr", "add", ns.address(h) + "/24", "dev", "eth0");
                run("ip", "-n", host, "link", "set", "eth0", "up");
                run("ip", "-n", host, "link", "set", "lo", "up");
            }
            return ns;
        }
        catch (final IOException | RuntimeException ex)
        {
            ns.close();
            throw ex;
        }
    }

    /**
     * @param host a host index.
     * @return its address.
     */
    String address(final int host)
    {
        return "10.213.0." + (host + 1);
    }

    /**
     * @param host a host index.
     * @return the command prefix that runs a program on it.
     */
    List<String> exec(final int host)
    {
        return List.of("ip", "netns", "exec", hosts.get(host));
    }

    /**
     * Drops a share of the packets of one protocol arriving at a host (nftables, random per packet).
     *
     * @param host     the host.
     * @param protocol {@code udp} or {@code tcp}.
     * @param percent  1..100.
     * @throws IOException if nftables is missing or refuses the rule.
     */
    void drop(final int host, final String protocol, final int percent) throws IOException
    {
        final String ns = hosts.get(host);
        run("ip", "netns", "exec", ns, "nft", "add", "table", "inet", "jccltest");
        run("ip", "netns", "exec", ns, "nft", "add", "chain", "inet", "jccltest", "input",
            "{ type filter hook input priority 0 ; policy accept ; }");
        run("ip", "netns", "exec", ns, "nft", "add", "rule", "inet", "jccltest", "input", "meta", "l4proto", protocol,
            "numgen", "random", "mod", "100", "<", Integer.toString(percent), "counter", "drop");
    }

    /**
     * @param host a host.
     * @return the packets its drop rule dropped so far, from nftables' counter.
     * @throws IOException if nftables cannot be read.
     */
    long dropped(final int host) throws IOException
    {
        final String rules = run("ip", "netns", "exec", hosts.get(host), "nft", "list", "chain", "inet", "jccltest",
            "input");
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("counter packets (\\d+)").matcher(rules);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Deletes every namespace (their links go with them). */
    @Override
    public void close()
    {
        for (final String host : hosts)
        {
            quietly("ip", "netns", "del", host);
        }
        quietly("ip", "netns", "del", name + "sw");
    }

    private static void sweepDead() throws IOException
    {
        for (final String line : run("ip", "netns", "list").split("\n"))
        {
            final String ns = line.trim().split(" ")[0];
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile(PREFIX + "(\\d+)x\\d+(sw|h\\d+)")
                .matcher(ns);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty())
            {
                quietly("ip", "netns", "del", ns);
            }
        }
    }

    private static void quietly(final String... command)
    {
        try
        {
            run(command);
        }
        catch (final IOException | RuntimeException ignored)
        {
            // best effort while cleaning up
        }
    }

    private static String run(final String... command) throws IOException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                throw new IOException(String.join(" ", command) + " failed: " + out.trim());
            }
            return out;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), ex);
        }
        finally
        {
            p.destroyForcibly();
        }
    }
}
