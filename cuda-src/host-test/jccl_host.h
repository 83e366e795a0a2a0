// jccl_host.h: what the CUDA kernels' source needs to compile with g++ and run on the CPU (-DJCCL_HOST_BUILD, which
// interpreter.cu answers by including this first). A launch runs one host thread per CUDA thread of each block
// (interp_host.cpp); this header gives each thread its threadIdx, blockIdx and blockDim, makes __syncthreads a
// barrier of the block's threads (one that exited no longer counts, as on the device), gives each block its own
// shared memory (JCCL_SHARED), makes the fences sequentially consistent fences, and yields the CPU in the kernel's
// spin loops (JCCL_SPIN_PAUSE), since a test machine has far fewer cores than a launch has threads.
//
// Host-only: never compiled to PTX (cuda-src/build-ptx.sh leaves host-test/ out of the PTX's source hash).
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)

struct uint2
{
    uint32_t x, y;
};

struct uint4
{
    uint32_t x, y, z, w;
};

namespace jccl_host
{
struct Dim
{
    unsigned int x;
};

// The threads of one block: a barrier whose count drops as threads exit, and the block's shared memory.
class Block
{
public:
    static constexpr size_t SHARED_BYTES = 256;

    explicit Block(int threads) : expected_(threads)
    {
    }

    void sync()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        const uint64_t generation = generation_;
        if (++arrived_ >= expected_)
        {
            release();
            return;
        }
        changed_.wait(lock, [&] { return generation_ != generation; });
    }

    // a thread returned from the kernel: the barrier stops waiting for it
    void exit()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        expected_--;
        if (arrived_ > 0 && arrived_ >= expected_)
        {
            release();
        }
    }

    void* shared(size_t bytes)
    {
        if (bytes > SHARED_BYTES)
        {
            std::abort();
        }
        return shared_;
    }

private:
    void release()
    {
        arrived_ = 0;
        generation_++;
        changed_.notify_all();
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    int expected_;
    int arrived_ = 0;
    uint64_t generation_ = 0;
    alignas(64) unsigned char shared_[SHARED_BYTES] = {};
};

inline thread_local Dim threadIdx;
inline thread_local Dim blockIdx;
inline thread_local Dim blockDim;
inline thread_local Block* block;
} // namespace jccl_host

using jccl_host::blockDim;
using jccl_host::blockIdx;
using jccl_host::threadIdx;

inline void __syncthreads()
{
    jccl_host::block->sync();
}

inline void __threadfence()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

inline void __threadfence_system()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// a variable of the block's shared memory (one declaration per kernel)
#define JCCL_SHARED(T, name) T& name = *static_cast<T*>(jccl_host::block->shared(sizeof(T)))

#define JCCL_SPIN_PAUSE() sched_yield()

// %globaltimer's stand-in: nanoseconds of CLOCK_MONOTONIC, the clock of Java's System.nanoTime()
#define JCCL_GLOBALTIMER() ((uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(                          \
    std::chrono::steady_clock::now().time_since_epoch()).count())
