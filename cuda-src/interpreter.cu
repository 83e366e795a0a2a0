// jccl's interpreter kernel: one persistent launch per call runs every worker of its ranks (one block per worker, NT
// threads per block) over the Program's flat step records, as the Java executor (RankExecution) does on the host.
// Peers synchronise through FIFOs in the receiver's device memory: a tail counter the sender advances, a head
// counter the receiver advances, and per-slot headers; LL carries a flag in every 8-byte word instead of relying on
// the tail. Workers of one rank order themselves through progress counters (a step's dependency). Every wait polls
// the abort flag, which the host sets on a timeout or an abort.
//
// The memory layout below is io.jccl.kernels.cuda.DeviceLayout's; io.jccl.kernels.cuda.EmulatedInterpreter runs the
// same records over the same layout in Java, so everything above the launch is tested on machines without a GPU.
//
// Kernels (extern "C", generated from jccl_types.def): jccl_interp_<proto>_<type>_<op> for reducing collectives and
// jccl_interp_<proto>_copy for those that only move data. One parameter, by value: the launch set, the launch
// records of the ranks this launch runs (a rank's blocks follow the ones of the rank before it). The local ranks of a
// communicator that share a device run in one cooperative launch, so that no rank's blocks wait on a kernel the
// device has not started (streams beyond CUDA_DEVICE_MAX_CONNECTIONS, CUDA_LAUNCH_BLOCKING, a profiler).
//
// The same source runs on the CPU (g++ -DJCCL_HOST_BUILD, host-test/jccl_host.h and host-test/interp_host.cpp), so
// that tests without a GPU run this kernel, not a model of it: the few lines that differ sit behind JCCL_SHARED,
// JCCL_SPIN_PAUSE and the JCCL_HOST_BUILD branches of the memory accesses below.

#if defined(JCCL_HOST_BUILD)
#include "host-test/jccl_host.h"
#else
#define JCCL_SHARED(T, name) __shared__ T name
#define JCCL_SPIN_PAUSE()
#endif

#if !defined(JCCL_GLOBALTIMER)
// the device's nanosecond clock, for the blocks' entry and exit stamps
__device__ __forceinline__ unsigned long long jcclGlobalTimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define JCCL_GLOBALTIMER() jcclGlobalTimer()
#endif

#include <stddef.h>
#include <stdint.h>
#include "jccl_arith.cuh"
#include "jccl_span.cuh"
#include "jccl_wire.h"

