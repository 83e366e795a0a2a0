package io.jccl;

/** The operating system, the JVM or a device failed (missing JVM flag, mapping failed, CUDA error). (NCCL: {@code ncclSystemError}). */
public class JcclSystemException extends JcclException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public JcclSystemException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclSystemException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
