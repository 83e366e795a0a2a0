package io.jccl;

/** Where a buffer's bytes live. */
public enum MemoryKind
{
    /** Host memory: a direct ByteBuffer or memory jccl allocated. */
    HOST,
    /** CUDA device memory. */
    DEVICE
}
