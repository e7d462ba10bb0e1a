/* Developer aid, off unless built with cmake -DTALLY_STAGE_TRACE=ON: host-clock stamps at
 * the stages of a CUDA reduce call (TALLY__STAGE(k), k = 0 .. 15; 0 starts a call), whose
 * per-stage medians a traced build writes to stderr at exit (stage_trace.c). Release
 * builds compile every stamp to nothing. A stage's time runs from the latest earlier stage
 * stamped, so with several launches in one call (many slices), stages 7 and 8 of the
 * second include the first's wait. Where a call's 11 us went (docs/DECISIONS.md, "A
 * call's fixed cost"):
 *   1 validation and the backend's check   6 block count, scratch
 *   2 variant, context push                 7 cuLaunchKernel
 *   3 the input's way, pointer checks       8 the wait for the flags
 *   4 parts on the host                     9 finalize
 *   5 the kernel (memo, cache, NVRTC)      10 stream sync (host inputs), 11 context pop */
#ifndef TALLY_STAGE_TRACE_H
#define TALLY_STAGE_TRACE_H
#ifdef TALLY_STAGE_TRACE
void tally__stage(int k);
#define TALLY__STAGE(k) tally__stage(k)
#else
#define TALLY__STAGE(k) ((void)0)
#endif
#endif
