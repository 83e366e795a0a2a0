package io.jccl;

/**
 * Element types, with the ids of NCCL's {@code ncclDataType_t}, their size in bytes and the names nccl-tests
 * prints ({@code -d} flag). FLOAT16, BFLOAT16 and the FP8 types compute in float and round back to the storage
 * type after every step (DESIGN.md, arithmetic contract); FP8 conversions saturate as CUDA's
 * {@code __NV_SATFINITE} conversions do.
 */
public enum DataType
{
    /** Signed 8-bit integer ({@code ncclInt8}). */
    INT8(0, 1, "int8", false, true),
    /** Unsigned 8-bit integer ({@code ncclUint8}). */
    UINT8(1, 1, "uint8", false, false),
    /** Signed 32-bit integer ({@code ncclInt32}). */
    INT32(2, 4, "int32", false, true),
    /** Unsigned 32-bit integer ({@code ncclUint32}). */
    UINT32(3, 4, "uint32", false, false),
    /** Signed 64-bit integer ({@code ncclInt64}). */
    INT64(4, 8, "int64", false, true),
    /** Unsigned 64-bit integer ({@code ncclUint64}). */
    UINT64(5, 8, "uint64", false, false),
    /** IEEE 754 binary16 ({@code ncclFloat16}). */
    FLOAT16(6, 2, "half", true, true),
    /** IEEE 754 binary32 ({@code ncclFloat32}). */
    FLOAT32(7, 4, "float", true, true),
    /** IEEE 754 binary64 ({@code ncclFloat64}). */
    FLOAT64(8, 8, "double", true, true),
    /** bfloat16 ({@code ncclBfloat16}). */
    BFLOAT16(9, 2, "bfloat16", true, true),
    /** FP8 E4M3 ({@code ncclFloat8e4m3}): no infinities, largest finite 448. */
    FLOAT8_E4M3(10, 1, "f8e4m3", true, true),
    /** FP8 E5M2 ({@code ncclFloat8e5m2}): largest finite 57344. */
    FLOAT8_E5M2(11, 1, "f8e5m2", true, true);

    private static final DataType[] BY_ID = values();

    private final int id;
    private final int byteSize;
    private final String ncclTestsName;
    private final boolean floating;
    private final boolean signed;

    DataType(final int id, final int byteSize, final String ncclTestsName, final boolean floating,
        final boolean signed)
    {
        this.id = id;
        this.byteSize = byteSize;
        this.ncclTestsName = ncclTestsName;
        this.floating = floating;
        this.signed = signed;
    }

    /** @return the stable id, equal to NCCL's {@code ncclDataType_t} value. */
    public int id()
    {
        return id;
    }

    /** @return bytes per element. */
    public int byteSize()
    {
        return byteSize;
    }

    /** @return the stable lower-case name nccl-tests uses ({@code float}, {@code half}, {@code f8e4m3}, ...). */
    public String ncclTestsName()
    {
        return ncclTestsName;
    }

    /** @return true for the floating-point types (which compute AVG as PreMulSum(1/n)). */
    public boolean isFloatingPoint()
    {
        return floating;
    }

    /** @return true when the type is signed (integers compare and divide as signed). */
    public boolean isSigned()
    {
        return signed;
    }

    /**
     * @param id an {@code ncclDataType_t} value.
     * @return the type with that id.
     * @throws JcclInvalidArgumentException if no type has that id.
     */
    public static DataType fromId(final int id)
    {
        if (id < 0 || id >= BY_ID.length)
        {
            throw new JcclInvalidArgumentException("dataType id " + id + " is not an ncclDataType_t (0.." +
                (BY_ID.length - 1) + ")");
        }
        return BY_ID[id];
    }

    /**
     * @param name a name as nccl-tests prints it, or the enum constant's name, in any case.
     * @return the type of that name.
     * @throws JcclInvalidArgumentException if no type has that name.
     */
    public static DataType fromName(final String name)
    {
        for (final DataType type : BY_ID)
        {
            if (type.ncclTestsName.equalsIgnoreCase(name) || type.name().equalsIgnoreCase(name))
            {
                return type;
            }
        }
        throw new JcclInvalidArgumentException("dataType '" + name + "' is not one of " +
            java.util.Arrays.stream(BY_ID).map(DataType::ncclTestsName).toList());
    }
}
