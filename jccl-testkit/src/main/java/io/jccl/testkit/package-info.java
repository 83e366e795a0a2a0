/**
 * The one result oracle of jccl's tests and of the bench's result check: reference collectives in the reduction
 * order each algorithm defines ({@link io.jccl.testkit.ReferenceCollectives}, {@link io.jccl.testkit.ReductionOrder}),
 * element arithmetic on raw bits ({@link io.jccl.testkit.ReferenceArithmetic}) and the narrow floating formats
 * (FLOAT16, BFLOAT16, FP8; {@link io.jccl.testkit.NarrowFloat}).
 * <p>
 * Everything here is written apart from the runtime, so that it catches the runtime's bugs rather than sharing them:
 * it never calls jccl-kernels' reducers or converters. It depends on jccl-api only, and must stay so: jccl-kernels'
 * own tests use it, and a dependency of this module on jccl-kernels would make a Maven cycle.
 * <p>
 * Every class is stateless or immutable, and thread-safe.
 */
package io.jccl.testkit;