namespace
{
// --- layout: the wire contract, cuda-src/jccl_wire.def (jccl_wire.h here, DeviceWire.java on the Java side) ---------
constexpr int SLOTS = (int)jccl_wire::SLOTS;
constexpr int RECORD_WIDTH = jccl_wire::STEP_WIDTH;               // ints per step record
constexpr int OPS_NONE = -1;                                      // the copy kernels: no arithmetic
constexpr uint64_t REGION_ALIGN = jccl_wire::REGION_ALIGN;       // each chunk of a slot starts aligned

struct Launch                          // 128 bytes, at the launch address; blocks follow
{
    uint64_t blocks;
    uint64_t elemSize;
    uint64_t pieceCount;               // elements per piece
    uint64_t iterations;
    double scalarF;
    int64_t scalarI;
    uint64_t abortAddr;                // uint32 in memory the host writes (pinned, mapped)
    uint64_t tag;                      // the call's tag: written into SIMPLE slot headers, checked by receivers
    uint64_t errorAddr;                // uint64 the kernel writes on a mismatch (pinned, mapped)
    uint64_t payloadBytes;             // payload capacity of one slot for the protocol
    uint64_t reserved[6];
};

struct Block                           // 128 bytes per worker
{
    uint64_t steps;                    // int32 records
    uint64_t stepCount;
    uint64_t flags;                    // uint8 per step: bit 0 premultiply the source, bit 1 the destination
    uint64_t sendFifo;                 // 0 when the worker sends nothing
    uint64_t recvFifo;                 // 0 when the worker receives nothing
    uint64_t progress;                 // uint64 per worker of the rank, zeroed before the launch
    uint64_t workerIndex;
    uint64_t rankTable;
    uint64_t clock;                    // uint64 {entry, exit} of this block, zeroed before the launch
    uint64_t reserved[7];
};

struct LaunchSet                       // the kernels' parameter: which rank's launch record each block runs
{
    uint64_t count;                    // ranks, 1..LAUNCH_SET_RANKS
    uint64_t firstBlock[jccl_wire::LAUNCH_SET_RANKS];
    uint64_t launch[jccl_wire::LAUNCH_SET_RANKS];  // device addresses of the ranks' launch records
};

struct RankTable                       // buffers and chunk tables (elements), per buffer kind input/output/scratch
{
    uint64_t base[3];
    uint64_t start[3];                 // int64 per chunk
    uint64_t length[3];                // int64 per chunk
};

// the structs are the contract's records, field for field
static_assert(sizeof(Launch) == jccl_wire::RECORD_BYTES && sizeof(Block) == jccl_wire::RECORD_BYTES, "record size");
static_assert(sizeof(RankTable) == jccl_wire::RANK_TABLE_BYTES, "rank table size");
static_assert(offsetof(Launch, blocks) == jccl_wire::L_BLOCKS && offsetof(Launch, elemSize) == jccl_wire::L_ELEM_SIZE &&
    offsetof(Launch, pieceCount) == jccl_wire::L_PIECE_COUNT &&
    offsetof(Launch, iterations) == jccl_wire::L_ITERATIONS && offsetof(Launch, scalarF) == jccl_wire::L_SCALAR_F &&
    offsetof(Launch, scalarI) == jccl_wire::L_SCALAR_I && offsetof(Launch, abortAddr) == jccl_wire::L_ABORT_ADDR &&
    offsetof(Launch, tag) == jccl_wire::L_TAG && offsetof(Launch, errorAddr) == jccl_wire::L_ERROR_ADDR &&
    offsetof(Launch, payloadBytes) == jccl_wire::L_PAYLOAD_BYTES, "launch record layout");
static_assert(offsetof(Block, steps) == jccl_wire::B_STEPS && offsetof(Block, stepCount) == jccl_wire::B_STEP_COUNT &&
    offsetof(Block, flags) == jccl_wire::B_FLAGS && offsetof(Block, sendFifo) == jccl_wire::B_SEND_FIFO &&
    offsetof(Block, recvFifo) == jccl_wire::B_RECV_FIFO && offsetof(Block, progress) == jccl_wire::B_PROGRESS &&
    offsetof(Block, workerIndex) == jccl_wire::B_WORKER_INDEX &&
    offsetof(Block, rankTable) == jccl_wire::B_RANK_TABLE && offsetof(Block, clock) == jccl_wire::B_CLOCK,
    "block record layout");
static_assert(sizeof(LaunchSet) == jccl_wire::LAUNCH_SET_BYTES && offsetof(LaunchSet, count) ==
    jccl_wire::LAUNCH_SET_COUNT && offsetof(LaunchSet, firstBlock) == jccl_wire::LAUNCH_SET_FIRST_BLOCK &&
    offsetof(LaunchSet, launch) == jccl_wire::LAUNCH_SET_LAUNCH, "launch set layout");

// FIFO: tail counter, head counter, slot headers {bytes, tag}, data (wire slot bytes each)
constexpr uint64_t FIFO_TAIL = jccl_wire::FIFO_TAIL;
constexpr uint64_t FIFO_HEAD = jccl_wire::FIFO_HEAD;
constexpr uint64_t FIFO_HEADERS = jccl_wire::FIFO_HEADERS;
constexpr uint64_t FIFO_DATA = jccl_wire::FIFO_DATA;

// opcodes: their ids in step records
enum : int { NOP = jccl_wire::OP_NOP, SEND = jccl_wire::OP_SEND, RECV = jccl_wire::OP_RECV,
    RECV_COPY_SEND = jccl_wire::OP_RECV_COPY_SEND, RECV_REDUCE_SEND = jccl_wire::OP_RECV_REDUCE_SEND,
    RECV_REDUCE_COPY = jccl_wire::OP_RECV_REDUCE_COPY, RECV_REDUCE_COPY_SEND = jccl_wire::OP_RECV_REDUCE_COPY_SEND,
    COPY = jccl_wire::OP_COPY, REDUCE = jccl_wire::OP_REDUCE,
    RECV_REDUCE_COPY_REVERSED = jccl_wire::OP_RECV_REDUCE_COPY_REVERSED };

// The most threads a block of an interpreter kernel has: the launch bound, which keeps ptxas to 128 registers a
// thread so that a full block fits the 64 Ki registers of an SM (without it the SIMPLE kernels took up to 127 on
// sm_90 and launched with 512 threads only by luck, never with more); the launcher reads it back from the function
// and clamps the thread count to it.
#define JCCL_INTERP_MAX_THREADS 512

constexpr int PROTO_SIMPLE = 0;
constexpr int PROTO_LL = 1;

// error codes written at errorAddr
constexpr uint64_t ERROR_TAG = jccl_wire::ERROR_TAG;
constexpr uint64_t ERROR_LENGTH = jccl_wire::ERROR_LENGTH;

// counters and flags other threads, blocks, kernels and the host read: volatile on the device, atomics on the host
__device__ __forceinline__ uint64_t loadVolatile(const uint64_t* p)
{
#if defined(JCCL_HOST_BUILD)
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#else
    return *(const volatile uint64_t*)p;
#endif
}

__device__ __forceinline__ void storeVolatile(uint64_t* p, uint64_t v)
{
#if defined(JCCL_HOST_BUILD)
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#else
    *(volatile uint64_t*)p = v;
#endif
}

__device__ __forceinline__ bool aborted(const Launch* L)
{
#if defined(JCCL_HOST_BUILD)
    return __atomic_load_n((const uint32_t*)L->abortAddr, __ATOMIC_ACQUIRE) != 0;
#else
    return *(const volatile uint32_t*)L->abortAddr != 0;
#endif
}

// Whether a published slot's header names another call or plan (read after the sender's tail passed the slot): an
// error, never garbage, so the error word says so and the whole launch stops.
__device__ __forceinline__ bool foreignSlot(const Launch* L, const char* fifo, uint64_t head)
{
    __threadfence_system();
    if (loadVolatile((const uint64_t*)(fifo + FIFO_HEADERS + (head % SLOTS) * 16) + 1) == L->tag)
    {
        return false;
    }
    *(volatile uint64_t*)L->errorAddr = ERROR_TAG;
    *(volatile uint32_t*)L->abortAddr = 1;
    return true;
}

// LL: whether the slot a receiver waits for came from another call, its sender having published it whole
__device__ __forceinline__ bool otherCall(const Launch* L, const char* fifo, uint64_t head)
{
    return loadVolatile((const uint64_t*)(fifo + FIFO_TAIL)) > head && foreignSlot(L, fifo, head);
}

// Thread 0 of a receiving worker: waits until the sender has published slot `head` whole (its tail passed it), then
// checks the slot header's call tag. Returns with `stop` set when it was aborted or the slot is another call's.
__device__ __forceinline__ void awaitPublished(const Launch* L, const char* fifo, uint64_t head, int& stop)
{
    int spins = 0;
    while (loadVolatile((const uint64_t*)(fifo + FIFO_TAIL)) <= head && !stop)
    {
        if (++spins == 1024)
        {
            spins = 0;
            stop = aborted(L);
            JCCL_SPIN_PAUSE();
        }
    }
    if (!stop && foreignSlot(L, fifo, head))
    {
        stop = 1;
    }
}

// one LL word: 4 data bytes and their flag, written and read as one 8-byte access, so a flag is never seen without
// its data
__device__ __forceinline__ void storeLlWord(uint32_t* w, uint32_t data, uint32_t flag)
{
#if defined(JCCL_HOST_BUILD)
    __atomic_store_n((uint64_t*)w, (uint64_t)flag << 32 | data, __ATOMIC_RELAXED);
#else
    asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" :: "l"(w), "r"(data), "r"(flag) : "memory");
#endif
}

__device__ __forceinline__ void loadLlWord(const uint32_t* w, uint32_t* data, uint32_t* flag)
{
#if defined(JCCL_HOST_BUILD)
    const uint64_t word = __atomic_load_n((const uint64_t*)w, __ATOMIC_RELAXED);
    *data = (uint32_t)word;
    *flag = (uint32_t)(word >> 32);
#else
    uint32_t d, f;
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(d), "=r"(f) : "l"(w) : "memory");
    *data = d;
    *flag = f;
#endif
}

