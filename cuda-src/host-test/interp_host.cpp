// interp_host.cpp: the interpreter kernel's own source (../interpreter.cu) built for the CPU, launched over JNI by
// io.jccl.kernels.cuda.HostBuiltInterpreter for the device double (EmulatedCuda), so that tests without a GPU run
// the kernel the GPU runs. Built as a shared library:
//
//   g++ -std=c++17 -O2 -fPIC -shared -pthread -ffp-contract=off -fno-strict-aliasing -DJCCL_HOST_BUILD
//       -I<jdk>/include -I<jdk>/include/linux interp_host.cpp -o libjccl_interp_host.so
//
// A launch starts blocks x threads host threads at once, each running the kernel function with its own threadIdx,
// blockIdx and blockDim (jccl_host.h); the double polls done() and then join()s. Every kernel reads and writes the
// memory of the launch records' addresses in this process, as the double's device memory is.
#include "../interpreter.cu"

#include <jni.h>

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace
{
using Kernel = void (*)(const LaunchSet);

struct Entry
{
    const char* name;
    Kernel kernel;
};

// every kernel interpreter.cu defines, from the same lists
#undef JCCL_INTERP_OP
#define JCCL_INTERP_OP(proto, protoId, tname, ctype, opname, opId)                                                  \
    {"jccl_interp_" #proto "_" #tname "_" #opname, &jccl_interp_##proto##_##tname##_##opname},

const Entry KERNELS[] = {
#define JCCL_TYPE(tname, ctype, id) JCCL_INTERP_OPS(simple, 0, tname, ctype) JCCL_INTERP_OPS(ll, 1, tname, ctype)
#include "../jccl_types.def"
#define JCCL_PROTO(proto, protoId) {"jccl_interp_" #proto "_copy", &jccl_interp_##proto##_copy},
#include "../jccl_types.def"
};

struct Run
{
    std::vector<std::unique_ptr<jccl_host::Block>> blocks;
    std::vector<std::thread> threads;
    std::atomic<int> running{0};
};

Kernel find(const char* name)
{
    for (const Entry& entry : KERNELS)
    {
        if (std::strcmp(entry.name, name) == 0)
        {
            return entry.kernel;
        }
    }
    return nullptr;
}
} // namespace

// Starts the kernel with its parameter, the launch set's uint64 fields; returns the run, 0 when no kernel has that
// name or the set is not one.
extern "C" JNIEXPORT jlong JNICALL Java_io_jccl_kernels_cuda_HostBuiltInterpreter_start0(JNIEnv* env, jclass,
    jstring jname, jlongArray jset, jint blocks, jint threads)
{
    const char* name = env->GetStringUTFChars(jname, nullptr);
    const Kernel kernel = find(name);
    env->ReleaseStringUTFChars(jname, name);
    LaunchSet set;
    if (kernel == nullptr || env->GetArrayLength(jset) * sizeof(jlong) != sizeof(LaunchSet))
    {
        return 0;
    }
    env->GetLongArrayRegion(jset, 0, (jsize)(sizeof(LaunchSet) / sizeof(jlong)), (jlong*)&set);
    Run* run = new Run();
    run->running.store(blocks * threads, std::memory_order_release);
    for (int b = 0; b < blocks; b++)
    {
        run->blocks.push_back(std::make_unique<jccl_host::Block>(threads));
    }
    for (int b = 0; b < blocks; b++)
    {
        for (int t = 0; t < threads; t++)
        {
            jccl_host::Block* block = run->blocks[b].get();
            run->threads.emplace_back([=]
            {
                jccl_host::threadIdx.x = (unsigned int)t;
                jccl_host::blockIdx.x = (unsigned int)b;
                jccl_host::blockDim.x = (unsigned int)threads;
                jccl_host::block = block;
                kernel(set);
                block->exit();
                run->running.fetch_sub(1, std::memory_order_acq_rel);
            });
        }
    }
    return (jlong)run;
}

// Whether every thread of the run has returned (its writes are then visible to the caller).
extern "C" JNIEXPORT jboolean JNICALL Java_io_jccl_kernels_cuda_HostBuiltInterpreter_done0(JNIEnv*, jclass,
    jlong handle)
{
    return ((Run*)handle)->running.load(std::memory_order_acquire) == 0 ? JNI_TRUE : JNI_FALSE;
}

// Waits for the run's threads and frees it.
extern "C" JNIEXPORT void JNICALL Java_io_jccl_kernels_cuda_HostBuiltInterpreter_join0(JNIEnv*, jclass, jlong handle)
{
    Run* run = (Run*)handle;
    for (std::thread& thread : run->threads)
    {
        thread.join();
    }
    delete run;
}
