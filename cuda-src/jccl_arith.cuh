// jccl_arith.cuh: jccl's element arithmetic, bit for bit the host arithmetic of io.jccl.kernels.HostReducer and the
// conversions of Float16, BFloat16, Float8E4M3 and Float8E5M2 (DESIGN.md, "Arithmetic contract").
//
// Plain C++17: nvcc compiles it for the device (JCCL_HD functions are __host__ __device__) and g++ compiles it for
// cuda-src/host-test/arith_check.cpp, which CudaArithmeticParityTest runs against the Java reducers. So no CUDA
// header on the host path, and no library call whose result could differ between host and device: every floating
// operation is one IEEE operation rounded to nearest even, written through jccl_fadd/jccl_fmul (which on the device
// are the intrinsics that the compiler never fuses into an FMA, whatever -fmad says) and every conversion is
// integer bit work or a float addition or multiplication that is exact or rounds as intended.
//
// Semantics, as the Java code has them:
//   - integers wrap (two's complement) in sum, prod and the pre-multiplication; max and min compare signed or
//     unsigned as the type is; divide truncates toward zero, unsigned types divide unsigned;
//   - float computes in float, double in double; the narrow types widen each operand to float and round back to the
//     storage type after every operation (round to nearest even; fp16 and bf16 overflow to infinity, both fp8 types
//     saturate to their largest finite value, infinities included);
//   - max and min are CUDA's fmaxf/fminf on the NaN side (a NaN operand yields the other one) and Java's
//     Math.max/Math.min on the zero side (-0 is below +0), written out so that neither a library nor the PTX max
//     instruction decides;
//   - premulsum multiplies each flagged operand by the scalar converted to the element type (integers: truncated
//     toward zero and wrapped; float: rounded to nearest; the narrow types: rounded once, through float rounded to
//     odd), rounds that product to the element type, then adds.
// A NaN produced by arithmetic has whatever sign and payload the hardware gives (x86 keeps an operand's, the GPU
// gives its canonical one): the contract, as the Java tests have it, is that a NaN matches any NaN there.
#pragma once

#include <cstdint>
#if !defined(__CUDACC__)
#include <cstring>
#endif

// Every function here is JCCL_HD inline (templates and class members are inline already): the header is included by
// several translation units.
#if defined(__CUDACC__)
#define JCCL_HD __host__ __device__
#else
#define JCCL_HD
#endif

// Storage types of the narrow floating types: bits only, no arithmetic of their own.
struct jccl_half
{
    uint16_t bits;
};

struct jccl_bfloat16
{
    uint16_t bits;
};

struct jccl_f8e4m3
{
    uint8_t bits;
};

struct jccl_f8e5m2
{
    uint8_t bits;
};

// Operator ids, from the shared list: JCCL_OP_sum = 0, ..., JCCL_OP_premulsum = 5.
enum jccl_op_id
{
#define JCCL_OP(name, id) JCCL_OP_##name = id,
#include "jccl_types.def"
};

// What HostReducer.of keeps for PREMULSUM's scalar: the double it was given (f) and, for the integer types, that
// double truncated toward zero and wrapped modulo 2^64 (i, HostReducer.truncateAndWrap; jccl_scalar_of computes it).
// Each type converts it to its own multiplier (jccl_multiplier).
struct jccl_scalar
{
    double f;
    int64_t i;
};

// ---- bits ----

JCCL_HD inline uint32_t jccl_float_bits(const float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
}

JCCL_HD inline float jccl_bits_float(const uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

JCCL_HD inline uint64_t jccl_double_bits(const double x)
{
#if defined(__CUDA_ARCH__)
    return static_cast<uint64_t>(__double_as_longlong(x));
#else
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
}

// ---- single IEEE operations, never fused ----

JCCL_HD inline float jccl_fadd(const float x, const float y)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(x, y);
#else
    return x + y;
#endif
}