// LL: the flag of a FIFO's slot sequence number: 1..2^31, never 0 (memory no sender wrote)
__device__ __forceinline__ uint32_t llFlag(uint64_t slot)
{
    return (uint32_t)((slot & ((1ull << jccl_wire::LL_FLAG_PERIOD_BITS) - 1)) + 1);
}

// LL: whether the sender of this slot writes all of it. Words past a slot's data keep what an earlier, longer slot
// left, and a flag comes round again every period: for the last turn of the ring before each half period every word
// of every slot is written, so none a receiver polls is older than a period (io.jccl.kernels.LlCodec.llFillsSlot)
__device__ __forceinline__ bool llFillsSlot(uint64_t slot)
{
    constexpr uint64_t HALF = 1ull << (jccl_wire::LL_FLAG_PERIOD_BITS - 1);
    return (slot & (HALF - 1)) >= HALF - SLOTS;
}

__device__ __forceinline__ uint64_t wireSlotBytes(int proto, uint64_t payload)
{
    return proto == PROTO_LL ? payload * 2 : payload;
}

__device__ __forceinline__ uint64_t alignUp(uint64_t x)
{
    return (x + REGION_ALIGN - 1) & ~(REGION_ALIGN - 1);
}

template<typename T, int OP>
__device__ __forceinline__ T reduceElem(T a, bool premulA, T b, bool premulB, jccl_scalar s)
{
    // as HostReducer.reduce: only PreMulSum multiplies (the flags are never set for the other operators)
    if (OP == JCCL_OP_premulsum)
    {
        return jccl_premulsum<T>(a, premulA, b, premulB, s);
    }
    return jccl_reduce<T, OP>(a, b);
}

