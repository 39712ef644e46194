// PTX text of the hold kernel (assembled by ptxas in tests/measure to keep it valid).
#include "HoldKernel.h"

namespace measure {

const char *holdKernelPtx() {
  return R"(//
// ptxcast-measure hold kernel: spin on a host-mapped flag, bounded by a timeout.
.version 6.0
.target sm_50
.address_size 64

.visible .entry ptxcast_hold(
	.param .u64 ptxcast_hold_param_0,
	.param .u64 ptxcast_hold_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [ptxcast_hold_param_0];
	ld.param.u64 	%rd2, [ptxcast_hold_param_1];
	mov.u64 	%rd3, %globaltimer;
$L_spin:
	ld.volatile.global.u32 	%r1, [%rd1];
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L_done;
	mov.u64 	%rd4, %globaltimer;
	sub.s64 	%rd5, %rd4, %rd3;
	setp.lt.u64 	%p2, %rd5, %rd2;
	@%p2 bra 	$L_spin;
	mov.u32 	%r2, 1;
	st.volatile.global.u32 	[%rd1+4], %r2;
$L_done:
	ret;
}
)";
}

} // namespace measure