JCCL_HD inline float jccl_fmul(const float x, const float y)
{
#if defined(__CUDA_ARCH__)
    return __fmul_rn(x, y);
#else
    return x * y;
#endif
}

JCCL_HD inline double jccl_dadd(const double x, const double y)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(x, y);
#else
    return x + y;
#endif
}

JCCL_HD inline double jccl_dmul(const double x, const double y)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(x, y);
#else
    return x * y;
#endif
}

// double to float, to nearest even (a C++ conversion is that on both sides; the device intrinsic says so)
JCCL_HD inline float jccl_double_to_float(const double x)
{
#if defined(__CUDA_ARCH__)
    return __double2float_rn(x);
#else
    return static_cast<float>(x);
#endif
}

JCCL_HD inline bool jccl_sign_bit(const float x)
{
    return (jccl_float_bits(x) >> 31) != 0;
}

JCCL_HD inline bool jccl_sign_bit(const double x)
{
    return (jccl_double_bits(x) >> 63) != 0;
}

// HostReducer.fmax/fmin: a NaN operand yields the other one; otherwise Math.max/Math.min, -0 below +0. Equal
// operands are either the same bits or zeros of different signs, which the sign bit orders.
template<typename F>
JCCL_HD inline F jccl_fmax(const F x, const F y)
{
    if (x != x)
    {
        return y;
    }
    if (y != y)
    {
        return x;
    }
    if (x == y)
    {
        return jccl_sign_bit(x) ? y : x;
    }
    return x > y ? x : y;
}

template<typename F>
JCCL_HD inline F jccl_fmin(const F x, const F y)
{
    if (x != x)
    {
        return y;
    }
    if (y != y)
    {
        return x;
    }
    if (x == y)
    {
        return jccl_sign_bit(x) ? x : y;
    }
    return x < y ? x : y;
}

// ---- conversions of the narrow types (Float16, BFloat16, Float8E4M3, Float8E5M2, FloatRounding) ----

// FloatRounding.roundMagnitude: rounds a float magnitude (sign cleared, not NaN) to a narrower format, to nearest
// even, exponent unbounded above (the caller clamps). Below the target's smallest normal, adding a power of two whose
// ulp is the target's subnormal quantum makes the float adder round there; above, the exponent is rebiased in place
// and just under half an ulp plus the kept lsb is added, a carry out of the mantissa incrementing the exponent.
JCCL_HD inline uint32_t jccl_round_magnitude(const uint32_t magnitude, const int mantissaBits, const int bias)
{
    const int shift = 23 - mantissaBits;
    if (magnitude < static_cast<uint32_t>(128 - bias) << 23)
    {
        const uint32_t magic = static_cast<uint32_t>(128 - bias + shift) << 23;
        return jccl_float_bits(jccl_fadd(jccl_bits_float(magnitude), jccl_bits_float(magic))) - magic;
    }
    return (magnitude - (static_cast<uint32_t>(127 - bias) << 23) + (1u << (shift - 1)) - 1u +
        ((magnitude >> shift) & 1u)) >> shift;
}

// FloatRounding.toFloatRoundToOdd: double to float, an inexact result taking the neighbour whose last bit is 1, so
// that a second rounding to 11 bits or fewer rounds the double once.
JCCL_HD inline float jccl_float_round_to_odd(const double value)
{
    const float nearest = jccl_double_to_float(value);
    const uint32_t bits = jccl_float_bits(nearest);
    if (static_cast<double>(nearest) == value || (bits & 0x7F800000u) == 0x7F800000u || (bits & 1u) != 0)
    {
        return nearest;
    }
    if (static_cast<double>(nearest) < value)
    {
        // Math.nextUp of a finite float
        return nearest == 0.0f ? jccl_bits_float(1u) : jccl_bits_float(nearest > 0.0f ? bits + 1u : bits - 1u);
    }
    // Math.nextDown of a finite float
    return nearest == 0.0f ? jccl_bits_float(0x80000001u) : jccl_bits_float(nearest > 0.0f ? bits - 1u : bits + 1u);
}

