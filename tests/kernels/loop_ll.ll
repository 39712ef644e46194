; Hand-written LLVM IR (NVPTX): a counted loop with phi nodes, marked as a kernel through
; !nvvm.annotations (the older way; llc-19 still honours it).
;
; loop_ll(out, n): each thread t = tid.x (block-local) computes
;   s = 0; for k in 0..n-1: s = s + (k * t + 1)   (wrapping int32, loop runs n times, n may be 0)
;   out[ctaid.x * ntid.x + t] = s.
;   Closed form: s = n + t * n * (n - 1) / 2 (mod 2^32).
; Launch: 1-D; out has one element per launched thread.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @loop_ll(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %exit

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %kt = mul i32 %k, %tid
  %term = add i32 %kt, 1
  %s.next = add i32 %s, %term
  %k.next = add nuw nsw i32 %k, 1
  %more = icmp slt i32 %k.next, %n
  br i1 %more, label %loop, label %exit, !llvm.loop !1

exit:
  %res = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %base = mul i32 %ctaid, %ntid
  %g = add i32 %base, %tid
  %gi = zext i32 %g to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gi
  store i32 %res, ptr addrspace(1) %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @loop_ll, !"kernel", i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
