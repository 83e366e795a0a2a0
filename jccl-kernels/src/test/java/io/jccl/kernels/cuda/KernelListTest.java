package io.jccl.kernels.cuda;

import io.jccl.DataType;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each shipped PTX defines exactly the kernels {@link KernelNames} names for it, both generated from
 * {@code jccl_types.def}; and the names follow the list.
 */
class KernelListTest
{
    static Stream<String> shippedPtx()
    {
        return new PtxResources().shipped().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shippedPtx")
    void shouldDefineExactlyTheNamedKernelsWhenShipped(final String base)
    {
        final Set<String> defined = PtxResources.entries(new PtxResources().load(base));
        final Set<String> expected = KernelNames.forPtx(base);
        final Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(defined);
        final Set<String> extra = new TreeSet<>(defined);
        extra.removeAll(expected);
        assertTrue(missing.isEmpty() && extra.isEmpty(), base + ".ptx defines " + defined.size() + " kernels, " +
            "KernelNames expects " + expected.size() + "; missing " + missing + ", extra " + extra);
    }

    @Test
    void shouldNameEveryElementwiseKernelWhenListed()
    {
        // copy, 12 types x 5 operators, 12 scales, 6 integer divides
        assertEquals(1 + 12 * 5 + 12 + 6, KernelNames.elementwise().size());
        assertTrue(KernelNames.elementwise().contains("jccl_reduce_float32_sum"));
        assertTrue(KernelNames.elementwise().contains("jccl_reduce_f8e4m3_premulsum"));
        assertTrue(KernelNames.elementwise().contains("jccl_scale_bfloat16"));
        assertTrue(KernelNames.elementwise().contains("jccl_divide_uint64"));
        assertEquals(KernelNames.elementwise(), KernelNames.forPtx("elementwise"));
    }

    @Test
    void shouldNameEveryInterpreterKernelWhenListed()
    {
        // simple and ll, each with 12 types x 5 operators and a copy
        assertEquals(2 * (12 * 5 + 1), KernelNames.interpreter().size());
        assertTrue(KernelNames.interpreter().contains("jccl_interp_ll_copy"));
        assertTrue(KernelNames.interpreter().contains("jccl_interp_simple_float16_max"));
        assertEquals(KernelNames.interpreter(), KernelNames.forPtx("interpreter"));
    }

    @Test
    void shouldMapAvgToPremulsumOrSumWhenNaming()
    {
        assertEquals("jccl_reduce_float32_premulsum", KernelNames.reduce(DataType.FLOAT32, ReduceOp.Kind.AVG));
        assertEquals("jccl_reduce_int32_sum", KernelNames.reduce(DataType.INT32, ReduceOp.Kind.AVG));
        assertEquals("jccl_reduce_uint8_min", KernelNames.reduce(DataType.UINT8, ReduceOp.Kind.MIN));
        assertEquals("jccl_interp_simple_bfloat16_premulsum",
            KernelNames.interpreter(Protocol.SIMPLE, DataType.BFLOAT16, ReduceOp.Kind.AVG));
        assertEquals("jccl_interp_ll_uint64_sum",
            KernelNames.interpreter(Protocol.LL, DataType.UINT64, ReduceOp.Kind.AVG));
        assertEquals("jccl_interp_simple_copy", KernelNames.interpreterCopy(Protocol.SIMPLE));
        assertEquals("jccl_scale_f8e5m2", KernelNames.scale(DataType.FLOAT8_E5M2));
        assertEquals("jccl_divide_int8", KernelNames.divide(DataType.INT8));
        assertEquals("jccl_copy", KernelNames.copy());
    }

    @Test
    void shouldRefuseWhenNoKernelExists()
    {
        assertThrows(IllegalArgumentException.class, () -> KernelNames.divide(DataType.FLOAT16));
        assertThrows(IllegalArgumentException.class, () -> KernelNames.forPtx("nccl"));
        assertThrows(IllegalArgumentException.class, () -> KernelNames.interpreterCopy(Protocol.LL128));
        assertThrows(IllegalArgumentException.class,
            () -> KernelNames.interpreter(Protocol.LL128, DataType.FLOAT32, ReduceOp.Kind.SUM));
    }

    @Test
    void shouldReadHeaderVersionAndEntriesWhenGivenPtx()
    {
        final String hash = "0123456789abcdef".repeat(4);
        final String ptx = PtxResources.SOURCE_HASH_PREFIX + hash + "\n//\n.version 7.8\n.target sm_75\n" +
            ".visible .entry jccl_a(\n\t.param .u64 p\n)\n{\n\tret;\n}\n.entry jccl_b()\n{\n\tret;\n}\n" +
            ".visible .func helper()\n{\n\tret;\n}\n";
        assertEquals(hash, PtxResources.sourceHash(ptx));
        assertEquals("7.8", PtxResources.version(ptx));
        assertEquals(Set.of("jccl_a", "jccl_b"), PtxResources.entries(ptx));
        assertThrows(IllegalArgumentException.class, () -> PtxResources.sourceHash(".version 7.8\n"));
        assertThrows(IllegalArgumentException.class, () -> new PtxResources().load("no_such_ptx"));
        assertThrows(IllegalArgumentException.class, () -> new PtxResources().load("../x"));
    }
}
