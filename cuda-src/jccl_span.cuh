// jccl_span.cuh (device only): the element loops every jccl kernel is made of. A span is n elements that a group of
// nthreads threads (a block, or a whole grid) shares; the thread numbered tid takes every nthreads-th piece, so
// neighbouring threads touch neighbouring memory and any group size covers any n.
//
// Memory moves in vectors (16 bytes, uint4, for the types whose element operation is cheap; see jccl_span_policy)
// when all the pointers of a call sit at the same offset from a vector boundary: a few head elements are done one by
// one until they are aligned, then whole vectors, then the tail after the last whole vector. Otherwise element by
// element.
//
// dst may be exactly a, exactly b (or exactly src), or overlap none of them: each element is read by the thread
// that writes it, before it writes it.
#pragma once

#include "jccl_arith.cuh"

// How a type's elements move: VBYTES bytes per vector access, UNROLL vectors in flight per thread. Cheap element
// operations (the integers, float, double, copies) take 16-byte vectors four at a time (two for bytes, whose 16
// elements a vector already spend enough instructions), so that a few threads per SM keep enough loads in flight to
// run at memory bandwidth. The narrow floating types and integer division spend tens
// of instructions per element and are bound by compute, not memory: four elements per access and no unrolling keep
// their code (every element operation is inlined once per element of a vector) a tenth of the size, at no cost.
template<typename T>
struct jccl_span_policy
{
    static constexpr bool CHEAP = jccl_traits<T>::kind != JCCL_KIND_NARROW;
    static constexpr int VBYTES = CHEAP ? 16 : 4 * static_cast<int>(sizeof(T));
    static constexpr int UNROLL = !CHEAP ? 1 : sizeof(T) == 1 ? 2 : 4;
};

template<int VBYTES>
struct jccl_raw;

template<>
struct jccl_raw<1>
{
    using type = uint8_t;
};

template<>
struct jccl_raw<4>
{
    using type = uint32_t;
};

template<>
struct jccl_raw<8>
{
    using type = uint2;
};

template<>
struct jccl_raw<16>
{
    using type = uint4;
};

// VBYTES bytes seen as elements of T.
template<typename T, int VBYTES>
union jccl_vector
{
    static constexpr int COUNT = VBYTES / static_cast<int>(sizeof(T));
    typename jccl_raw<VBYTES>::type raw;
    T e[COUNT];
};

template<int VBYTES>
__device__ __forceinline__ uint32_t jccl_misalignment(const void* p)
{
    return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) & (VBYTES - 1));
}

// Elements before the first one at a VBYTES boundary, when all the pointers share their offset from one; n (every
// element on its own) when they do not.
template<int VBYTES, typename T>
__device__ __forceinline__ uint64_t jccl_head(const uint64_t n, const uint32_t offset, const bool sameOffset)
{
    if (!sameOffset)
    {
        return n;
    }
    const uint64_t toBoundary = offset == 0 ? 0 : (VBYTES - offset) / sizeof(T);
    return toBoundary < n ? toBoundary : n;
}