// ---- SIMPLE data movement over one region ---------------------------------------------------------------------

// one instance per kernel of each span loop: the ops below share them instead of inlining a copy per op. A second
// destination (not null) gets the same result in the same pass: a step that keeps and sends on reads its input once.
template<typename T, int OP>
__device__ __noinline__ void reduceSpan(const T* a, bool premulA, const T* b, bool premulB, T* dst, T* dst2,
    uint64_t n, jccl_scalar s)
{
    jccl_reduce_span<T, OP>(a, premulA, b, premulB, dst, dst2, n, s, threadIdx.x, blockDim.x);
}

template<typename T>
__device__ __noinline__ void scaleSpan(const T* src, T* dst, uint64_t n, jccl_scalar s)
{
    jccl_scale_span<T>(src, dst, n, s, threadIdx.x, blockDim.x);
}

__device__ __noinline__ void copySpan(const void* src, void* dst, void* dst2, uint64_t bytes)
{
    jccl_copy_span(src, dst, dst2, bytes, threadIdx.x, blockDim.x);
}

template<typename T, int OP>
__device__ void simpleRegion(int op, const char* in, const char* src, bool premulSrc, char* dst, bool premulDst,
    char* out, uint64_t bytes, jccl_scalar s)
{
    const uint64_t n = bytes / sizeof(T);
    if (op == SEND || op == COPY)
    {
        char* to = op == SEND ? out : dst;
        if (OP != OPS_NONE && premulSrc)
        {
            scaleSpan<T>((const T*)src, (T*)to, n, s);
        }
        else
        {
            copySpan(src, to, nullptr, bytes);
        }
    }
    else if (op == RECV || op == RECV_COPY_SEND)
    {
        // RECV_COPY_SEND: the slot is read once for both
        copySpan(in, dst, op == RECV_COPY_SEND ? out : nullptr, bytes);
    }
    else if (OP != OPS_NONE)
    {
        // RECV_REDUCE_SEND, RECV_REDUCE_COPY, RECV_REDUCE_COPY_SEND: op(in, src); REDUCE: op(dst, src);
        // RECV_REDUCE_COPY_REVERSED: op(src, in)
        // RECV_REDUCE_COPY_SEND writes dst and the outgoing slot in one pass, not dst and then dst read back
        T* to = (T*)(op == RECV_REDUCE_SEND ? out : dst);
        T* also = op == RECV_REDUCE_COPY_SEND ? (T*)out : nullptr;
        if (op == RECV_REDUCE_COPY_REVERSED)
        {
            reduceSpan<T, (OP < 0 ? 0 : OP)>((const T*)src, premulSrc, (const T*)in, false, to, nullptr, n, s);
        }
        else
        {
            const T* a = (const T*)(op == REDUCE ? dst : in);
            reduceSpan<T, (OP < 0 ? 0 : OP)>(a, op == REDUCE && premulDst, (const T*)src, premulSrc, to, also, n,
                s);
        }
    }
}

// ---- LL data movement over one region: 8 payload bytes per unit, two {data, flag} words on the wire -----------

union Unit
{
    uint64_t u64;
    uint32_t u32[2];
    unsigned char b[8];
};

// A unit moves as one 8-byte word where its address allows, else as two 4-byte words (float and int32 buffers are
// 4-byte aligned at any element offset); only a region's last unit, or 1- and 2-byte types at odd offsets, go byte
// by byte.
__device__ __forceinline__ Unit readUnit(const char* p, uint64_t bytes)
{
    Unit u;
    const uint64_t address = (uint64_t)p;
    if (bytes == 8 && (address & 7) == 0)
    {
        u.u64 = *(const uint64_t*)p;
        return u;
    }
    if (bytes == 8 && (address & 3) == 0)
    {
        u.u32[0] = ((const uint32_t*)p)[0];
        u.u32[1] = ((const uint32_t*)p)[1];
        return u;
    }
    u.u64 = 0;
    for (uint64_t i = 0; i < bytes; i++)
    {
        u.b[i] = (unsigned char)p[i];
    }
    return u;
}

