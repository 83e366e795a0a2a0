package io.jccl.kernels.cuda;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.kernels.BFloat16;
import io.jccl.kernels.Float16;
import io.jccl.kernels.Float8E4M3;
import io.jccl.kernels.Float8E5M2;
import io.jccl.kernels.HostReducer;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CUDA kernels' arithmetic ({@code cuda-src/jccl_arith.cuh}), compiled for the host by g++ into
 * {@code cuda-src/host-test/arith_check.cpp}, against {@link HostReducer} and the narrow floating conversions, bit for
 * bit: every type and operator, PREMULSUM with each pre-multiplication flag and a range of scalars, scaling, integer
 * division, and the widening and narrowing of the narrow types. Inputs are edge values (zeros, infinities, NaNs,
 * subnormals, extremes, rounding ties), every pair of FP8 values, and random bits.
 * <p>
 * A NaN that arithmetic produced matches any NaN (its sign and payload are the hardware's: x86 keeps an operand's, a
 * GPU gives its canonical one); every other result, and every conversion, must be the same bits.
 */
class CudaArithmeticParityTest
{
    private static final Path CUDA_SRC = Path.of("..", "cuda-src");
    private static final Path HARNESS_SOURCE = CUDA_SRC.resolve("host-test").resolve("arith_check.cpp");
    private static final Path HARNESS = Path.of("target", "arith-check", "arith_check");

    private static final int OP_SCALE = 16;
    private static final int OP_DIVIDE = 17;
    private static final int OP_WIDEN = 32;
    private static final int OP_NARROW = 33;
    private static final int HEADER_LENGTH = 40;
    private static final int RANDOM_PAIRS = 20_000;
    private static final int PREMUL_PAIRS = 3_000;
    private static final ReduceOp.Kind[] PLAIN_KINDS =
        { ReduceOp.Kind.SUM, ReduceOp.Kind.PROD, ReduceOp.Kind.MAX, ReduceOp.Kind.MIN };

    /**
     * AVG's 1/n; exact, negative, truncated and wrapped ones; overflowing each type; the smallest double; single
     * rounding traps for each narrow type (a double just above a tie, which rounding through float to nearest would
     * turn into a tie); FP8 saturation boundaries; zeros and one.
     */
    private static final double[] SCALARS =
        {
            1.0 / 3, 1.0 / 7, 0.125, -2.75, 3.9, 300.7, -1.5, 1e10, -1e20, 1e300, Double.MAX_VALUE, 0x1p63,
            -0x1p63, 0x1p64 + 0x1p12, -0x1.fffffffffffffp70, Double.MIN_VALUE, 1 + 0x1p-11 + 0x1p-40,
            1 + 0x1p-8 + 0x1p-40, 1 + 0x1p-4 + 0x1p-40, 1 + 0x1p-3 + 0x1p-40, 65519.99, 456, 464, 61440, -0.0, 0.0, 1.0,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY
        };

    private static final long[] DIVISORS =
        {
            1, -1, 2, 3, -3, 7, 10, 127, 128, 255, 256, -128, 0x7FFF_FFFFL, 0x8000_0000L, -0x8000_0000L,
            0xFFFF_FFFFL, 0x1_0000_0000L, Long.MAX_VALUE, Long.MIN_VALUE, -2, 0x1234_5678_9ABCL
        };

    private static Path harness;
    private static String skipReason;

    @TempDir
    Path temp;

    private final List<Case> cases = new ArrayList<>();
    private final ByteArrayOutputStream input = new ByteArrayOutputStream();

