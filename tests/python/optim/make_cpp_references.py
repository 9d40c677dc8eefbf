"""Prints the torch 1.13 numbers that tests/cpp/optim/*.cpp paste, from the same inputs.

Run with Debian's torch: /usr/bin/python3 tests/python/optim/make_cpp_references.py
Each block is named after the C++ constant it fills.
"""
import torch

S = torch.optim.lr_scheduler


def params(dtype=torch.float32):
    w = torch.tensor([0.5, -1.25, 2.0], dtype=dtype, requires_grad=True)
    b = torch.tensor([[0.1, -0.2, 0.3], [1.5, -0.75, 0.05]], dtype=dtype, requires_grad=True)
    return w, b


def set_grads(w, b, s):
    # The C++ tests compute the same gradients: w * 0.7 - 0.05 (s + 1), b * -0.4 + 0.02 (s + 1).
    w.grad = w.detach() * 0.7 + (-0.05) * (s + 1)
    b.grad = b.detach() * -0.4 + 0.02 * (s + 1)


def fmt(xs):
    return "{" + ", ".join(repr(float(x)) for x in xs) + "}"


def run(name, make, steps=5, dtype=torch.float32):
    w, b = params(dtype)
    opt = make(w, b)
    rows = []
    for s in range(steps):
        set_grads(w, b, s)
        opt.step()
        rows.append(w.detach().flatten().tolist() + b.detach().flatten().tolist())
    print(f"// {name}: w then b after each step")
    print(f"const std::vector<std::vector<double>> {name} = {{")
    for r in rows:
        print("    " + fmt(r) + ",")
    print("};")


def lrs(name, make_opt, make_sched, steps, momentum=False):
    opt = make_opt()
    sched = make_sched(opt)
    rows = [list(sched.get_last_lr())]
    moms = [[g["momentum"] if "momentum" in g else g["betas"][0] for g in opt.param_groups]]
    for _ in range(steps):
        opt.step()
        sched.step()
        rows.append(list(sched.get_last_lr()))
        moms.append([g["momentum"] if "momentum" in g else g["betas"][0] for g in opt.param_groups])
    print(f"// {name}: get_last_lr() after construction and after each step()")
    print(f"const std::vector<std::vector<double>> {name} = {{")
    for r in rows:
        print("    " + fmt(r) + ",")
    print("};")
    if momentum:
        print(f"const std::vector<std::vector<double>> {name}_momentum = {{")
        for r in moms:
            print("    " + fmt(r) + ",")
        print("};")


def main():
    run("kSGDNesterov", lambda w, b: torch.optim.SGD(
        [{"params": [w]}, {"params": [b], "lr": 0.02, "nesterov": False, "dampening": 0.25, "maximize": True}],
        lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01))
    run("kSGDFloat64", lambda w, b: torch.optim.SGD(
        [w, b], lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.05), steps=4, dtype=torch.float64)
    run("kAdam", lambda w, b: torch.optim.Adam(
        [{"params": [w]}, {"params": [b], "lr": 0.01, "betas": (0.5, 0.9), "amsgrad": True,
                           "weight_decay": 0.1, "maximize": True}], lr=0.05))
    run("kAdamW", lambda w, b: torch.optim.AdamW(
        [{"params": [w]}, {"params": [b], "amsgrad": True, "eps": 1e-3}], lr=0.05, weight_decay=0.1))

    def sgd():
        w, b = params()
        return torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.02}], lr=0.1, momentum=0.9)

    def adam():
        w, b = params()
        return torch.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.02}], lr=0.1)

    lrs("kStepLR", sgd, lambda o: S.StepLR(o, 3, 0.5), 10)
    lrs("kMultiStepLR", sgd, lambda o: S.MultiStepLR(o, [5, 2, 2], 0.3), 8)
    lrs("kCosine", sgd, lambda o: S.CosineAnnealingLR(o, 10, 0.001), 35)
    lrs("kLambda", sgd, lambda o: S.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e]), 6)
    lrs("kOneCycleCos", sgd, lambda o: S.OneCycleLR(o, 1.0, total_steps=10), 10, momentum=True)
    lrs("kOneCycleLinear3", adam, lambda o: S.OneCycleLR(
        o, [0.5, 0.2], epochs=2, steps_per_epoch=5, pct_start=0.25, anneal_strategy="linear",
        three_phase=True, div_factor=10.0, final_div_factor=100.0, base_momentum=0.8,
        max_momentum=[0.9, 0.95]), 10, momentum=True)

    # closed form (deprecated step(epoch))
    o = sgd()
    s = S.CosineAnnealingLR(o, 10, 0.001)
    print("// kCosineClosed: step(epoch) for epoch 3, 17, 25")
    out = []
    for e in (3, 17, 25):
        s.step(e)
        out.append(s.get_last_lr()[0])
    print("const std::vector<double> kCosineClosed = " + fmt(out) + ";")

    # repr and state_dict layout
    w, b = params()
    o = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.02}], lr=0.1, momentum=0.9)
    print("// repr:", repr(repr(o)))
    o = torch.optim.Adam([w], lr=0.1)
    print("// repr:", repr(repr(o)))


if __name__ == "__main__":
    main()