// Float16.toFloat: exact; a NaN keeps sign and payload with the quiet bit set. The bits placed in a float read as the
// value times 2^-112 (subnormals included), and scaling by 2^112 is exact.
JCCL_HD inline float jccl_to_float(const jccl_half x)
{
    const uint32_t bits = x.bits;
    const uint32_t signAndMagnitude = (bits & 0x8000u) << 16 | (bits & 0x7FFFu) << 13;
    if ((bits & 0x7C00u) == 0x7C00u)
    {
        return jccl_bits_float(signAndMagnitude | 0x7F800000u | ((bits & 0x3FFu) == 0 ? 0u : 0x400000u));
    }
    return jccl_fmul(jccl_bits_float(signAndMagnitude), 0x1p112f);
}

// Float16.fromFloat: to nearest even, overflow to infinity, NaN to the canonical NaN with the sign kept.
JCCL_HD inline jccl_half jccl_to_half(const float value)
{
    const uint32_t bits = jccl_float_bits(value);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
    {
        return jccl_half{ static_cast<uint16_t>(sign | 0x7E00u) };
    }
    const uint32_t rounded = jccl_round_magnitude(magnitude, 10, 15);
    return jccl_half{ static_cast<uint16_t>(sign | (rounded < 0x7C00u ? rounded : 0x7C00u)) };
}

// BFloat16.toFloat: a shift.
JCCL_HD inline float jccl_to_float(const jccl_bfloat16 x)
{
    return jccl_bits_float(static_cast<uint32_t>(x.bits) << 16);
}

// BFloat16.fromFloat: to nearest even (a carry may reach infinity, never the sign), NaN to the canonical NaN with the
// sign kept.
JCCL_HD inline jccl_bfloat16 jccl_to_bfloat16(const float value)
{
    const uint32_t bits = jccl_float_bits(value);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    {
        return jccl_bfloat16{ static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7FC0u) };
    }
    return jccl_bfloat16{ static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16) };
}

// Float8E4M3.toFloat: S.1111.111 is NaN (no infinities); exponent 0 is subnormal (mantissa x 2^-9).
JCCL_HD inline float jccl_to_float(const jccl_f8e4m3 x)
{
    const uint32_t bits = x.bits;
    const uint32_t sign = (bits & 0x80u) << 24;
    const uint32_t exponent = (bits >> 3) & 0xFu;
    const uint32_t mantissa = bits & 0x7u;
    uint32_t magnitude;
    if ((bits & 0x7Fu) == 0x7Fu)
    {
        magnitude = 0x7FC00000u;
    }
    else if (exponent == 0)
    {
        magnitude = jccl_float_bits(jccl_fmul(static_cast<float>(mantissa), 0x1p-9f));
    }
    else
    {
        magnitude = (exponent + 120u) << 23 | mantissa << 20;
    }
    return jccl_bits_float(sign | magnitude);
}

// Float8E4M3.fromFloat: to nearest even, saturating at 448 (infinities too), NaN to S.1111.111.
JCCL_HD inline jccl_f8e4m3 jccl_to_f8e4m3(const float value)
{
    const uint32_t bits = jccl_float_bits(value);
    const uint32_t sign = (bits >> 24) & 0x80u;
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
    {
        return jccl_f8e4m3{ static_cast<uint8_t>(sign | 0x7Fu) };
    }
    const uint32_t rounded = jccl_round_magnitude(magnitude, 3, 7);
    return jccl_f8e4m3{ static_cast<uint8_t>(sign | (rounded < 0x7Eu ? rounded : 0x7Eu)) };
}

// Float8E5M2.toFloat: the upper byte of a binary16.
JCCL_HD inline float jccl_to_float(const jccl_f8e5m2 x)
{
    return jccl_to_float(jccl_half{ static_cast<uint16_t>(x.bits << 8) });
}

