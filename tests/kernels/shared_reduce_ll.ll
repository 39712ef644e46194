; Hand-written LLVM IR (NVPTX): a block sum in shared memory (addrspace(3)) with
; llvm.nvvm.barrier0 (bar.sync 0) between tree steps; tid.x from llvm.nvvm.read.ptx.sreg.tid.x.
;
; shared_reduce_ll(in, out): block b, thread t (blockDim.x must be exactly 256):
;   buf[t] = in[b*256 + t]; barrier;
;   for stride = 128, 64, ..., 1: if t < stride: buf[t] = buf[t] + buf[t + stride]; barrier;
;   if t == 0: out[b] = buf[0].
;   Float adds in exactly this tree order (a CPU reference reproducing it is bit-exact).
; Launch: 1-D, blockDim.x = 256; in has 256 * gridDim.x floats, out gridDim.x floats.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@buf = internal addrspace(3) global [256 x float] undef, align 4

define ptx_kernel void @shared_reduce_ll(ptr addrspace(1) noalias readonly %in,
                                         ptr addrspace(1) noalias %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %b256 = shl i32 %b, 8
  %gi = add i32 %b256, %t
  %gi64 = zext i32 %gi to i64
  %pin = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gi64
  %v = load float, ptr addrspace(1) %pin, align 4
  %t64 = zext i32 %t to i64
  %pbuf = getelementptr inbounds [256 x float], ptr addrspace(3) @buf, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %pbuf, align 4
  call void @llvm.nvvm.barrier0()
  br label %step

step:
  %stride = phi i32 [ 128, %entry ], [ %stride.next, %sync ]
  %active = icmp ult i32 %t, %stride
  br i1 %active, label %add, label %sync

add:
  %o = add i32 %t, %stride
  %o64 = zext i32 %o to i64
  %pother = getelementptr inbounds [256 x float], ptr addrspace(3) @buf, i64 0, i64 %o64
  %mine = load float, ptr addrspace(3) %pbuf, align 4
  %theirs = load float, ptr addrspace(3) %pother, align 4
  %sum = fadd float %mine, %theirs
  store float %sum, ptr addrspace(3) %pbuf, align 4
  br label %sync

sync:
  call void @llvm.nvvm.barrier0()
  %stride.next = lshr i32 %stride, 1
  %again = icmp ne i32 %stride.next, 0
  br i1 %again, label %step, label %tail

tail:
  %first = icmp eq i32 %t, 0
  br i1 %first, label %write, label %done

write:
  %res = load float, ptr addrspace(3) @buf, align 4
  %b64 = zext i32 %b to i64
  %pout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %b64
  store float %res, ptr addrspace(1) %pout, align 4
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
