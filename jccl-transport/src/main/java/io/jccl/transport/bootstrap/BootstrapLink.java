package io.jccl.transport.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One authenticated control connection, to rank 0 from a peer or to a peer from rank 0, in non-blocking mode. Frames
 * are read by one thread at a time (the rendezvous, then the watch thread); any thread may send, one frame at a time.
 * Reads take exactly the bytes of one frame, so bytes of a later frame stay in the socket for whoever reads next.
 */
final class BootstrapLink
{
    /** A frame read from the link. */
    record Frame(int type, byte[] payload)
    {
    }

    private static final long WRITE_BACKOFF_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private final int peer;
    private final SocketChannel channel;
    private final int maxFrameLength;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final ByteBuffer header = ByteBuffer.allocate(Integer.BYTES);
    private ByteBuffer body;
    private boolean outputShut;
    private volatile boolean goodbyeReceived;
    private volatile boolean finished;

    /**
     * @param peer           the rank at the other end.
     * @param channel        the connected channel; configured non-blocking here.
     * @param maxFrameLength the longest frame accepted from the other end.
     * @throws IOException if the channel cannot be configured.
     */
    BootstrapLink(final int peer, final SocketChannel channel, final int maxFrameLength) throws IOException
    {
        this.peer = peer;
        this.channel = channel;
        this.maxFrameLength = maxFrameLength;
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /** @return the rank at the other end. */
    int peer()
    {
        return peer;
    }

    /** @return the channel. */
    SocketChannel channel()
    {
        return channel;
    }

    /**
     * Reads what has arrived, up to the end of one frame.
     *
     * @return the next frame, or null until all of its bytes have arrived.
     * @throws EOFException if the other end closed its output.
     * @throws IOException  if the read fails or the frame's length is out of range.
     */
    Frame readFrame() throws IOException
    {
        if (body == null)
        {
            readSome(header);
            if (header.hasRemaining())
            {
                return null;
            }
            final int length = header.getInt(0);
            if (length < 1 || length > maxFrameLength)
            {
                throw new IOException("frame length " + length + " from rank " + peer + " is outside 1.." +
                    maxFrameLength);
            }
            body = ByteBuffer.allocate(length);
        }
        readSome(body);
        if (body.hasRemaining())
        {
            return null;
        }
        final byte[] bytes = body.array();
        final byte[] payload = new byte[bytes.length - 1];
        System.arraycopy(bytes, 1, payload, 0, payload.length);
        header.clear();
        body = null;
        return new Frame(bytes[0], payload);
    }

    /**
     * @param type       the frame type.
     * @param payload    the payload.
     * @param deadlineNs {@link System#nanoTime()} by which the frame must be written.
     * @throws IOException if the write fails, the output is shut or the deadline passes.
     */
    void send(final int type, final byte[] payload, final long deadlineNs) throws IOException
    {
        final ByteBuffer frame = frame(type, payload);
        writeLock.lock();
        try
        {
            if (outputShut)
            {
                throw new IOException("output to rank " + peer + " is shut");
            }
            writeFully(channel, frame, deadlineNs);
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /** Sends end-of-stream after any frame in progress; later sends fail. Quiet. */
    void shutdownOutput()
    {
        writeLock.lock();
        try
        {
            if (!outputShut)
            {
                outputShut = true;
                channel.shutdownOutput();
            }
        }
        catch (final IOException ex)
        {
            // already closed or reset: the other end sees the end either way
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /** Closes the channel. Quiet. */
    void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            // nothing left to release
        }
    }

    /** Notes that the other end said goodbye, or that it aborted and said so: its end of stream is not a death. */
    void goodbyeReceived()
    {
        goodbyeReceived = true;
    }

    /** @return whether the other end said goodbye. */
    boolean hasSaidGoodbye()
    {
        return goodbyeReceived;
    }

    /** Notes that the watch has seen the end of this link. */
    void finished()
    {
        finished = true;
    }

    /** @return whether the watch has seen the end of this link. */
    boolean isFinished()
    {
        return finished;
    }

    /**
     * @param type    the frame type.
     * @param payload the payload.
     * @return the frame, ready to write.
     */
    static ByteBuffer frame(final int type, final byte[] payload)
    {
        final ByteBuffer frame = ByteBuffer.allocate(Integer.BYTES + 1 + payload.length);
        frame.putInt(1 + payload.length).put((byte)type).put(payload).flip();
        return frame;
    }

    /**
     * Writes all of a buffer to a non-blocking channel, pausing briefly while the socket's buffer is full.
     *
     * @param channel    the channel.
     * @param buffer     what to write.
     * @param deadlineNs {@link System#nanoTime()} by which all must be written.
     * @throws IOException if the write fails, the thread is interrupted or the deadline passes.
     */
    static void writeFully(final SocketChannel channel, final ByteBuffer buffer, final long deadlineNs)
        throws IOException
    {
        while (buffer.hasRemaining())
        {
            if (channel.write(buffer) == 0)
            {
                if (Thread.currentThread().isInterrupted())
                {
                    throw new InterruptedIOException("interrupted while writing to " + channel.getRemoteAddress());
                }
                if (System.nanoTime() - deadlineNs >= 0)
                {
                    throw new IOException("timed out writing to " + channel.getRemoteAddress());
                }
                LockSupport.parkNanos(WRITE_BACKOFF_NS);
            }
        }
    }

    private void readSome(final ByteBuffer buffer) throws IOException
    {
        if (buffer.hasRemaining() && channel.read(buffer) < 0)
        {
            throw new EOFException("rank " + peer + " closed its connection");
        }
    }
}