// Float8E5M2.fromFloat: to nearest even, saturating at 57344 (infinities too), NaN to the canonical NaN with the sign
// kept.
JCCL_HD inline jccl_f8e5m2 jccl_to_f8e5m2(const float value)
{
    const uint32_t bits = jccl_float_bits(value);
    const uint32_t sign = (bits >> 24) & 0x80u;
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
    {
        return jccl_f8e5m2{ static_cast<uint8_t>(sign | 0x7Fu) };
    }
    const uint32_t rounded = jccl_round_magnitude(magnitude, 2, 15);
    return jccl_f8e5m2{ static_cast<uint8_t>(sign | (rounded < 0x7Bu ? rounded : 0x7Bu)) };
}

// ---- per-type traits ----
//
// kind: JCCL_KIND_INT (wrapping arithmetic in the unsigned type `wrap`, at least 32 bits wide so that no operand is
// promoted to a signed int), JCCL_KIND_FLOAT (float and double: native arithmetic) or JCCL_KIND_NARROW (compute in
// float, narrow() after every operation). multiplier is what premul multiplies by.

enum jccl_kind
{
    JCCL_KIND_INT,
    JCCL_KIND_FLOAT,
    JCCL_KIND_NARROW
};

template<typename T>
struct jccl_traits;

template<typename T, typename W>
struct jccl_int_traits
{
    static constexpr jccl_kind kind = JCCL_KIND_INT;
    using wrap = W;
    using multiplier = T;
};

template<>
struct jccl_traits<int8_t> : jccl_int_traits<int8_t, uint32_t>
{
};

template<>
struct jccl_traits<uint8_t> : jccl_int_traits<uint8_t, uint32_t>
{
};

template<>
struct jccl_traits<int32_t> : jccl_int_traits<int32_t, uint32_t>
{
};

template<>
struct jccl_traits<uint32_t> : jccl_int_traits<uint32_t, uint32_t>
{
};

template<>
struct jccl_traits<int64_t> : jccl_int_traits<int64_t, uint64_t>
{
};

template<>
struct jccl_traits<uint64_t> : jccl_int_traits<uint64_t, uint64_t>
{
};

template<>
struct jccl_traits<float>
{
    static constexpr jccl_kind kind = JCCL_KIND_FLOAT;
    using multiplier = float;
};

template<>
struct jccl_traits<double>
{
    static constexpr jccl_kind kind = JCCL_KIND_FLOAT;
    using multiplier = double;
};

template<>
struct jccl_traits<jccl_half>
{
    static constexpr jccl_kind kind = JCCL_KIND_NARROW;
    using multiplier = float;

    static JCCL_HD jccl_half narrow(const float x)
    {
        return jccl_to_half(x);
    }
};

template<>
struct jccl_traits<jccl_bfloat16>
{
    static constexpr jccl_kind kind = JCCL_KIND_NARROW;
    using multiplier = float;

    static JCCL_HD jccl_bfloat16 narrow(const float x)
    {
        return jccl_to_bfloat16(x);
    }
};

template<>
struct jccl_traits<jccl_f8e4m3>
{
    static constexpr jccl_kind kind = JCCL_KIND_NARROW;
    using multiplier = float;

    static JCCL_HD jccl_f8e4m3 narrow(const float x)
    {
        return jccl_to_f8e4m3(x);
    }
};

template<>
struct jccl_traits<jccl_f8e5m2>
{
    static constexpr jccl_kind kind = JCCL_KIND_NARROW;
    using multiplier = float;

    static JCCL_HD jccl_f8e5m2 narrow(const float x)
    {
        return jccl_to_f8e5m2(x);
    }
};

// ---- the scalar ----

