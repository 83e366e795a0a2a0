package io.jccl.bench;

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
     * @param args the behaviour.
     * @throws InterruptedException never in practice: the launcher stops a waiting child with a signal.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final int rank = Integer.parseInt(System.getenv("JCCL_RANK"));
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
