// elementwise.cu: stand-alone element kernels over whole buffers, generated from jccl_types.def, for the CUDA backend's
// local work (a copy, the reduction of two buffers, AVG's pre-multiplication and integer division) and for checking
// the arithmetic on a GPU against the host's. io.jccl.kernels.cuda.KernelNames.elementwise() lists the same names:
//
//   jccl_copy(const void* src, void* dst, uint64_t bytes)
//   jccl_reduce_<type>_<op>(const T* a, const T* b, T* dst, uint64_t n, double scalarF, int64_t scalarI)
//       op premulsum pre-multiplies both operands; the others ignore the scalar
//   jccl_scale_<type>(const T* src, T* dst, uint64_t n, double scalarF, int64_t scalarI)
//   jccl_divide_<type>(T* x, uint64_t n, int64_t divisor)            integer types only, divisor not 0
//
// The scalar is what HostReducer.of keeps: scalarF the double given, scalarI that double truncated toward zero and
// wrapped (jccl_scalar). Every parameter is 8 bytes wide because the Java launcher passes a long[] of arguments.
// Every kernel is a grid-stride loop: any grid and block size covers any n (the launcher picks a few blocks per SM).
#include "jccl_span.cuh"

namespace
{

__device__ __forceinline__ int jccl_grid_tid()
{
    return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
}

__device__ __forceinline__ int jccl_grid_threads()
{
    return static_cast<int>(gridDim.x * blockDim.x);
}

}

extern "C" __global__ void jccl_copy(const void* src, void* dst, const uint64_t bytes)
{
    jccl_copy_span(src, dst, nullptr, bytes, jccl_grid_tid(), jccl_grid_threads());
}

#define JCCL_REDUCE_KERNEL(type, ctype, op)                                                                        \
    extern "C" __global__ void jccl_reduce_##type##_##op(const ctype* a, const ctype* b, ctype* dst,               \
        const uint64_t n, const double scalarF, const int64_t scalarI)                                            \
    {                                                                                                              \
        jccl_reduce_span<ctype, JCCL_OP_##op>(a, true, b, true, dst, nullptr, n,                                   \
            jccl_scalar{ scalarF, scalarI }, jccl_grid_tid(), jccl_grid_threads());                                \
    }

// one reduce kernel per (type, op): the outer list visits the types, each expanding the list of ops
#define JCCL_TYPE(type, ctype, id)                                                                                 \
    JCCL_REDUCE_KERNEL(type, ctype, sum)                                                                           \
    JCCL_REDUCE_KERNEL(type, ctype, prod)                                                                          \
    JCCL_REDUCE_KERNEL(type, ctype, max)                                                                           \
    JCCL_REDUCE_KERNEL(type, ctype, min)                                                                           \
    JCCL_REDUCE_KERNEL(type, ctype, premulsum)                                                                     \
    extern "C" __global__ void jccl_scale_##type(const ctype* src, ctype* dst, const uint64_t n,                  \
        const double scalarF, const int64_t scalarI)                                                              \
    {                                                                                                              \
        jccl_scale_span<ctype>(src, dst, n, jccl_scalar{ scalarF, scalarI }, jccl_grid_tid(), jccl_grid_threads());\
    }
#include "jccl_types.def"

// The ops above are written out because a macro cannot loop over a second X-list inside the first; this check keeps
// them in step with jccl_types.def: every op there must be one of the five, and there must be five.
enum
{
#define JCCL_OP(name, id) jccl_elementwise_check_##name = JCCL_OP_##name,
#include "jccl_types.def"
};
static_assert(jccl_elementwise_check_sum == 0 && jccl_elementwise_check_prod == 1 && jccl_elementwise_check_max == 2 &&
    jccl_elementwise_check_min == 3 && jccl_elementwise_check_premulsum == 5,
    "elementwise.cu writes out the ops of jccl_types.def: update JCCL_TYPE above with the list");
constexpr int jccl_elementwise_op_count = 0
#define JCCL_OP(name, id) + 1
#include "jccl_types.def"
    ;
static_assert(jccl_elementwise_op_count == 5,
    "elementwise.cu writes out the ops of jccl_types.def: update JCCL_TYPE above with the list");

#define JCCL_INT_TYPE(type, ctype, id)                                                                             \
    extern "C" __global__ void jccl_divide_##type(ctype* x, const uint64_t n, const int64_t divisor)             \
    {                                                                                                              \
        jccl_divide_span<ctype>(x, x, n, divisor, jccl_grid_tid(), jccl_grid_threads());                          \
    }
#include "jccl_types.def"
