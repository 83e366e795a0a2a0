// arith_check: runs jccl_arith.cuh on the host, compiled by g++, so that CudaArithmeticParityTest can compare it bit
// for bit with io.jccl.kernels.HostReducer on machines without a GPU.
//
//   arith_check <input> <output>
//
// The input is a sequence of cases, each a 40-byte header followed by its operands, all in the machine's byte order
// (the test writes them on the same machine):
//
//   int32 type id (DataType.id())   int32 opcode   int32 flags   int32 zero
//   float64 scalar                  int64 divisor  int64 count
//
//   opcode 0, 1, 2, 3  jccl_reduce sum, prod, max, min       operands a[count], b[count]   result T[count]
//   opcode 5           jccl_premulsum, flags bit 0 = premulA, bit 1 = premulB, scalar jccl_scalar_of(scalar)
//                                                            operands a[count], b[count]   result T[count]
//   opcode 16          jccl_premul (HostReducer.copy with premul), jccl_scalar_of(scalar)
//                                                            operand x[count]              result T[count]
//   opcode 17          jccl_divide by divisor (integer types)  operand x[count]            result T[count]
//   opcode 32          widen to float (narrow types)         operand x[count]              result float[count]
//   opcode 33          narrow from float (narrow types)      operand float[count]          result T[count]
//
// The output is every case's result, in order, with nothing between them. Exit status 0 on success, 2 on a malformed
// input (with a message on stderr).
#include "../jccl_arith.cuh"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace
{

const uint8_t* cursor;
const uint8_t* inputEnd;
std::vector<uint8_t> output;

[[noreturn]] void fail(const char* message)
{
    std::fprintf(stderr, "arith_check: %s\n", message);
    std::exit(2);
}

const uint8_t* take(const uint64_t bytes)
{
    if (static_cast<uint64_t>(inputEnd - cursor) < bytes)
    {
        fail("input ends inside a case");
    }
    const uint8_t* start = cursor;
    cursor += bytes;
    return start;
}

template<typename V>
V read(const uint8_t* at, const uint64_t index)
{
    V value;
    std::memcpy(&value, at + index * sizeof(V), sizeof(V));
    return value;
}

template<typename V>
void write(const V value)
{
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&value);
    output.insert(output.end(), bytes, bytes + sizeof(V));
}

template<typename T, int OP>
void reduce(const uint8_t* a, const uint8_t* b, const uint64_t count)
{
    for (uint64_t i = 0; i < count; i++)
    {
        write(jccl_reduce<T, OP>(read<T>(a, i), read<T>(b, i)));
    }
}

template<typename T>
void run(const int opcode, const int flags, const double scalar, const int64_t divisor, const uint64_t count)
{
    const jccl_scalar s = jccl_scalar_of(scalar);
    switch (opcode)
    {
        case JCCL_OP_sum:
        case JCCL_OP_prod:
        case JCCL_OP_max:
        case JCCL_OP_min:
        case JCCL_OP_premulsum:
        {
            const uint8_t* a = take(count * sizeof(T));
            const uint8_t* b = take(count * sizeof(T));
            switch (opcode)
            {
                case JCCL_OP_sum:
                    reduce<T, JCCL_OP_sum>(a, b, count);
                    break;
                case JCCL_OP_prod:
                    reduce<T, JCCL_OP_prod>(a, b, count);
                    break;
                case JCCL_OP_max:
                    reduce<T, JCCL_OP_max>(a, b, count);
                    break;
                case JCCL_OP_min:
                    reduce<T, JCCL_OP_min>(a, b, count);
                    break;
                default:
                    for (uint64_t i = 0; i < count; i++)
                    {
                        write(jccl_premulsum<T>(read<T>(a, i), (flags & 1) != 0, read<T>(b, i), (flags & 2) != 0, s));
                    }
                    break;
            }
            break;
        }
        case 16:
        {
            const uint8_t* x = take(count * sizeof(T));
            for (uint64_t i = 0; i < count; i++)
            {
                write(jccl_premul<T>(read<T>(x, i), s));
            }
            break;
        }
        case 17:
        {
            if constexpr (jccl_traits<T>::kind == JCCL_KIND_INT)
            {
                const uint8_t* x = take(count * sizeof(T));
                for (uint64_t i = 0; i < count; i++)
                {
                    write(jccl_divide<T>(read<T>(x, i), divisor));
                }
            }
            else
            {
                fail("divide of a floating type");
            }
            break;
        }
        case 32:
        case 33:
        {
            if constexpr (jccl_traits<T>::kind == JCCL_KIND_NARROW)
            {
                if (opcode == 32)
                {
                    const uint8_t* x = take(count * sizeof(T));
                    for (uint64_t i = 0; i < count; i++)
                    {
                        write(jccl_to_float(read<T>(x, i)));
                    }
                }
                else
                {
                    const uint8_t* x = take(count * sizeof(float));
                    for (uint64_t i = 0; i < count; i++)
                    {
                        write(jccl_traits<T>::narrow(read<float>(x, i)));
                    }
                }
            }
            else
            {
                fail("widen or narrow of a type that is not narrow");
            }
            break;
        }
        default:
            fail("unknown opcode");
    }
}

}

int main(const int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: arith_check <input> <output>\n");
        return 2;
    }
    std::FILE* in = std::fopen(argv[1], "rb");
    if (in == nullptr)
    {
        fail("cannot open the input");
    }
    std::vector<uint8_t> input;
    uint8_t buffer[1 << 16];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, in)) > 0)
    {
        input.insert(input.end(), buffer, buffer + got);
    }
    std::fclose(in);

    cursor = input.data();
    inputEnd = input.data() + input.size();
    while (cursor < inputEnd)
    {
        const uint8_t* header = take(40);
        const int32_t typeId = read<int32_t>(header, 0);
        const int32_t opcode = read<int32_t>(header, 1);
        const int32_t flags = read<int32_t>(header, 2);
        const double scalar = read<double>(header + 16, 0);
        const int64_t divisor = read<int64_t>(header + 24, 0);
        const int64_t count = read<int64_t>(header + 32, 0);
        if (count < 0)
        {
            fail("negative count");
        }
        switch (typeId)
        {
#define JCCL_TYPE(name, ctype, id)                                                \
            case id:                                                              \
                run<ctype>(opcode, flags, scalar, divisor, static_cast<uint64_t>(count)); \
                break;
#include "../jccl_types.def"
            default:
                fail("unknown type id");
        }
    }

    std::FILE* out = std::fopen(argv[2], "wb");
    if (out == nullptr || std::fwrite(output.data(), 1, output.size(), out) != output.size() || std::fclose(out) != 0)
    {
        fail("cannot write the output");
    }
    return 0;
}
