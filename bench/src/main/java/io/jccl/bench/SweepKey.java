package io.jccl.bench;

import io.jccl.JcclException;
import io.jccl.Plan;
import io.jccl.TransportKind;
import io.jccl.core.Context;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One of jccl's plan knobs as the bench sets it: by its flag ({@code --proto ll}) or as a key of {@code --sweep}
 * ({@code proto=simple,ll}). Each value is text, parsed here and handed to {@link Context}; the {@link Context}
 * validates it ({@link Context#constraints()}), and {@link #check(String)} turns its verdict into a message that the
 * caller prefixes with the flag or sweep key. The declaration order is the order of a sweep's cartesian product.
 */
public enum SweepKey
{
    /** {@code --algo}: algorithms in NCCL's syntax. */
    ALGO("algo", "--algo", Context.ALGO_PROP_NAME),
    /** {@code --proto}: protocols in NCCL's syntax. */
    PROTO("proto", "--proto", Context.PROTO_PROP_NAME),
    /** {@code --transport}: p2p or shm. */
    TRANSPORT("transport", "--transport", Context.TRANSPORT_PROP_NAME),
    /** {@code --nchannels}: the channel count, pinned (fewest = most). */
    NCHANNELS("nchannels", "--nchannels", Context.MIN_NCHANNELS_PROP_NAME + "=" + Context.NCHANNELS_PROP_NAME),
    /** {@code --chunk}: the pipelining grain in bytes. */
    CHUNK("chunk", "--chunk", Context.CHUNK_SIZE_PROP_NAME),
    /** {@code --block-threads}: threads per CUDA block. */
    BLOCK_THREADS("block-threads", "--block-threads", Context.NTHREADS_PROP_NAME);

    /** The transports in-process ranks can be pinned to. */
    static final List<TransportKind> BENCH_TRANSPORTS = List.of(TransportKind.P2P, TransportKind.SHM);

    private final String key;
    private final String flag;
    private final String variable;

    SweepKey(final String key, final String flag, final String variable)
    {
        this.key = key;
        this.flag = flag;
        this.variable = variable;
    }

    /** @return the name of the key in {@code --sweep}, e.g. {@code block-threads}. */
    public String key()
    {
        return key;
    }

    /** @return the flag that sets the knob for a whole run, e.g. {@code --block-threads}. */
    public String flag()
    {
        return flag;
    }

    /** @return the {@code JCCL_*} variable the knob sets, e.g. {@code JCCL_NTHREADS}. */
    public String variable()
    {
        return variable;
    }

    /**
     * @param key a sweep key, e.g. {@code nchannels}.
     * @return the knob of that key.
     * @throws IllegalArgumentException naming the key and the valid ones.
     */
    public static SweepKey fromKey(final String key)
    {
        for (final SweepKey value : values())
        {
            if (value.key.equals(key))
            {
                return value;
            }
        }
        throw new IllegalArgumentException("'" + key + "' is not one of " + keys());
    }

    /** @return the sweep keys, in the order of the cartesian product. */
    public static List<String> keys()
    {
        return Arrays.stream(values()).map(SweepKey::key).toList();
    }

    /**
     * Sets the knob on a context. A numeric value is parsed here; names and ranges are the context's to check
     * ({@link Context#constraints()}).
     *
     * @param context the context.
     * @param value   the value as given on the command line.
     * @throws IllegalArgumentException if a number cannot be parsed or is below 1, or the transport is not one
     *                                  the bench's in-process ranks can use.
     */
    public void apply(final Context context, final String value)
    {
        switch (this)
        {
            case ALGO -> context.algo(value);
            case PROTO -> context.proto(value);
            case TRANSPORT -> context.transport(transport(value));
            // 0 means "unset" to the context: a bench value is a pin, so it is at least 1
            case NCHANNELS -> context.channels(positiveInt(value, "1.." + Plan.MAX_CHANNELS));
            case CHUNK -> context.chunkBytes(chunkBytes(value));
            case BLOCK_THREADS -> context.threads(positiveInt(value, Plan.MIN_THREADS + ".." + Plan.MAX_THREADS +
                ", a multiple of 32"));
            default -> throw new IllegalStateException(name());
        }
    }

    /**
     * Checks a value on its own: set on a context with no other knob (the {@code JCCL_*} environment left out),
     * then validated by {@link Context#constraints()}.
     *
     * @param value the value as given on the command line.
     * @throws IllegalArgumentException with the reason; the caller names the flag or key.
     */
    public void check(final String value)
    {
        try
        {
            final Context context = unpinned();
            apply(context, value);
            context.checkPlanSettings();
        }
        catch (final JcclException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
    }

    /**
     * @return a context with every plan knob unset, whatever the {@code JCCL_*} environment says: a value set on it
     *         is checked on its own.
     */
    static Context unpinned()
    {
        return new Context().algo(null).proto(null).transport(null).channelRange(0, 0).threads(0).chunkBytes(0);
    }

    private static TransportKind transport(final String value)
    {
        for (final TransportKind kind : BENCH_TRANSPORTS)
        {
            if (kind.lowerName().equals(value.strip().toLowerCase(Locale.ROOT)))
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not a transport of in-process ranks; valid values: " +
            BENCH_TRANSPORTS.stream().map(TransportKind::lowerName).toList());
    }

    private static int positiveInt(final String value, final String validValues)
    {
        final long parsed = Sizes.parseInteger(value);
        if (parsed < 1 || parsed > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("'" + value + "' is out of range; valid values: " + validValues);
        }
        return (int)parsed;
    }

    private static int chunkBytes(final String value)
    {
        final long parsed = Sizes.parseSize(value);
        if (parsed < 1 || parsed > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("'" + value + "' is out of range; valid values: 1.." +
                Integer.MAX_VALUE + " bytes, K and M suffixes allowed");
        }
        return (int)parsed;
    }
}