// dst[i] = f(a[i], b[i]) for i in [0, n), and dst2[i] the same where dst2 is not null: one pass writes both (a
// result a step keeps and sends on is read once, not written and read back).
template<int VBYTES, int UNROLL, typename T, typename F>
__device__ __forceinline__ void jccl_map2_span(const T* a, const T* b, T* dst, T* dst2, const uint64_t n,
    const F f, const int tid, const int nthreads)
{
    using R = typename jccl_raw<VBYTES>::type;
    constexpr int V = jccl_vector<T, VBYTES>::COUNT;
    const uint32_t offset = jccl_misalignment<VBYTES>(a);
    const uint64_t head = jccl_head<VBYTES, T>(n, offset,
        jccl_misalignment<VBYTES>(b) == offset && jccl_misalignment<VBYTES>(dst) == offset &&
        (dst2 == nullptr || jccl_misalignment<VBYTES>(dst2) == offset));
    const uint64_t stride = static_cast<uint64_t>(nthreads);
    for (uint64_t i = tid; i < head; i += stride)
    {
        const T r = f(a[i], b[i]);
        dst[i] = r;
        if (dst2 != nullptr)
        {
            dst2[i] = r;
        }
    }
    if (head == n)
    {
        return;
    }

    const R* va = reinterpret_cast<const R*>(a + head);
    const R* vb = reinterpret_cast<const R*>(b + head);
    R* vd = reinterpret_cast<R*>(dst + head);
    R* vd2 = dst2 == nullptr ? nullptr : reinterpret_cast<R*>(dst2 + head);
    const uint64_t vectors = (n - head) / V;
    uint64_t v = tid;
    if constexpr (UNROLL > 1)
    {
        for (; v + (UNROLL - 1) * stride < vectors; v += UNROLL * stride)
        {
            jccl_vector<T, VBYTES> x[UNROLL];
            jccl_vector<T, VBYTES> y[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
            {
                x[u].raw = va[v + u * stride];
                y[u].raw = vb[v + u * stride];
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
            {
#pragma unroll
                for (int k = 0; k < V; k++)
                {
                    x[u].e[k] = f(x[u].e[k], y[u].e[k]);
                }
                vd[v + u * stride] = x[u].raw;
                if (vd2 != nullptr)
                {
                    vd2[v + u * stride] = x[u].raw;
                }
            }
        }
    }
    for (; v < vectors; v += stride)
    {
        jccl_vector<T, VBYTES> x;
        jccl_vector<T, VBYTES> y;
        x.raw = va[v];
        y.raw = vb[v];
#pragma unroll
        for (int k = 0; k < V; k++)
        {
            x.e[k] = f(x.e[k], y.e[k]);
        }
        vd[v] = x.raw;
        if (vd2 != nullptr)
        {
            vd2[v] = x.raw;
        }
    }
    for (uint64_t i = head + vectors * V + tid; i < n; i += stride)
    {
        const T r = f(a[i], b[i]);
        dst[i] = r;
        if (dst2 != nullptr)
        {
            dst2[i] = r;
        }
    }
}

// dst[i] = f(src[i]) for i in [0, n), and dst2[i] the same where dst2 is not null (src read once for both).
template<int VBYTES, int UNROLL, typename T, typename F>
__device__ __forceinline__ void jccl_map1_span(const T* src, T* dst, T* dst2, const uint64_t n, const F f,
    const int tid, const int nthreads)
{
    using R = typename jccl_raw<VBYTES>::type;
    constexpr int V = jccl_vector<T, VBYTES>::COUNT;
    const uint32_t offset = jccl_misalignment<VBYTES>(src);
    const uint64_t head = jccl_head<VBYTES, T>(n, offset, jccl_misalignment<VBYTES>(dst) == offset &&
        (dst2 == nullptr || jccl_misalignment<VBYTES>(dst2) == offset));
    const uint64_t stride = static_cast<uint64_t>(nthreads);
    for (uint64_t i = tid; i < head; i += stride)
    {
        const T r = f(src[i]);
        dst[i] = r;
        if (dst2 != nullptr)
        {
            dst2[i] = r;
        }
    }
    if (head == n)
    {
        return;
    }

    const R* vs = reinterpret_cast<const R*>(src + head);
    R* vd = reinterpret_cast<R*>(dst + head);
    R* vd2 = dst2 == nullptr ? nullptr : reinterpret_cast<R*>(dst2 + head);
    const uint64_t vectors = (n - head) / V;
    uint64_t v = tid;
    if constexpr (UNROLL > 1)
    {
        for (; v + (UNROLL - 1) * stride < vectors; v += UNROLL * stride)
        {
            jccl_vector<T, VBYTES> x[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
            {
                x[u].raw = vs[v + u * stride];
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
            {
#pragma unroll
                for (int k = 0; k < V; k++)
                {
                    x[u].e[k] = f(x[u].e[k]);
                }
                vd[v + u * stride] = x[u].raw;
                if (vd2 != nullptr)
                {
                    vd2[v + u * stride] = x[u].raw;
                }
            }
        }
    }
    for (; v < vectors; v += stride)
    {
        jccl_vector<T, VBYTES> x;
        x.raw = vs[v];
#pragma unroll
        for (int k = 0; k < V; k++)
        {
            x.e[k] = f(x.e[k]);
        }
        vd[v] = x.raw;
        if (vd2 != nullptr)
        {
            vd2[v] = x.raw;
        }
    }
    for (uint64_t i = head + vectors * V + tid; i < n; i += stride)
    {
        const T r = f(src[i]);
        dst[i] = r;
        if (dst2 != nullptr)
        {
            dst2[i] = r;
        }
    }
}

// HostReducer.reduce: dst[i] = OP(a[i], b[i]). With OP premulsum, a flagged operand is first multiplied by the
// scalar (jccl_premulsum); the other operators ignore the flags and the scalar, as HostReducer.reduce does.
template<typename T, int OP>
__device__ void jccl_reduce_span(const T* a, const bool premulA, const T* b, const bool premulB, T* dst, T* dst2,
    const uint64_t n, const jccl_scalar s, const int tid, const int nthreads)
{
    if constexpr (OP == JCCL_OP_premulsum)
    {
        if (premulA || premulB)
        {
            const typename jccl_traits<T>::multiplier m = jccl_multiplier<T>(s);
            if (premulA && premulB)
            {
                jccl_map2_span<jccl_span_policy<T>::VBYTES, jccl_span_policy<T>::UNROLL>(a, b, dst, dst2, n,
                    [m] (const T x, const T y) { return jccl_premulsum_by<T>(x, true, y, true, m); },
                    tid, nthreads);
            }
            else
            {
                // the sum commutes (HostReducer's narrow reducers rely on it too): the pre-multiplied operand first
                jccl_map2_span<jccl_span_policy<T>::VBYTES, jccl_span_policy<T>::UNROLL>(
                    premulA ? a : b, premulA ? b : a, dst, dst2, n,
                    [m] (const T x, const T y) { return jccl_premulsum_by<T>(x, true, y, false, m); },
                    tid, nthreads);
            }
            return;
        }
    }
    jccl_map2_span<jccl_span_policy<T>::VBYTES, jccl_span_policy<T>::UNROLL>(a, b, dst, dst2, n,
        [] (const T x, const T y) { return jccl_reduce<T, OP>(x, y); }, tid, nthreads);
}

// HostReducer.copy with premul (scale): dst[i] = src[i] times the scalar, rounded to T.
template<typename T>
__device__ void jccl_scale_span(const T* src, T* dst, const uint64_t n, const jccl_scalar s, const int tid,
    const int nthreads)
{
    const typename jccl_traits<T>::multiplier m = jccl_multiplier<T>(s);
    jccl_map1_span<jccl_span_policy<T>::VBYTES, jccl_span_policy<T>::UNROLL>(src, dst, static_cast<T*>(nullptr),
        n, [m] (const T x) { return jccl_premul_by<T>(x, m); }, tid, nthreads);
}

// HostReducer.divide, in place or not: dst[i] = src[i] / divisor (integer types; divisor not 0).
template<typename T>
__device__ void jccl_divide_span(const T* src, T* dst, const uint64_t n, const int64_t divisor, const int tid,
    const int nthreads)
{
    // a 64-bit division is a few dozen instructions: bound by compute, so four elements per access, not unrolled
    jccl_map1_span<4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16, 1>(src, dst, static_cast<T*>(nullptr), n,
        [divisor] (const T x) { return jccl_divide<T>(x, divisor); }, tid, nthreads);
}

// memcpy to dst, and to dst2 too where it is not null (src read once), in the widest vectors all the pointers can
// share: 16 bytes when they sit at the same offset from a 16-byte boundary, else 8 or 4 bytes when they agree
// modulo that (a region that starts 8 bytes off a boundary, as pieces of odd float counts do, moves 8 bytes at a
// time, not byte by byte), else bytes.
__device__ inline void jccl_copy_span(const void* src, void* dst, void* dst2, const uint64_t bytes, const int tid,
    const int nthreads)
{
    const uint8_t* s = static_cast<const uint8_t*>(src);
    uint8_t* d = static_cast<uint8_t*>(dst);
    uint8_t* d2 = static_cast<uint8_t*>(dst2);
    const uintptr_t differ = (reinterpret_cast<uintptr_t>(s) ^ reinterpret_cast<uintptr_t>(d)) |
        (d2 == nullptr ? 0 : reinterpret_cast<uintptr_t>(s) ^ reinterpret_cast<uintptr_t>(d2));
    const auto same = [] (const uint8_t x) { return x; };
    if ((differ & 15) == 0)
    {
        jccl_map1_span<16, 4>(s, d, d2, bytes, same, tid, nthreads);
    }
    else if ((differ & 7) == 0)
    {
        jccl_map1_span<8, 4>(s, d, d2, bytes, same, tid, nthreads);
    }
    else if ((differ & 3) == 0)
    {
        jccl_map1_span<4, 4>(s, d, d2, bytes, same, tid, nthreads);
    }
    else
    {
        jccl_map1_span<1, 4>(s, d, d2, bytes, same, tid, nthreads);
    }
}