__device__ __forceinline__ void writeUnit(char* p, Unit u, uint64_t bytes)
{
    const uint64_t address = (uint64_t)p;
    if (bytes == 8 && (address & 7) == 0)
    {
        *(uint64_t*)p = u.u64;
        return;
    }
    if (bytes == 8 && (address & 3) == 0)
    {
        ((uint32_t*)p)[0] = u.u32[0];
        ((uint32_t*)p)[1] = u.u32[1];
        return;
    }
    for (uint64_t i = 0; i < bytes; i++)
    {
        p[i] = (char)u.b[i];
    }
}

__device__ __forceinline__ void sendUnit(char* wire, uint64_t unit, Unit u, uint32_t flag)
{
    uint32_t* w = (uint32_t*)(wire + unit * 16);
    storeLlWord(w, u.u32[0], flag);
    storeLlWord(w + 2, u.u32[1], flag);
}

// LL units [from, to) of a slot's wire: the flag and no data
__device__ __forceinline__ void fillUnits(char* wire, uint64_t from, uint64_t to, uint32_t flag)
{
    Unit zero;
    zero.u64 = 0;
    for (uint64_t unit = from + threadIdx.x; unit < to; unit += blockDim.x)
    {
        sendUnit(wire, unit, zero, flag);
    }
}

// returns false when the abort flag was seen while waiting, or the slot turned out to be another call's
__device__ __forceinline__ bool recvUnit(const Launch* L, const char* wire, uint64_t unit, uint32_t flag, Unit* u,
    const char* fifo, uint64_t head)
{
    const uint32_t* w = (const uint32_t*)(wire + unit * 16);
    for (int k = 0; k < 2; k++)
    {
        uint32_t data, f;
        int spins = 0;
        do
        {
            loadLlWord(w + 2 * k, &data, &f);
            if (f != flag && ++spins == 4096)
            {
                spins = 0;
                JCCL_SPIN_PAUSE();
                if (aborted(L) || otherCall(L, fifo, head))
                {
                    return false;
                }
            }
        }
        while (f != flag);
        u->u32[k] = data;
    }
    return true;
}

template<typename T, int OP>
__device__ bool llRegion(const Launch* L, int op, const char* inWire, uint32_t inFlag, const char* src,
    bool premulSrc, char* dst, bool premulDst, char* outWire, uint32_t outFlag, uint64_t bytes, jccl_scalar s,
    const char* recvFifo, uint64_t recvHead)
{
    constexpr uint64_t PER = 8 / sizeof(T);
    const uint64_t units = (bytes + 7) / 8;
    for (uint64_t unit = threadIdx.x; unit < units; unit += blockDim.x)
    {
        const uint64_t off = unit * 8;
        const uint64_t len = bytes - off < 8 ? bytes - off : 8;
        Unit in;
        in.u64 = 0;
        if (op == RECV || op == RECV_COPY_SEND || op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY ||
            op == RECV_REDUCE_COPY_SEND || op == RECV_REDUCE_COPY_REVERSED)
        {
            if (!recvUnit(L, inWire, unit, inFlag, &in, recvFifo, recvHead))
            {
                return false;
            }
        }
        Unit result = in;
        if (op == SEND || op == COPY)
        {
            result = readUnit(src + off, len);
            if (OP != OPS_NONE && premulSrc)
            {
                T* e = (T*)result.b;
                for (uint64_t i = 0; i < len / sizeof(T) && i < PER; i++)
                {
                    e[i] = jccl_premul<T>(e[i], s);
                }
            }
        }
        else if (OP != OPS_NONE && op == RECV_REDUCE_COPY_REVERSED)
        {
            // op(src, in): the local operand first
            Unit a = readUnit(src + off, len);
            T* ea = (T*)a.b;
            const T* eb = (const T*)in.b;
            for (uint64_t i = 0; i < len / sizeof(T) && i < PER; i++)
            {
                ea[i] = reduceElem<T, (OP < 0 ? 0 : OP)>(ea[i], premulSrc, eb[i], false, s);
            }
            result = a;
        }
        else if (OP != OPS_NONE && (op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY ||
            op == RECV_REDUCE_COPY_SEND || op == REDUCE))
        {
            Unit a = op == REDUCE ? readUnit(dst + off, len) : in;
            const Unit b = readUnit(src + off, len);
            T* ea = (T*)a.b;
            const T* eb = (const T*)b.b;
            const bool premulA = op == REDUCE && premulDst;
            for (uint64_t i = 0; i < len / sizeof(T) && i < PER; i++)
            {
                ea[i] = reduceElem<T, (OP < 0 ? 0 : OP)>(ea[i], premulA, eb[i], premulSrc, s);
            }
            result = a;
        }
        if (op == RECV || op == RECV_COPY_SEND || op == RECV_REDUCE_COPY || op == RECV_REDUCE_COPY_SEND ||
            op == COPY || op == REDUCE || op == RECV_REDUCE_COPY_REVERSED)
        {
            writeUnit(dst + off, result, len);
        }
        if (op == SEND || op == RECV_COPY_SEND || op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY_SEND)
        {
            sendUnit(outWire, unit, result, outFlag);
        }
    }
    return true;
}

