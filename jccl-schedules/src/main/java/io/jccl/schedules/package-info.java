/**
 * The Program IR (workers of flat step records over chunked buffers) and its generators (ring, tree, direct). Pure
 * logic: no threads, no I/O; Programs are immutable and may be shared between threads.
 */
package io.jccl.schedules;
