package io.jccl.launch;

import java.nio.file.Path;
import java.util.List;

/**
 * A child for {@link ProcessLauncherTest} that stands in for a rank without starting jccl: {@code echo} prints
 * {@code out <rank>} on stdout and {@code err <rank>} on stderr and exits 0; {@code fail-rank-1} makes rank 1 print
 * {@code boom} on stderr and exit 3 while every other rank prints {@code waiting} and waits to be stopped.
 */
public final class LauncherStubChild
{
    private LauncherStubChild()
    {
    }

    /**
     * @param behaviour {@code echo} or {@code fail-rank-1}.
     * @return the command line of a small JVM running this class with this test's class path.
     */
    static List<String> command(final String behaviour)
    {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx32m",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
            LauncherStubChild.class.getName(), behaviour);
    }

    /**
     * @param args the behaviour.
     * @throws InterruptedException never in practice: the launcher stops a waiting child with a signal.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final int rank = Integer.parseInt(System.getenv("RANK"));
        if ("echo".equals(args[0]))
        {
            System.out.println("out " + rank);
            System.err.println("err " + rank);
            return;
        }
        if (rank == 1)
        {
            System.err.println("boom");
            System.exit(3);
        }
        System.out.println("waiting");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
