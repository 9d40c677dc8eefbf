# Generates tests/cpp/ops/normpool_expected.h: torch 1.13 values for inputs wave(shape).
import torch, math, torch.nn.functional as F
torch.set_default_dtype(torch.float64)
def wave(shape, k=0.37, b=0.1, a=3.0):
    n = math.prod(shape)
    return torch.tensor([math.sin(k*i+b)*a for i in range(n)]).reshape(shape)
def gwave(shape): return wave(shape, 0.23, 0.4, 1.0)
out = []
def emit(name, t):
    v = t.detach().reshape(-1).tolist()
    out.append(f"const std::vector<double> {name} = {{" + ", ".join(repr(float(x)) for x in v) + "};")
def grads(name, fn, *xs):
    xs = [x.clone().requires_grad_(True) for x in xs]
    y = fn(*xs)
    y.backward(gwave(y.shape))
    emit(name + "_out", y)
    for i, x in enumerate(xs): emit(f"{name}_g{i}", x.grad)
# batch norm training
x = wave([2,3,4,5]); w = wave([3],0.9,0.3,1.0)+1.5; b = wave([3],0.5,0.2,1.0)
rm = wave([3],1.1,0.0,0.5); rv = wave([3],0.7,0.0,0.3)+1.0
rm1, rv1 = rm.clone(), rv.clone()
grads("bn_train", lambda x,w,b: torch.batch_norm(x,w,b,rm1,rv1,True,0.1,1e-5,False), x, w, b)
emit("bn_train_rm", rm1); emit("bn_train_rv", rv1)
o = torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
emit("bn_save_mean", o[1]); emit("bn_save_invstd", o[2])
grads("bn_eval", lambda x,w,b: torch.batch_norm(x,w,b,rm,rv,False,0.1,1e-5,False), x, w, b)
# group norm
xg = wave([2,6,3,3]); wg = wave([6],0.9,0.3,1.0)+1.5; bg = wave([6],0.5,0.2,1.0)
grads("gn", lambda x,w,b: F.group_norm(x,3,w,b,1e-5), xg, wg, bg)
# pooling
xp = wave([2,2,7,7])
grads("maxpool", lambda x: F.max_pool2d(x,3,2,1), xp)
emit("maxpool_idx", F.max_pool2d(xp,3,2,1,return_indices=True)[1])
grads("maxpool_dil", lambda x: F.max_pool2d(x,[3,2],[2,1],[1,0],[2,1],ceil_mode=True), xp)
emit("maxpool_dil_idx", F.max_pool2d(xp,[3,2],[2,1],[1,0],[2,1],ceil_mode=True,return_indices=True)[1])
grads("avgpool", lambda x: F.avg_pool2d(x,3,2,1), xp)
grads("avgpool_ceil", lambda x: F.avg_pool2d(x,3,2,1,ceil_mode=True,count_include_pad=False), xp)
grads("avgpool_div", lambda x: F.avg_pool2d(x,[2,3],[2,2],[1,1],ceil_mode=True,divisor_override=5), xp)
xa = wave([2,2,7,5])
grads("aavg", lambda x: F.adaptive_avg_pool2d(x,[3,2]), xa)
grads("amax", lambda x: F.adaptive_max_pool2d(x,[3,2]), xa)
emit("amax_idx", F.adaptive_max_pool2d(xa,[3,2],return_indices=True)[1])
# pad
xq = wave([1,2,3,4])
grads("pad_reflect", lambda x: F.pad(x,[2,1,1,2],mode='reflect'), xq)
grads("pad_replicate", lambda x: F.pad(x,[3,-1,2,0],mode='replicate'), xq)
grads("pad_constant", lambda x: F.pad(x,[1,-2,2,1],value=0.5), xq)
grads("pad_reflect1d", lambda x: F.pad(x,[2,3],mode='reflect'), wave([2,5]))
grads("pad_replicate1d", lambda x: F.pad(x,[2,3],mode='replicate'), wave([2,2,5]))
# interpolate
xi = wave([1,2,3,4])
grads("near_scale", lambda x: F.interpolate(x, scale_factor=2.0, mode='nearest'), xi)
grads("near_size", lambda x: F.interpolate(x, size=(5,7), mode='nearest'), xi)
grads("near_frac", lambda x: F.interpolate(x, scale_factor=1.7, mode='nearest'), xi)
grads("bil", lambda x: F.interpolate(x, size=(5,7), mode='bilinear', align_corners=False), xi)
grads("bil_ac", lambda x: F.interpolate(x, size=(5,7), mode='bilinear', align_corners=True), xi)
grads("bil_scale", lambda x: F.interpolate(x, scale_factor=1.5, mode='bilinear'), xi)
grads("bil_down", lambda x: F.interpolate(x, size=(2,3), mode='bilinear'), xi)
with open("/work/wt/normpool/tests/cpp/ops/normpool_expected.h","w") as f:
    f.write("// Generated from torch 1.13 (Debian's python3-torch) by the script in the header of\n// test_normalization.cpp: inputs are wave(shape) = 3 sin(0.37 i + 0.1), output gradients\n// gwave = sin(0.23 i + 0.4). Do not edit by hand.\n#pragma once\n\n#include <vector>\n\nnamespace ember::normpool_expected {\n\n")
    for line in out: f.write(line + "\n")
    f.write("\n}  // namespace ember::normpool_expected\n")
