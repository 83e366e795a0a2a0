// How long one cache line takes to pass between two CPUs of this machine: two threads, pinned to CPU A and CPU B,
// take turns incrementing a counter in one line. Prints the median over batches of the time per handoff, in ns.
// On these 2-vCPU virtual machines the host places the two vCPUs either on cores that share a cache (about 40-70 ns
// a handoff) or apart (180-240 ns), and may move them while a job runs: any small-message latency below a few
// handoffs follows. bench/procs-compare.sh runs this around every measurement so that its table says which case
// each round met. Usage: handoff-probe [CPU_A CPU_B]   (default 0 1)
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCHES 15
#define TURNS 20000

static _Alignas(64) _Atomic long line;

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    {
        fprintf(stderr, "handoff-probe: cannot bind to CPU %d\n", cpu);
        exit(2);
    }
}

// Moves the counter from `first` (odd turns on the other thread) until `last`.
static void take_turns(long first, long last)
{
    for (long next = first; next <= last; next += 2)
    {
        while (atomic_load_explicit(&line, memory_order_acquire) != next - 1)
        {
        }
        atomic_store_explicit(&line, next, memory_order_release);
    }
}

static void *other(void *arg)
{
    pin(*(int *)arg);
    take_turns(2, 2L * BATCHES * TURNS);
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int a = argc > 2 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t thread;
    double ns[BATCHES];
    pin(a);
    pthread_create(&thread, NULL, other, &b);
    for (int i = 0; i < BATCHES; i++)
    {
        struct timespec start, end;
        const long base = 2L * i * TURNS;
        clock_gettime(CLOCK_MONOTONIC, &start);
        take_turns(base + 1, base + 2L * TURNS - 1);
        // the other thread's last turn of the batch
        while (atomic_load_explicit(&line, memory_order_acquire) != base + 2L * TURNS)
        {
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        ns[i] = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / (2.0 * TURNS);
    }
    pthread_join(thread, NULL);
    qsort(ns, BATCHES, sizeof ns[0], by_value);
    printf("%.0f\n", ns[BATCHES / 2]);
    return 0;
}
