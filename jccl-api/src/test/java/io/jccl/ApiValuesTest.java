package io.jccl;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ApiValuesTest
{
    @Test
    void shouldCarryNcclIdsSizesAndNamesWhenDataType()
    {
        final String[] names = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
            "bfloat16", "f8e4m3", "f8e5m2"};
        final int[] sizes = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
        for (int id = 0; id < names.length; id++)
        {
            final DataType type = DataType.fromId(id);
            assertEquals(id, type.id());
            assertEquals(names[id], type.ncclTestsName());
            assertEquals(sizes[id], type.byteSize());
            assertEquals(type, DataType.fromName(names[id]));
        }
        assertThrows(JcclInvalidArgumentException.class, () -> DataType.fromId(12));
        assertThrows(JcclInvalidArgumentException.class, () -> DataType.fromName("float7"));
    }

    @Test
    void shouldNameOperatorsAsNcclTestsWhenReduceOp()
    {
        assertEquals(ReduceOp.SUM, ReduceOp.fromName("sum"));
        assertEquals("mulsum", ReduceOp.preMulSum(2).ncclTestsName());
        assertEquals(ReduceOp.preMulSum(2), ReduceOp.preMulSum(2));
        assertNotEquals(ReduceOp.preMulSum(2), ReduceOp.preMulSum(3));
        assertEquals(5, ReduceOp.builtIns().length);
        assertThrows(JcclInvalidArgumentException.class, () -> ReduceOp.preMulSum(Double.NaN));
    }

    @Test
    void shouldRoundTripWhenUniqueIdPrinted()
    {
        final UniqueId id = UniqueId.create("127.0.0.1", 29500);
        assertEquals(id, UniqueId.parse(id.toString()));
        final UniqueId v6 = UniqueId.create("::1", 1);
        assertEquals(v6, UniqueId.parse(v6.toString()));
        assertThrows(JcclInvalidArgumentException.class, () -> UniqueId.parse("localhost:0/00"));
        assertThrows(JcclInvalidArgumentException.class, () -> UniqueId.parse("nonsense"));
    }

    @Test
    void shouldNameTheFieldWhenPlanIsOutOfRange()
    {
        final Plan plan = new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 2, 256, 1 << 17);
        assertEquals("ring/simple/p2p/c2/t256/k131072", plan.id());
        assertTrue(assertThrows(JcclInvalidArgumentException.class, () -> plan.withChannels(33)).getMessage()
            .contains("channels"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class, () -> plan.withChunkBytes(0)).getMessage()
            .contains("chunkBytes"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new Plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 1, 100, 1)).getMessage()
            .contains("threads"));
    }

    @Test
    void shouldAddressElementsWhenBufferViewed()
    {
        for (int length = 0; length < 300; length++)
        {
            assertEquals(length, HostBuffer.allocate(length).length());
            assertEquals(length, HostBuffer.allocate(length).byteBuffer().capacity());
        }
        final HostBuffer buffer = HostBuffer.allocate(64);
        final HostBuffer view = (HostBuffer)buffer.view(DataType.FLOAT32, 4, 8);
        assertEquals(16, view.offset());
        assertEquals(32, view.length());
        assertEquals(MemoryKind.HOST, view.memoryKind());
        assertThrows(JcclInvalidArgumentException.class, () -> buffer.view(DataType.FLOAT32, 10, 8));
        assertThrows(JcclInvalidArgumentException.class, () -> buffer.view(DataType.FLOAT32, -1));
        assertThrows(JcclInvalidArgumentException.class, () -> HostBuffer.wrap(ByteBuffer.allocate(8)));
        final DeviceBuffer device = DeviceBuffer.of(0x1000, 64, 0);
        assertEquals(0x1010, ((DeviceBuffer)device.view(DataType.INT64, 2)).address());
        assertEquals(MemoryKind.DEVICE, device.memoryKind());
    }
}