    @BeforeAll
    static void compileHarness() throws IOException, InterruptedException
    {
        if (!Files.isRegularFile(HARNESS_SOURCE))
        {
            skipReason = HARNESS_SOURCE.toAbsolutePath().normalize() + " is absent (a build outside the repository)";
            return;
        }
        final Path directory = HARNESS.getParent();
        Files.createDirectories(directory);
        final Path log = directory.resolve("g++.log");
        final Process compiler;
        try
        {
            compiler = new ProcessBuilder(
                "g++", "-O2", "-std=c++17", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
                "-o", HARNESS.toString(), HARNESS_SOURCE.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        catch (final IOException ex)
        {
            skipReason = "g++ is not on the PATH (" + ex.getMessage() + "): the host build of jccl_arith.cuh needs it";
            return;
        }
        assertTrue(compiler.waitFor(120, TimeUnit.SECONDS), "g++ did not finish in 120 s");
        assertEquals(0, compiler.exitValue(), () -> "g++ failed on " + HARNESS_SOURCE + ":\n" + read(log));
        harness = HARNESS;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(DataType.class)
    void shouldMatchHostReducerWhenReducing(final DataType type) throws Exception
    {
        assumeTrue(skipReason == null, () -> skipReason);
        final Random random = new Random(1000 + type.ordinal());
        final long[][] pairs = pairs(type, random);
        for (final ReduceOp.Kind kind : PLAIN_KINDS)
        {
            addReduce(type, kind, 0.0, false, false, pairs[0], pairs[1]);
        }
        final long[][] few = { Arrays.copyOf(pairs[0], Math.min(PREMUL_PAIRS, pairs[0].length)),
            Arrays.copyOf(pairs[1], Math.min(PREMUL_PAIRS, pairs[1].length)) };
        for (final double scalar : scalarsOf(type))
        {
            for (int flags = 0; flags < 4; flags++)
            {
                addReduce(type, ReduceOp.Kind.PREMULSUM, scalar, (flags & 1) != 0, (flags & 2) != 0, few[0], few[1]);
            }
        }
        runAndCompare(type);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(DataType.class)
    void shouldMatchHostReducerWhenScaling(final DataType type) throws Exception
    {
        assumeTrue(skipReason == null, () -> skipReason);
        final Random random = new Random(2000 + type.ordinal());
        final long[] values = values(type, random, 2_000);
        final long one = bitsOfOne(type);
        final long[] withOne = Arrays.copyOf(values, values.length + 1);
        // one times the scalar is the scalar as the type holds it: checks that conversion exactly
        withOne[values.length] = one;
        for (final double scalar : scalarsOf(type))
        {
            addScale(type, scalar, withOne);
        }
        runAndCompare(type);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DataType.class, names = { "INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64" })
    void shouldMatchHostReducerWhenDividing(final DataType type) throws Exception
    {
        assumeTrue(skipReason == null, () -> skipReason);
        final Random random = new Random(3000 + type.ordinal());
        final long[] values = values(type, random, 2_000);
        for (final long divisor : DIVISORS)
        {
            addDivide(type, divisor, values);
        }
        for (int i = 0; i < 20; i++)
        {
            final long divisor = random.nextInt(3) == 0 ? random.nextLong() : random.nextInt(1000) - 500;
            addDivide(type, divisor == 0 ? 9 : divisor, values);
        }
        runAndCompare(type);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DataType.class, names = { "FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2" })
    void shouldMatchJavaConversionsWhenWideningAndNarrowing(final DataType type) throws Exception
    {
        assumeTrue(skipReason == null, () -> skipReason);
        final int codes = 1 << (8 * type.byteSize());
        final long[] every = new long[codes];
        for (int i = 0; i < codes; i++)
        {
            every[i] = i;
        }
        addWiden(type, every);

        // every float next to a value of the type and next to each midpoint between two, both signs; then edges and
        // random bits
        final Random random = new Random(4000 + type.ordinal());
        final List<Float> floats = new ArrayList<>();
        for (int i = 0; i < codes; i++)
        {
            final float value = widen(type, i);
            final float next = widen(type, i + 1 < codes ? i + 1 : i);
            if (Float.isNaN(value) || Float.isInfinite(value))
            {
                continue;
            }
            final float mid = Float.isNaN(next) || Float.isInfinite(next) || next == value ?
                value * 1.0625f : (float)(((double)value + next) / 2);
            for (final float around : new float[] { value, mid })
            {
                floats.add(around);
                floats.add(Math.nextUp(around));
                floats.add(Math.nextDown(around));
            }
        }
        for (final float edge : floatEdges())
        {
            floats.add(edge);
        }
        for (int i = 0; i < 20_000; i++)
        {
            floats.add(Float.intBitsToFloat(random.nextInt()));
        }
        final float[] values = new float[floats.size()];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = floats.get(i);
        }
        addNarrow(type, values);
        runAndCompare(type);
    }

    @Test
    void shouldReportMismatchWhenResultsDiffer()
    {
        // the comparison itself must be able to fail: one flipped bit of a non-NaN result is a mismatch
        final Case broken = new Case(DataType.FLOAT32, "self-check", 4, new long[] { 0 }, new long[] { 0 },
            new long[] { Float.floatToRawIntBits(1f) }, true);
        final List<String> mismatches = new ArrayList<>();
        final int differ = broken.compare(ByteBuffer.allocate(4).order(ByteOrder.nativeOrder())
            .putInt(0, Float.floatToRawIntBits(1f) ^ 1), mismatches);
        assertEquals(1, differ, mismatches::toString);
    }

    // ---- cases ----

    private void addReduce(
        final DataType type, final ReduceOp.Kind kind, final double scalar, final boolean premulA,
        final boolean premulB, final long[] a, final long[] b)
    {
        final int count = a.length;
        final int size = type.byteSize();
        final ByteBuffer bufferA = direct(count * size);
        final ByteBuffer bufferB = direct(count * size);
        final ByteBuffer dst = direct(count * size);
        put(bufferA, size, a);
        put(bufferB, size, b);
        HostReducer.of(type, kind, scalar).reduce(
            BufferUtil.address(bufferA), premulA, BufferUtil.address(bufferB), premulB, BufferUtil.address(dst),
            count);
        final int flags = (premulA ? 1 : 0) | (premulB ? 2 : 0);
        final String what = kind.ncclTestsName() + (kind == ReduceOp.Kind.PREMULSUM ?
            " scalar=" + scalar + " premulA=" + premulA + " premulB=" + premulB : "");
        header(type, kind.id(), flags, scalar, 0, count);
        write(bufferA);
        write(bufferB);
        cases.add(new Case(type, what, size, a, b, getAll(dst, size, count), true));
    }

    private void addScale(final DataType type, final double scalar, final long[] x)
    {
        final int count = x.length;
        final int size = type.byteSize();
        final ByteBuffer src = direct(count * size);
        final ByteBuffer dst = direct(count * size);
        put(src, size, x);
        HostReducer.of(type, ReduceOp.Kind.PREMULSUM, scalar)
            .copy(BufferUtil.address(src), true, BufferUtil.address(dst), count);
        header(type, OP_SCALE, 0, scalar, 0, count);
        write(src);
        cases.add(new Case(type, "scale scalar=" + scalar, size, x, null, getAll(dst, size, count), true));
    }

    private void addDivide(final DataType type, final long divisor, final long[] x)
    {
        final int count = x.length;
        final int size = type.byteSize();
        final ByteBuffer buffer = direct(count * size);
        put(buffer, size, x);
        header(type, OP_DIVIDE, 0, 0.0, divisor, count);
        write(buffer);
        HostReducer.of(type, ReduceOp.Kind.SUM, 0).divide(BufferUtil.address(buffer), count, divisor);
        cases.add(new Case(type, "divide by " + divisor, size, x, null, getAll(buffer, size, count), false));
    }

    private void addWiden(final DataType type, final long[] codes)
    {
        final int count = codes.length;
        final ByteBuffer buffer = direct(count * type.byteSize());
        put(buffer, type.byteSize(), codes);
        final long[] expected = new long[count];
        for (int i = 0; i < count; i++)
        {
            expected[i] = Float.floatToRawIntBits(widen(type, (int)codes[i])) & 0xFFFF_FFFFL;
        }
        header(type, OP_WIDEN, 0, 0.0, 0, count);
        write(buffer);
        cases.add(new Case(type, "widen to float", 4, codes, null, expected, false));
    }

    private void addNarrow(final DataType type, final float[] values)
    {
        final int count = values.length;
        final ByteBuffer buffer = direct(count * 4);
        final long[] bits = new long[count];
        final long[] expected = new long[count];
        for (int i = 0; i < count; i++)
        {
            bits[i] = Float.floatToRawIntBits(values[i]) & 0xFFFF_FFFFL;
            buffer.putInt(i * 4, (int)bits[i]);
            expected[i] = narrow(type, values[i]);
        }
        header(type, OP_NARROW, 0, 0.0, 0, count);
        write(buffer);
        cases.add(new Case(type, "narrow from float", type.byteSize(), bits, null, expected, false));
    }

    private void header(
        final DataType type, final int opcode, final int flags, final double scalar, final long divisor,
        final int count)
    {
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.nativeOrder());
        header.putInt(type.id()).putInt(opcode).putInt(flags).putInt(0).putDouble(scalar).putLong(divisor)
            .putLong(count);
        input.writeBytes(header.array());
    }

    private void write(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.capacity()];
        buffer.get(0, bytes);
        input.writeBytes(bytes);
    }

    private void runAndCompare(final DataType type) throws IOException, InterruptedException
    {
        final Path in = temp.resolve("in.bin");
        final Path out = temp.resolve("out.bin");
        final Path log = temp.resolve("log.txt");
        Files.write(in, input.toByteArray());
        final Process process = new ProcessBuilder(harness.toAbsolutePath().toString(), in.toString(), out.toString())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "arith_check did not finish in 60 s");
        assertEquals(0, process.exitValue(), () -> "arith_check failed: " + read(log));

        final ByteBuffer output = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.nativeOrder());
        final List<String> mismatches = new ArrayList<>();
        long elements = 0;
        long differ = 0;
        for (final Case c : cases)
        {
            final int length = c.expected.length * c.outSize;
            assertTrue(output.remaining() >= length, () -> "arith_check wrote too little for " + type + " " + c.what);
            differ += c.compare(output.slice(output.position(), length).order(ByteOrder.nativeOrder()), mismatches);
            output.position(output.position() + length);
            elements += c.expected.length;
        }
        assertEquals(0, output.remaining(), "arith_check wrote more than the cases ask for");
        if (differ != 0)
        {
            fail(differ + " of " + elements + " " + type + " results differ between jccl_arith.cuh and " +
                "the Java host arithmetic; the first ones:\n" + String.join("\n", mismatches));
        }
    }

    /** One case's inputs (for messages) and the results HostReducer gave, as zero-extended bits. */
    private static final class Case
    {
        private static final int REPORTED = 20;

        private final DataType type;
        private final String what;
        private final int outSize;
        private final long[] a;
        private final long[] b;
        private final long[] expected;
        private final boolean nanMatchesNaN;

        Case(final DataType type, final String what, final int outSize, final long[] a, final long[] b,
            final long[] expected, final boolean arithmetic)
        {
            this.type = type;
            this.what = what;
            this.outSize = outSize;
            this.a = a;
            this.b = b;
            this.expected = expected;
            this.nanMatchesNaN = arithmetic && type.isFloatingPoint();
        }

        /** @return how many results differ; the first {@value #REPORTED} are described in mismatches. */
        int compare(final ByteBuffer actual, final List<String> mismatches)
        {
            int differ = 0;
            for (int i = 0; i < expected.length; i++)
            {
                final long got = get(actual, outSize, i);
                final boolean same = got == expected[i] ||
                    (nanMatchesNaN && isNaN(type, expected[i]) && isNaN(type, got));
                if (!same)
                {
                    differ++;
                    if (mismatches.size() < REPORTED)
                    {
                        mismatches.add(type + " " + what + ": a=" + hex(a[i]) + (b == null ? "" : " b=" + hex(b[i])) +
                            " Java " + hex(expected[i]) + " C++ " + hex(got));
                    }
                }
            }
            return differ;
        }
    }

    // ---- values ----

    /** Two equally long arrays of operand bits: edge x edge, then random pairs (all FP8 pairs for FP8 types). */
    private static long[][] pairs(final DataType type, final Random random)
    {
        final long[] edges = edges(type);
        final List<long[]> list = new ArrayList<>();
        if (type.byteSize() == 1 && type.isFloatingPoint())
        {
            for (int x = 0; x < 256; x++)
            {
                for (int y = 0; y < 256; y++)
                {
                    list.add(new long[] { x, y });
                }
            }
        }
        else
        {
            for (final long x : edges)
            {
                for (final long y : edges)
                {
                    list.add(new long[] { x, y });
                }
            }
        }
        final long[] near = values(type, random, RANDOM_PAIRS);
        final long[] far = values(type, random, RANDOM_PAIRS);
        for (int i = 0; i < RANDOM_PAIRS; i++)
        {
            list.add(new long[] { near[i], i % 2 == 0 ? near[(i + 1) % RANDOM_PAIRS] : far[i] });
        }
        // shuffle, so that the first pairs, which PREMULSUM takes, mix edges and random values
        java.util.Collections.shuffle(list, random);
        final long[][] pairs = new long[2][list.size()];
        for (int i = 0; i < list.size(); i++)
        {
            pairs[0][i] = list.get(i)[0];
            pairs[1][i] = list.get(i)[1];
        }
        return pairs;
    }

    /**
     * Edges, then random values: for the floating types half are close to one another in magnitude (so sums keep
     * most bits, round and tie), half random bits.
     */
    private static long[] values(final DataType type, final Random random, final int randomCount)
    {
        final long[] edges = edges(type);
        final long[] values = Arrays.copyOf(edges, edges.length + randomCount);
        final long mask = mask(type);
        for (int i = edges.length; i < values.length; i++)
        {
            final long bits = random.nextLong();
            if (type.isFloatingPoint() && random.nextBoolean())
            {
                values[i] = switch (type)
                {
                    case FLOAT32 -> Float.floatToRawIntBits((random.nextBoolean() ? -1 : 1) *
                        Math.scalb(1 + random.nextFloat(), random.nextInt(8) - 4)) & mask;
                    case FLOAT64 -> Double.doubleToRawLongBits((random.nextBoolean() ? -1 : 1) *
                        Math.scalb(1 + random.nextDouble(), random.nextInt(8) - 4));
                    default -> narrow(type, (random.nextBoolean() ? -1 : 1) *
                        Math.scalb(1 + random.nextFloat(), random.nextInt(6) - 3));
                };
            }
            else
            {
                values[i] = bits & mask;
            }
        }
        return values;
    }

    private static long[] edges(final DataType type)
    {
        final long mask = mask(type);
        return switch (type)
        {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 ->
            {
                final int bits = 8 * type.byteSize();
                final long signBit = 1L << (bits - 1);
                final long[] raw = { 0, 1, 2, 3, 7, 100, -1, -2, -7, -100, signBit, signBit - 1, signBit + 1,
                    0x5555_5555_5555_5555L, 0xAAAA_AAAA_AAAA_AAAAL, 0x7F, 0x80, 0xFF, 0x100 };
                final long[] edges = new long[raw.length];
                for (int i = 0; i < raw.length; i++)
                {
                    edges[i] = raw[i] & mask;
                }
                yield edges;
            }
            case FLOAT32 ->
            {
                final float[] floats = floatEdges();
                final long[] edges = new long[floats.length];
                for (int i = 0; i < floats.length; i++)
                {
                    edges[i] = Float.floatToRawIntBits(floats[i]) & mask;
                }
                yield edges;
            }
            case FLOAT64 ->
            {
                final double[] doubles = { 0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 3.0, 1.0 / 3, 0.1, 1e300, -1e300,
                    Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, 0x1p-1022 - 0x1p-1074, Double.MAX_VALUE,
                    -Double.MAX_VALUE, 1 + 0x1p-52, 0x1p-53, 0x1p53, 0x1p53 + 1, Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY, Double.NaN, -Double.NaN,
                    Double.longBitsToDouble(0x7FF0_0000_0000_0001L), Double.longBitsToDouble(0xFFF8_0000_0000_1234L) };
                final long[] edges = new long[doubles.length];
                for (int i = 0; i < doubles.length; i++)
                {
                    edges[i] = Double.doubleToRawLongBits(doubles[i]);
                }
                yield edges;
            }
            default ->
            {
                final float[] floats = floatEdges();
                final List<Long> list = new ArrayList<>();
                for (final float value : floats)
                {
                    list.add(narrow(type, value));
                }
                // the extremes of the type's own encodings: subnormals, the largest finite, infinities and NaNs
                final long[] codes = type.byteSize() == 1 ?
                    new long[] { 0x01, 0x02, 0x07, 0x08, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F, 0x81, 0xFC, 0xFE, 0xFF } :
                    new long[] { 0x0001, 0x0002, 0x03FF, 0x0400, 0x007F, 0x0080, 0x7BFF, 0x7C00, 0x7C01, 0x7E00,
                        0x7F7F, 0x7F80, 0x7F81, 0x7FC0, 0x7FFF, 0x8001, 0xFBFF, 0xFC00, 0xFF80, 0xFFFF, 0x3C00,
                        0x3C01, 0x3F80, 0x3F81 };
                for (final long code : codes)
                {
                    list.add(code);
                }
                yield list.stream().distinct().mapToLong(Long::longValue).toArray();
            }
        };
    }

    private static float[] floatEdges()
    {
        return new float[] {
            0f, -0f, 1f, -1f, 0.5f, 1.5f, 2.5f, 3f, 1f / 3, 0.1f, 7f, -7f, 448f, 456f, 464f, -464f, 480f, 57344f,
            61440f, 65504f, 65519f, 65520f, -65520f, 1e10f, -1e10f, 1e-10f, Float.MIN_VALUE, -Float.MIN_VALUE,
            Float.MIN_NORMAL, 0x1p-126f - 0x1p-149f, Float.MAX_VALUE, -Float.MAX_VALUE, 1 + 0x1p-23f, 0x1p-24f,
            0x1p24f, 0x1p-14f, 0x1p-24f * 3, 0x1p-25f, 0x1p-9f, 0x1p-10f, 0x1p-16f, 0x1p-17f, 0x1.02p0f, 0x1.01p0f,
            0x1.008p0f, 0x1.1p0f, 0x1.18p0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
            -Float.NaN, Float.intBitsToFloat(0x7F80_0001), Float.intBitsToFloat(0xFFC0_1234) };
    }

    private static double[] scalarsOf(final DataType type)
    {
        // HostReducer refuses a non-finite scalar for an integer type
        return Arrays.stream(SCALARS).filter(s -> type.isFloatingPoint() || Double.isFinite(s)).toArray();
    }

    private static long bitsOfOne(final DataType type)
    {
        return switch (type)
        {
            case FLOAT32 -> Float.floatToRawIntBits(1f);
            case FLOAT64 -> Double.doubleToRawLongBits(1.0);
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 -> narrow(type, 1f);
            default -> 1;
        };
    }

    private static float widen(final DataType type, final int code)
    {
        return switch (type)
        {
            case FLOAT16 -> Float16.toFloat((short)code);
            case BFLOAT16 -> BFloat16.toFloat((short)code);
            case FLOAT8_E4M3 -> Float8E4M3.toFloat((byte)code);
            case FLOAT8_E5M2 -> Float8E5M2.toFloat((byte)code);
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static long narrow(final DataType type, final float value)
    {
        return switch (type)
        {
            case FLOAT16 -> Float16.fromFloat(value) & 0xFFFFL;
            case BFLOAT16 -> BFloat16.fromFloat(value) & 0xFFFFL;
            case FLOAT8_E4M3 -> Float8E4M3.fromFloat(value) & 0xFFL;
            case FLOAT8_E5M2 -> Float8E5M2.fromFloat(value) & 0xFFL;
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static boolean isNaN(final DataType type, final long bits)
    {
        return switch (type)
        {
            case FLOAT32 -> (bits & 0x7FFF_FFFFL) > 0x7F80_0000L;
            case FLOAT64 -> (bits & Long.MAX_VALUE) > 0x7FF0_0000_0000_0000L;
            case FLOAT16 -> (bits & 0x7FFF) > 0x7C00;
            case BFLOAT16 -> (bits & 0x7FFF) > 0x7F80;
            case FLOAT8_E4M3 -> (bits & 0x7F) == 0x7F;
            case FLOAT8_E5M2 -> (bits & 0x7F) > 0x7C;
            default -> false;
        };
    }

    // ---- buffers ----

    private static long mask(final DataType type)
    {
        return type.byteSize() == 8 ? -1L : (1L << (8 * type.byteSize())) - 1;
    }

    private static ByteBuffer direct(final int length)
    {
        return ByteBuffer.allocateDirect(Math.max(length, 1)).order(ByteOrder.nativeOrder()).limit(length);
    }

    private static void put(final ByteBuffer buffer, final int size, final long[] values)
    {
        for (int i = 0; i < values.length; i++)
        {
            switch (size)
            {
                case 1 -> buffer.put(i, (byte)values[i]);
                case 2 -> buffer.putShort(i * 2, (short)values[i]);
                case 4 -> buffer.putInt(i * 4, (int)values[i]);
                default -> buffer.putLong(i * 8, values[i]);
            }
        }
    }

    private static long get(final ByteBuffer buffer, final int size, final int index)
    {
        return switch (size)
        {
            case 1 -> buffer.get(index) & 0xFFL;
            case 2 -> buffer.getShort(index * 2) & 0xFFFFL;
            case 4 -> buffer.getInt(index * 4) & 0xFFFF_FFFFL;
            default -> buffer.getLong(index * 8);
        };
    }

    private static long[] getAll(final ByteBuffer buffer, final int size, final int count)
    {
        final long[] values = new long[count];
        for (int i = 0; i < count; i++)
        {
            values[i] = get(buffer, size, i);
        }
        return values;
    }

    private static String hex(final long bits)
    {
        return "0x" + Long.toHexString(bits);
    }

    private static String read(final Path path)
    {
        try
        {
            return Files.readString(path, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "(cannot read " + path + ": " + ex + ")";
        }
    }
}
