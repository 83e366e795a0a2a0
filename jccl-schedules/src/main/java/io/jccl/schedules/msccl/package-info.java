/**
 * MSCCL XML, the schedule format that SyCCL, TACCL, TE-CCL and msccl-tools emit (see
 * {@code shared/schedules/MSCCL-XML.md}): {@link io.jccl.schedules.msccl.MscclReader} parses a file into a
 * {@link io.jccl.schedules.Program} with its metadata ({@link io.jccl.schedules.msccl.MscclSchedule}),
 * {@link io.jccl.schedules.msccl.MscclValidator} checks its structure (bounds, dependencies, connections, queue
 * matching, deadlock freedom, and in strict mode what MSCCL's C executors would refuse),
 * {@link io.jccl.schedules.msccl.MscclSemanticCheck} evaluates it on symbols and says whether it computes the
 * collective it declares, and {@link io.jccl.schedules.msccl.MscclWriter} writes any Program back out in the
 * current dialect.
 * <p>
 * Pure logic: no threads, no I/O but reading and writing files. Every class is stateless or immutable and may be
 * used from any thread. Every problem found carries its line and element path; a parser or checker collects all of
 * them and throws once ({@link io.jccl.schedules.msccl.MscclFormatException}).
 */
package io.jccl.schedules.msccl;