// HostReducer.truncateAndWrap: toward zero, modulo 2^64. A double of 2^63 or more in magnitude is an integer
// m x 2^e with e >= 11, whose low 64 bits are m << e (0 once e >= 64). Not finite: 0 (HostReducer refuses those).
JCCL_HD inline int64_t jccl_truncate_and_wrap(const double value)
{
    const uint64_t bits = jccl_double_bits(value);
    const int exponent = static_cast<int>((bits >> 52) & 0x7FF);
    if (exponent == 0x7FF)
    {
        return 0;
    }
    if (exponent < 1023 + 63)
    {
        return static_cast<int64_t>(value);
    }
    const int shift = exponent - 1075;
    const uint64_t magnitude = shift >= 64 ? 0 : ((bits & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull) << shift;
    return static_cast<int64_t>((bits >> 63) != 0 ? 0 - magnitude : magnitude);
}

// The scalar as HostReducer.of keeps it, from the double given to PREMULSUM.
JCCL_HD inline jccl_scalar jccl_scalar_of(const double value)
{
    return jccl_scalar{ value, jccl_truncate_and_wrap(value) };
}

// The multiplier of type T: the scalar converted as HostReducer.create does, then (narrow types) widened back to
// float, as the reducers keep it.
template<typename T>
JCCL_HD inline typename jccl_traits<T>::multiplier jccl_multiplier(const jccl_scalar s)
{
    if constexpr (jccl_traits<T>::kind == JCCL_KIND_INT)
    {
        return static_cast<T>(static_cast<typename jccl_traits<T>::wrap>(static_cast<uint64_t>(s.i)));
    }
    else if constexpr (jccl_traits<T>::kind == JCCL_KIND_NARROW)
    {
        return jccl_to_float(jccl_traits<T>::narrow(jccl_float_round_to_odd(s.f)));
    }
    else if constexpr (sizeof(T) == 4)
    {
        return jccl_double_to_float(s.f);
    }
    else
    {
        return s.f;
    }
}

// ---- the element operations ----

// jccl_reduce<T, OP>(a, b): OP one of sum, prod, max, min; premulsum reduces as sum (HostReducer.reduce does so when
// neither operand is pre-multiplied: use jccl_premulsum when one is).
template<typename T, int OP>
JCCL_HD inline T jccl_reduce(const T a, const T b)
{
    static_assert(OP == JCCL_OP_sum || OP == JCCL_OP_prod || OP == JCCL_OP_max || OP == JCCL_OP_min ||
        OP == JCCL_OP_premulsum, "jccl_reduce: OP is sum, prod, max, min or premulsum");
    if constexpr (jccl_traits<T>::kind == JCCL_KIND_INT)
    {
        using W = typename jccl_traits<T>::wrap;
        if constexpr (OP == JCCL_OP_prod)
        {
            return static_cast<T>(static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
        }
        else if constexpr (OP == JCCL_OP_max)
        {
            return a > b ? a : b;
        }
        else if constexpr (OP == JCCL_OP_min)
        {
            return a < b ? a : b;
        }
        else
        {
            return static_cast<T>(static_cast<W>(static_cast<W>(a) + static_cast<W>(b)));
        }
    }
    else if constexpr (jccl_traits<T>::kind == JCCL_KIND_NARROW)
    {
        const float x = jccl_to_float(a);
        const float y = jccl_to_float(b);
        if constexpr (OP == JCCL_OP_prod)
        {
            return jccl_traits<T>::narrow(jccl_fmul(x, y));
        }
        else if constexpr (OP == JCCL_OP_max)
        {
            return jccl_traits<T>::narrow(jccl_fmax(x, y));
        }
        else if constexpr (OP == JCCL_OP_min)
        {
            return jccl_traits<T>::narrow(jccl_fmin(x, y));
        }
        else
        {
            return jccl_traits<T>::narrow(jccl_fadd(x, y));
        }
    }
    else if constexpr (sizeof(T) == 4)
    {
        if constexpr (OP == JCCL_OP_prod)
        {
            return jccl_fmul(a, b);
        }
        else if constexpr (OP == JCCL_OP_max)
        {
            return jccl_fmax(a, b);
        }
        else if constexpr (OP == JCCL_OP_min)
        {
            return jccl_fmin(a, b);
        }
        else
        {
            return jccl_fadd(a, b);
        }
    }
    else
    {
        if constexpr (OP == JCCL_OP_prod)
        {
            return jccl_dmul(a, b);
        }
        else if constexpr (OP == JCCL_OP_max)
        {
            return jccl_fmax(a, b);
        }
        else if constexpr (OP == JCCL_OP_min)
        {
            return jccl_fmin(a, b);
        }
        else
        {
            return jccl_dadd(a, b);
        }
    }
}

// x times the multiplier, rounded to T (HostReducer.scale, and copy with premul).
template<typename T>
JCCL_HD inline T jccl_premul_by(const T x, const typename jccl_traits<T>::multiplier m)
{
    if constexpr (jccl_traits<T>::kind == JCCL_KIND_INT)
    {
        return jccl_reduce<T, JCCL_OP_prod>(x, m);
    }
    else if constexpr (jccl_traits<T>::kind == JCCL_KIND_NARROW)
    {
        return jccl_traits<T>::narrow(jccl_fmul(jccl_to_float(x), m));
    }
    else
    {
        return jccl_reduce<T, JCCL_OP_prod>(x, m);
    }
}

template<typename T>
JCCL_HD inline T jccl_premul(const T x, const jccl_scalar s)
{
    return jccl_premul_by<T>(x, jccl_multiplier<T>(s));
}

// HostReducer.reduce for PREMULSUM with the multiplier already converted: the plain sum when neither flag is set;
// else integers and float/double compute a * ma + b * mb with a multiplier of one for an unflagged operand (exact),
// and the narrow types add the pre-multiplied operand, rounded to T and widened, to the other, widened.
template<typename T>
JCCL_HD inline T jccl_premulsum_by(const T a, const bool premulA, const T b, const bool premulB,
    const typename jccl_traits<T>::multiplier m)
{
    using M = typename jccl_traits<T>::multiplier;
    if (!premulA && !premulB)
    {
        return jccl_reduce<T, JCCL_OP_sum>(a, b);
    }
    if constexpr (jccl_traits<T>::kind == JCCL_KIND_NARROW)
    {
        const float x = premulA ? jccl_to_float(jccl_premul_by<T>(a, m)) : jccl_to_float(a);
        const float y = premulB ? jccl_to_float(jccl_premul_by<T>(b, m)) : jccl_to_float(b);
        return jccl_traits<T>::narrow(jccl_fadd(x, y));
    }
    else
    {
        const M one = M(1);
        return jccl_reduce<T, JCCL_OP_sum>(jccl_premul_by<T>(a, premulA ? m : one),
            jccl_premul_by<T>(b, premulB ? m : one));
    }
}

template<typename T>
JCCL_HD inline T jccl_premulsum(const T a, const bool premulA, const T b, const bool premulB, const jccl_scalar s)
{
    return jccl_premulsum_by<T>(a, premulA, b, premulB, jccl_multiplier<T>(s));
}

// HostReducer.divide, for AVG on integers: signed types truncate toward zero (the minimum divided by -1 wraps to
// itself, which C leaves undefined, hence the negation); unsigned types divide unsigned, the divisor read as an
// unsigned 64-bit value. divisor is not 0.
template<typename T>
JCCL_HD inline T jccl_divide(const T x, const int64_t divisor)
{
    static_assert(jccl_traits<T>::kind == JCCL_KIND_INT, "jccl_divide is for integer types");
    if constexpr (static_cast<T>(-1) < static_cast<T>(0))
    {
        if (divisor == -1)
        {
            return static_cast<T>(static_cast<uint64_t>(0) - static_cast<uint64_t>(static_cast<int64_t>(x)));
        }
        return static_cast<T>(static_cast<int64_t>(x) / divisor);
    }
    else
    {
        return static_cast<T>(static_cast<uint64_t>(x) / static_cast<uint64_t>(divisor));
    }
}
