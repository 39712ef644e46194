; Hand-written LLVM IR (NVPTX): saxpy with a bounds check, marked as a kernel by the ptx_kernel
; calling convention. Exercises llc-19's PTX (PTX 7.8 for sm_90): sreg intrinsics, ld.global.nc
; from a noalias readonly argument, fma.rn.f32.
;
; saxpy_ll(x, y, a, n): i = ctaid.x * ntid.x + tid.x; if i < n (signed): y[i] = fma(a, x[i], y[i]).
; Launch: 1-D, enough threads to cover n; threads with i >= n do nothing.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @saxpy_ll(ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias %y,
                                 float %a, i32 %n) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %body, label %done

body:
  %idx = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %idx
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %idx
  %vx = load float, ptr addrspace(1) %px, align 4
  %vy = load float, ptr addrspace(1) %py, align 4
  %r = call float @llvm.fma.f32(float %a, float %vx, float %vy)
  store float %r, ptr addrspace(1) %py, align 4
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.fma.f32(float, float, float)