// ---- the interpreter --------------------------------------------------------------------------------------------

// the rank of the launch set this block runs, and its worker there; constant indices only, so that the parameter is
// read in place rather than copied to local memory
__device__ __forceinline__ const Launch* member(const LaunchSet& set, unsigned int& worker)
{
    uint64_t launch = set.launch[0];
    uint64_t first = 0;
#pragma unroll
    for (int r = 1; r < (int)jccl_wire::LAUNCH_SET_RANKS; r++)
    {
        if ((uint64_t)r < set.count && blockIdx.x >= set.firstBlock[r])
        {
            launch = set.launch[r];
            first = set.firstBlock[r];
        }
    }
    worker = blockIdx.x - (unsigned int)first;
    return (const Launch*)launch;
}

template<int PROTO, typename T, int OP>
__device__ void run(const Launch* L, const Block* blocks, const Block* B);

// One block of the launch: its rank's records, the steps (run stamps the block's entry), and the exit stamp, so that
// a timeout tells a block that never started from one waiting at a step, and how long it ran.
template<int PROTO, typename T, int OP>
__device__ void interpret(const LaunchSet& set)
{
    unsigned int worker0;
    const Launch* L = member(set, worker0);
    const Block* blocks = (const Block*)((const char*)L + sizeof(Launch));
    run<PROTO, T, OP>(L, blocks, blocks + worker0);
    __syncthreads();
    if (threadIdx.x == 0)
    {
        // found again from the parameter, so that nothing stays in a register across the steps
        unsigned int worker1;
        const Block* again = (const Block*)((const char*)member(set, worker1) + sizeof(Launch)) + worker1;
        storeVolatile((uint64_t*)again->clock + 1, JCCL_GLOBALTIMER());
    }
}

template<int PROTO, typename T, int OP>
__device__ void run(const Launch* L, const Block* blocks, const Block* B)
{
    const RankTable* R = (const RankTable*)B->rankTable;
    const int32_t* records = (const int32_t*)B->steps;
    const unsigned char* flags = (const unsigned char*)B->flags;
    const int stepCount = (int)B->stepCount;
    uint64_t* progress = (uint64_t*)B->progress;
    char* sendFifo = (char*)B->sendFifo;
    char* recvFifo = (char*)B->recvFifo;
    const uint64_t elemSize = L->elemSize;
    const uint64_t wireSlot = wireSlotBytes(PROTO, L->payloadBytes);
    jccl_scalar s;
    s.f = L->scalarF;
    s.i = L->scalarI;

    struct Worker
    {
        uint64_t sendTail;                 // slots this worker has published (the FIFO's tail)
        uint64_t recvHead;                 // slots this worker has consumed (the FIFO's head)
        int stop;
    };
    JCCL_SHARED(Worker, worker);
    uint64_t& sendTail = worker.sendTail;
    uint64_t& recvHead = worker.recvHead;
    int& stop = worker.stop;
    if (threadIdx.x == 0)
    {
        storeVolatile((uint64_t*)B->clock, JCCL_GLOBALTIMER());
        sendTail = sendFifo != nullptr ? loadVolatile((const uint64_t*)(sendFifo + FIFO_TAIL)) : 0;
        recvHead = recvFifo != nullptr ? loadVolatile((const uint64_t*)(recvFifo + FIFO_HEAD)) : 0;
        stop = 0;
    }
    __syncthreads();

    for (uint64_t it = 0; it < L->iterations; it++)
    {
        for (int step = 0; step < stepCount; step++)
        {
            const int32_t* rec = records + step * RECORD_WIDTH;
            const int op = rec[jccl_wire::STEP_OPCODE];
            const bool receives = op == RECV || op == RECV_COPY_SEND || op == RECV_REDUCE_SEND ||
                op == RECV_REDUCE_COPY || op == RECV_REDUCE_COPY_SEND || op == RECV_REDUCE_COPY_REVERSED;
            const bool sends = op == SEND || op == RECV_COPY_SEND || op == RECV_REDUCE_SEND ||
                op == RECV_REDUCE_COPY_SEND;
            if (threadIdx.x == 0)
            {
                int spins = 0;
                const int depWorker = rec[jccl_wire::STEP_DEP_WORKER];
                if (depWorker >= 0)
                {
                    const Block* dep = blocks + depWorker;
                    const uint64_t target = it * dep->stepCount + (uint64_t)rec[jccl_wire::STEP_DEP_STEP] + 1;
                    const uint64_t* counter = (const uint64_t*)B->progress + depWorker;
                    while (loadVolatile(counter) < target && !stop)
                    {
                        if (++spins == 1024)
                        {
                            spins = 0;
                            stop = aborted(L);
                            JCCL_SPIN_PAUSE();
                        }
                    }
                }
                if (receives && PROTO == PROTO_SIMPLE)
                {
                    awaitPublished(L, recvFifo, recvHead, stop);
                }
                if (sends)
                {
                    // signed: under LL a receiver passes a slot that carries no bytes without waiting for it, so
                    // its head can run ahead of this tail; unsigned, the difference would wrap and never clear
                    while ((int64_t)(sendTail - loadVolatile((const uint64_t*)(sendFifo + FIFO_HEAD))) >= SLOTS &&
                        !stop)
                    {
                        if (++spins == 1024)
                        {
                            spins = 0;
                            stop = aborted(L);
                            JCCL_SPIN_PAUSE();
                        }
                    }
                }
                __threadfence_system();
            }
            __syncthreads();
            if (stop)
            {
                return;
            }
            if (op != NOP)
            {
                const int srcBuffer = rec[jccl_wire::STEP_SRC_BUFFER];
                const int srcChunk = rec[jccl_wire::STEP_SRC_CHUNK];
                const int dstBuffer = rec[jccl_wire::STEP_DST_BUFFER];
                const int dstChunk = rec[jccl_wire::STEP_DST_CHUNK];
                const int chunkCount = rec[jccl_wire::STEP_CHUNK_COUNT];
                const bool readsSource = op == SEND || op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY ||
                    op == RECV_REDUCE_COPY_SEND || op == COPY || op == REDUCE || op == RECV_REDUCE_COPY_REVERSED;
                const bool writesDestination = op == RECV || op == RECV_COPY_SEND || op == RECV_REDUCE_COPY ||
                    op == RECV_REDUCE_COPY_SEND || op == COPY || op == REDUCE || op == RECV_REDUCE_COPY_REVERSED;
                const bool premulSrc = (flags[step] & jccl_wire::FLAG_PREMUL_SOURCE) != 0;
                const bool premulDst = (flags[step] & jccl_wire::FLAG_PREMUL_DESTINATION) != 0;
                const uint64_t inSlot = recvHead % SLOTS;
                const uint64_t outSlot = sendTail % SLOTS;
                const char* inData = receives ? recvFifo + FIFO_DATA + inSlot * wireSlot : nullptr;
                char* outData = sends ? sendFifo + FIFO_DATA + outSlot * wireSlot : nullptr;
                const uint32_t inFlag = llFlag(recvHead);
                const uint32_t outFlag = llFlag(sendTail);
                const bool fills = PROTO == PROTO_LL && sends && llFillsSlot(sendTail);
                uint64_t offset = 0;
                bool ok = true;
                for (int j = 0; j < chunkCount && ok; j++)
                {
                    const int buffer = readsSource ? srcBuffer : dstBuffer;
                    const int chunk = (readsSource ? srcChunk : dstChunk) + j;
                    const int64_t length = ((const int64_t*)R->length[buffer])[chunk];
                    const int64_t remaining = length - (int64_t)(it * L->pieceCount);
                    const uint64_t n = remaining <= 0 ? 0 :
                        (uint64_t)(remaining < (int64_t)L->pieceCount ? remaining : (int64_t)L->pieceCount);
                    const uint64_t bytes = n * elemSize;
                    const char* src = readsSource ? (const char*)R->base[srcBuffer] +
                        (((const int64_t*)R->start[srcBuffer])[srcChunk + j] + it * L->pieceCount) * elemSize :
                        nullptr;
                    char* dst = writesDestination ? (char*)R->base[dstBuffer] +
                        (((const int64_t*)R->start[dstBuffer])[dstChunk + j] + it * L->pieceCount) * elemSize :
                        nullptr;
                    if (bytes > 0)
                    {
                        if (PROTO == PROTO_SIMPLE)
                        {
                            simpleRegion<T, OP>(op, inData + offset, src, premulSrc, dst, premulDst,
                                outData + offset, bytes, s);
                        }
                        else
                        {
                            ok = llRegion<T, OP>(L, op, inData + 2 * offset, inFlag, src, premulSrc, dst, premulDst,
                                outData + 2 * offset, outFlag, bytes, s, recvFifo, recvHead);
                        }
                    }
                    if (fills)
                    {
                        // the region's padding up to the next region
                        fillUnits(outData + 2 * offset, (bytes + 7) / 8, alignUp(bytes) / 8, outFlag);
                    }
                    offset += alignUp(bytes);
                }
                if (fills && ok)
                {
                    fillUnits(outData, offset / 8, L->payloadBytes / 8, outFlag);
                }
                if (!ok)
                {
                    stop = 1;
                }
                if (threadIdx.x == 0 && receives && PROTO == PROTO_LL && !stop)
                {
                    // LL's data comes without the tail: the slot's header (the call's tag, its length) is checked
                    // once the sender has published the slot whole, as SIMPLE checks it before reading
                    awaitPublished(L, recvFifo, recvHead, stop);
                }
                if (threadIdx.x == 0 && receives && !stop &&
                    loadVolatile((const uint64_t*)(recvFifo + FIFO_HEADERS + inSlot * 16)) != offset)
                {
                    *(volatile uint64_t*)L->errorAddr = ERROR_LENGTH;
                    stop = 1;
                }
                __syncthreads();
                if (stop)
                {
                    if (threadIdx.x == 0)
                    {
                        *(volatile uint32_t*)L->abortAddr = 1;
                    }
                    return;
                }
                if (threadIdx.x == 0 && (sends || receives))
                {
                    // the block's writes of the slot and the output, and its reads of the slot it received, are
                    // ordered before this thread by the barrier; one system-scope fence here, in the posting thread
                    // only, makes them visible before the tail (the peer reads the slot) or the head (the peer
                    // overwrites it) moves, as NCCL's primitives post
                    if (sends)
                    {
                        uint64_t* header = (uint64_t*)(sendFifo + FIFO_HEADERS + outSlot * 16);
                        header[0] = offset;
                        header[1] = L->tag;
                    }
                    __threadfence_system();
                    if (sends)
                    {
                        sendTail = sendTail + 1;
                        storeVolatile((uint64_t*)(sendFifo + FIFO_TAIL), sendTail);
                    }
                    if (receives)
                    {
                        recvHead = recvHead + 1;
                        storeVolatile((uint64_t*)(recvFifo + FIFO_HEAD), recvHead);
                    }
                }
            }
            if (threadIdx.x == 0)
            {
                __threadfence();
                storeVolatile(progress + B->workerIndex, it * (uint64_t)stepCount + (uint64_t)step + 1);
            }
            __syncthreads();
        }
    }
}
} // namespace

#define JCCL_INTERP_OP(proto, protoId, tname, ctype, opname, opId)                                                  \
    extern "C" __global__ void __launch_bounds__(JCCL_INTERP_MAX_THREADS, 1)                                        \
    jccl_interp_##proto##_##tname##_##opname(const LaunchSet set)                                                   \
    {                                                                                                               \
        interpret<protoId, ctype, opId>(set);                                                                       \
    }

// The operators per type and protocol. The preprocessor cannot iterate the shared list inside an expansion of the
// same list, so they are written out here; KernelListTest fails when they and jccl_types.def disagree.
#define JCCL_INTERP_OPS(proto, protoId, tname, ctype)                                                               \
    JCCL_INTERP_OP(proto, protoId, tname, ctype, sum, 0)                                                            \
    JCCL_INTERP_OP(proto, protoId, tname, ctype, prod, 1)                                                           \
    JCCL_INTERP_OP(proto, protoId, tname, ctype, max, 2)                                                            \
    JCCL_INTERP_OP(proto, protoId, tname, ctype, min, 3)                                                            \
    JCCL_INTERP_OP(proto, protoId, tname, ctype, premulsum, 5)

#define JCCL_TYPE(tname, ctype, id) JCCL_INTERP_OPS(simple, 0, tname, ctype) JCCL_INTERP_OPS(ll, 1, tname, ctype)
#include "jccl_types.def"

#define JCCL_PROTO(proto, protoId)                                                                                  \
    extern "C" __global__ void __launch_bounds__(JCCL_INTERP_MAX_THREADS, 1) jccl_interp_##proto##_copy(            \
        const LaunchSet set)                                                                                        \
    {                                                                                                               \
        interpret<protoId, unsigned char, OPS_NONE>(set);                                                           \
    }
#include "jccl_types.def"
